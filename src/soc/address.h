#pragma once
/// The 64-bit SoC (device fabric) address and its two views, plus the routing fold that
/// `rdma_desc_gen` applies to a peer address ([CHOICE D9], wiki-facts §4.1, §4.3).
///
///  LOCAL view (cayman_addr_decode.h)            [HIGH] wiki-facts §4.1
///   63    58 57 56 55 54 53        48 47 46                                            0
///  +--------+--+--+--+--+------------+--+-----------------------------------------------+
///  | undef. |OK|RO|RS|IV| CAYMAN_ID  |DI|                  LOCAL                        |
///  +--------+--+--+--+--+------------+--+-----------------------------------------------+
///   OK = OK_TO_FAIL, RO = PCIE_ATTR_RELAXED_ORDERING, RS = RESERVED,
///   IV = CAYMAN_ID_VALID, DI = DIE
///
///  NEIGHBOR view (cayman_addr_decode_neighbor.h), same bits 0..47 and 54..57:
///   57 56 55 54 53 52 51 50 49 48
///  +--+--+--+--+--+--+--+--+-----+
///  |OK|RO|PU|IV|PB|NR|ED|ES|RSVD |   PU = PCIE_U_RSVD, PB = PEB, NR = NEIGHBOR_ROUTE,
///  +--+--+--+--+--+--+--+--+-----+   ED = EXIT_DIE, ES = EXIT_SENG, RSVD = NEIGHBOR_RSVD

#include <cstdint>
#include <span>
#include <string_view>

#include "base/bits.h"
#include "base/result.h"
#include "base/units.h"
#include "soc/named_field.h"

namespace sbrdma::soc {

/// One named field of an address view, for printers and tests.
using AddrField = NamedField;

/// Field positions of the LOCAL view. [HIGH] wiki-facts §4.1
namespace local_view {
inline constexpr base::BitField kLocal{46, 0};
inline constexpr base::BitField kDie = base::bit(47);
inline constexpr base::BitField kCaymanId{53, 48};
inline constexpr base::BitField kCaymanIdValid = base::bit(54);
inline constexpr base::BitField kReserved = base::bit(55);
inline constexpr base::BitField kPcieAttrRelaxedOrdering = base::bit(56);
inline constexpr base::BitField kOkToFail = base::bit(57);
}  // namespace local_view

/// Field positions of the NEIGHBOR view. [HIGH] wiki-facts §4.1
namespace neighbor_view {
inline constexpr base::BitField kLocal = local_view::kLocal;
inline constexpr base::BitField kDie = local_view::kDie;
inline constexpr base::BitField kNeighborRsvd{49, 48};
inline constexpr base::BitField kExitSeng = base::bit(50);
inline constexpr base::BitField kExitDie = base::bit(51);
inline constexpr base::BitField kNeighborRoute = base::bit(52);
inline constexpr base::BitField kPeb = base::bit(53);
inline constexpr base::BitField kIdValid = base::bit(54);  // same bit as CAYMAN_ID_VALID
inline constexpr base::BitField kPcieURsvd = base::bit(55);
inline constexpr base::BitField kPcieAttrRelaxedOrdering = local_view::kPcieAttrRelaxedOrdering;
inline constexpr base::BitField kOkToFail = local_view::kOkToFail;
}  // namespace neighbor_view

/// Bits [63:58] are not defined by either view. [HIGH] wiki-facts §4.1
inline constexpr base::BitField kUndefinedBits{63, 58};
/// Largest routing (chip) id: CAYMAN_ID is 6 bits, a 64-chip mesh. [HIGH] wiki-facts §4.1
inline constexpr std::uint32_t kMaxChipId = 63;

/// Every field of the LOCAL view, LSB first (the printer's order).
std::span<const AddrField> local_view_fields();
/// Every field of the NEIGHBOR view, LSB first.
std::span<const AddrField> neighbor_view_fields();

/// What both views share: the 64-bit value, LOCAL, DIE and the two PCIe attribute bits, plus
/// the get/set plumbing. Setters drop bits beyond a field's width and return the view, so
/// they chain: `LocalAddr{}.set_local(x).set_die(1).addr()`.
template <typename Self>
class AddrView {
 public:
  constexpr AddrView() = default;
  constexpr explicit AddrView(base::SocAddr a) : v_(a.v) {}
  [[nodiscard]] constexpr base::SocAddr addr() const { return base::SocAddr{v_}; }

  [[nodiscard]] constexpr std::uint64_t local() const { return local_view::kLocal.get(v_); }
  [[nodiscard]] constexpr unsigned die() const { return g(local_view::kDie); }
  [[nodiscard]] constexpr bool relaxed_ordering() const {
    return g(local_view::kPcieAttrRelaxedOrdering);
  }
  [[nodiscard]] constexpr bool ok_to_fail() const { return g(local_view::kOkToFail); }

  constexpr Self& set_local(std::uint64_t v) { return s(local_view::kLocal, v); }
  constexpr Self& set_die(unsigned v) { return s(local_view::kDie, v); }
  constexpr Self& set_relaxed_ordering(bool v) {
    return s(local_view::kPcieAttrRelaxedOrdering, v);
  }
  constexpr Self& set_ok_to_fail(bool v) { return s(local_view::kOkToFail, v); }

