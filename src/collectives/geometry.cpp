#include "collectives/geometry.h"

#include "base/check.h"
#include "soc/address.h"

namespace sbrdma::collectives {

Place Geometry::locate(CoreId core) const {
  SBRDMA_CHECK(core < num_cores());
  const unsigned tpb = core % cores_per_chip();
  return Place{core / cores_per_chip(), tpb / cores_per_die, tpb};
}

CoreId Geometry::core_of(Place p) const {
  SBRDMA_CHECK(p.chip < chips && p.tpb < cores_per_chip());
  return p.chip * cores_per_chip() + p.tpb;
}

Geometry Geometry::of(const soc::Profile& profile, unsigned chips) {
  Geometry g;
  g.chips = chips;
  g.dies_per_chip = profile.dies_per_chip;
  g.cores_per_die = profile.tpbs_per_die;
  g.partitions = profile.sbuf_partitions;
  g.partition_bytes = profile.partition_active.n;
  g.semaphores = profile.semaphores;
  g.max_desc_bytes = profile.max_desc_len.n;
  return g;
}

bool foldable(const Geometry& g, CoreId issuer, CoreId target) {
  const Place a = g.locate(issuer);
  const Place b = g.locate(target);
  // The same rule rdma_desc_gen applies when it folds dst_addr. [CHOICE D9, D19]
  return soc::fold_route(0, soc::ChipDie{a.chip, a.die}, soc::ChipDie{b.chip, b.die}).ok();
}

bool has_relayed_pair(const Geometry& g, const std::vector<CoreId>& ranks) {
  for (CoreId from : ranks) {
    for (CoreId to : ranks) {
      if (from != to && !foldable(g, from, to)) return true;
    }
  }
  return false;
}

CoreId relay_core(const Geometry& g, CoreId issuer, CoreId target) {
  const Place a = g.locate(issuer);
  const Place b = g.locate(target);
  const unsigned pos = b.tpb % g.cores_per_die;
  return g.core_of(Place{b.chip, a.die, a.die * g.cores_per_die + pos});
}

}  // namespace sbrdma::collectives
