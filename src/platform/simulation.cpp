#include "platform/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <set>
#include <utility>

#include "base/bits.h"
#include "isa/op_table.h"
#include "isa/views.h"
#include "platform/chrome_trace.h"
#include "platform/topology_json.h"
#include "soc/address_map.h"

namespace sbrdma::platform {

/// A programmed core: its program, environment, firmware and process.
struct Simulation::CoreSlot {
  std::vector<isa::Word> words;
  std::vector<base::SourceLoc> locs;
  std::unique_ptr<CoreEnv> env;
  std::unique_ptr<firmware::PoolFirmware> fw;
  std::optional<sim::ProcessId> pid;
};

namespace {

/// Two trace sinks in turn: the trace's own, then an observer's.
class TraceTee final : public sim::TraceSink {
 public:
  TraceTee(sim::TraceSink* first, sim::TraceSink* second) : first_(first), second_(second) {}
  void record(const sim::TraceRecord& r) override {
    first_->record(r);
    second_->record(r);
  }
  void resumed(std::uint32_t pid) override {
    first_->resumed(pid);
    second_->resumed(pid);
  }

 private:
  sim::TraceSink* first_;
  sim::TraceSink* second_;
};

}  // namespace

/// Fans the environments' reports out to the DEBUG collection and the trace, and (with
/// SimOptions::locate_device_errors) watches the machine to find where each error comes from.
class Simulation::Observer final : public EnvObserver,
                                   public device::MachineWatcher,
                                   public device::RaceOrigins {
 public:
  Observer(ChromeTrace* trace, std::size_t cores) : busy(cores), trace_(trace) {
    rings.resize(cores);
    unlanded.resize(cores);
    word_marks.resize(cores);
  }
  void on_debug(device::CoreId core, base::Tick t, std::string_view line) override {
    lines.push_back(DebugLine{core, t, std::string(line)});
  }
  void on_busy(device::CoreId core, firmware::Q7Work what, base::Tick t, base::Tick d) override {
    Q7Busy& b = busy[core];
    (what == firmware::Q7Work::kDescGen ? b.desc_gen : b.compute) += d;
    last[core] = LastDelay{t, d, what};
    if (trace_ != nullptr) trace_->on_busy(core, t, d);
  }
  void on_fence(device::CoreId core, unsigned prid, base::Tick t, base::Tick until) override {
    if (trace_ != nullptr) trace_->on_fence(core, prid, t, until);
  }
  void on_push(device::CoreId core, unsigned prid, base::Tick t, std::uint32_t value) override {
    if (trace_ != nullptr) trace_->on_push(core, prid, t, value);
  }
  // ---- where errors come from (SimOptions::locate_device_errors) --------------------------
  // Each ring keeps the block writes that took effect in it, newest last, back to the last
  // that still shows in some slot (one lap's worth); a descriptor's error looks its slot up
  // as it is flagged, when the engine has just read the slot. Each word's start marks the
  // kernel's next sequence number, which an MMIO access's error carries from its issue.

  /// A block write of descriptors into a ring: slots [first_slot, first_slot + count), mod
  /// the depth, by word `pc`.
  struct RingWrite {
    unsigned first_slot = 0;
    unsigned count = 0;
    std::size_t pc = 0;
  };
  /// One engine's ring of one role on one core.
  struct Ring {
    std::vector<RingWrite> writes;  ///< [head, end): those that took effect, oldest first
    std::size_t head = 0;
    std::uint64_t shown = 0;    ///< descriptors in writes[head, end)
    std::uint64_t written = 0;  ///< descriptors posted to it, every lap
  };
  [[nodiscard]] bool wants_origins() const override { return locate; }
  void on_ring_write(device::CoreId core, firmware::Role role, unsigned engine, unsigned first_slot,
                     unsigned count, base::SocAddr at, std::size_t pc) override {
    Ring* r = ring(core, role, engine);
    unlanded[core].push_back({r, {first_slot, count, pc}, at});
    r->written += count;
  }
  void on_block_landed(device::CoreId issuer, base::SocAddr a, std::size_t bytes) override {
    // An issuer's writes land in the order it posted them: its first ring write not landed
    // yet is this one, if this is a ring write at all.
    if (issuer >= unlanded.size() || unlanded[issuer].empty()) return;
    const Pending& p = unlanded[issuer].front();
    if (p.at != a || std::uint64_t{p.write.count} * soc::kDescBytes != bytes) return;
    Ring& r = *p.ring;
    r.writes.push_back(p.write);
    r.shown += p.write.count;
    // The oldest write is hidden once the later ones cover a whole lap.
    while (r.shown - r.writes[r.head].count >= ring_depth) r.shown -= r.writes[r.head++].count;
    if (r.head > 64 && r.head * 2 > r.writes.size()) {
      r.writes.erase(r.writes.begin(), r.writes.begin() + static_cast<std::ptrdiff_t>(r.head));
      r.head = 0;
    }
    unlanded[issuer].pop_front();
  }
  void on_error(const device::ModelledError& e, std::size_t index) override {
    std::optional<FlaggedOrigin> origin;
    if (e.engine && e.dir && e.slot && e.queue == ring_num) {
      if (const Ring* r = find_ring(e.core, firmware::role_of(*e.dir), *e.engine)) {
        if (const auto pc = writer_of(*r, *e.slot)) origin = FlaggedOrigin{*pc, true};
      }
    }
    // An access that failed as it was issued: the word its issuer runs now.
    if (!origin && e.access && e.access->at_issue && e.access->issuer < word_marks.size() &&
        !word_marks[e.access->issuer].empty()) {
      origin = FlaggedOrigin{word_marks[e.access->issuer].back().second, false};
    }
    if (index >= flagged.size()) flagged.resize(index + 1);
    flagged[index] = origin;
  }
  void on_word_start(device::CoreId core, std::size_t pc, std::uint64_t seq) override {
    word_marks[core].emplace_back(seq, pc);
  }
  // ---- the words behind races (SimOptions::check_races) -----------------------------------
  [[nodiscard]] std::optional<std::size_t> running_word(device::CoreId core) const override {
    if (core >= word_marks.size() || word_marks[core].empty()) return std::nullopt;
    return word_marks[core].back().second;
  }
  [[nodiscard]] std::optional<std::size_t> descriptor_word(device::CoreId core, unsigned engine,
                                                           unsigned queue,
                                                           unsigned slot) const override {
    if (queue != ring_num) return std::nullopt;
    const Ring* r = find_ring(core, firmware::Role::kTx, engine);
    return r == nullptr ? std::nullopt : writer_of(*r, slot);
  }
  /// Where a core's ring of `role` and `engine` sits among its rings: RX by engine, then TX.
  static std::size_t ring_index(firmware::Role role, unsigned engine) {
    return (role == firmware::Role::kTx ? firmware::kRdmaEngines : 0) + engine;
  }
  /// The ring of `role` and `engine` on `core` (made on first use; never moves after).
  Ring* ring(device::CoreId core, firmware::Role role, unsigned engine) {
    auto& per_core = rings[core];
    if (per_core.empty()) per_core.resize(2 * firmware::kRdmaEngines);
    return &per_core[ring_index(role, engine)];
  }
  /// The ring, or null if no word wrote to it.
  [[nodiscard]] const Ring* find_ring(device::CoreId core, firmware::Role role,
                                      unsigned engine) const {
    if (core >= rings.size() || rings[core].empty() || engine >= firmware::kRdmaEngines) {
      return nullptr;
    }
    return &rings[core][ring_index(role, engine)];
  }
  /// The word whose write of `slot` took effect last, if one did.
  [[nodiscard]] std::optional<std::size_t> writer_of(const Ring& r, unsigned slot) const {
    for (std::size_t i = r.writes.size(); i-- > r.head;) {
      const RingWrite& w = r.writes[i];
      if ((slot + ring_depth - w.first_slot % ring_depth) % ring_depth < w.count) return w.pc;
    }
    return std::nullopt;
  }
  /// A ring block write posted and not yet taken effect.
  struct Pending {
    Ring* ring;
    RingWrite write;
    base::SocAddr at;
  };
  /// What an error's origin was found to be as it was flagged.
  struct FlaggedOrigin {
    std::size_t pc = 0;
    bool descriptor = true;
  };
  bool locate = false;
  unsigned ring_num = 0;
  unsigned ring_depth = 0;
  /// Per core (sized once: a Pending points into them): RX rings by engine, then TX.
  std::vector<std::vector<Ring>> rings;
  /// Per core: its ring writes in flight.
  std::vector<std::deque<Pending>> unlanded;
  /// Per error (by its index in Machine::errors()), its origin as found when it was flagged.
  std::vector<std::optional<FlaggedOrigin>> flagged;
  /// Per core, where each word began: (the kernel's next sequence number then, pc), in order.
  std::vector<std::vector<std::pair<std::uint64_t, std::size_t>>> word_marks;
  std::vector<DebugLine> lines;
  std::vector<Q7Busy> busy;  ///< per core
  /// Per core, the latest delay: a core charges a delay whole as it starts, and does not start
  /// another before it ends.
  struct LastDelay {
    base::Tick start;
    base::Tick length;
    firmware::Q7Work what = firmware::Q7Work::kDescGen;
  };
  std::vector<LastDelay> last = std::vector<LastDelay>(busy.size());

 private:
  ChromeTrace* trace_;
};

firmware::FirmwareConfig default_firmware_config(const device::Topology& topology) {
  firmware::FirmwareConfig c;
  c.desc_gen_cost = topology.params().q7_desc_gen_cost;            // [CHOICE D16b]
  c.compute.clock_mhz = topology.params().gpsimd_clock_mhz;        // the profile's table
  c.compute.access_latency = topology.params().sbuf_port_latency;  // [CHOICE D16d, D28]
  return c;
}

Simulation::Simulation(SimOptions options, firmware::FirmwareConfig fw_config)
    : options_(options), fw_config_(fw_config) {}

Simulation::~Simulation() = default;

base::Result<std::unique_ptr<Simulation>> Simulation::create(device::Topology topology,
                                                             SimOptions options) {
  const firmware::FirmwareConfig cfg =
      options.firmware ? *options.firmware : default_firmware_config(topology);
  if (options.check_races) options.locate_device_errors = true;  // races name their words
  std::unique_ptr<Simulation> s(new Simulation(options, cfg));
  s->kernel_ = std::make_unique<sim::Kernel>(options.seed);
  device::MachineOptions mo;
  mo.timing_only = options.timing_only;
  mo.ring_id_abort = options.ring_id_abort;
  mo.dense_sbuf = options.dense_sbuf;
  mo.prefault_sbufs = options.prefault_sbufs;
  // The trace dates DMA slices by their landing events. [CHOICE D35]
  mo.elide_data_landings = options.elide_data_landings && !options.trace && !options.check_races;
  auto m = device::Machine::create(*s->kernel_, std::move(topology), mo);
  if (!m) return m.error();
  s->machine_ = std::move(*m);
  if (s->profile().decode_only) {
    return base::make_error(
        fmt::format("profile {} is decode-only: nothing runs on it", s->profile().name));
  }
  // The firmware checks its configuration per core; check it once here for a clear error.
  SBRDMA_TRY(firmware::check_config(cfg, firmware::CoreIdentity{}, s->profile()));
  if (cfg.compute.clock_mhz == 0 || cfg.compute.vector_bytes == 0) {
    return base::make_error("local compute needs a non-zero clock_mhz and vector_bytes");
  }
  if (options.trace) s->trace_ = std::make_unique<ChromeTrace>(*s);
  s->observer_ = std::make_unique<Observer>(s->trace_.get(), s->topology().num_cores());
  s->observer_->locate = options.locate_device_errors;
  s->observer_->ring_num = cfg.ring_num;
  s->observer_->ring_depth = cfg.ring_depth;
  if (options.check_races) s->machine_->check_races(*s->observer_);
  s->slots_.resize(s->topology().num_cores());
  return s;
}

base::Result<std::unique_ptr<Simulation>> Simulation::create(std::string_view topology,
                                                             SimOptions options) {
  auto t = load_topology(topology);
  if (!t) return t.error();
  return create(std::move(*t), options);
}

Q7Busy Simulation::q7_busy(device::CoreId core, std::optional<base::Tick> before) const {
  if (core >= observer_->busy.size()) return Q7Busy{};
  Q7Busy b = observer_->busy[core];
  const Observer::LastDelay& l = observer_->last[core];
  if (before && l.length.ps > 0 && l.start >= *before) {  // only the latest can start that late
    base::Tick& part = l.what == firmware::Q7Work::kDescGen ? b.desc_gen : b.compute;
    part = part - l.length;
  }
  return b;
}

Simulation::CoreSlot& Simulation::slot(device::CoreId core) {
  auto& s = slots_[core];
  if (!s) {
    s = std::make_unique<CoreSlot>();
    const device::CoreLoc loc = topology().locate(core);
    s->env =
        std::make_unique<CoreEnv>(*kernel_, *machine_, core, options_.debug_log, observer_.get());
    s->fw = std::make_unique<firmware::PoolFirmware>(
        *s->env, machine_->address_map(), firmware::CoreIdentity{loc.tpb, loc.chip}, fw_config_);
  }
  return *s;
}

base::Status Simulation::load_program(device::CoreId core, std::span<const isa::Word> words,
                                      std::span<const base::SourceLoc> locs) {
  if (ran_) return base::make_error("the simulation has already run");
  if (core >= topology().num_cores()) {
    return base::make_error(device::missing_core_message(std::to_string(core), core, topology()));
  }
  if (!locs.empty() && locs.size() != words.size()) {
    return base::make_error("load_program: one source location per word is needed");
  }
  CoreSlot& s = slot(core);
  // Words without locations (a collective's: millions, at a large -n) take none; a word past
  // the locations has none (every lookup checks).
  if (!locs.empty()) {
    s.locs.resize(s.words.size());
    s.locs.insert(s.locs.end(), locs.begin(), locs.end());
  }
  s.words.insert(s.words.end(), words.begin(), words.end());
  return base::ok_status();
}

base::Status Simulation::load_program(device::CoreId core, std::vector<isa::Word>&& words) {
  if (!ran_ && core < topology().num_cores()) {
    CoreSlot& s = slot(core);
    if (s.words.empty() && s.locs.empty()) {
      s.words = std::move(words);
      return base::ok_status();
    }
  }
  return load_program(core, std::span<const isa::Word>(words));  // appended, or its error
}

std::vector<isa::Word> Simulation::take_program(device::CoreId core) {
  SBRDMA_CHECK_MSG(ran_, "take_program: the simulation has not run");
  if (core >= slots_.size() || !slots_[core]) return {};
  return std::exchange(slots_[core]->words, {});
}

base::Status Simulation::check_region(const SbufRegion& r) const {
  return platform::check_region(r, topology(), profile());
}

base::Status Simulation::fill(const SbufRegion& r, const FillPattern& p) {
  SBRDMA_TRY(check_region(r));
  std::vector<std::uint8_t> buf(r.bytes);
  for (unsigned part = r.first_partition; part < r.end_partition; ++part) {
    fill_pattern_bytes(p, part, buf);
    SBRDMA_TRY(machine_->sbuf_write(r.core, part, r.offset, buf));
  }
  return base::ok_status();
}

base::Status Simulation::write(const SbufRegion& r, std::span<const std::uint8_t> bytes) {
  SBRDMA_TRY(check_region(r));
  if (bytes.size() != r.total_bytes()) {
    return base::make_error(
        fmt::format("write of {} bytes into a region of {} bytes", bytes.size(), r.total_bytes()));
  }
  for (unsigned part = r.first_partition; part < r.end_partition; ++part) {
    SBRDMA_TRY(machine_->sbuf_write(r.core, part, r.offset,
                                    bytes.subspan((part - r.first_partition) * r.bytes, r.bytes)));
  }
  return base::ok_status();
}

base::Result<std::vector<std::uint8_t>> Simulation::read(const SbufRegion& r) const {
  SBRDMA_TRY(check_region(r));
  std::vector<std::uint8_t> out(r.total_bytes());
  for (unsigned part = r.first_partition; part < r.end_partition; ++part) {
    SBRDMA_TRY(
        machine_->sbuf_read(r.core, part, r.offset,
                            std::span(out).subspan((part - r.first_partition) * r.bytes, r.bytes)));
  }
  return out;
}

base::Result<RunReport> Simulation::run(sim::TraceSink* observer) {
  if (ran_) return base::make_error("the simulation has already run");
  ran_ = true;
  // 1. Boot every programmed core: ring_init programs its RDMA queues through MMIO.
  for (device::CoreId c = 0; c < slots_.size(); ++c) {
    if (!slots_[c]) continue;
    if (auto st = slots_[c]->fw->ring_init(); !st) {
      return base::make_error(fmt::format("core {}: ring_init: {}", c, st.error().message));
    }
  }
  // 2. The semaphores before the run, to report what changed.
  const unsigned nsem = profile().semaphores;
  sems_before_.resize(std::size_t{topology().num_cores()} * nsem);
  for (device::CoreId c = 0; c < topology().num_cores(); ++c) {
    for (unsigned i = 0; i < nsem; ++i) sems_before_[c * nsem + i] = machine_->semaphore(c, i);
  }
  // 3. The SBUFs backed ahead (SimOptions::prefault_sbufs) are backed before the first event,
  //    by both cores: a page the run reads before the prefault reaches it (an in-place
  //    collective's input, in a run without data fill) maps the OS's zero page, and its first
  //    write then costs a fault and a TLB flush on every core. [CHOICE D33]
  if (options_.dense_sbuf && options_.prefault_sbufs > 0) device::wait_prefault();
  // 4. The sequencers, in core order.
  for (device::CoreId c = 0; c < slots_.size(); ++c) {
    if (!slots_[c]) continue;
    slots_[c]->pid =
        kernel_->spawn(fmt::format("core{}.pool", c), slots_[c]->fw->run_words(slots_[c]->words));
  }
  // Errors are told to the observer from here on (by their index: none the boot flagged
  // comes from a word).
  if (options_.locate_device_errors) machine_->watch(observer_.get());
  TraceTee tee{trace_.get(), observer};
  kernel_->set_trace(trace_ && observer != nullptr ? &tee : trace_ ? trace_.get() : observer);
  if (trace_) {
    trace_->begin();
    machine_->watch_semaphores(&trace_->semaphore_log());
  }
  sim::RunResult rr = kernel_->run();
  kernel_->set_trace(nullptr);
  machine_->watch_semaphores(nullptr);
  machine_->watch(nullptr);
  // Landings without events would have run last: the run ends with the latest. [D35]
  if (const auto last = machine_->settle_landings()) rr.end_time = std::max(rr.end_time, *last);
  // Held copies land now, on this thread: a data check then reads the SBUFs from two. [D44]
  machine_->settle_copies();
  if (trace_) trace_->end(rr.end_time);
  RunReport report;
  build_report(rr, report);
  return report;
}

void Simulation::build_report(const sim::RunResult& rr, RunReport& r) const {
  r.end_time = rr.end_time;
  r.past_time_limit = rr.past_time_limit;
  const unsigned nsem = profile().semaphores;
  for (device::CoreId c = 0; c < topology().num_cores(); ++c) {
    CoreSemaphores cs{c, {}};
    for (unsigned i = 0; i < nsem; ++i) {
      const std::uint32_t before = sems_before_[c * nsem + i];
      const std::uint32_t after = machine_->semaphore(c, i);
      if (before != after) cs.changes.push_back({i, before, after});
    }
    if (!cs.changes.empty()) r.semaphores.push_back(std::move(cs));
  }
  for (device::CoreId c = 0; c < slots_.size(); ++c) {
    if (!slots_[c]) continue;
    const CoreSlot& s = *slots_[c];
    for (const firmware::FirmwareError& e : s.fw->errors()) {
      r.firmware_errors.push_back({c, e, e.pc < s.locs.size() ? s.locs[e.pc] : base::SourceLoc{}});
    }
  }
  r.device_errors = machine_->errors();
  if (options_.locate_device_errors) {
    for (std::size_t i = 0; i < r.device_errors.size(); ++i) {
      r.device_error_origins.push_back(error_origin(r.device_errors[i], i));
    }
  }
  if (const device::RaceChecker* rc = machine_->race_checker()) {
    for (const device::Race& x : rc->races()) {
      const auto origin = [&](const device::RaceAccess& a) -> std::optional<ErrorOrigin> {
        if (!a.pc) return std::nullopt;
        return origin_of_word(a.core, *a.pc, a.engine.has_value());
      };
      r.races.push_back(RaceLine{x, origin(x.first), origin(x.second)});
    }
    r.races_total = rc->total();
    for (const device::UnfencedWait& w : rc->unfenced_waits()) {
      UnfencedWaitLine line{w, w.pc ? origin_of_word(w.core, *w.pc, false) : std::nullopt, {}};
      for (std::size_t pc : w.own) line.own.push_back(origin_of_word(w.core, pc, false));
      r.unfenced_waits.push_back(std::move(line));
    }
    r.unfenced_total = rc->unfenced_total();
  }
  for (const sim::BlockedProcess& b : rr.blocked) {
    for (device::CoreId c = 0; c < slots_.size(); ++c) {
      if (!slots_[c] || slots_[c]->pid != b.id) continue;
      const CoreSlot& s = *slots_[c];
      DeadlockWaiter w;
      w.core = c;
      w.pc = s.fw->pc();
      w.loc = w.pc < s.locs.size() ? s.locs[w.pc] : base::SourceLoc{};
      w.description = s.env->describe_wait();
      if (const auto& lw = s.env->last_wait(); lw && lw->semaphore) {
        w.semaphore = lw->semaphore;
        w.condition = fmt::format("{} {}", firmware::sem_compare_symbol(lw->compare),
                                  base::as_int32(lw->value));
        w.current = machine_->semaphore(c, *lw->semaphore);
      }
      r.deadlock.push_back(std::move(w));
    }
  }
  r.pending_work = machine_->pending_work();
  for (device::CoreId c = 0; c < slots_.size(); ++c) {
    if (!slots_[c] || slots_[c]->fw->halted()) continue;  // an error says why
    const CoreSlot& s = *slots_[c];
    const auto u = s.fw->unstarted();
    if (!u) continue;
    UnstartedGens g{c, u->first_pc,
                    u->first_pc < s.locs.size() ? s.locs[u->first_pc] : base::SourceLoc{}, u->gens};
    const firmware::DescriptorStream& tx = s.fw->stream(firmware::Role::kTx);
    for (unsigned e = 0; e < firmware::kRdmaEngines; ++e) {
      const firmware::DescriptorStream::Ring& ring = tx.ring(e);
      g.descriptors += ring.pending;
      g.engines += ring.pending > 0 ? 1 : 0;
      if (ring.expected > ring.pending) {  // the ring was full: the rest were dropped
        if (g.dropped == 0) g.first_full = e;
        g.dropped += ring.expected - ring.pending;
      }
    }
    r.unstarted.push_back(std::move(g));
  }
  r.debug = observer_->lines;
  const device::MachineStats& ms = machine_->stats();
  // Events as the run would have had them with a landing event per pair. [D35]
  r.stats = RunStats{rr.events_processed + machine_->elided_landings(), ms.descriptors,
                     ms.data_bytes, ms.semaphore_writes, ms.mmio_writes};
  if (const device::RaceChecker* rc = machine_->race_checker()) {
    r.stats.race_checked_accesses = rc->accesses();
  }
}

std::optional<ErrorOrigin> Simulation::origin_of_word(device::CoreId core, std::size_t pc,
                                                      bool descriptor) const {
  if (core >= slots_.size() || !slots_[core]) return std::nullopt;
  const CoreSlot& s = *slots_[core];
  return ErrorOrigin{pc, pc < s.locs.size() ? s.locs[pc] : base::SourceLoc{}, descriptor};
}

std::vector<std::optional<ErrorOrigin>> Simulation::ring_writers(device::CoreId core,
                                                                 firmware::Role role,
                                                                 unsigned engine) const {
  std::vector<std::optional<ErrorOrigin>> out(fw_config_.ring_depth);
  const Observer::Ring* r = observer_->find_ring(core, role, engine);
  if (r == nullptr) return out;
  for (std::size_t i = r->head; i < r->writes.size(); ++i) {  // oldest first: later ones win
    const Observer::RingWrite& w = r->writes[i];
    for (unsigned k = 0; k < w.count; ++k) {
      out[(w.first_slot + k) % out.size()] = origin_of_word(core, w.pc, true);
    }
  }
  return out;
}

std::uint64_t Simulation::ring_slots_written(device::CoreId core, firmware::Role role,
                                             unsigned engine) const {
  const Observer::Ring* r = observer_->find_ring(core, role, engine);
  return r == nullptr ? 0 : r->written;
}

std::optional<ErrorOrigin> Simulation::error_origin(const device::ModelledError& e,
                                                    std::size_t index) const {
  // Found as it was flagged: the word that wrote the descriptor whose slot the engine had
  // just read, or the word running as an access failed at its issue.
  if (index < observer_->flagged.size() && observer_->flagged[index]) {
    const Observer::FlaggedOrigin& f = *observer_->flagged[index];
    return origin_of_word(f.descriptor ? e.core : e.access->issuer, f.pc, f.descriptor);
  }
  // An access's error as its write took effect: the word its issuer was running when it
  // issued it, whose start came at or before the write's sequence number (a posted write
  // reserves its number, so a later word's start marks a higher one).
  if (!e.access || e.access->issuer >= observer_->word_marks.size()) return std::nullopt;
  const auto& marks = observer_->word_marks[e.access->issuer];
  const auto after =
      std::upper_bound(marks.begin(), marks.end(), e.access->seq,
                       [](std::uint64_t seq, const std::pair<std::uint64_t, std::size_t>& m) {
                         return seq < m.first;
                       });
  if (after == marks.begin()) return std::nullopt;  // issued at boot, before any word
  return origin_of_word(e.access->issuer, std::prev(after)->second, false);
}

std::string Simulation::trace_json() const {
  return trace_ ? trace_->json() : std::string();
}

std::vector<device::CoreId> Simulation::program_cores() const {
  std::vector<device::CoreId> out;
  for (device::CoreId c = 0; c < slots_.size(); ++c) {
    if (slots_[c]) out.push_back(c);
  }
  return out;
}

std::string Simulation::place_of(device::CoreId core, base::SocAddr a) const {
  const device::Topology& topo = topology();
  const soc::AddressMap& map = machine_->address_map();
  auto d = map.decode(a, topo.chip_die(core));
  if (d && d->hit && d->hit->region->core >= 0 && d->target.chip < topo.num_chips()) {
    const auto tpb = static_cast<unsigned>(d->hit->region->core);  // routing id = chip id (D9)
    const device::CoreId peer =
        topo.core_id(device::CoreLoc{d->target.chip, tpb / topo.cores_per_die(), tpb});
    if (d->hit->sbuf) {
      return fmt::format("core {} partition {} +{:#x}", peer, d->hit->sbuf->partition,
                         d->hit->sbuf->byte);
    }
    if (d->hit->sem) return fmt::format("core {} sem[{}]", peer, d->hit->sem->index);
    return fmt::format("core {} {} +{:#x}", peer, d->hit->region->name, d->hit->offset);
  }
  return fmt::format("{:#x}", a.v);
}

const firmware::PoolFirmware* Simulation::firmware(device::CoreId core) const {
  return core < slots_.size() && slots_[core] ? slots_[core]->fw.get() : nullptr;
}

const CoreEnv* Simulation::env(device::CoreId core) const {
  return core < slots_.size() && slots_[core] ? slots_[core]->env.get() : nullptr;
}

std::optional<sim::ProcessId> Simulation::process_of(device::CoreId core) const {
  if (core >= slots_.size() || !slots_[core]) return std::nullopt;
  return slots_[core]->pid;
}

sim::ProcessState Simulation::process_state(device::CoreId core) const {
  if (core >= slots_.size() || !slots_[core] || !slots_[core]->pid)
    return sim::ProcessState::kReady;
  return kernel_->state(*slots_[core]->pid);
}

std::vector<device::CoreId> Simulation::peers_of(device::CoreId core) const {
  std::set<device::CoreId> out;
  if (core >= slots_.size() || !slots_[core]) return {};
  const device::Topology& topo = topology();
  for (const isa::Word& w : slots_[core]->words) {
    if (auto g = isa::decode_rdma_desc_gen(w)) {
      const std::uint64_t peer =
          std::uint64_t{g->remote_routing_id.imm} * topo.cores_per_chip() + g->remote_core_id.imm;
      if (g->remote_core_id.imm < topo.cores_per_chip() && peer < topo.num_cores()) {
        out.insert(static_cast<device::CoreId>(peer));
      }
    } else if (isa::decode_sb2sb_collective(w)) {
      out.insert(core ^ 1U);  // the LNC2 partner on this chip [CHOICE D12]
    }
  }
  out.erase(core);
  std::vector<device::CoreId> v(out.begin(), out.end());
  std::erase_if(v, [&](device::CoreId c) { return c >= topo.num_cores(); });
  return v;
}

std::string Simulation::word_name(device::CoreId core, std::size_t pc) const {
  if (core >= slots_.size() || !slots_[core] || pc >= slots_[core]->words.size()) return {};
  const isa::OpDesc* op = isa::find_op(slots_[core]->words[pc]);
  return op != nullptr ? std::string(op->mnemonic)
                       : fmt::format("opcode 0x{:02x}", slots_[core]->words[pc][0]);
}

}  // namespace sbrdma::platform
