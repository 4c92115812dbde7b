// Address decoding: which region, core, window, queue and register an address hits.
#include <array>

#include "soc/address_map.h"

namespace sbrdma::soc {
namespace {

using namespace cayman_map;  // NOLINT(google-build-using-namespace): the layout's own names

constexpr std::array kSemWindows{SemWindow::kEvents, SemWindow::kRead, SemWindow::kSet,
                                 SemWindow::kInc, SemWindow::kDec};

/// EVT_SEM offset -> window and slot, if it falls in one of the five 256-slot windows.
std::optional<SemHit> decode_sem(std::uint64_t off, const Profile& p) {
  for (SemWindow w : kSemWindows) {
    const unsigned count = w == SemWindow::kEvents ? p.events : p.semaphores;
    const std::uint64_t start = sem_window_offset(w);
    if (off >= start && off < start + std::uint64_t{count} * kSemSlotBytes) {
      return SemHit{w, static_cast<std::uint32_t>((off - start) / kSemSlotBytes)};
    }
  }
  return std::nullopt;
}

/// Offset inside an M2S/S2M block -> engine-global or queue register.
UdmaHit decode_udma(std::uint64_t off, Direction dir, bool broadcast, const Profile& p) {
  UdmaHit h;
  h.dir = dir;
  h.broadcast = broadcast;
  const RegBank& engine = engine_bank(dir);
  const RegBank& queue = queue_bank(dir);
  const std::uint64_t queues_end =
      udma::kQueueBankBase + std::uint64_t{p.queues_per_engine} * udma::kQueueBankStride;
  if (off < udma::kQueueBankBase) {
    h.reg_offset = static_cast<std::uint32_t>(off);
    h.reg = find_reg(engine.regs, h.reg_offset);
  } else if (off < queues_end) {
    h.queue = static_cast<unsigned>((off - udma::kQueueBankBase) / udma::kQueueBankStride);
    h.reg_offset =
        static_cast<std::uint32_t>((off - udma::kQueueBankBase) % udma::kQueueBankStride);
    h.reg = find_reg(queue.regs, h.reg_offset);
  } else {
    h.reg_offset = static_cast<std::uint32_t>(off);
  }
  return h;
}

}  // namespace

std::string_view top_sp_local_reg(std::uint64_t off, const Profile& p) {
  if (off == p.top_sp_start_doorbell) return "host_trigger START";
  if (!p.top_sp_cayman_doorbells) return {};
  struct Doorbell {
    std::uint64_t offset;
    std::string_view name;
  };
  constexpr std::array kDoorbells{Doorbell{0x1540, "INIT"}, Doorbell{0x1560, "TSYNC"},
                                  Doorbell{0x15c0, "STOP"}, Doorbell{0x15e0, "basic_block_switch"}};
  for (const Doorbell& d : kDoorbells) {
    if (off == kTopSpLocalReg + d.offset) return d.name;
  }
  return {};
}

std::string_view sem_window_name(SemWindow w) {
  switch (w) {
    case SemWindow::kEvents:
      return "EVENTS";
    case SemWindow::kRead:
      return "READ";
    case SemWindow::kSet:
      return "SET";
    case SemWindow::kInc:
      return "INC";
    case SemWindow::kDec:
      return "DEC";
  }
  return "?";
}

std::uint32_t sem_window_offset(SemWindow w) {
  switch (w) {  // [HIGH] wiki-facts §5
    case SemWindow::kEvents:
      return 0x0;
    case SemWindow::kRead:
      return 0x1000;
    case SemWindow::kSet:
      return 0x1400;
    case SemWindow::kInc:
      return 0x1800;
    case SemWindow::kDec:
      return 0x1C00;
  }
  return 0;
}

std::optional<RegionHit> AddressMap::lookup(base::SocAddr a) const {
  const Region* r = regions_.find(a);
  if (r == nullptr) return std::nullopt;
  RegionHit h;
  h.region = r;
  h.offset = a.v - r->base.v;
  switch (r->kind) {
    case RegionKind::kEvtSem:
      h.sem = decode_sem(h.offset, *profile_);
      break;
    case RegionKind::kTopSp:
      // The semaphore windows (no events window is recorded there); top_sp_local_reg() names
      // LOCAL_REG's doorbells. [HIGH] wiki-facts §4.2
      if (h.sem = decode_sem(h.offset, *profile_); h.sem && h.sem->window == SemWindow::kEvents) {
        h.sem.reset();
      }
      break;
    case RegionKind::kStateBuf: {
      SbufHit s;
      s.partition = static_cast<unsigned>(h.offset / profile_->partition_stride.n);
      s.byte = h.offset % profile_->partition_stride.n;
      s.active = s.byte < profile_->partition_active.n;
      h.sbuf = s;
      break;
    }
    case RegionKind::kUdmaM2s:
    case RegionKind::kBcastM2s:
      h.udma = decode_udma(h.offset, Direction::kM2S, r->kind == RegionKind::kBcastM2s, *profile_);
      break;
    case RegionKind::kUdmaS2m:
    case RegionKind::kBcastS2m:
      h.udma = decode_udma(h.offset, Direction::kS2M, r->kind == RegionKind::kBcastS2m, *profile_);
      break;
    default:
      break;
  }
  return h;
}

base::Result<DecodedAddr> AddressMap::decode(base::SocAddr a, ChipDie issuer) const {
  auto t = unfold_route(a, issuer);
  if (!t) return t.error();
  DecodedAddr d;
  d.target = *t;
  d.hit = lookup(t->chip_local());
  return d;
}

std::optional<SemTarget> semaphore_target(const UdmaDescriptor& d, const AddressMap& map,
                                          ChipDie issuer) {
  auto dec = map.decode(d.addr(), issuer);
  // A core's EVT_SEM only: a TOP_SP semaphore slot belongs to no core (and is not modelled).
  if (!dec || !dec->hit || !dec->hit->sem || dec->hit->region->core < 0) return std::nullopt;
  return SemTarget{dec->target.chip, static_cast<unsigned>(dec->hit->region->core), *dec->hit->sem};
}

}  // namespace sbrdma::soc
