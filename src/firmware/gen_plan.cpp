#include "firmware/gen_plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/bits.h"
#include "base/check.h"

namespace sbrdma::firmware {
namespace {

/// Largest byte count of one descriptor. [HIGH] wiki-facts §2.3 (max_pkt_size 64 KiB)
constexpr std::uint32_t kChunk = soc::kMaxDescLen;

base::Error gen_error(std::string message) {
  return base::make_error("rdma_desc_gen: " + std::move(message));
}

/// An ADDR4 operand as a byte offset inside each partition, checked against the active bytes
/// (which refuses bits [24:18] under either reading of the immediate). [CHOICE D39]
base::Result<std::uint32_t> partition_range(const isa::Addr4& a, std::string_view name,
                                            std::uint32_t bytes, const soc::Profile& p) {
  if (!a.is_immediate()) {
    return gen_error(
        fmt::format("{} is a register form (marker 0x{:02x}); only an immediate "
                    "partition offset is supported",
                    name, static_cast<unsigned>(a.marker)));
  }
  const std::uint64_t begin = a.value;
  const std::uint64_t end = begin + bytes;
  const std::uint64_t active = p.partition_active.n;
  if (begin >= active || end > active) {
    return gen_error(
        fmt::format("{} range [0x{:x}, 0x{:x}) is beyond the 0x{:x} ({}) active bytes of an "
                    "SBUF partition",
                    name, begin, end, active, active));
  }
  return a.value;
}

}  // namespace

std::uint32_t GenPlan::chunk_bytes(unsigned c) const {
  const std::uint64_t start = std::uint64_t{c} * kChunk;
  SBRDMA_CHECK(start < free_dim_bytes);
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(kChunk, free_dim_bytes - start));
}

unsigned GenPlan::descs_for_engine(unsigned engine) const {
  const bool is_active = std::find(active.begin(), active.end(), engine) != active.end();
  return is_active ? data_descs_per_engine() + 2 : 1;  // [CHOICE D5]
}

base::Status check_rdma_completion_info(std::string_view op, const isa::CompletionInfo& ci) {
  if (ci == isa::CompletionInfo{}) return base::ok_status();
  return base::make_error(fmt::format(
      "{}: completion_info has_read={} has_write={} num_active_ports={}: unsupported: gen and "
      "start run on all 128 partitions (completion_info 0)",
      op, int{ci.has_read}, int{ci.has_write}, int{ci.num_active_ports}));
}