 protected:
  [[nodiscard]] constexpr unsigned g(base::BitField f) const {
    return static_cast<unsigned>(f.get(v_));
  }
  constexpr Self& s(base::BitField f, std::uint64_t x) {
    v_ = f.set(v_, x);
    return static_cast<Self&>(*this);
  }

 private:
  std::uint64_t v_ = 0;
};

/// The LOCAL view of an address with named get/set.
class LocalAddr : public AddrView<LocalAddr> {
 public:
  using AddrView::AddrView;
  [[nodiscard]] constexpr unsigned cayman_id() const { return g(local_view::kCaymanId); }
  [[nodiscard]] constexpr bool cayman_id_valid() const { return g(local_view::kCaymanIdValid); }
  [[nodiscard]] constexpr bool reserved() const { return g(local_view::kReserved); }
  constexpr LocalAddr& set_cayman_id(unsigned v) { return s(local_view::kCaymanId, v); }
  constexpr LocalAddr& set_cayman_id_valid(bool v) { return s(local_view::kCaymanIdValid, v); }
  constexpr LocalAddr& set_reserved(bool v) { return s(local_view::kReserved, v); }
};

/// The NEIGHBOR view of an address with named get/set.
class NeighborAddr : public AddrView<NeighborAddr> {
 public:
  using AddrView::AddrView;
  [[nodiscard]] constexpr unsigned neighbor_rsvd() const { return g(neighbor_view::kNeighborRsvd); }
  [[nodiscard]] constexpr bool exit_seng() const { return g(neighbor_view::kExitSeng); }
  [[nodiscard]] constexpr bool exit_die() const { return g(neighbor_view::kExitDie); }
  [[nodiscard]] constexpr bool neighbor_route() const { return g(neighbor_view::kNeighborRoute); }
  [[nodiscard]] constexpr bool peb() const { return g(neighbor_view::kPeb); }
  [[nodiscard]] constexpr bool id_valid() const { return g(neighbor_view::kIdValid); }
  [[nodiscard]] constexpr bool pcie_u_rsvd() const { return g(neighbor_view::kPcieURsvd); }
  constexpr NeighborAddr& set_neighbor_rsvd(unsigned v) {
    return s(neighbor_view::kNeighborRsvd, v);
  }
  constexpr NeighborAddr& set_exit_seng(bool v) { return s(neighbor_view::kExitSeng, v); }
  constexpr NeighborAddr& set_exit_die(bool v) { return s(neighbor_view::kExitDie, v); }
  constexpr NeighborAddr& set_neighbor_route(bool v) { return s(neighbor_view::kNeighborRoute, v); }
  constexpr NeighborAddr& set_peb(bool v) { return s(neighbor_view::kPeb, v); }
  constexpr NeighborAddr& set_id_valid(bool v) { return s(neighbor_view::kIdValid, v); }
  constexpr NeighborAddr& set_pcie_u_rsvd(bool v) { return s(neighbor_view::kPcieURsvd, v); }
};

/// A chip (its routing id, [CHOICE D9]) and a die on it.
struct ChipDie {
  std::uint32_t chip = 0;
  std::uint32_t die = 0;
  constexpr bool operator==(const ChipDie&) const = default;
};

/// How a routed address reaches its target. [CHOICE D9]
enum class Route {
  kLocal,     ///< plain address on the issuer's chip (DIE bit picks the die)
  kNeighbor,  ///< neighbour fold: the other die of the issuer's chip
  kChipId,    ///< chip-id fold: CAYMAN_ID names the chip
};
/// "local", "neighbor", "chip-id".
std::string_view route_name(Route r);

/// Where a routed address lands, seen from an issuer.
struct RouteTarget {
  Route route = Route::kLocal;
  bool same_chip = true;   ///< the target is the issuer's own chip
  std::uint32_t chip = 0;  ///< target chip id (the issuer's when same_chip)
  std::uint32_t die = 0;
  std::uint64_t local = 0;  ///< LOCAL [46:0]
  /// The chip-relative address the target's address map decodes: DIE | LOCAL.
  [[nodiscard]] base::SocAddr chip_local() const {
    return LocalAddr{}.set_die(die).set_local(local).addr();
  }
};

/// The routing fold of [CHOICE D9]: the address with which `issuer` reaches `local` (a
/// same-die LOCAL [46:0] offset) on `peer`. Same chip and die: the plain address; same chip,
/// other die: the neighbour fold (DIE, EXIT_DIE, NEIGHBOR_ROUTE, ID_VALID); other chip: the
/// chip-id fold (DIE, CAYMAN_ID = peer.chip, CAYMAN_ID_VALID). Errors: `local` wider than 47
/// bits, a die other than 0/1, a chip id over 63, or the one chip-id fold that aliases the
/// neighbour route ([CHOICE D19]).
base::Result<base::SocAddr> fold_route(std::uint64_t local, ChipDie issuer, ChipDie peer);

/// The inverse of fold_route: classify a routed address seen by `issuer`. Errors: undefined
/// bits [63:58] or RESERVED/PCIE_U_RSVD [55] set, route bits [53:48] set without ID_VALID
/// (e.g. the privileged PEB aperture, which sbrdma does not route).
base::Result<RouteTarget> unfold_route(base::SocAddr a, ChipDie issuer);

}  // namespace sbrdma::soc
