#pragma once
/// The arithmetic of rdma_desc_gen, apart from its side effects: validate a request and work
/// out which engine moves which partitions, in how many descriptors, from where to where.
/// [CHOICE D4, D5, D9]
///
///  dma_engine_mask 0x00a0 (engines 5 and 7), n_active_dmas = 2, num_indices = 128 / 2:
///
///   partition   0 ..  63  -> engine 5 (1st set bit)        per partition p, chunk c:
///   partition  64 .. 127  -> engine 7 (2nd set bit)          M2S: read  src(p) + c*64 KiB
///                                                            S2M: write dst(p) + c*64 KiB
///  each engine's rings:  [data x num_dma_descs][REMOTE sema][LOCAL sema]
///  every other engine:   [LOCAL sema]
///
///  src(p) = SBUF of this core, partition p, byte src_addr (a plain chip-local address)
///  dst(p) = SBUF of core remote_core_id, partition p, byte dst_addr, folded by fold_route
///           towards chip remote_routing_id (same die: plain; other die: neighbour fold;
///           other chip: chip-id fold) [CHOICE D9]

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/units.h"
#include "firmware/config.h"
#include "isa/views.h"
#include "soc/address.h"
#include "soc/address_map.h"

namespace sbrdma::firmware {

/// A validated rdma_desc_gen request and what follows from it.
struct GenPlan {
  std::uint32_t mask = 0;              ///< dma_engine_mask
  std::vector<unsigned> active;        ///< engines of the mask, ascending (k-th set bit)
  unsigned partitions_per_engine = 0;  ///< num_indices = 128 / n_active_dmas
  unsigned chunks_per_partition = 0;   ///< ceil(free_dim_bytes / 64 KiB); 0 = semaphores only
  std::uint32_t free_dim_bytes = 0;
  std::uint32_t src_offset = 0;  ///< byte in each partition of the local SBUF
  std::uint32_t dst_offset = 0;  ///< byte in each partition of the peer SBUF
  unsigned local_sem = 0;
  unsigned remote_sem = 0;
  unsigned peer_core = 0;  ///< remote_core_id
  soc::ChipDie issuer;     ///< this core's chip and die
  soc::ChipDie peer;       ///< remote_routing_id and the peer core's die

  [[nodiscard]] unsigned n_active() const { return static_cast<unsigned>(active.size()); }
  /// num_dma_descs: data descriptors per active engine per direction.
  [[nodiscard]] unsigned data_descs_per_engine() const {
    return partitions_per_engine * chunks_per_partition;
  }
  /// First partition engine `k`-th active engine serves.
  [[nodiscard]] unsigned first_partition(unsigned k) const { return k * partitions_per_engine; }
  /// Bytes of chunk `c` of a partition (the last chunk may be short).
  [[nodiscard]] std::uint32_t chunk_bytes(unsigned c) const;
  /// Descriptors one direction of `engine`'s ring gets: data + REMOTE + LOCAL if active,
  /// LOCAL only if not. [CHOICE D5]
  [[nodiscard]] unsigned descs_for_engine(unsigned engine) const;
};

/// Errors unless `ci` is what gen and start carry: has_read 0, has_write 0, num_active_ports
/// 0 (all 128 partitions). `op` names the word in the message. [HIGH] wiki-facts §1.5, §1.8,
/// [CHOICE D38]
base::Status check_rdma_completion_info(std::string_view op, const isa::CompletionInfo& ci);

/// Validates `g` for core `id` and plans it. Errors (one line, prefixed "rdma_desc_gen: "):
/// completion_info not 0, engine count not 1/2/4/8/16 or mask beyond 16 bits, is_bidirectional set,
/// a register-form address, a source or destination range beyond the active bytes of a partition, a
/// peer core that is not on the chip, a routing id that cannot be folded.
base::Result<GenPlan> plan_gen(const isa::RdmaDescGen& g, const soc::AddressMap& map,
                               const CoreIdentity& id);

/// Local SBUF address of partition `p`, chunk `c` (what the M2S descriptor reads).
base::SocAddr gen_src_addr(const GenPlan& plan, const soc::AddressMap& map, unsigned tpb,
                           unsigned p, unsigned c);
/// The peer's SBUF address of partition `p`, chunk `c` before the fold (chip-relative).
base::SocAddr gen_dst_local_addr(const GenPlan& plan, const soc::AddressMap& map, unsigned p,
                                 unsigned c);
/// The folded address the S2M descriptor writes for partition `p`, chunk `c`.
base::SocAddr gen_dst_addr(const GenPlan& plan, const soc::AddressMap& map, unsigned p, unsigned c);
/// The address of partition `p`, chunk `c` from that of partition 0, chunk 0 (`first`, from
/// gen_src_addr or gen_dst_addr): first + p * partition stride + c * 64 KiB. Equal to the
/// per-address functions for every partition and chunk of an accepted plan: sbuf_addr is
/// linear in the partition and the offset, and the fold only sets route bits above LOCAL
/// [46:0] of a local part that stays inside the peer's SBUF. [CHOICE D4, D9]
base::SocAddr gen_step_addr(base::SocAddr first, const soc::AddressMap& map, unsigned p,
                            unsigned c);
/// The peer's EVT_SEM INC slot of remote_sem, folded like the data. [CHOICE D5, D9]
base::SocAddr gen_remote_sem_addr(const GenPlan& plan, const soc::AddressMap& map);
/// This core's EVT_SEM INC slot of local_sem (plain address). [CHOICE D5]
base::SocAddr gen_local_sem_addr(const GenPlan& plan, const soc::AddressMap& map, unsigned tpb);

/// Folds a chip-relative address of the peer (DIE | LOCAL) for the plan's issuer and peer.
/// Contract: plan_gen accepted the plan (so the fold is known to succeed).
base::SocAddr fold_for_peer(const GenPlan& plan, base::SocAddr chip_relative);

}  // namespace sbrdma::firmware
