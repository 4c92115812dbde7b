// The MMIO buses: posted writes that take effect after the MMIO latency, immediate reads, and
// the register hooks (doorbells, state changes, pointer resets, broadcast). QEMU style: the
// register files are data; a doorbell hook only schedules the engine.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "base/bits.h"
#include "device/machine_internal.h"
#include "soc/udma_descriptor.h"
#include "soc/udma_regs.h"

namespace sbrdma::device {
namespace {

/// The label of posted-write delivery events (the Chrome trace watches it for semaphores).
constexpr std::string_view kWriteLabel = "mmio.write";

using soc::Direction;
using soc::RegionKind;

std::uint32_t engine_of(const soc::Region& r) {
  SBRDMA_CHECK_MSG(r.engine >= 0, "an engine's block names its engine");
  return static_cast<std::uint32_t>(r.engine);
}

}  // namespace

base::Tick Machine::mmio_delay(CoreId issuer, CoreId target) const {
  base::Tick t = params().mmio_write_latency;
  if (issuer == target) return t;
  // The route's latency, computed once per pair (the topology is static).
  const std::uint64_t key = (std::uint64_t{issuer} << 32) | target;
  auto [it, fresh] = mmio_latencies_.try_emplace(key);
  if (fresh) it->second = fabric_.mmio_latency(topology_.route(issuer, target));
  return t + it->second;
}

void Machine::bus_write32(CoreId issuer, base::SocAddr a, std::uint32_t v) {
  ++stats_.mmio_writes;
  auto r = bus_resolve(issuer, a);
  if (!r) {
    record_at_issue(issuer, fmt::format("MMIO write of {:#x}: {}", v, r.error().message));
    return;
  }
  post(issuer, mmio_delay(issuer, r->core), PostedWrite{a, *r, false, v, {}});
}

void Machine::bus_write_block(CoreId issuer, base::SocAddr a, std::span<const std::uint8_t> bytes) {
  ++stats_.mmio_writes;
  auto r = bus_resolve(issuer, a);
  if (!r) {
    record_at_issue(
        issuer, fmt::format("MMIO block write of {} bytes: {}", bytes.size(), r.error().message));
    return;
  }
  if (bytes.empty()) return;
  // The bytes go into a buffer a delivered block gave back, if any (no allocation per block).
  std::vector<std::uint8_t> copy;
  if (!spare_blocks_.empty()) {
    copy = std::move(spare_blocks_.back());
    spare_blocks_.pop_back();
  }
  copy.assign(bytes.begin(), bytes.end());
  post(issuer, mmio_delay(issuer, r->core), PostedWrite{a, *r, true, 0, std::move(copy)});
}

void Machine::post(CoreId issuer, base::Tick delay, PostedWrite w) {
  const base::Tick at = kernel_->now() + delay;
  last_write_[issuer] = std::max(last_write_[issuer], at);
  // The event carries no write: it applies the issuer's write due first, so same-tick writes
  // take effect in issue order even when a tie seed shuffles the events. Its place in the
  // event order is taken now; only the issuer's earliest write has its event queued.
  const std::uint64_t seq = kernel_->reserve_seq();
  if (races_) races_->on_post(issuer, seq);
  if (auto due = posted_[issuer].add(at, seq, std::move(w))) {
    schedule_delivery(issuer, *due);
  }
}

void Machine::schedule_delivery(CoreId issuer, ChainedArrivals<PostedWrite>::Due due) {
  kernel_->schedule_at(
      due.at, due.seq, [this, issuer, seq = due.seq] { deliver_write(issuer, seq); }, kWriteLabel);
}

void Machine::deliver_write(CoreId issuer, std::uint64_t seq) {
  // One write per event; when the issuer's next write would be the kernel's very next event
  // (a burst issued at one tick lands at one tick), it runs here as that event.
  for (;;) {
    apply_posted(issuer, seq);
    const auto next = posted_[issuer].next_due();
    if (!next) return;
    if (!kernel_->run_next_inline(next->at, next->seq, kWriteLabel)) {
      return schedule_delivery(issuer, *next);
    }
    seq = next->seq;
  }
}

void Machine::apply_posted(CoreId issuer, std::uint64_t seq) {
  ChainedArrivals<PostedWrite>& pending = posted_[issuer];
  SBRDMA_CHECK_MSG(pending.earliest() == kernel_->now(), "one landing event per posted write");
  PostedWrite w = pending.take(seq);
  applying_ = IssuedAccess{issuer, seq};  // its errors name it
  if (races_) races_->begin_posted(seq);
  if (w.block) {
    apply_block(issuer, w.addr, w.target, w.bytes);
    if (watcher_ != nullptr) watcher_->on_block_landed(issuer, w.addr, w.bytes.size());
    // Enough for the writes in flight when every core stages its rings at once.
    constexpr std::size_t kSpareBlocksPerCore = 64;
    if (spare_blocks_.size() < kSpareBlocksPerCore * cores_.size()) {
      spare_blocks_.push_back(std::move(w.bytes));
    }
  } else {
    apply_resolved32(w.target, w.value);
  }
  applying_.reset();
  if (races_) races_->end_posted();
  // Fences resume (as their process's own event, like a sleep ending) once done.
  std::erase_if(fences_, [&](const Fence& f) {
    if (f.issuer != issuer || !writes_done(issuer, f.until)) return false;
    if (races_) races_->on_fence(issuer);  // its process stays parked till then: none posted
    kernel_->wake(f.pid);
    return true;
  });
}

void Machine::apply_block(CoreId issuer, base::SocAddr a, const Resolved& resolved,
                          const std::vector<std::uint8_t>& bytes) {
  const Resolved* r = &resolved;  // the map is static: the issue-time resolution holds
  const RegionKind kind = r->hit.region->kind;
  if (kind == RegionKind::kStateBuf || is_plain_memory(kind)) {
    auto m = memory_ref(*r, bytes.size());
    if (!m) return record(ErrorSite{r->core}, "MMIO block write: " + m.error().message);
    memory(*m).write(m->offset, bytes);
    return;
  }
  // Register space: the block is a run of 32-bit writes, in order.
  if (a.v % 4 != 0 || bytes.size() % 4 != 0) {
    return record(ErrorSite{r->core},
                  fmt::format("MMIO block write of {} bytes at {:#x} into {}: register space "
                              "takes whole aligned 32-bit words",
                              bytes.size(), a.v, r->hit.region->name));
  }
  for (std::size_t i = 0; i < bytes.size(); i += 4) {
    apply_write32(issuer, a + i, base::load_le<std::uint32_t>(bytes.data() + i));
  }
}

void Machine::apply_write32(CoreId issuer, base::SocAddr a, std::uint32_t v) {
  auto r = resolve(issuer, a);
  if (!r) return record(ErrorSite{issuer}, r.error().message);
  apply_resolved32(*r, v);
}

void Machine::apply_resolved32(const Resolved& r, std::uint32_t v) {
  const soc::Region& region = *r.hit.region;
  const ErrorSite site{r.core};
  switch (region.kind) {
    case RegionKind::kEvtSem: {
      if (!r.hit.sem) {
        return record(site, fmt::format("write of {:#x} to {} +{:#x}: no semaphore window there", v,
                                        region.name, r.hit.offset));
      }
      auto st = write_semaphore(r.core, r.hit.sem->window, r.hit.sem->index, v);
      if (!st) record(site, st.error().message);
      return;
    }
    case RegionKind::kUdmaM2s:
    case RegionKind::kUdmaS2m:
      return write_engine_reg(r.core, engine_of(region), r.hit.udma->dir, r.hit.udma->queue,
                              r.hit.udma->reg_offset, v);
    case RegionKind::kBcastM2s:
    case RegionKind::kBcastS2m:
      return write_broadcast(r, v);
    case RegionKind::kSdmaMisc: {
      const unsigned e = engine_of(region);
      auto w = engine(r.core, e).misc().write(static_cast<std::uint32_t>(r.hit.offset), v);
      if (!w) record(ErrorSite{r.core, e}, w.error().message);
      return;
    }
    default:
      break;
  }
  if (region.kind == RegionKind::kStateBuf || is_plain_memory(region.kind)) {
    auto m = memory_ref(r, 4);
    if (!m) return record(site, "MMIO write: " + m.error().message);
    std::uint8_t le[4];
    base::store_le(le, v);
    memory(*m).write(m->offset, le);
    return;
  }
  record(site, fmt::format("write of {:#x} to {} +{:#x}: this block is not modelled", v,
                           region.name, r.hit.offset));
}

void Machine::write_engine_reg(CoreId core, unsigned e, Direction dir,
                               std::optional<unsigned> queue, std::uint32_t offset,
                               std::uint32_t v) {
  UdmaEngine& eng = engine(core, e);
  settle(eng);  // a completion head or a reset meets the landings due before it [D35]
  const ErrorSite site{core, e, dir, queue};
  if (queue) {
    UdmaQueue& q = eng.queue(dir, *queue);
    auto w = q.write_reg(offset, v);
    if (!w) return record(site, w.error().message);
    const soc::QueueRegOffsets& role = soc::queue_offsets(dir);
    if (offset == role.doorbell) {  // TDRTP_inc / RDRTP_inc: the doorbell hook
      doorbell(eng, dir, *queue, static_cast<std::uint32_t>(soc::reg_field::kIncVal.get(v)));
    } else if (offset == role.sw_ctrl) {
      q.sw_ctrl(v);
      kick(eng, kernel_->now());
    } else if (offset == role.cfg) {
      kick(eng, kernel_->now());  // an enable may let posted work run
    }
    return;
  }
  if (offset >= soc::udma::kEngineGlobalSize) {
    return record(site, fmt::format("write of {:#x} to {} block +{:#x}: no register there", v,
                                    soc::direction_name(dir), offset));
  }
  // A register outside the tables (the bring-up ones that change nothing modelled included)
  // is flagged as hitting none. [CHOICE D41h]
  auto w = eng.engine_regs(dir).write(offset, v);
  if (!w) return record(site, w.error().message);
  if (offset == soc::engine_offsets(dir).change_state) eng.change_state(dir, v);
  if (dir == Direction::kM2S && offset == soc::m2s_engine::kCfgLen) check_cfg_len(site, v);
  kick(eng, kernel_->now());
}

void Machine::check_cfg_len(const ErrorSite& site, std::uint32_t v) {
  // The engines read LEN 0 as 64 KiB and never split a packet: what cfg_len says at reset
  // (and what the driver writes, with a larger max_pkt_size). Any other value is stored and
  // flagged, not obeyed. [CHOICE D37]
  namespace f = soc::reg_field;
  if (f::kM2sCfgLenEncode64k.get(v) == 0) {
    record(site, fmt::format("write of {:#x} to cfg_len clears encode_64k: descriptor LEN 0 as "
                             "0 bytes is not modelled (LEN 0 stays 64 KiB)",
                             v));
  } else if (f::kM2sCfgLenMaxPktSize.get(v) < soc::kMaxDescLen) {
    record(site, fmt::format("write of {:#x} to cfg_len: a max_pkt_size below 64 KiB is not "
                             "modelled (packets are not checked against it)",
                             v));
  }
}

void Machine::write_broadcast(const Resolved& r, std::uint32_t v) {
  const soc::UdmaHit& h = *r.hit.udma;
  const ErrorSite site{r.core, std::nullopt, h.dir, h.queue};
  if (!h.queue || h.reg == nullptr || (h.reg->flags & soc::reg_flag::kBroadcast) == 0) {
    return record(site, fmt::format("write of {:#x} to {} +{:#x}: not a broadcast-capable queue "
                                    "register",
                                    v, r.hit.region->name, r.hit.offset));
  }
  // [CHOICE D22b] membership: BROADCAST_CFG_GROUP (MISC +0x100) of the group's first channel;
  // [CHOICE D25] an empty mask is flagged.
  const unsigned n = map_.profile().dma_engines_per_tpb;
  const std::uint32_t mask =
      static_cast<std::uint32_t>(soc::reg_field::kBroadcastCfgGroupMask.get(
                                     engine(r.core, 0).misc().get(soc::misc::kBroadcastCfgGroup)) &
                                 base::low_mask(n));
  if (mask == 0) {
    return record(site, fmt::format("broadcast write of {:#x} to {} with an empty group mask "
                                    "(BROADCAST_CFG_GROUP of engine 0 is 0)",
                                    v, h.reg->name));
  }
  for (unsigned e = 0; e < n; ++e) {
    if (base::bit(e).get(mask) != 0) write_engine_reg(r.core, e, h.dir, h.queue, h.reg_offset, v);
  }
}

void Machine::doorbell(UdmaEngine& eng, Direction dir, unsigned queue, std::uint32_t n) {
  UdmaQueue& q = eng.queue(dir, queue);
  const ErrorSite site{eng.core(), eng.index(), dir, queue};
  if (auto st = q.add_tail(n); !st) return record(site, st.error().message);
  if (!eng.can_run(dir, queue)) {  // the text only when there is one
    record(site, fmt::format("doorbell +{} while {}", n, eng.blocked_reason(dir, queue)));
  }  // [CHOICE D25] kept, flagged
  // An S2M batch is kept only for the race checker: what its doorbell released orders the
  // pairs that take its descriptors, not the ones before them.
  if (dir == Direction::kS2M && races_)
    q.batches.push_back(Batch{n, {}, races_->capture_release()});
  if (dir == Direction::kM2S) {
    const base::Tick ready = kernel_->now() + params().dma_fixed_cost;  // [CHOICE D26]
    eng.post_batch(queue, Batch{n, ready, races_ ? races_->capture_release() : 0});
    kick(eng, ready);
  }
}

std::uint32_t Machine::bus_read32(CoreId issuer, base::SocAddr a) {
  ++stats_.mmio_reads;
  auto r = bus_resolve(issuer, a);
  if (!r) {
    record_at_issue(issuer, "MMIO read: " + r.error().message);
    return 0;
  }
  const soc::Region& region = *r->hit.region;
  // Every case sets `v`; an error's text is formatted only when there is one.
  base::Result<std::uint32_t> v = std::uint32_t{0};
  ErrorSite site{r->core};
  switch (region.kind) {
    case RegionKind::kEvtSem:
      if (r->hit.sem) {
        v = core_state(r->core).sems.read(r->hit.sem->window, r->hit.sem->index);
      } else {
        v = base::make_error(fmt::format("read of {} +{:#x}: no semaphore window there",
                                         region.name, r->hit.offset));
      }
      break;
    case RegionKind::kUdmaM2s:
    case RegionKind::kUdmaS2m: {
      const soc::UdmaHit& h = *r->hit.udma;
      const unsigned e = engine_of(region);
      site = ErrorSite{r->core, e, h.dir, h.queue};
      UdmaEngine& eng = engine(r->core, e);
      settle(eng);  // the completion heads as of now [D35]
      if (h.queue) {
        v = eng.queue(h.dir, *h.queue).regs().read(h.reg_offset);
      } else if (h.reg_offset == soc::engine_offsets(h.dir).state) {
        v = eng.state_register(h.dir);
      } else if (h.reg_offset < soc::udma::kEngineGlobalSize) {
        v = eng.engine_regs(h.dir).read(h.reg_offset);
      } else {
        v = base::make_error(fmt::format("read of {} block +{:#x}: no register there",
                                         soc::direction_name(h.dir), h.reg_offset));
      }
      break;
    }
    case RegionKind::kSdmaMisc:
      site.engine = engine_of(region);
      v = engine(r->core, *site.engine).misc().read(static_cast<std::uint32_t>(r->hit.offset));
      break;
    case RegionKind::kBcastM2s:
    case RegionKind::kBcastS2m:
      v = base::make_error(fmt::format("read of the broadcast aperture {} +{:#x} (write-only)",
                                       region.name, r->hit.offset));
      break;
    default:
      if (region.kind == RegionKind::kStateBuf || is_plain_memory(region.kind)) {
        auto m = memory_ref(*r, 4);
        if (!m) {
          v = m.error();
          break;
        }
        std::uint8_t le[4];
        memory(*m).read(m->offset, le);
        v = base::load_le<std::uint32_t>(le);
      } else {
        v = base::make_error(fmt::format("read of {} +{:#x}: this block is not modelled",
                                         region.name, r->hit.offset));
      }
      break;
  }
  if (!v) {
    record(site, "MMIO read: " + v.error().message);
    return 0;
  }
  return *v;
}

}  // namespace sbrdma::device
