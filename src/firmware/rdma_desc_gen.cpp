// rdma_desc_gen (ExtendedInst 8): build, for each selected engine, the descriptor rings of a
// peer-to-peer transfer plus the LOCAL and REMOTE semaphore descriptors. [HIGH] spec §2.1, §5;
// the split and counts [CHOICE D4, D5, D6], roles [CHOICE D22a]. Log lines: spec §3.
#include "firmware/log_formats.h"
#include "firmware/pool_firmware.h"

namespace sbrdma::firmware {
namespace {

using ull = unsigned long long;  // NOLINT(google-runtime-int): the firmware prints %llx

}  // namespace

base::Task<base::Status> PoolFirmware::rdma_desc_gen(isa::RdmaDescGen g) {
  if (!layout_) {
    co_return base::make_error("rdma_desc_gen: the RDMA rings are not initialised (no ring_init)");
  }
  auto plan = plan_gen(g, map_, id_);
  if (!plan) co_return plan.error();
  // 1. RX builds the S2M halves, 2. TX the M2S halves. On the device the two Q7 cores work at
  //    the same time; here they run in turn, which changes nothing they share. [CHOICE D22a]
  gen_role(Role::kRx, *plan);
  gen_role(Role::kTx, *plan);
  if (unstarted_) {
    ++unstarted_->gens;
  } else {
    unstarted_ = UnstartedGens{pc_, 1};
  }
  // 3. Charge the Q7 time once: each role built the same number of descriptors, in parallel.
  unsigned per_role = 0;
  for (unsigned e = 0; e < kRdmaEngines; ++e) per_role += plan->descs_for_engine(e);
  co_await env_.delay(Q7Work::kDescGen, base::Tick{cfg_.desc_gen_cost.ps * per_role});
  co_return base::ok_status();
}

void PoolFirmware::log_gen_header(Role role, const GenPlan& plan) {
  if (!env_.debug_enabled()) return;
  const int p = static_cast<int>(prid_of(role));
  const char* tok = role_token(role);
  const int n = static_cast<int>(plan.n_active());
  const base::SocAddr src0 = gen_src_addr(plan, map_, id_.tpb, 0, 0);
  const base::SocAddr dst0 = gen_dst_local_addr(plan, map_, 0, 0);
  debug(render(log_fmt::kGenStart, p, tok, p));
  debug(render(log_fmt::kGenInputs, p, tok, static_cast<int>(cfg_.ring_num),
               static_cast<int>(id_.tpb), static_cast<int>(plan.free_dim_bytes),
               static_cast<int>(plan.peer_core), static_cast<int>(plan.peer.chip), plan.mask));
  debug(render(log_fmt::kGenMask, p, tok, plan.mask, n));
  debug(render(log_fmt::kGenAddrs, p, tok, static_cast<ull>(src0.v), static_cast<ull>(dst0.v)));
  debug(render(log_fmt::kGenFolded, p, tok, static_cast<int>(plan.peer.chip),
               static_cast<ull>(fold_for_peer(plan, dst0).v), n));
}

void PoolFirmware::gen_role(Role role, const GenPlan& plan) {
  const bool tx = role == Role::kTx;
  const bool dbg = env_.debug_enabled();
  const int p = static_cast<int>(prid_of(role));
  const char* tok = role_token(role);
  const int n = static_cast<int>(plan.n_active());
  DescriptorStream& stream = streams_[index(role)];
  log_gen_header(role, plan);

  // 1. Record what this request should add to each ring. [CHOICE D6]
  for (unsigned e = 0; e < kRdmaEngines; ++e) stream.expect(e, plan.descs_for_engine(e));

  // 2. Data: iteration i moves partition i of each active engine's block, chunk by chunk.
  //    TX reads the local SBUF (M2S), RX writes the peer's SBUF (S2M). [CHOICE D4, D21]
  const unsigned ppe = plan.partitions_per_engine;
  if (dbg) {
    debug(render(log_fmt::kGenLoop, p, tok, static_cast<int>(ppe),
                 static_cast<int>(plan.data_descs_per_engine())));
    for (std::size_t i = 0; i < ppe; ++i) {
      const unsigned part = static_cast<unsigned>(i);
      const base::SocAddr base =
          tx ? gen_src_addr(plan, map_, id_.tpb, part, 0) : gen_dst_addr(plan, map_, part, 0);
      debug(render(log_fmt::kGenLoopIter, p, tok, i, static_cast<int>(ppe),
                   static_cast<ull>(base.v), n, static_cast<int>(plan.free_dim_bytes)));
    }
  }
  // The data descriptors differ only in their address (a step from the first one) and, for a
  // short last chunk, their length: built once, addressed per chunk.
  const unsigned chunks = plan.chunks_per_partition;
  const auto data_desc = [&](base::SocAddr a, std::uint32_t bytes) {
    return tx ? m2s_descriptor(a, bytes) : s2m_descriptor(a, bytes);
  };
  base::SocAddr first{0};
  soc::UdmaDescriptor full{};
  soc::UdmaDescriptor last{};
  if (chunks > 0) {
    first = tx ? gen_src_addr(plan, map_, id_.tpb, 0, 0) : gen_dst_addr(plan, map_, 0, 0);
    last = data_desc(first, plan.chunk_bytes(chunks - 1));
    full = chunks > 1 ? data_desc(first, plan.chunk_bytes(0)) : last;
  }
  // Engine by engine (each ring gets its partitions in the same order as iteration by
  // iteration would give it; the rings are independent): one chunk per partition is one
  // stepped run.
  for (unsigned k = 0; k < plan.n_active(); ++k) {
    const unsigned engine = plan.active[k];
    const unsigned part0 = plan.first_partition(k);
    if (chunks == 1) {
      soc::UdmaDescriptor d = last;
      d.buf_ptr = gen_step_addr(first, map_, part0, 0).v;
      const std::uint64_t step = gen_step_addr(first, map_, 1, 0).v - first.v;
      stream.push_stepped(engine, d, step, ppe);
      continue;
    }
    for (unsigned i = 0; i < ppe; ++i) {
      for (unsigned c = 0; c < chunks; ++c) {
        soc::UdmaDescriptor d = c + 1 < chunks ? full : last;
        d.buf_ptr = gen_step_addr(first, map_, part0 + i, c).v;
        stream.push(engine, d);
      }
    }
  }

  // 3. The swizzle (identity unless configured, logged only) and the per-engine views of
  //    the peer SBUF: engine e's first destination, 0 for an inactive engine. [CHOICE D4, D22c]
  if (dbg) {
    const auto& z = cfg_.sbuf_swizzle;
    debug(render(log_fmt::kGenSwizzle, p, unsigned{z[0]}, unsigned{z[1]}, unsigned{z[2]},
                 unsigned{z[3]}, unsigned{z[4]}, unsigned{z[5]}, unsigned{z[6]}, unsigned{z[7]},
                 unsigned{z[8]}, unsigned{z[9]}, unsigned{z[10]}, unsigned{z[11]}, unsigned{z[12]},
                 unsigned{z[13]}, unsigned{z[14]}, unsigned{z[15]}));
    std::array<base::SocAddr, kRdmaEngines> xt{};
    for (unsigned k = 0; k < plan.n_active(); ++k) {
      xt[plan.active[k]] = gen_dst_addr(plan, map_, plan.first_partition(k), 0);
    }
    debug(render(log_fmt::kGenXtAddrs, p, hi32(xt[0]), lo32(xt[0]), hi32(xt[1]), lo32(xt[1]),
                 hi32(xt[2]), lo32(xt[2]), hi32(xt[3]), lo32(xt[3]), hi32(xt[4]), lo32(xt[4]),
                 hi32(xt[5]), lo32(xt[5]), hi32(xt[6]), lo32(xt[6]), hi32(xt[7]), lo32(xt[7]),
                 hi32(xt[8]), lo32(xt[8]), hi32(xt[9]), lo32(xt[9]), hi32(xt[10]), lo32(xt[10]),
                 hi32(xt[11]), lo32(xt[11]), hi32(xt[12]), lo32(xt[12]), hi32(xt[13]), lo32(xt[13]),
                 hi32(xt[14]), lo32(xt[14]), hi32(xt[15]), lo32(xt[15])));
  }

  // 4. REMOTE semaphore: each active engine increments remote_sem on the peer, routed like
  //    the data; the M2S half reads the one word. [CHOICE D5, D21]
  const base::SocAddr one = layout_->one_word();
  if (dbg) {
    debug(render(log_fmt::kGenRemoteSem, p, tok, static_cast<int>(plan.peer_core),
                 static_cast<int>(plan.peer.chip), static_cast<int>(plan.remote_sem)));
  }
  const base::SocAddr remote = gen_remote_sem_addr(plan, map_);
  for (const unsigned e : plan.active) {
    stream.push(
        e, tx ? m2s_descriptor(one, soc::kSemaDescLen) : s2m_descriptor(remote, soc::kSemaDescLen));
  }

  // 5. LOCAL semaphore on all 16 engines: local_sem of this core ends +16. [CHOICE D5]
  if (dbg) {
    debug(render(log_fmt::kGenLocalSem, p, tok, static_cast<int>(id_.tpb),
                 static_cast<int>(plan.local_sem)));
  }
  const base::SocAddr local = gen_local_sem_addr(plan, map_, id_.tpb);
  for (unsigned e = 0; e < kRdmaEngines; ++e) {
    stream.push(
        e, tx ? m2s_descriptor(one, soc::kSemaDescLen) : s2m_descriptor(local, soc::kSemaDescLen));
  }

  // 6. Hand the staged descriptors to the bus (posted writes into DGE memory).
  if (env_.wants_origins()) {
    stream.flush(env_.bus(), [&](unsigned e, unsigned slot, unsigned count, base::SocAddr at) {
      env_.ring_written(role, e, slot, count, at, pc_);
    });
  } else {
    stream.flush(env_.bus());
  }
  if (dbg) debug(render(log_fmt::kGenEnd, p, tok));
}

}  // namespace sbrdma::firmware
