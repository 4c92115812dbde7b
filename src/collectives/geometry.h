#pragma once
/// What the lowering needs to know about the machine: how cores sit on dies and chips, how
/// big an SBUF partition is, how many semaphores and ring slots a core has. platform/ fills it
/// from the topology and the firmware configuration; collectives never sees device/.
///
///   global core id = chip * cores_per_chip + tpb      tpb / cores_per_die = die
///   (chip-major, as device::Topology numbers them)

#include <cstdint>
#include <vector>

#include "soc/profile.h"

namespace sbrdma::collectives {

/// A global core id (one rank of a communicator is one core).
using CoreId = unsigned;

/// Where a core sits.
struct Place {
  unsigned chip = 0;
  unsigned die = 0;
  unsigned tpb = 0;  ///< index on its chip
  bool operator==(const Place&) const = default;
};

/// The machine as the lowering sees it.
struct Geometry {
  unsigned chips = 1;
  unsigned dies_per_chip = 2;
  unsigned cores_per_die = 4;
  unsigned partitions = 128;                  ///< SBUF partitions per core
  std::uint64_t partition_bytes = 224 << 10;  ///< usable bytes of each partition
  unsigned semaphores = 256;                  ///< per core
  unsigned reserved_semaphores = 3;           ///< the top ones, kept for SB2SB [CHOICE D24]
  unsigned ring_depth = 1024;                 ///< RDMA ring slots per engine [CHOICE D3]
  unsigned engines = 16;                      ///< dma_engine_mask width [HIGH] wiki-facts §1.8
  std::uint64_t max_desc_bytes = 64 << 10;    ///< a descriptor moves at most this [CHOICE D4]

  [[nodiscard]] unsigned cores_per_chip() const { return dies_per_chip * cores_per_die; }
  [[nodiscard]] unsigned num_cores() const { return chips * cores_per_chip(); }
  /// Contract: core < num_cores().
  [[nodiscard]] Place locate(CoreId core) const;
  /// Contract: p names an existing core.
  [[nodiscard]] CoreId core_of(Place p) const;
  /// Semaphores the lowering may use: 0 .. usable_semaphores() - 1.
  [[nodiscard]] unsigned usable_semaphores() const { return semaphores - reserved_semaphores; }

  /// The geometry of `chips` chips of `profile` (its die and core counts, SBUF, semaphores).
  static Geometry of(const soc::Profile& profile, unsigned chips);
};

/// True if `issuer` can address `target` with a folded SoC address (rdma_desc_gen's
/// remote_core_id / remote_routing_id, [CHOICE D9]). False only for the one fold that aliases
/// the neighbour route: a chip-id fold to chip 24 on the die other than the issuer's
/// ([CHOICE D19]). Contract: both are cores of `g`.
bool foldable(const Geometry& g, CoreId issuer, CoreId target);

/// The core through which a leg from `issuer` to `target` is relayed when it is not foldable:
/// the core of `target`'s chip at `target`'s position on the issuer's die. The first hop is
/// then a same-die chip-id fold, the second a neighbour fold on one chip. [CHOICE D30g]
CoreId relay_core(const Geometry& g, CoreId issuer, CoreId target);

/// True if some ordered pair of `ranks` has legs that are not foldable and so go through a
/// relay core.
bool has_relayed_pair(const Geometry& g, const std::vector<CoreId>& ranks);

}  // namespace sbrdma::collectives
