// The engines' work: one event per descriptor pair taken, one per landing. A step prefetches
// the M2S and S2M descriptors, checks their ring ids, resolves both ends by SoC address,
// reserves the fabric and schedules the landing, where functional mode copies the bytes and
// semaphore descriptors update the target's EVT_SEM counters.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <utility>

#include "device/machine_internal.h"

namespace sbrdma::device {

using soc::Direction;

/// An engine's step applies its elided landings once this many wait. [CHOICE D35]
constexpr std::size_t kSettleBatch = 64;

/// The action of an engine's step event. Its cache hint starts loading the engine and the
/// descriptors the step will likely read (sim::Callback::hint).
struct Machine::StepAction {
  Machine* m;
  UdmaEngine* eng;
  std::uint64_t gen;
  std::array<const void*, 2> descs;           ///< UdmaEngine::hinted_descriptors() when scheduled
  const EngineCache* cache;                   ///< the engine's resolution caches
  const ChainedArrivals<Landing>* in_flight;  ///< the engine's pairs in flight
  void operator()() const {
    // The caches are read once the step has picked a queue, and a pair taken is stored at the
    // end of the in-flight list (a cold line the step would otherwise wait for): start
    // loading them now.
    const auto* c = reinterpret_cast<const char*>(cache);
    for (std::size_t off = 0; off < sizeof(EngineCache); off += 64) __builtin_prefetch(c + off);
    const auto* slot = static_cast<const char*>(in_flight->next_slot_address());
    __builtin_prefetch(slot, 1);
    __builtin_prefetch(slot + 64, 1);
    m->engine_step(*eng, gen);
  }
  void hint() const noexcept {
    eng->hint();
    __builtin_prefetch(in_flight);
    for (const void* d : descs) __builtin_prefetch(d);
  }
};

/// The action of a landing event: takes the engine's earliest pair in flight and applies it.
/// Its hint starts loading the engine's in-flight list, the pair itself through `entry` and
/// the pair's queues (what the earliest pair held when the event was scheduled; a stale
/// address only wastes the prefetch).
struct Machine::LandAction {
  Machine* m;
  ChainedArrivals<Landing>* in_flight;
  std::uint64_t seq;
  const UdmaEngine* eng;  ///< its land_label names the event
  const void* entry;
  std::array<const UdmaQueue*, 2> queues;
  void operator()() const {
    const Landing l = in_flight->take(seq);
    if (auto next = in_flight->next_due()) m->schedule_landing(*in_flight, *next, *eng);
    m->land(l);
  }
  void hint() const noexcept {
    __builtin_prefetch(in_flight);
    const auto* e = static_cast<const char*>(entry);
    __builtin_prefetch(e);
    __builtin_prefetch(e + 64);
    for (const UdmaQueue* q : queues) q->hint();
  }
};

void Machine::kick(UdmaEngine& eng, base::Tick at) {
  at = std::max({at, kernel_->now(), eng.free_at});
  if (eng.kick_at && *eng.kick_at <= at) return;  // an earlier step will look again
  eng.kick_at = at;
  const std::uint64_t gen = ++eng.kick_gen;
  CoreState& cs = core_state(eng.core());
  kernel_->schedule(at - kernel_->now(),
                    StepAction{this, &eng, gen, eng.hinted_descriptors(), &cs.caches[eng.index()],
                               &cs.landings[eng.index()]},
                    eng.step_label);
}

void Machine::engine_step(UdmaEngine& eng, std::uint64_t gen) {
  if (gen != eng.kick_gen) return;  // superseded by an earlier kick
  eng.prefetch_step_hints();
  // Elided landings are applied a batch at a time (what a later observation would apply
  // anyway), which keeps the list short without a cold load per step.
  if (core_state(eng.core()).elided[eng.index()].size() >= kSettleBatch) settle(eng);
  eng.kick_at.reset();
  const base::Tick now = kernel_->now();
  const UdmaEngine::Pick p = eng.pick(now);
  if (!p.queue) {
    if (p.next) kick(eng, *p.next);
    return;
  }
  eng.served(*p.queue);
  process_pair(eng, *p.queue);
  // Look again when the engine is free (a failed pair leaves it free now).
  if (eng.has_work()) kick(eng, eng.free_at);
}

Machine::HeadRead Machine::read_head(UdmaEngine& eng, Direction dir, unsigned queue) {
  const UdmaQueue& q = eng.queue(dir, queue);
  const base::SocAddr at = q.ring_base() + std::uint64_t{q.head().offset} * soc::kDescBytes;
  std::array<std::uint8_t, soc::kDescBytes> raw{};
  auto m = cached_ref(core_state(eng.core()).caches[eng.index()].ring, eng.core(), at, raw.size());
  if (!m) return m.error();
  const PagedMemory& mem = memory(*m);
  const auto run = mem.read_run(m->offset, raw.size());
  if (run.size() == raw.size()) {
    std::memcpy(raw.data(), run.data(), raw.size());  // the usual case: one run, a fixed copy
  } else {
    mem.read(m->offset, raw);
  }
  // The queue's next descriptor usually follows this one: the next step starts loading it.
  eng.hint_descriptor(dir, run.data() + run.size());
  return std::pair{soc::decode_descriptor(raw), at};
}

// Always inline (as EventQueue::finish_pop): out of line, the two-test fast path paid a frame
// of five saved registers on every call.
[[gnu::always_inline]] inline std::optional<soc::UdmaDescriptor> Machine::prefetch(
    UdmaEngine& eng, Direction dir, unsigned queue, const HeadRead& got) {
  // The usual case, without building the error site: read, and with the expected ring id.
  if (got && got->first.ring_id() == eng.queue(dir, queue).head().ring_id) return got->first;
  return prefetch_failed(eng, dir, queue, got);
}

std::optional<soc::UdmaDescriptor> Machine::prefetch_failed(UdmaEngine& eng, Direction dir,
                                                            unsigned queue, const HeadRead& got) {
  UdmaQueue& q = eng.queue(dir, queue);
  const RingPos head = q.head();
  const ErrorSite site{eng.core(), eng.index(), dir, queue, head.offset};
  if (!got) {
    const std::string msg =
        fmt::format("descriptor prefetch at slot {}: {}", head.offset, got.error().message);
    record(site, msg);
    q.stop(msg);
    return std::nullopt;
  }
  const auto [d, at] = *got;
  if (d.ring_id() != head.ring_id) {  // [CHOICE D2]
    eng.latch_error(dir, soc::err_pref_ring_id(dir));
    // The id the slot's next lap writes: the ring was written round ahead of the engine (a
    // writer that does not wait for the engine to take what it wrote before). Other ids are
    // stale or stray writes.
    const bool next_lap = d.ring_id() == (head.ring_id + 1) % UdmaQueue::kRingIds;
    const std::string msg = fmt::format(
        "pref_ring_id: descriptor at slot {} ({:#x}) has ring id {}, expected {}{}{}", head.offset,
        at.v, d.ring_id(), head.ring_id,
        next_lap ? " (the next lap's: the ring was written round ahead of the engine, onto "
                   "slots it had not taken yet)"
                 : "",
        options_.ring_id_abort ? fmt::format("; {} engine aborted", soc::direction_name(dir))
                               : std::string());
    record(site, msg);
    if (options_.ring_id_abort) {  // the abort mask's default: the block aborts
      eng.abort(dir);
      q.stop(msg);
      return std::nullopt;
    }
  }
  return d;
}

base::Result<Machine::DmaDest> Machine::resolve_dest(EngineCache& cache, CoreId issuer,
                                                     base::SocAddr a, std::uint32_t len) const {
  DmaDest d;
  if (auto hit = window_ref(cache.dst, a, len)) {
    d.core = hit->core;
    d.mem = *hit;
    return d;
  }
  // The two semaphore windows written last: whole aligned slots inside one resolve without a
  // decode (anything else takes the full path below, errors included).
  for (unsigned i = 0; i < cache.sems.size(); ++i) {
    const SemCache& sc = cache.sems[i];
    if (sc.slots != 0 && a.v >= sc.lo && (a.v - sc.lo) / 4 < sc.slots && a.v % 4 == 0 &&
        len % 4 == 0 && (a.v - sc.lo) / 4 + len / 4 <= sc.slots) {
      d.core = sc.core;
      d.semaphore = true;
      d.window = sc.window;
      d.first_slot = static_cast<unsigned>((a.v - sc.lo) / 4);
      cache.sem_victim = i ^ 1U;  // the other one is replaced next
      return d;
    }
  }
  auto r = resolve(issuer, a);
  if (!r) return r.error();
  d.core = r->core;
  if (r->hit.region->kind != soc::RegionKind::kEvtSem) {
    auto m = memory_ref(*r, len);
    if (!m) return m.error();
    remember(cache.dst, a, *r, *m);
    d.mem = *m;
    return d;
  }
  // [CHOICE D5] a write into an EVT_SEM window: each aligned 4-byte word is one slot's write.
  if (!r->hit.sem) {
    return base::make_error(
        fmt::format("{} +{:#x} is in no semaphore window", r->hit.region->name, r->hit.offset));
  }
  const soc::SemHit& s = *r->hit.sem;
  const CoreState& cs = core_state(r->core);
  const unsigned slots = s.window == soc::SemWindow::kEvents ? cs.sems.events() : cs.sems.count();
  if (s.window == soc::SemWindow::kRead) {
    return base::make_error(fmt::format("DMA write to the read-only READ window ({:#x})", a.v));
  }
  if (a.v % 4 != 0 || len % 4 != 0 || s.index + len / 4 > slots) {
    return base::make_error(
        fmt::format("DMA write of {} bytes at {:#x} into the {} window: whole "
                    "aligned 4-byte slots inside the window are needed",
                    len, a.v, soc::sem_window_name(s.window)));
  }
  d.semaphore = true;
  d.window = s.window;
  d.first_slot = s.index;
  cache.sems[cache.sem_victim] = SemCache{a.v - 4ULL * s.index, slots, r->core, s.window};
  cache.sem_victim ^= 1U;
  return d;
}

void Machine::process_pair(UdmaEngine& eng, unsigned qi) {
  const base::Tick now = kernel_->now();
  UdmaQueue& m2s = eng.queue(Direction::kM2S, qi);
  UdmaQueue& s2m = eng.queue(Direction::kS2M, qi);
  // The error site is built only for an error.
  auto fail = [&](UdmaQueue& q, std::string msg) {
    record(ErrorSite{eng.core(), eng.index(), q.dir(), qi, q.head().offset}, msg);
    q.stop(std::move(msg));
    if (&q != &m2s) m2s.stop("its S2M queue stopped");
  };

  eng.hint_queues(m2s, s2m);
  EngineCache& cache = core_state(eng.core()).caches[eng.index()];

  // 0. DMB (word0) or write_barrier (word1): "all previous transfers are done before starting
  //    this one" [DRV] udma-facts §1.1, §3.4 — wait for the queue's earlier data to land,
  //    unless rate_limit_mask.internal_pause_dmb masks the pause (its reset value).
  //    [CHOICE D25g]
  const HeadRead m2s_head = read_head(eng, Direction::kM2S, qi);
  if (m2s.last_data_land > now && m2s_head &&
      (soc::desc_word0::kDmb.get(m2s_head->first.word0) != 0 ||
       soc::desc_word1::kWriteBarrier.get(m2s_head->first.word1) != 0) &&
      soc::reg_field::kRateLimitMaskInternalPauseDmb.get(
          m2s.regs().get(soc::m2s_q::kRateLimitMask)) == 0) {
    m2s.not_before = m2s.last_data_land;
    return;
  }
  // 1. Prefetch the M2S descriptor at head (ring-id check inside); only CME COPY is modelled.
  const auto md = prefetch(eng, Direction::kM2S, qi, m2s_head);
  if (!md) return;
  const auto op = static_cast<unsigned>(soc::desc_word1::kOp.get(md->word1));
  const auto optype = static_cast<unsigned>(soc::desc_word1::kOptype.get(md->word1));
  if (op != static_cast<unsigned>(soc::SdmaOp::kCme) ||
      optype != static_cast<unsigned>(soc::SdmaCmeType::kCopy)) {
    return fail(m2s,
                fmt::format("M2S descriptor word1 {:#010x} (op {}, optype {}) is not a CME COPY, "
                            "the only command modelled",
                            md->word1, op, optype));
  }
  // Every descriptor is its own packet: FIRST and LAST both set. [CHOICE D25i]
  constexpr std::uint64_t kOnePacket = soc::desc_word0::kOnePacket;
  if ((md->word0 & kOnePacket) != kOnePacket) {
    return fail(m2s, fmt::format("M2S descriptor word0 {:#010x} (FIRST {}, LAST {}): packets of "
                                 "several descriptors are not modelled; set both",
                                 md->word0, soc::desc_word0::kFirst.get(md->word0),
                                 soc::desc_word0::kLast.get(md->word0)));
  }
  // 2. The S2M side must hold an armed descriptor for the data.
  if (!eng.can_run(Direction::kS2M, qi) || s2m.posted() == 0) {
    std::string why = eng.blocked_reason(Direction::kS2M, qi);
    if (why.empty()) why = "no descriptor posted (RDRTP_inc not written)";
    return fail(m2s, "M2S data with no armed S2M descriptor: " + why);
  }
  const auto sd = prefetch(eng, Direction::kS2M, qi, read_head(eng, Direction::kS2M, qi));
  if (!sd) return m2s.stop("its S2M queue stopped");
  // 3. Resolve both ends by SoC address, seen from the engine's core.
  const std::uint32_t len = md->length();
  auto src = cached_ref(cache.src, eng.core(), md->addr(), len);
  if (!src) return fail(m2s, "M2S source: " + src.error().message);
  if (len > sd->length()) {
    return fail(s2m, fmt::format("S2M buffer of {} bytes is smaller than the {}-byte M2S "
                                 "descriptor",
                                 sd->length(), len));
  }
  auto dst = resolve_dest(cache, eng.core(), sd->addr(), len);
  if (!dst) return fail(s2m, "S2M destination: " + dst.error().message);
  // 4. Take both descriptors (head and current advance; the batch gives one up).
  std::uint32_t race_pair = 0;
  if (races_) {
    const auto clock_of = [](const UdmaQueue& q) {
      // No batch covers the S2M side: descriptors a pointer reset made pending again.
      if (q.batches.empty()) return RaceChecker::BatchClock{};
      return RaceChecker::BatchClock{q.batches.front().race_clock,
                                     q.batches.front().remaining == 1};
    };
    race_pair = races_->on_take(eng.core(), eng.index(), qi, m2s.head().offset, clock_of(m2s),
                                clock_of(s2m), now);
    if (!s2m.batches.empty()) s2m.batches.take_one();
  }
  m2s.advance_head();
  s2m.advance_head();
  m2s.batches.take_one();
  // 5. Timing [CHOICE D26]: the engine streams after its per-descriptor cost; the bytes cross
  //    the route; a semaphore write, or a strongly ordered data write (S2M SOW, v3 and
  //    later [CHOICE D25g]), lands behind the queue's earlier data.
  const TimingParams& tp = params();
  const base::Tick t0 = now + tp.dma_desc_cost;
  eng.free_at = t0 + fabric_.stream_time(base::Bytes{len}, tp.dma_engine_rate);
  stats_.engine_busy += eng.free_at - now;
  const Route& route = engine_route(cache, eng, src->core, dst->core);
  const base::Tick arrival = fabric_.transfer(route, base::Bytes{len}, t0, tp.dma_engine_rate, now);
  base::Tick at = arrival;
  if (dst->semaphore) {
    at = std::max(arrival, m2s.last_data_land) + tp.semaphore_write_latency;
  } else {
    if (soc::desc_word0::kS2mStrongOrderWr.get(sd->word0) != 0 &&
        profile().s2m_strong_order_write) {
      at = std::max(arrival, m2s.last_data_land);
    }
    m2s.last_data_land = std::max(m2s.last_data_land, at);
  }
  // 6. [CHOICE D35] In timing-only runs a data pair's landing only advances the completion
  //    heads and counts: it waits, without an event, for whatever can see that.
  if (options_.elide_data_landings && !dst->semaphore) {
    core_state(eng.core())
        .elided[eng.index()]
        .add(at, ElidedLanding{kernel_->reserve_seq(), &m2s, &s2m, len});
    return;
  }
  // 7. The landing applies the pair. Its event is reserved now (so it runs where an event
  //    scheduled now would) but enters the kernel's queue only once the engine's earlier
  //    landings are applied; pairs landing at one tick apply in the order the engine took
  //    them, whatever the tie order.
  //    The pair is built in place, field by field: a whole-Landing copy is a block move into
  //    a cold line, which showed as the step's costliest instruction.
  ChainedArrivals<Landing>& in_flight = core_state(eng.core()).landings[eng.index()];
  const auto added = in_flight.emplace(at, kernel_->reserve_seq());
  Landing& l = *added.item;
  l.m2s = &m2s;
  l.s2m = &s2m;
  l.src = *src;
  l.dst = *dst;
  l.len = len;
  l.race_pair = race_pair;
  if (added.due) schedule_landing(in_flight, *added.due, eng);
}

void Machine::schedule_landing(ChainedArrivals<Landing>& in_flight,
                               ChainedArrivals<Landing>::Due due, const UdmaEngine& eng) {
  const Landing& next = in_flight.front();
  kernel_->schedule_at(
      due.at, due.seq,
      LandAction{this, &in_flight, due.seq, &eng, in_flight.front_address(), {next.m2s, next.s2m}},
      eng.land_label);
}

const Route& Machine::engine_route(EngineCache& cache, const UdmaEngine& eng, CoreId src,
                                   CoreId dst) const {
  for (const RouteEntry& e : cache.routes) {
    if (e.route != nullptr && e.src == src && e.dst == dst) return *e.route;
  }
  RouteEntry& e = cache.routes[cache.next_route];
  cache.next_route = (cache.next_route + 1) % EngineCache::kRoutes;
  e.route = &shared_route(src, eng.core(), dst);
  e.src = src;
  e.dst = dst;
  return *e.route;
}

const Route& Machine::shared_route(CoreId src, CoreId engine, CoreId dst) const {
  constexpr unsigned kBits = 21;  // core ids fit: the key holds three
  SBRDMA_CHECK(src < (1U << kBits) && engine < (1U << kBits) && dst < (1U << kBits));
  const std::uint64_t key =
      (std::uint64_t{src} << (2 * kBits)) | (std::uint64_t{engine} << kBits) | std::uint64_t{dst};
  auto [it, fresh] = routes_.try_emplace(key);
  if (fresh) it->second = fabric_.data_route(src, engine, dst);  // the topology is static
  return it->second;
}

void Machine::land(const Landing& l) {
  // Cache hints: both queues are needed at the end and are usually cold by now.
  l.m2s->hint();
  l.s2m->hint();
  if (races_) [[unlikely]] {
    races_->begin_pair(l.race_pair);
    if (!l.dst.semaphore) {
      races_->on_dma(l.race_pair, l.src.core, l.src.sbuf, l.src.offset, l.dst.mem.core,
                     l.dst.mem.sbuf, l.dst.mem.offset, l.len, kernel_->now());
    }
  }
  if (l.dst.semaphore) {
    // [CHOICE D5] each 4-byte word read from the source is the operand of the window's
    // operation (a semaphore descriptor's source word holds 1). Both data modes do this.
    const PagedMemory& src = memory(l.src);
    for (std::uint32_t i = 0; i < l.len / 4; ++i) {
      std::uint8_t le[4];
      src.read(l.src.offset + 4ULL * i, le);
      auto st = write_semaphore(l.dst.core, l.dst.window, l.dst.first_slot + i,
                                base::load_le<std::uint32_t>(le));
      if (!st) record(ErrorSite{l.dst.core}, st.error().message);
    }
    ++stats_.semaphore_writes;
  } else {
    if (!options_.timing_only) {  // [CHOICE D27]
      // SBUF to SBUF: held back and run with others (memory() runs them before any other
      // use of an SBUF). [CHOICE D44]
      const bool held = l.src.sbuf && l.dst.mem.sbuf &&
                        copies_.add(core_state(l.src.core).sbuf, l.src.offset,
                                    core_state(l.dst.mem.core).sbuf, l.dst.mem.offset, l.len);
      if (!held) {
        copy_bytes(memory(l.src), l.src.offset, memory(l.dst.mem), l.dst.mem.offset, l.len);
      }
    }
    stats_.data_bytes += l.len;
  }
  ++stats_.descriptors;
  l.m2s->advance_completion();
  l.s2m->advance_completion();
  if (races_) races_->end_pair(l.race_pair);
}

void Machine::apply_elided(const ElidedLanding& l) {
  // What land() does for a data pair in timing-only mode.
  l.m2s->advance_completion();
  l.s2m->advance_completion();
  stats_.data_bytes += l.len;
  ++stats_.descriptors;
  ++elided_;
}

void Machine::settle(UdmaEngine& eng) {
  if (!options_.elide_data_landings) return;
  // Sequence order is tie order here (no shuffle), and a tick's items are in take order, so
  // the first item that has not run yet ends the scan.
  OrderedArrivals<ElidedLanding>& list = core_state(eng.core()).elided[eng.index()];
  while (!list.empty() && kernel_->ran_before_now(list.earliest(), list.front().seq)) {
    apply_elided(list.take());
  }
}

std::optional<base::Tick> Machine::settle_landings() {
  if (!options_.elide_data_landings) return std::nullopt;
  std::optional<base::Tick> last;
  for (auto& cs : cores_) {
    for (OrderedArrivals<ElidedLanding>& list : cs->elided) {
      while (!list.empty()) {
        const base::Tick at = list.earliest();
        apply_elided(list.take());
        last = std::max(last.value_or(at), at);
      }
    }
  }
  return last;
}

std::vector<std::string> Machine::pending_work() const {
  std::vector<std::string> out;
  for (CoreId c = 0; c < cores_.size(); ++c) {
    for (const auto& e : cores_[c]->engines) {
      if (!e) continue;
      for (unsigned q = 0; q < e->queues(); ++q) {
        for (Direction d : {Direction::kM2S, Direction::kS2M}) {
          const UdmaQueue* found = e->find_queue(d, q);  // one never used has nothing posted
          if (found == nullptr || found->posted() == 0) continue;
          const UdmaQueue& uq = *found;
          std::string why = e->blocked_reason(d, q);
          if (why.empty()) why = d == Direction::kM2S ? "waiting" : "no M2S data for them";
          out.push_back(
              fmt::format("core {} engine {} {} queue {}: {} descriptor(s) posted, not "
                          "taken: {}",
                          c, e->index(), soc::direction_name(d), q, uq.posted(), why));
        }
      }
    }
  }
  return out;
}

}  // namespace sbrdma::device