base::Result<GenPlan> plan_gen(const isa::RdmaDescGen& g, const soc::AddressMap& map,
                               const CoreIdentity& id) {
  const soc::Profile& prof = map.profile();
  GenPlan plan;
  // 0. The completion info the record gives gen. [HIGH] wiki-facts §1.8, [CHOICE D38]
  SBRDMA_TRY(check_rdma_completion_info("rdma_desc_gen", g.completion_info));
  // 1. The engine set: a power-of-2 count of the 16 engines. [HIGH] wiki-facts §1.8, [CHOICE D4]
  plan.mask = g.dma_engine_mask.imm;
  if (!base::BitField{kRdmaEngines - 1, 0}.fits(plan.mask)) {
    return gen_error(
        fmt::format("dma_engine_mask 0x{:x} does not fit the {} engines", plan.mask, kRdmaEngines));
  }
  const unsigned n = base::popcount(plan.mask);
  if (!base::is_pow2(n)) {
    return gen_error(fmt::format(
        "dma_engine_mask 0x{:x} selects {} engines (must be 1, 2, 4, 8 or 16)", plan.mask, n));
  }
  for (unsigned e = 0; e < kRdmaEngines; ++e) {
    if ((plan.mask >> e) & 1U) plan.active.push_back(e);
  }
  // 2. Two-peer sends are not supported. [HIGH] wiki-facts §1.8, [CHOICE D10]
  if (g.is_bidirectional != 0) {
    return gen_error(fmt::format("is_bidirectional={} is not supported", g.is_bidirectional));
  }
  // 3. The contiguous span [addr, addr + free_dim_bytes) of every partition. [HIGH] §1.8
  plan.free_dim_bytes = g.free_dim_bytes;
  auto src = partition_range(g.src_addr, "src_addr", g.free_dim_bytes, prof);
  if (!src) return src.error();
  auto dst = partition_range(g.dst_addr, "dst_addr", g.free_dim_bytes, prof);
  if (!dst) return dst.error();
  plan.src_offset = *src;
  plan.dst_offset = *dst;
  plan.partitions_per_engine = prof.sbuf_partitions / n;
  plan.chunks_per_partition = (g.free_dim_bytes + kChunk - 1) / kChunk;
  // 4. Semaphores.
  plan.local_sem = g.local_sem;
  plan.remote_sem = g.remote_sem;
  for (const unsigned s : {plan.local_sem, plan.remote_sem}) {
    if (s >= prof.semaphores) {
      return gen_error(fmt::format("semaphore {} out of range (0..{})", s, prof.semaphores - 1));
    }
  }
  // 5. The peer: a core of a chip, reached by the fold of D9.
  plan.peer_core = g.remote_core_id.imm;
  if (plan.peer_core >= prof.cores_per_chip) {
    // Program files number cores globally (.core, .expect): say how the two meet. [D9]
    return gen_error(
        fmt::format("remote_core_id {} is not a core of the chip (0..{} on {}; global core N is "
                    "remote_core_id N % {} on chip remote_routing_id N / {})",
                    plan.peer_core, prof.cores_per_chip - 1, prof.name, prof.cores_per_chip,
                    prof.cores_per_chip));
  }
  plan.issuer = soc::ChipDie{id.chip, map.die_of(id.tpb).value()};
  plan.peer = soc::ChipDie{g.remote_routing_id.imm, map.die_of(plan.peer_core).value()};
  const base::SocAddr probe = map.sbuf_addr(plan.peer_core, 0, plan.dst_offset).value();
  if (auto f = soc::fold_route(soc::LocalAddr(probe).local(), plan.issuer, plan.peer); !f) {
    return gen_error(fmt::format("remote_routing_id {}: {}", plan.peer.chip, f.error().message));
  }
  return plan;
}

base::SocAddr fold_for_peer(const GenPlan& plan, base::SocAddr chip_relative) {
  return soc::fold_route(soc::LocalAddr(chip_relative).local(), plan.issuer, plan.peer).value();
}

base::SocAddr gen_src_addr(const GenPlan& plan, const soc::AddressMap& map, unsigned tpb,
                           unsigned p, unsigned c) {
  return map.sbuf_addr(tpb, p, plan.src_offset + std::uint64_t{c} * kChunk).value();
}

base::SocAddr gen_dst_local_addr(const GenPlan& plan, const soc::AddressMap& map, unsigned p,
                                 unsigned c) {
  return map.sbuf_addr(plan.peer_core, p, plan.dst_offset + std::uint64_t{c} * kChunk).value();
}

base::SocAddr gen_dst_addr(const GenPlan& plan, const soc::AddressMap& map, unsigned p,
                           unsigned c) {
  return fold_for_peer(plan, gen_dst_local_addr(plan, map, p, c));
}

base::SocAddr gen_step_addr(base::SocAddr first, const soc::AddressMap& map, unsigned p,
                            unsigned c) {
  return first + (std::uint64_t{p} * map.profile().partition_stride.n + std::uint64_t{c} * kChunk);
}

base::SocAddr gen_remote_sem_addr(const GenPlan& plan, const soc::AddressMap& map) {
  return fold_for_peer(
      plan, map.sem_window_addr(plan.peer_core, soc::SemWindow::kInc, plan.remote_sem).value());
}

base::SocAddr gen_local_sem_addr(const GenPlan& plan, const soc::AddressMap& map, unsigned tpb) {
  return map.sem_window_addr(tpb, soc::SemWindow::kInc, plan.local_sem).value();
}

}  // namespace sbrdma::firmware
