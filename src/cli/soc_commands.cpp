// `sbrdma decode addr`, `sbrdma decode desc`, `sbrdma info regs`: thin drivers over soc/.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/printable.h"
#include "cli/commands.h"
#include "cli/file_io.h"
#include "cli/numbers.h"
#include "platform/topology_json.h"
#include "soc/address_map.h"
#include "soc/print.h"
#include "soc/profile.h"
#include "soc/udma_descriptor.h"
#include "soc/udma_regs.h"

namespace sbrdma::cli {
namespace {

struct AddrArgs {
  std::string addr;
  std::string profile = "cayman";
  std::string chip = "0";
  std::string die = "0";
};

/// For a 32-bit address that hits nothing: the DMA engine and broadcast registers whose low
/// 32 bits it is, as the firmware's DEBUG lines print doorbells and bases (D22c), one line
/// each (at most 4), each with the command that decodes it (`flags` after the address).
std::string low_32_bits_of(const soc::AddressMap& map, std::uint64_t low,
                           const std::string& flags) {
  std::vector<std::uint64_t> found;
  std::size_t more = 0;
  for (const soc::Region& r : map.regions().regions()) {
    const bool dma = r.engine >= 0 || r.kind == soc::RegionKind::kBcastM2s ||
                     r.kind == soc::RegionKind::kBcastS2m || r.kind == soc::RegionKind::kBcastGen ||
                     r.kind == soc::RegionKind::kBcastGenEx;
    if (!dma) continue;
    const std::uint64_t high = r.base.v & ~std::uint64_t{UINT32_MAX};
    if (high == 0) continue;  // the address itself, which hit nothing
    const std::uint64_t full = high | low;
    if (!r.contains(base::SocAddr{full})) continue;
    if (found.size() < 4) {
      found.push_back(full);
    } else {
      ++more;
    }
  }
  std::string out;
  for (const std::uint64_t full : found) {
    const soc::Region* r = map.regions().find(base::SocAddr{full});
    out += fmt::format(
        "  the low 32 bits of {:#x} ({} +{:#x}), as DEBUG lines print DMA addresses "
        "(D22c): sbrdma decode addr {:#x}{}\n",
        full, r->name, full - r->base.v, full, flags);
  }
  if (more > 0) out += fmt::format("  ... and {} more addresses with these low 32 bits\n", more);
  return out;
}

int run_decode_addr(const AddrArgs& a) {
  // The flags first, as a usage error would be: read as every number on the line is.
  auto chip = parse_flag_number("--chip", a.chip, "a chip routing id", 0, soc::kMaxChipId);
  if (!chip) return fail(chip.error());
  auto die = parse_flag_number("--die", a.die, "a die", 0, 1);
  if (!die) return fail(die.error());
  auto v = parse_u64(a.addr);
  if (!v) return fail(flag_error("ADDR", v.error()));  // named as --help names it
  std::string profile_name = profile_flag(a.profile);
  // A topology file's profile; a profile's name stays one, whatever files the folder holds.
  if (!soc::find_profile(profile_name) && platform::names_topology_file(a.profile)) {
    auto t = platform::load_topology(a.profile);
    if (!t) return fail(flag_error("--profile", t.error()));
    profile_name = t->profile();
  }
  auto profile = soc::find_profile(profile_name);
  if (!profile) return fail(profile_flag_error(profile.error()));
  if ((*profile)->dies_per_chip != 0 && *die >= (*profile)->dies_per_chip) {
    return fail(base::make_error(fmt::format("--die {}: profile {} has {} die{} per chip", *die,
                                             (*profile)->name, (*profile)->dies_per_chip,
                                             (*profile)->dies_per_chip == 1 ? "" : "s")));
  }
  const base::SocAddr addr{*v};
  const soc::ChipDie issuer{static_cast<std::uint32_t>(*chip), static_cast<std::uint32_t>(*die)};
  std::string out = soc::format_address_views(addr);
  auto map = soc::AddressMap::build(**profile);
  if (!map) {
    out += "region: " + map.error().message + "\n";
  } else if (auto dec = map->decode(addr, issuer); !dec) {
    out += "route: not routable: " + dec.error().message + "\n";
  } else {
    out += soc::format_decoded(*dec, issuer, **profile);
    if (!dec->hit && addr.v <= UINT32_MAX) {
      // The suggested commands keep the flags that change the answer.
      std::string flags;
      if (a.profile != AddrArgs{}.profile)
        flags += " --profile " + base::printable_brief(a.profile);
      if (*chip != 0) flags += fmt::format(" --chip {}", *chip);
      if (*die != 0) flags += fmt::format(" --die {}", *die);
      out += low_32_bits_of(*map, addr.v, flags);
    }
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

/// What a run makes of a descriptor whose buf_ptr is a core's EVT_SEM slot `sem`, as
/// device/machine_dma.cpp does [CHOICE D5]: an S2M buffer at an aligned slot of a writable
/// window takes a semaphore write (of the paired M2S descriptor's length, which must be whole
/// slots inside the window); an M2S source there, or any other S2M buffer, is refused.
std::string semaphore_note(const soc::UdmaDescriptor& d, soc::Direction dir,
                           const soc::SemHit& sem) {
  if (dir == soc::Direction::kM2S) {
    return "  (an M2S source is read: EVT_SEM is not memory, a run refuses it)";
  }
  if (sem.window == soc::SemWindow::kRead) {
    return "  (the READ window is read-only: a run refuses this write)";
  }
  if (d.addr().v % 4 != 0) {
    return "  (not an aligned 4-byte slot: a run refuses this write)";
  }
  return "  (a semaphore write)";
}

int run_decode_desc(const std::string& hex, soc::Direction dir) {
  auto d = soc::parse_descriptor_hex(hex);
  if (!d) return fail(d.error());
  std::string out = soc::format_descriptor(*d, dir);
  const soc::ChipDie issuer{0, 0};
  auto map = soc::AddressMap::build(soc::cayman_profile());
  if (map) {
    auto dec = map->decode(d->addr(), issuer);
    if (!dec) {
      out += "buf_ptr is not routable: " + dec.error().message + "\n";
    } else if (!dec->hit) {
      out += "buf_ptr hits nothing on cayman (seen from chip 0 die 0)\n";
    } else {
      out += "buf_ptr -> chip " + std::to_string(dec->target.chip) + " " +
             soc::format_hit_brief(*dec->hit);
      if (auto sem = soc::semaphore_target(*d, *map, issuer)) {
        out += semaphore_note(*d, dir, sem->sem);
      }
      out += "\n";
    }
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

int run_info_regs() {
  std::string out;
  out += soc::format_reg_bank(soc::m2s_engine_bank(), "the engine's UDMA_M2S block, +0x00000");
  out += "\n";
  out += soc::format_reg_bank(soc::m2s_queue_bank(), "UDMA_M2S + 0x1000 + q*0x1000, q = 0..15");
  out += "\n";
  out += soc::format_reg_bank(soc::s2m_engine_bank(), "the engine's UDMA_S2M block, +0x20000");
  out += "\n";
  out += soc::format_reg_bank(soc::s2m_queue_bank(), "UDMA_S2M + 0x1000 + q*0x1000, q = 0..15");
  out += "\n";
  out += soc::format_reg_bank(soc::misc_bank(), "the engine's MISC (SDMA wrapper) block, +0x40000");
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

void add_decode_soc(CLI::App& decode, Context& ctx) {
  auto args = std::make_shared<AddrArgs>();
  CLI::App* addr = decode.add_subcommand(
      "addr", "Explain a 64-bit SoC address: both views, its route and the region it hits");
  addr->add_option("ADDR", args->addr, "address, decimal or 0x-hex (_ separators allowed)")
      ->required();
  addr->add_option("--profile", args->profile,
                   "generation profile (cayman, sunda, mariana; maverick: the views only, no "
                   "map), or a built-in topology or topology file for its profile (trn2, "
                   "trn2u, ...: cayman; trn1, ...: sunda)")
      ->capture_default_str();
  addr->add_option("--chip", args->chip,
                   fmt::format("issuer's chip (routing id, 0 to {})", soc::kMaxChipId))
      ->type_name("UINT")
      ->capture_default_str();
  addr->add_option("--die", args->die, "issuer's die (0 or 1)")
      ->type_name("UINT")
      ->capture_default_str();
  addr->callback([args, &ctx] { ctx.status = run_decode_addr(*args); });

  auto hex = std::make_shared<std::vector<std::string>>();
  CLI::App* desc =
      decode.add_subcommand("desc", "Explain a 16-byte UDMA descriptor, every field by name");
  desc->add_option("HEX", *hex,
                   "32 hex digits: the 16 bytes as they lie in memory, byte 0 first "
                   "(little-endian words; no 0x; blanks between digits allowed, quoted or "
                   "as separate arguments)")
      ->required();
  auto s2m = std::make_shared<bool>(false);
  desc->add_flag("--s2m", *s2m,
                 "read it as an S2M (receive) descriptor: its word0 has no FIRST/LAST/DMB and "
                 "bit 29 is STRONG_ORDER_WR (v3+); word1 is unused");
  desc->callback([hex, s2m, &ctx] {
    std::string joined;  // the groups of digits in the order given
    for (const std::string& s : *hex) joined += (joined.empty() ? "" : " ") + s;
    ctx.status = run_decode_desc(joined, *s2m ? soc::Direction::kS2M : soc::Direction::kM2S);
  });
}

void add_info_regs(CLI::App& info, Context& ctx) {
  CLI::App* regs = info.add_subcommand(
      "regs",
      "Print the UDMA M2S/S2M and MISC register tables (name, offset, access, reset, fields)");
  regs->callback([&ctx] { ctx.status = run_info_regs(); });
}

}  // namespace sbrdma::cli
