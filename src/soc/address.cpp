#include "soc/address.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace sbrdma::soc {
namespace {

constexpr std::array kLocalFields{
    AddrField{"LOCAL", local_view::kLocal},
    AddrField{"DIE", local_view::kDie},
    AddrField{"CAYMAN_ID", local_view::kCaymanId},
    AddrField{"CAYMAN_ID_VALID", local_view::kCaymanIdValid},
    AddrField{"RESERVED", local_view::kReserved},
    AddrField{"PCIE_ATTR_RELAXED_ORDERING", local_view::kPcieAttrRelaxedOrdering},
    AddrField{"OK_TO_FAIL", local_view::kOkToFail},
};

constexpr std::array kNeighborFields{
    AddrField{"LOCAL", neighbor_view::kLocal},
    AddrField{"DIE", neighbor_view::kDie},
    AddrField{"NEIGHBOR_RSVD", neighbor_view::kNeighborRsvd},
    AddrField{"EXIT_SENG", neighbor_view::kExitSeng},
    AddrField{"EXIT_DIE", neighbor_view::kExitDie},
    AddrField{"NEIGHBOR_ROUTE", neighbor_view::kNeighborRoute},
    AddrField{"PEB", neighbor_view::kPeb},
    AddrField{"ID_VALID", neighbor_view::kIdValid},
    AddrField{"PCIE_U_RSVD", neighbor_view::kPcieURsvd},
    AddrField{"PCIE_ATTR_RELAXED_ORDERING", neighbor_view::kPcieAttrRelaxedOrdering},
    AddrField{"OK_TO_FAIL", neighbor_view::kOkToFail},
};

/// Bits [53:48] of a neighbour fold: EXIT_DIE | NEIGHBOR_ROUTE and nothing else. Read in the
/// LOCAL view this is CAYMAN_ID 0x18. [CHOICE D19]
constexpr std::uint32_t kNeighborPattern = 0x18;
static_assert(NeighborAddr{}.set_exit_die(true).set_neighbor_route(true).addr().v ==
              std::uint64_t{kNeighborPattern} << 48);

}  // namespace

std::span<const AddrField> local_view_fields() {
  return kLocalFields;
}
std::span<const AddrField> neighbor_view_fields() {
  return kNeighborFields;
}

std::string_view route_name(Route r) {
  switch (r) {
    case Route::kLocal:
      return "local";
    case Route::kNeighbor:
      return "neighbor";
    case Route::kChipId:
      return "chip-id";
  }
  return "?";
}

base::Result<base::SocAddr> fold_route(std::uint64_t local, ChipDie issuer, ChipDie peer) {
  if (!local_view::kLocal.fits(local)) {
    return base::make_error(fmt::format("local address {:#x} does not fit LOCAL [46:0]", local));
  }
  if (issuer.die > 1 || peer.die > 1) {
    return base::make_error(
        fmt::format("die {} out of range (0..1)", std::max(issuer.die, peer.die)));
  }
  if (issuer.chip > kMaxChipId || peer.chip > kMaxChipId) {
    return base::make_error(fmt::format("chip id {} out of range (0..{})",
                                        std::max(issuer.chip, peer.chip), kMaxChipId));
  }
  if (peer.chip == issuer.chip && peer.die == issuer.die) {
    return LocalAddr{}.set_local(local).set_die(peer.die).addr();  // [CHOICE D9] plain
  }
  if (peer.chip == issuer.chip) {  // [CHOICE D9] neighbour fold; [HIGH] bits wiki-facts §4.3
    return NeighborAddr{}
        .set_local(local)
        .set_die(peer.die)
        .set_exit_die(true)
        .set_neighbor_route(true)
        .set_id_valid(true)
        .addr();
  }
  if (peer.chip == kNeighborPattern && peer.die != issuer.die) {
    return base::make_error(fmt::format(
        "chip id {:#x} on the other die aliases the neighbour route (EXIT_DIE|NEIGHBOR_ROUTE); "
        "not routable [CHOICE D19]",
        peer.chip));
  }
  return LocalAddr{}  // [CHOICE D9] chip-id fold; [HIGH] bits wiki-facts §4.3
      .set_local(local)
      .set_die(peer.die)
      .set_cayman_id(peer.chip)
      .set_cayman_id_valid(true)
      .addr();
}

base::Result<RouteTarget> unfold_route(base::SocAddr a, ChipDie issuer) {
  const LocalAddr view{a};
  if (kUndefinedBits.get(a.v) != 0) {
    return base::make_error(fmt::format("address {:#x} sets undefined bits [63:58]", a.v));
  }
  if (view.reserved()) {
    return base::make_error(fmt::format("address {:#x} sets reserved bit 55", a.v));
  }
  RouteTarget t;
  t.die = view.die();
  t.local = view.local();
  t.chip = issuer.chip;
  if (!view.cayman_id_valid()) {
    if (view.cayman_id() != 0) {
      return base::make_error(fmt::format(
          "address {:#x} sets route bits [53:48] = {:#x} without ID_VALID (PEB or neighbour "
          "bits); sbrdma does not route it",
          a.v, view.cayman_id()));
    }
    t.route = Route::kLocal;
    return t;
  }
  // [CHOICE D19] The neighbour pattern wins over CAYMAN_ID 0x18 when it names the other die.
  if (view.cayman_id() == kNeighborPattern && t.die != issuer.die) {
    t.route = Route::kNeighbor;
    return t;
  }
  t.route = Route::kChipId;
  t.chip = view.cayman_id();
  t.same_chip = t.chip == issuer.chip;
  return t;
}

}  // namespace sbrdma::soc
