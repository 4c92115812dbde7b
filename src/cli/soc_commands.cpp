// `sbrdma decode addr`, `sbrdma decode desc`, `sbrdma info regs`: thin drivers over soc/.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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

/// The decode commands' viewpoint flags, as given.
struct ViewArgs {
  std::string profile = "cayman";
  std::string chip = "0";
  std::string die = "0";
};

struct AddrArgs {
  std::string addr;
  ViewArgs view;
};

struct DescArgs {
  std::vector<std::string> hex;
  bool s2m = false;
  ViewArgs view;
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

/// Where an address is seen from: `--profile`, `--chip`, `--die` of the decode commands.
struct Viewpoint {
  const soc::Profile* profile = nullptr;
  soc::ChipDie issuer;
};

base::Result<Viewpoint> viewpoint(const ViewArgs& a) {
  // Read as every number on the line is.
  auto chip = parse_flag_number("--chip", a.chip, "a chip routing id", 0, soc::kMaxChipId);
  if (!chip) return chip.error();
  auto die = parse_flag_number("--die", a.die, "a die", 0, 1);
  if (!die) return die.error();
  std::string profile_name = profile_flag(a.profile);
  // A topology file's profile; a profile's name stays one, whatever files the folder holds.
  if (!soc::find_profile(profile_name) && platform::names_topology_file(a.profile)) {
    auto t = platform::load_topology(a.profile);
    if (!t) return flag_error("--profile", t.error());
    profile_name = t->profile();
  }
  auto profile = soc::find_profile(profile_name);
  if (!profile) return profile_flag_error(profile.error());
  if ((*profile)->dies_per_chip != 0 && *die >= (*profile)->dies_per_chip) {
    return base::make_error(fmt::format("--die {}: profile {} has {} die{} per chip", *die,
                                        (*profile)->name, (*profile)->dies_per_chip,
                                        (*profile)->dies_per_chip == 1 ? "" : "s"));
  }
  return Viewpoint{
      *profile, soc::ChipDie{static_cast<std::uint32_t>(*chip), static_cast<std::uint32_t>(*die)}};
}

/// The flags that set `view` apart from the default one (` --chip 1 --die 1`), for commands
/// the output suggests.
std::string viewpoint_flags(const ViewArgs& a, const Viewpoint& view) {
  std::string flags;
  if (a.profile != ViewArgs{}.profile) flags += " --profile " + base::shell_word(a.profile);
  if (view.issuer.chip != 0) flags += fmt::format(" --chip {}", view.issuer.chip);
  if (view.issuer.die != 0) flags += fmt::format(" --die {}", view.issuer.die);
  return flags;
}

int run_decode_addr(const AddrArgs& a) {
  // The flags first, as a usage error would be.
  auto view = viewpoint(a.view);
  if (!view) return fail(view.error());
  auto v = parse_u64(a.addr);
  if (!v) return fail(flag_error("ADDR", v.error()));  // named as --help names it
  const base::SocAddr addr{*v};
  std::string out = soc::format_address_views(addr);
  auto map = soc::AddressMap::build(*view->profile);
  if (!map) {
    out += "region: " + map.error().message + "\n";
  } else if (auto dec = map->decode(addr, view->issuer); !dec) {
    out += "route: not routable: " + dec.error().message + "\n";
  } else {
    out += soc::format_decoded(*dec, view->issuer, *view->profile);
    if (!dec->hit && addr.v <= UINT32_MAX) {
      // The suggested commands keep the flags that change the answer.
      out += low_32_bits_of(*map, addr.v, viewpoint_flags(a.view, *view));
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

int run_decode_desc(const DescArgs& a) {
  auto view = viewpoint(a.view);
  if (!view) return fail(view.error());
  std::string joined;  // the groups of digits in the order given
  for (const std::string& h : a.hex) joined += (joined.empty() ? "" : " ") + h;
  // A line of `.dump ring ... hex=yes` as printed: its M2S: or S2M: tag says which side. The
  // tag becomes blanks, so a bad digit's position is the one in the line as given.
  std::optional<soc::Direction> tagged;
  const auto tag_at = [&](std::size_t from) -> std::optional<soc::Direction> {
    const std::size_t at = joined.find_first_not_of(" \t", from);
    if (at == std::string::npos) return std::nullopt;
    for (const soc::Direction d : {soc::Direction::kM2S, soc::Direction::kS2M}) {
      const std::string tag = std::string(soc::direction_name(d)) + ":";
      if (joined.compare(at, tag.size(), tag) == 0) {
        joined.replace(at, tag.size(), tag.size(), ' ');
        return d;
      }
    }
    return std::nullopt;
  };
  tagged = tag_at(0);
  if (tagged && tag_at(0)) {
    return fail(base::make_error("HEX: two M2S:/S2M: tags; a line of .dump ring's has one"));
  }
  const std::string_view text = joined;
  if (tagged == soc::Direction::kM2S && a.s2m) {
    return fail(base::make_error("--s2m: the descriptor is tagged M2S: (drop one of the two)"));
  }
  const soc::Direction dir = a.s2m ? soc::Direction::kS2M : tagged.value_or(soc::Direction::kM2S);
  auto d = soc::parse_descriptor_hex(text);
  if (!d) return fail(d.error());
  std::string out = soc::format_descriptor(*d, dir);
  // An S2M descriptor read as M2S shows no op and no packet bits: say which flag reads it.
  if (dir == soc::Direction::kM2S && !tagged && d->word1 == 0 &&
      (d->word0 & soc::desc_word0::kOnePacket) == 0) {
    out += "(FIRST and LAST clear and word1 0, as in an S2M descriptor: --s2m reads it as one)\n";
  }
  const soc::ChipDie issuer = view->issuer;
  const std::string seen = fmt::format("seen from chip {} die {}", issuer.chip, issuer.die);
  auto map = soc::AddressMap::build(*view->profile);
  if (map) {
    auto dec = map->decode(d->addr(), issuer);
    if (!dec) {
      out += "buf_ptr is not routable (" + seen + "): " + dec.error().message + "\n";
    } else if (!dec->hit) {
      out += fmt::format("buf_ptr hits nothing on {} ({})\n", view->profile->name, seen);
    } else {
      out += "buf_ptr -> chip " + std::to_string(dec->target.chip) + " " +
             soc::format_hit_brief(*dec->hit);
      if (auto sem = soc::semaphore_target(*d, *map, issuer)) {
        out += semaphore_note(*d, dir, sem->sem);
      }
      out += fmt::format("\n  ({}, the issuing core's: --chip and --die set it)\n", seen);
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

/// --profile, --chip and --die: where `whose` chip and die see the address from.
void add_viewpoint_flags(CLI::App& cmd, ViewArgs& view, std::string_view whose) {
  cmd.add_option("--profile", view.profile,
                 "generation profile (cayman, sunda, mariana; maverick: the views only, no "
                 "map), or a built-in topology or topology file for its profile (trn2, "
                 "trn2u, ...: cayman; trn1, ...: sunda)")
      ->capture_default_str();
  cmd.add_option("--chip", view.chip,
                 fmt::format("{} chip (routing id, 0 to {})", whose, soc::kMaxChipId))
      ->type_name("UINT")
      ->capture_default_str();
  cmd.add_option("--die", view.die, fmt::format("{} die (0 or 1)", whose))
      ->type_name("UINT")
      ->capture_default_str();
}

}  // namespace

void add_decode_soc(CLI::App& decode, Context& ctx) {
  auto args = std::make_shared<AddrArgs>();
  CLI::App* addr = decode.add_subcommand(
      "addr", "Explain a 64-bit SoC address: both views, its route and the region it hits");
  addr->add_option("ADDR", args->addr, "address, decimal or 0x-hex (_ separators allowed)")
      ->required();
  add_viewpoint_flags(*addr, args->view, "issuer's");
  addr->callback([args, &ctx] { ctx.status = run_decode_addr(*args); });

  auto dargs = std::make_shared<DescArgs>();
  CLI::App* desc =
      decode.add_subcommand("desc", "Explain a 16-byte UDMA descriptor, every field by name");
  desc->add_option("HEX", dargs->hex,
                   "32 hex digits: the 16 bytes as they lie in memory, byte 0 first "
                   "(little-endian words; no 0x; blanks between digits allowed, quoted or "
                   "as separate arguments); a leading M2S: or S2M: (as `.dump ring ... "
                   "hex=yes` prints them) says which side it is")
      ->required();
  desc->add_flag("--s2m", dargs->s2m,
                 "read it as an S2M (receive) descriptor: its word0 has no FIRST/LAST/DMB and "
                 "bit 29 is STRONG_ORDER_WR (v3+); word1 is unused");
  add_viewpoint_flags(*desc, dargs->view, "the issuing core's");
  desc->callback([dargs, &ctx] { ctx.status = run_decode_desc(*dargs); });
}

void add_info_regs(CLI::App& info, Context& ctx) {
  CLI::App* regs = info.add_subcommand(
      "regs",
      "Print the UDMA M2S/S2M and MISC register tables (name, offset, access, reset, fields)");
  regs->callback([&ctx] { ctx.status = run_info_regs(); });
}

}  // namespace sbrdma::cli
