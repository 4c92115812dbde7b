// Machine: construction, per-core state, address resolution and the direct accessors. The
// MMIO buses are in machine_mmio.cpp, the engines' work in machine_dma.cpp.
#include "device/machine.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/bits.h"
#include "device/machine_internal.h"

namespace sbrdma::device {

using soc::RegionKind;

namespace {

/// True if the region `r` hits for routed address `a` decodes linearly as a window: it does not
/// wrap, and its route bits [63:47] are the same at both ends (see AddrWindow).
bool linear_window(base::SocAddr a, const soc::RegionHit& r) {
  const std::uint64_t lo = a.v - r.offset;
  const std::uint64_t size = r.region->size;
  constexpr unsigned kLocalBits = soc::local_view::kLocal.width();
  return lo <= a.v && size != 0 && lo + size > lo &&
         (lo >> kLocalBits) == ((lo + size - 1) >> kLocalBits);
}

}  // namespace

base::Result<std::unique_ptr<Machine>> Machine::create(sim::Kernel& kernel, Topology topology,
                                                       MachineOptions options) {
  auto profile = soc::find_profile(topology.profile());
  if (!profile) return profile.error();
  auto map = soc::AddressMap::build(**profile);
  if (!map) return map.error();
  const soc::Profile& p = **profile;
  // The topology builder gives every chip its profile's layout.
  SBRDMA_CHECK(topology.dies_per_chip() == p.dies_per_chip &&
               topology.cores_per_die() == p.tpbs_per_die);
  if (topology.num_chips() > p.max_chips) {
    return base::make_error(fmt::format("topology {} has {} chips; profile {} routes at most {}",
                                        topology.name(), topology.num_chips(), p.name,
                                        p.max_chips));
  }
  return std::unique_ptr<Machine>(
      new Machine(kernel, std::move(topology), std::move(map).value(), options));
}

Machine::Machine(sim::Kernel& kernel, Topology topology, soc::AddressMap map,
                 MachineOptions options)
    : kernel_(&kernel),
      topology_(std::move(topology)),
      map_(std::move(map)),
      options_(options),
      fabric_(topology_) {
  // Elision is exact only where a data landing has no effect but pointers and counters, and
  // where same-tick events run in sequence order. [CHOICE D35]
  options_.elide_data_landings =
      options.elide_data_landings && options.timing_only && !kernel.shuffles_ties();
  const soc::Profile& p = map_.profile();
  const unsigned n = topology_.num_cores();
  cores_.reserve(n);
  buses_.reserve(n);
  last_write_.resize(n);
  posted_.resize(n);
  const PageBacking sbuf_backing = options.dense_sbuf ? PageBacking::kDense : PageBacking::kSparse;
  for (CoreId c = 0; c < n; ++c) {
    chip_die_.push_back(topology_.chip_die(c));
    cores_.push_back(std::make_unique<CoreState>(kernel, c, p, sbuf_backing));
    buses_.push_back(std::make_unique<CoreBus>(*this, c));
  }
  if (options.dense_sbuf && options.prefault_sbufs > 0) {
    prefault_pages(p.partition_active.n, PageBacking::kDense,
                   std::uint64_t{options.prefault_sbufs} * p.sbuf_partitions);
  }
}

Machine::~Machine() = default;

Machine::CoreState::CoreState(sim::Kernel& kernel, CoreId core, const soc::Profile& p,
                              PageBacking sbuf_backing)
    : sbuf(std::uint64_t{p.sbuf_partitions} * p.partition_stride.n, p.partition_stride.n,
           p.partition_active.n, sbuf_backing),
      mem(soc::cayman_map::kTpbRegionSize, kMemPageBytes, kMemPageBytes, PageBacking::kDense),
      sems(kernel, fmt::format("core{}.sem", core), p.semaphores, p.events),
      engines(p.dma_engines_per_tpb),
      landings(p.dma_engines_per_tpb),
      elided(p.dma_engines_per_tpb),
      caches(p.dma_engines_per_tpb) {}

soc::MmioBus& Machine::bus(CoreId core) {
  SBRDMA_CHECK(core < buses_.size());
  return *buses_[core];
}

UdmaEngine& Machine::engine(CoreId core, unsigned index) {
  CoreState& cs = core_state(core);
  SBRDMA_CHECK(index < cs.engines.size());
  auto& e = cs.engines[index];
  if (!e) {  // engines come to life on first use, so an untouched machine stays small
    e = std::make_unique<UdmaEngine>(core, index, map_.profile().queues_per_engine);
    e->step_label = fmt::format("core{}.dma{}.step", core, index);
    e->land_label = fmt::format("core{}.dma{}.land", core, index);
  }
  return *e;
}

base::Tick Machine::engine_busy_from(CoreId core, base::Tick t) const {
  base::Tick busy;
  for (const auto& eng : core_state(core).engines) {
    if (eng && eng->free_at > t) busy = busy + (eng->free_at - t);
  }
  return busy;
}

const UdmaEngine* Machine::find_engine(CoreId core, unsigned index) const {
  const CoreState& cs = core_state(core);
  SBRDMA_CHECK(index < cs.engines.size());
  return cs.engines[index].get();
}

void Machine::record_at_issue(CoreId issuer, std::string message) {
  const std::optional<IssuedAccess> outer = applying_;  // a write taking effect may issue one
  applying_ = IssuedAccess{issuer, kernel_->next_seq(), true};
  record(ErrorSite{issuer}, std::move(message));
  applying_ = outer;
}

void Machine::record(const ErrorSite& site, std::string message) {
  errors_.record(kernel_->now(), site, std::move(message), applying_);
  if (watcher_ != nullptr) watcher_->on_error(errors_.all().back(), errors_.size() - 1);
}

base::Result<Machine::Resolved> Machine::resolve(CoreId issuer, base::SocAddr a) const {
  SBRDMA_CHECK(issuer < chip_die_.size());
  auto d = map_.decode(a, chip_die_[issuer]);
  if (!d) return base::make_error(fmt::format("address {:#x}: {}", a.v, d.error().message));
  // routing id = chip id [CHOICE D9]
  if (d->target.chip >= topology_.num_chips()) {
    return base::make_error(fmt::format("address {:#x} routes to {}", a.v,
                                        missing_chip_message(d->target.chip, topology_)));
  }
  if (!d->hit) {
    return base::make_error(
        fmt::format("address {:#x} decodes to nothing (chip {} die {} local {:#x})", a.v,
                    d->target.chip, d->target.die, d->target.local));
  }
  const soc::Region& region = *d->hit->region;
  if (region.core < 0) {  // a chip-level window the model does not run (TOP_SP)
    return base::make_error(
        fmt::format("address {:#x} is in {} +{:#x}, a CC-core window the "
                    "simulator does not model",
                    a.v, region.name, d->hit->offset));
  }
  const auto tpb = static_cast<unsigned>(region.core);
  const CoreId target = topology_.core_id(CoreLoc{d->target.chip, region.die, tpb});
  return Resolved{target, *d->hit};
}

base::Result<Machine::MemRef> Machine::memory_ref(const Resolved& r, std::uint64_t len) const {
  const soc::Region& region = *r.hit.region;
  const CoreState& cs = core_state(r.core);
  if (region.kind == RegionKind::kStateBuf) {
    if (!cs.sbuf.valid_range(r.hit.offset, len)) {
      const soc::SbufHit& s = *r.hit.sbuf;
      return base::make_error(fmt::format(
          "SBUF access beyond the active part of a partition: {} partition {} offset {:#x} + {} "
          "bytes (active {:#x} of stride {:#x})",
          region.name, s.partition, s.byte, len, cs.sbuf.valid_bytes(), cs.sbuf.page_bytes()));
    }
    return MemRef{r.core, true, r.hit.offset};
  }
  if (!is_plain_memory(region.kind)) {
    return base::make_error(fmt::format("{} (at +{:#x}) is not memory", region.name, r.hit.offset));
  }
  if (len > region.size - r.hit.offset) {
    return base::make_error(fmt::format("{} bytes at {} +{:#x} run past the region's end ({:#x})",
                                        len, region.name, r.hit.offset, region.size));
  }
  const std::uint64_t tpb = map_.tpb_base(static_cast<unsigned>(region.core)).value().v;
  return MemRef{r.core, false, region.base.v - tpb + r.hit.offset};
}

void Machine::remember(AddrCache& cache, base::SocAddr a, const Resolved& r,
                       const MemRef& m) const {
  if (!linear_window(a, r.hit)) return;
  const soc::Region& region = *r.hit.region;
  const std::uint64_t lo = a.v - r.hit.offset;
  AddrWindow& w = cache.windows[cache.next];
  cache.next = (cache.next + 1) % cache.windows.size();
  w = AddrWindow{lo,
                 region.size,
                 m.core,
                 m.sbuf,
                 m.offset - r.hit.offset,
                 m.sbuf ? &core_state(m.core).sbuf : nullptr};
}

base::Result<Machine::MemRef> Machine::cached_ref_miss(AddrCache& cache, CoreId issuer,
                                                       base::SocAddr a, std::uint64_t len) const {
  auto r = resolve(issuer, a);
  if (!r) return r.error();
  auto m = memory_ref(*r, len);
  if (m) remember(cache, a, *r, *m);
  return m;
}

base::Result<Machine::Resolved> Machine::bus_resolve(CoreId issuer, base::SocAddr a) {
  BusCache& c = core_state(issuer).bus;
  const std::uint64_t off = a.v - c.lo;  // wraps to a huge value below lo
  if (off < c.size) {
    Resolved r = c.window;
    r.hit.offset = off;
    return r;
  }
  for (const BusCache::Exact& e : c.exact) {
    if (e.valid && e.addr == a.v) return e.r;
  }
  auto r = resolve(issuer, a);
  if (!r) return r;
  // A window only for plain memory: its hit has no refinement by offset.
  if (is_plain_memory(r->hit.region->kind) && linear_window(a, r->hit)) {
    c.lo = a.v - r->hit.offset;
    c.size = r->hit.region->size;
    c.window = *r;
    c.window.hit.offset = 0;
  } else {
    BusCache::Exact& e = c.exact[c.next];
    c.next = (c.next + 1) % c.exact.size();
    e = BusCache::Exact{a.v, true, *r};
  }
  return r;
}

// ---- direct accessors -------------------------------------------------------------------

base::Result<Machine::MemRef> Machine::direct_ref(CoreId issuer, base::SocAddr a,
                                                  std::uint64_t len) const {
  if (issuer >= cores_.size()) {
    return base::make_error(fmt::format("core {} does not exist", issuer));
  }
  auto r = resolve(issuer, a);
  if (!r) return r.error();
  return memory_ref(*r, len);
}

base::Status Machine::mem_write(CoreId issuer, base::SocAddr a,
                                std::span<const std::uint8_t> bytes) {
  auto m = direct_ref(issuer, a, bytes.size());
  if (!m) return m.error();
  memory(*m).write(m->offset, bytes);
  return base::ok_status();
}

base::Status Machine::mem_read(CoreId issuer, base::SocAddr a, std::span<std::uint8_t> out) const {
  auto m = direct_ref(issuer, a, out.size());
  if (!m) return m.error();
  memory(*m).read(m->offset, out);
  return base::ok_status();
}

base::Status Machine::sbuf_write(CoreId core, unsigned partition, std::uint64_t offset,
                                 std::span<const std::uint8_t> bytes) {
  if (core >= cores_.size()) return base::make_error(fmt::format("core {} does not exist", core));
  auto a = map_.sbuf_addr(topology_.locate(core).tpb, partition, offset);
  if (!a) return a.error();
  return mem_write(core, *a, bytes);
}

base::Status Machine::sbuf_read(CoreId core, unsigned partition, std::uint64_t offset,
                                std::span<std::uint8_t> out) const {
  if (core >= cores_.size()) return base::make_error(fmt::format("core {} does not exist", core));
  auto a = map_.sbuf_addr(topology_.locate(core).tpb, partition, offset);
  if (!a) return a.error();
  return mem_read(core, *a, out);
}

base::Result<std::span<std::uint8_t>> Machine::sbuf_span(CoreId core, unsigned partition,
                                                         std::uint64_t bytes) {
  if (core >= cores_.size()) return base::make_error(fmt::format("core {} does not exist", core));
  if (partition >= map_.profile().sbuf_partitions) {
    return base::make_error(fmt::format("partition {} does not exist ({} partitions)", partition,
                                        map_.profile().sbuf_partitions));
  }
  PagedMemory& sbuf = memory(MemRef{core, true, 0});  // runs held copies first
  // One page per partition, keeping only its active bytes: the page's run is the partition.
  const std::uint64_t want = std::min(bytes, sbuf.valid_bytes());
  if (want == 0) return std::span<std::uint8_t>{};
  const std::span<std::uint8_t> run =
      sbuf.write_run(std::uint64_t{partition} * sbuf.page_bytes(), want);
  SBRDMA_CHECK(run.size() == want);
  return run;
}

void Machine::check_races(const RaceOrigins& origins) {
  SBRDMA_CHECK_MSG(!options_.elide_data_landings, "the race checker needs every landing");
  races_ = std::make_unique<RaceChecker>(cores_.size(), core_state(0).sbuf.page_bytes(), origins);
}

void Machine::note_core_access(CoreId core, unsigned partitions,
                               std::span<const std::pair<std::uint64_t, std::uint64_t>> runs,
                               bool write) {
  if (races_) races_->on_core_access(core, partitions, runs, write, kernel_->now());
}

std::uint32_t Machine::semaphore(CoreId core, unsigned idx) const {
  return core_state(core).sems.value(idx);
}

void Machine::set_semaphore(CoreId core, unsigned idx, std::uint32_t v) {
  core_state(core).sems.set(idx, v);
}

void Machine::watch_semaphores(std::vector<SemChange>* log) {
  for (CoreId c = 0; c < cores_.size(); ++c) cores_[c]->sems.report_changes(log, c);
}

sim::Signal& Machine::semaphore_signal(CoreId core) {
  return core_state(core).sems.signal();
}

std::string Machine::describe_semaphore_wait(CoreId core, unsigned idx,
                                             std::string_view cond_text) const {
  return fmt::format("core {} sem[{}] {}, current {}", core, idx, cond_text,
                     base::as_int32(semaphore(core, idx)));
}

sim::WaitUntilAwaiter Machine::wait_semaphore(CoreId core, unsigned idx, SemCondition cond) {
  SBRDMA_CHECK(idx < core_state(core).sems.count() && cond.holds);
  auto c = std::make_shared<const SemCondition>(std::move(cond));
  return semaphore_signal(core).wait_until(
      [this, core, idx, c] { return c->holds(semaphore(core, idx)); },
      [this, core, idx, c] { return describe_semaphore_wait(core, idx, c->text); });
}

bool Machine::park_on_semaphore(std::coroutine_handle<> h, CoreId core, unsigned idx,
                                SemCondition cond) {
  SBRDMA_CHECK(idx < core_state(core).sems.count() && cond.holds);
  auto c = std::make_shared<const SemCondition>(std::move(cond));
  return semaphore_signal(core).park(
      h, [this, core, idx, c] { return c->holds(semaphore(core, idx)); },
      [this, core, idx, c] { return describe_semaphore_wait(core, idx, c->text); });
}

base::Tick Machine::writes_landed_by(CoreId issuer) const {
  SBRDMA_CHECK(issuer < last_write_.size());
  return std::max(last_write_[issuer], kernel_->now());
}

bool Machine::writes_done(CoreId issuer, base::Tick until) const {
  const ChainedArrivals<PostedWrite>& p = posted_[issuer];
  return p.empty() || p.earliest() > until;
}

bool Machine::park_until_writes_landed(std::coroutine_handle<> h, CoreId issuer) {
  SBRDMA_CHECK(issuer < posted_.size());
  // Done once nothing due by `until` is left: writes issued after the fence that land by then
  // are waited for too, which ends the wait no later than `until`.
  const base::Tick until = last_write_[issuer];
  if (writes_done(issuer, until)) {
    if (races_) races_->on_fence(issuer);
    return false;
  }
  kernel_->block(h, [this, issuer, until] {
    return fmt::format("core {}: {} posted MMIO write(s) to land by {} ns", issuer,
                       posted_[issuer].size(), until.ns());
  });
  fences_.push_back(Fence{issuer, kernel_->current_process(), until});
  return true;
}

std::uint64_t Machine::allocated_bytes() const {
  copies_.run();  // held copies take their pages when they run (D44)
  std::uint64_t n = 0;
  for (const auto& c : cores_) {
    n += c->sbuf.allocated_pages() * c->sbuf.valid_bytes();
    n += c->mem.allocated_pages() * c->mem.valid_bytes();
  }
  return n;
}

// ---- register views ----------------------------------------------------------------------

namespace {

/// The register at `offset` of `bank`: its live value, or its reset value while the engine is
/// untouched (`live` null).
base::Result<std::uint32_t> peek_in(const soc::RegBank& bank, const RegFile* live,
                                    std::uint32_t offset) {
  const soc::RegDesc* r = soc::find_reg(bank.regs, offset);
  if (r == nullptr) {
    return base::make_error(fmt::format("no {} register at +{:#x}", bank.name, offset));
  }
  return live == nullptr ? r->reset : live->get(offset);
}

}  // namespace

base::Status Machine::check_engine_ids(CoreId core, unsigned e,
                                       std::optional<unsigned> queue) const {
  if (core >= cores_.size()) return base::make_error(fmt::format("core {} does not exist", core));
  if (e >= map_.profile().dma_engines_per_tpb) {
    return base::make_error(fmt::format("engine {} does not exist", e));
  }
  if (queue && *queue >= map_.profile().queues_per_engine) {
    return base::make_error(fmt::format("queue {} does not exist", *queue));
  }
  return base::ok_status();
}

base::Result<std::uint32_t> Machine::peek_reg(CoreId core, unsigned e, soc::Direction dir,
                                              std::optional<unsigned> queue,
                                              std::uint32_t offset) const {
  SBRDMA_TRY(check_engine_ids(core, e, queue));
  const UdmaEngine* eng = find_engine(core, e);
  if (queue) {
    return peek_in(soc::queue_bank(dir), eng ? &eng->queue(dir, *queue).regs() : nullptr, offset);
  }
  if (eng != nullptr && offset == soc::engine_offsets(dir).state) {
    return eng->state_register(dir);
  }
  return peek_in(soc::engine_bank(dir), eng ? &eng->engine_regs(dir) : nullptr, offset);
}

base::Result<std::uint32_t> Machine::peek_misc(CoreId core, unsigned e,
                                               std::uint32_t offset) const {
  SBRDMA_TRY(check_engine_ids(core, e, std::nullopt));
  const UdmaEngine* eng = find_engine(core, e);
  return peek_in(soc::misc_bank(), eng ? &eng->misc() : nullptr, offset);
}

QueueState Machine::queue_state(CoreId core, unsigned e, soc::Direction dir, unsigned queue) const {
  SBRDMA_CHECK(queue < map_.profile().queues_per_engine);
  const UdmaEngine* eng = find_engine(core, e);
  if (eng == nullptr) return QueueState{};
  const UdmaQueue& q = eng->queue(dir, queue);
  return QueueState{q.head(),   q.tail(),    q.current(), q.completion(),
                    q.posted(), q.packets(), q.stopped(), q.stop_reason()};
}

}  // namespace sbrdma::device
