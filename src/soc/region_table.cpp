#include "soc/region_table.h"

#include <fmt/format.h>

#include <algorithm>

namespace sbrdma::soc {

base::Status RegionTable::insert(Region r) {
  if (r.size == 0) return base::make_error("region " + r.name + " has size 0");
  if (r.base.v + r.size < r.base.v) {
    return base::make_error("region " + r.name + " wraps past the top of the address space");
  }
  auto next = std::upper_bound(regions_.begin(), regions_.end(), r.base.v,
                               [](std::uint64_t a, const Region& x) { return a < x.base.v; });
  const Region* clash = nullptr;
  if (next != regions_.end() && next->base.v < r.end()) clash = &*next;
  if (next != regions_.begin() && std::prev(next)->end() > r.base.v) clash = &*std::prev(next);
  if (clash != nullptr) {
    return base::make_error(fmt::format("region {} [{:#x}, {:#x}) overlaps {} [{:#x}, {:#x})",
                                        r.name, r.base.v, r.end(), clash->name, clash->base.v,
                                        clash->end()));
  }
  const auto at = next - regions_.begin();
  bases_.insert(bases_.begin() + at, r.base.v);
  regions_.insert(next, std::move(r));
  return base::ok_status();
}

const Region* RegionTable::find(base::SocAddr a) const {
  const auto next = std::upper_bound(bases_.begin(), bases_.end(), a.v);
  if (next == bases_.begin()) return nullptr;
  const Region& r = regions_[static_cast<std::size_t>(next - bases_.begin()) - 1];
  return r.contains(a) ? &r : nullptr;
}

}  // namespace sbrdma::soc
