#pragma once
/// Human-readable listings of addresses and register tables (the `sbrdma decode addr` and
/// `sbrdma info regs` output). Pure: they return text, the CLI prints it.

#include <string>
#include <string_view>

#include "base/bits.h"
#include "base/units.h"
#include "soc/address.h"
#include "soc/address_map.h"
#include "soc/udma_regs.h"

namespace sbrdma::soc {

/// "[msb:lsb]", or "[b]" for one bit.
std::string bit_range_text(base::BitField b);
/// Both views of `a` with every field, one field per line.
std::string format_address_views(base::SocAddr a);
/// The route of a decoded address and what it hits (or "hits nothing", saying so when the
/// route ends on a die that `profile`'s chips do not have).
std::string format_decoded(const DecodedAddr& d, ChipDie issuer, const Profile& profile);
/// One line naming what a region hit is, e.g. "TPB_0.EVT_SEM +0x1804 INC[1]".
std::string format_hit_brief(const RegionHit& h);
/// A register bank: offset, name, access, reset, flags, then the fields.
/// `where` says what the offsets are relative to.
std::string format_reg_bank(const RegBank& bank, std::string_view where);

}  // namespace sbrdma::soc
