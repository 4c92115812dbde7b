#include "soc/print.h"

#include <fmt/format.h>

namespace sbrdma::soc {
namespace {

void append_view(std::string& out, std::string_view title, std::span<const AddrField> fields,
                 std::uint64_t v) {
  out += fmt::format("{} view\n", title);
  for (const AddrField& f : fields) {
    out += fmt::format("  {:<28} {:<8} {:#x}\n", f.name, bit_range_text(f.bits), f.bits.get(v));
  }
}

std::string flags_text(unsigned flags) {
  std::string s;
  if ((flags & reg_flag::kDoorbell) != 0) s += ", doorbell";
  if ((flags & reg_flag::kCommand) != 0) s += ", command";
  if ((flags & reg_flag::kBroadcast) != 0) s += ", broadcast";
  return s;
}

/// "register NAME (+OFFSET, ACCESS[, flags])".
std::string register_text(const RegDesc& r, std::uint64_t offset) {
  return fmt::format("register {} (+{:#x}, {}{})", r.name, offset, access_name(r.access),
                     flags_text(r.flags));
}

std::string udma_text(const UdmaHit& u) {
  std::string s = fmt::format("{}{}", u.broadcast ? "broadcast " : "", direction_name(u.dir));
  if (u.queue) {
    s += fmt::format(" queue {}", *u.queue);
  } else if (u.reg_offset < udma::kQueueBankBase) {
    s += " engine";
  } else {
    return s + fmt::format(" +{:#x}: beyond the queue banks", u.reg_offset);
  }
  if (u.reg == nullptr) return s + fmt::format(" +{:#x}: no known register", u.reg_offset);
  return s + " " + register_text(*u.reg, u.reg_offset);
}

/// Who owns region `r` of chip `chip`: a core as run, .core and the traces number it (global
/// id chip x cores per chip + tpb), with its chip, TPB and die.
std::string owner_text(const Region& r, unsigned chip, const Profile& profile) {
  if (r.core < 0) return fmt::format("die {} of chip {}", r.die, chip);
  const std::string core = fmt::format("core {} (chip {} tpb {}, die {})",
                                       chip * profile.cores_per_chip + r.core, chip, r.core, r.die);
  if (r.engine >= 0) return fmt::format("DMA engine {} of {}", r.engine, core);
  if (r.kind == RegionKind::kBcastM2s || r.kind == RegionKind::kBcastS2m ||
      r.kind == RegionKind::kBcastGen || r.kind == RegionKind::kBcastGenEx) {
    return "engine group of " + core;
  }
  return core;
}

}  // namespace

std::string bit_range_text(base::BitField b) {
  return b.msb == b.lsb ? fmt::format("[{}]", b.msb) : fmt::format("[{}:{}]", b.msb, b.lsb);
}

std::string format_address_views(base::SocAddr a) {
  std::string out = fmt::format("address {:#018x}\n", a.v);
  append_view(out, "LOCAL", local_view_fields(), a.v);
  append_view(out, "NEIGHBOR", neighbor_view_fields(), a.v);
  if (kUndefinedBits.get(a.v) != 0) {
    out += fmt::format("  undefined bits [63:58] set: {:#x}\n", kUndefinedBits.get(a.v));
  }
  return out;
}

std::string format_hit_brief(const RegionHit& h) {
  std::string s = fmt::format("{} +{:#x}", h.region->name, h.offset);
  if (h.sem) {
    s += fmt::format(" {}[{}]", sem_window_name(h.sem->window), h.sem->index);
  } else if (h.sbuf) {
    s += fmt::format(" partition {} byte {:#x}{}", h.sbuf->partition, h.sbuf->byte,
                     h.sbuf->active ? "" : " (inactive)");
  } else if (h.udma) {
    s += " " + udma_text(*h.udma);
  }
  return s;
}

std::string format_decoded(const DecodedAddr& d, ChipDie issuer, const Profile& profile) {
  const RouteTarget& t = d.target;
  std::string out = fmt::format(
      "route from chip {} die {}: {} -> {}, die {}, LOCAL {:#x}\n", issuer.chip, issuer.die,
      route_name(t.route),
      t.same_chip ? fmt::format("this chip ({})", t.chip) : fmt::format("chip {}", t.chip), t.die,
      t.local);
  if (!d.hit) {
    const unsigned dies = profile.dies_per_chip;
    if (dies != 0 && t.die >= dies) {
      out += fmt::format("hits nothing: profile {} has {} die{} per chip, no die {}\n",
                         profile.name, dies, dies == 1 ? "" : "s", t.die);
      return out;
    }
    out += fmt::format("hits nothing (chip-relative address {:#x})\n", t.chip_local().v);
    return out;
  }
  const RegionHit& h = *d.hit;
  out += fmt::format("region {} +{:#x}: {}\n", h.region->name, h.offset,
                     owner_text(*h.region, t.chip, profile));
  if (h.region->kind == RegionKind::kEvtSem) {
    if (h.sem) {
      out += fmt::format("  EVT_SEM {} window, {} {}\n", sem_window_name(h.sem->window),
                         h.sem->window == SemWindow::kEvents ? "event" : "semaphore", h.sem->index);
    } else {
      out += "  EVT_SEM: outside the event and semaphore windows\n";
    }
  }
  if (h.region->kind == RegionKind::kTopSp) {
    if (h.sem) {
      out += fmt::format("  TOP_SP {} window, semaphore {}\n", sem_window_name(h.sem->window),
                         h.sem->index);
    } else if (const std::string_view reg = top_sp_local_reg(h.offset, profile); !reg.empty()) {
      out += fmt::format("  LOCAL_REG doorbell {} (+{:#x}; control plane)\n", reg, h.offset);
    }
    out += "  a CC-core (sync processor) window: decoded only, the simulator does not run it\n";
  }
  if (h.sbuf) {
    out += fmt::format("  SBUF partition {}, byte {:#x}{}\n", h.sbuf->partition, h.sbuf->byte,
                       h.sbuf->active ? "" : " (beyond the partition's active bytes)");
  }
  if (h.udma) out += "  " + udma_text(*h.udma) + "\n";
  if (h.region->kind == RegionKind::kSdmaMisc) {
    // The wrapper's registers `info regs` lists under MISC (udma-facts 2.4).
    const RegDesc* reg = h.offset < misc::kBankSize
                             ? find_reg(misc_bank().regs, static_cast<std::uint32_t>(h.offset))
                             : nullptr;
    if (reg != nullptr) {
      out += "  MISC " + register_text(*reg, h.offset) + "\n";
    } else {
      out += fmt::format("  MISC +{:#x}: no known register\n", h.offset);
    }
  }
  return out;
}

std::string format_reg_bank(const RegBank& bank, std::string_view where) {
  std::string out = fmt::format("{} registers (offsets from {})\n", bank.name, where);
  for (const RegDesc& r : bank.regs) {
    out += fmt::format("  {:#06x}  {:<28} {}  reset {:#010x}{}\n", r.offset, r.name,
                       access_name(r.access), r.reset, flags_text(r.flags));
    for (const RegField& f : r.fields) {
      out += fmt::format("          {:<28} {:<8} reset {:#x}\n", f.name, bit_range_text(f.bits),
                         f.reset);
    }
  }
  return out;
}

}  // namespace sbrdma::soc
