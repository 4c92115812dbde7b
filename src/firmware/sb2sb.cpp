// The SB2SB leg (0xBF): decode -> pre-sync -> rdma_desc_gen -> rdma_desc_start -> both
// directions done. [HIGH] wiki-facts §6.1-6.3 (the leg and its pre-sync); the mechanism
// [CHOICE D24].
#include "firmware/sb2sb.h"

#include <fmt/format.h>

#include "firmware/log_formats.h"
#include "firmware/pool_firmware.h"
#include "isa/validate.h"

namespace sbrdma::firmware {
namespace {

base::Error sb2sb_error(std::string message) {
  return base::make_error("sb2sb_collective: " + std::move(message));
}

/// Elements of a contiguous pattern, or an error naming the dimension that breaks it.
base::Result<std::uint64_t> contiguous_elements(const isa::Tensor3d& t, std::string_view name) {
  std::uint64_t span = 1;  // elements covered by the dimensions so far
  for (unsigned d = 0; d < 3; ++d) {
    if (t.num_elem[d] > 1 && t.step_elem[d] != static_cast<std::int64_t>(span)) {
      return sb2sb_error(fmt::format(
          "{} is not contiguous: dimension {} steps by {} elements, expected {} (the RDMA "
          "transport moves one contiguous span per partition)",
          name, d, t.step_elem[d], span));
    }
    span *= t.num_elem[d];
  }
  return span;
}

/// The byte offset inside each partition where a pattern starts (partition 0 only).
base::Result<std::uint32_t> start_byte(const isa::Addr4& a, std::string_view name,
                                       const soc::Profile& p) {
  if (!a.is_immediate()) {
    return sb2sb_error(
        fmt::format("{}.start_addr is a register form; only an immediate "
                    "partition offset can be lowered",
                    name));
  }
  const std::uint64_t partition = a.value / p.partition_stride.n;
  if (partition != 0) {
    return sb2sb_error(
        fmt::format("{}.start_addr 0x{:x} starts at partition {}; the RDMA "
                    "transport moves partitions 0..{}",
                    name, a.value, partition, p.sbuf_partitions - 1));
  }
  return static_cast<std::uint32_t>(a.value % p.partition_stride.n);
}

}  // namespace

unsigned dtype_bytes(isa::Dtype d) {
  using D = isa::Dtype;
  switch (d) {  // [HIGH] wiki-facts §1.10 (DTYPE names give the widths)
    case D::kInt8:
    case D::kUint8:
    case D::kFp8Exp3:
    case D::kFp8Exp4:
    case D::kFp8Exp5:
      return 1;
    case D::kInt16:
    case D::kUint16:
    case D::kBfloat16:
    case D::kFp16:
      return 2;
    case D::kInt32:
    case D::kUint32:
    case D::kFp32:
    case D::kFp32r:
      return 4;
    case D::kUint64:
    case D::kInt64:
      return 8;
    case D::kInvalid:
      return 0;
  }
  return 0;
}

base::Result<Sb2sbLowering> lower_sb2sb(const isa::Sb2sbCollective& s, const soc::Profile& p,
                                        const CoreIdentity& id, const Sb2sbSemaphores& sems) {
  Sb2sbLowering out;
  // 1. The peer: LNC2 pairs NC 2k with 2k+1, LNC1 copies to itself. [CHOICE D12]
  switch (s.lnc_size_fmt) {
    case isa::LncSizeFmt::kLnc1:
      out.peer = id.tpb;
      break;
    case isa::LncSizeFmt::kLnc2:
      out.peer = id.tpb ^ 1U;
      break;
    default:
      return sb2sb_error("lnc_size_fmt: only lnc1 and lnc2 are supported");
  }
  if (out.peer >= p.cores_per_chip) {
    return sb2sb_error(
        fmt::format("the lnc2 peer of core {} (core {}) is not on the chip", id.tpb, out.peer));
  }
  // 2. All partitions at once: gen always moves every partition. [HIGH] wiki-facts §1.8
  if (s.num_active_channels != p.sbuf_partitions) {
    return sb2sb_error(
        fmt::format("num_active_channels={} cannot be lowered: the RDMA "
                    "transport moves all {} partitions",
                    s.num_active_channels, p.sbuf_partitions));
  }
  // 3. One contiguous span per partition, the same size on both sides.
  out.element_bytes = dtype_bytes(s.in_dtype);
  if (out.element_bytes == 0) return sb2sb_error("in_dtype has no element size");
  auto src_n = contiguous_elements(s.src_mem_pattern, "src_mem_pattern");
  if (!src_n) return src_n.error();
  auto dst_n = contiguous_elements(s.dst_mem_pattern, "dst_mem_pattern");
  if (!dst_n) return dst_n.error();
  if (*src_n != *dst_n) {
    return sb2sb_error(
        fmt::format("src_mem_pattern has {} elements, dst_mem_pattern {}", *src_n, *dst_n));
  }
  auto src = start_byte(s.src_mem_pattern.start_addr, "src_mem_pattern", p);
  if (!src) return src.error();
  auto dst = start_byte(s.dst_mem_pattern.start_addr, "dst_mem_pattern", p);
  if (!dst) return dst.error();
  out.elements = *src_n;
  // 4. The gen request: every engine, the reserved semaphores. [CHOICE D24]
  isa::RdmaDescGen& g = out.gen;
  g.local_sem = static_cast<std::uint8_t>(sems.local);
  g.remote_sem = static_cast<std::uint8_t>(sems.remote);
  g.remote_core_id.imm = out.peer;
  g.remote_routing_id.imm = id.chip;
  g.dma_engine_mask.imm = (1U << kRdmaEngines) - 1;
  g.src_addr = isa::Addr4{isa::Addr4Marker::kImmediate, *src};
  g.dst_addr = isa::Addr4{isa::Addr4Marker::kImmediate, *dst};
  g.free_dim_bytes = static_cast<std::uint32_t>(out.elements * out.element_bytes);
  return out;
}

base::Task<base::Status> PoolFirmware::sb2sb(isa::Sb2sbCollective s) {
  // 0. The runtime's validity rules for the word (is_valid_sb2sb_collective).
  for (const isa::Problem& pr : isa::validate(isa::encode(s))) {
    co_return base::make_error(pr.message);
  }
  const bool dbg = env_.debug_enabled();
  const int p = static_cast<int>(kRxPrid);  // the Q7 that runs the leg [CHOICE D24c]
  // The Q7's lines; the SEQ core's own "S: SB2SB_Collective" is not modelled. [CHOICE D41i]
  if (dbg) debug(render(log_fmt::kSb2sbDecode, p));
  auto low = lower_sb2sb(s, map_.profile(), id_, cfg_.sb2sb_sems);
  if (!low) co_return low.error();
  const Sb2sbSemaphores& sems = cfg_.sb2sb_sems;
  if (dbg) {
    // Totals over the active channels (partitions); the mask is the engines gen will use.
    const std::size_t total = std::size_t{low->elements} * s.num_active_channels;
    debug(render(log_fmt::kSb2sbTotals, p, total, total, static_cast<int>(s.in_dtype),
                 std::size_t{low->peer}, std::size_t{id_.tpb}, low->gen.dma_engine_mask.imm));
    debug(render(log_fmt::kSb2sbChans, p, int{s.num_active_channels}, id_.tpb));
  }

  // 1. Pre-sync: tell the peer we are ready to receive (INC its ready semaphore), then wait
  //    until it has told us the same, and consume that. [CHOICE D24]
  if (dbg) debug(render(log_fmt::kSb2sbPreSync, p, id_.tpb, low->peer));
  if (auto st = sem_write(low->peer, soc::SemWindow::kInc, sems.ready, 1); !st) co_return st;
  co_await env_.wait_semaphore(sems.ready, SemCompare::kGe, 1);
  if (dbg) {
    // Where this leg writes in the peer (its destination start) and the peer's ready
    // semaphore, as 32-bit views, and the ready count the peer sent. [CHOICE D24c] The
    // destination is not checked here: gen refuses one beyond the active bytes, after this
    // line, as it does without --log debug. (The pre-sync's INC just reached the peer's ready
    // semaphore, so its address resolves.)
    const base::SocAddr own_ready =
        map_.sem_window_addr(id_.tpb, soc::SemWindow::kRead, sems.ready).value();
    const base::SocAddr peer_sbuf = map_.sbuf_addr(low->peer, 0, 0).value();
    debug(render(log_fmt::kSb2sbPreSyncRemote, p, lo32(peer_sbuf + low->gen.dst_addr.value),
                 lo32(map_.sem_window_addr(low->peer, soc::SemWindow::kInc, sems.ready).value()),
                 env_.bus().read32(own_ready)));
  }
  if (auto st = sem_write(id_.tpb, soc::SemWindow::kDec, sems.ready, 1); !st) co_return st;

  // 2. gen, 3. start: our source to the peer's destination.
  if (auto st = co_await rdma_desc_gen(low->gen); !st) co_return st;
  if (auto st = co_await rdma_desc_start(); !st) co_return st;

  // 4. Done when our 16 engines have finished (local +16) and the peer's 16 have delivered
  //    into us (remote +16); consume both so the next leg starts from the same values.
  //    Our engines done means our source has been read: the word's _READ update fires.
  co_await env_.wait_semaphore(sems.local, SemCompare::kGe, kRdmaEngines);
  if (auto st = reads_done(); !st) co_return st;
  co_await env_.wait_semaphore(sems.remote, SemCompare::kGe, kRdmaEngines);
  if (auto st = sem_write(id_.tpb, soc::SemWindow::kDec, sems.local, kRdmaEngines); !st) {
    co_return st;
  }
  if (auto st = sem_write(id_.tpb, soc::SemWindow::kDec, sems.remote, kRdmaEngines); !st) {
    co_return st;
  }
  co_await env_.write_fence(kRxPrid);
  co_return base::ok_status();
}

}  // namespace sbrdma::firmware
