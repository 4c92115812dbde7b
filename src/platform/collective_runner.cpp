#include "platform/collective_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "platform/collective_data.h"
#include "platform/collective_trace.h"
#include "platform/simulation.h"
#include "sim/trace.h"
#include "soc/profile.h"

namespace sbrdma::platform {
namespace {

using collectives::CoreProgram;
using collectives::Lowered;

/// Watches the sequencers' program counters and dates the end of every iteration: the kernel
/// reports each event before it runs, so the pc a core's event moved is read at the next
/// event and dated at the moving event's tick (the way ChromeTrace polls). A sequencer runs
/// in events of its process ("coreN.pool") or of its semaphore bank's signal ("coreN.sem",
/// which resumes semaphore waiters).
class IterationClock final : public sim::TraceSink {
 public:
  /// `on_done` (may be empty) hears of each iteration every programmed core has passed, and,
  /// every `beat_events` events (0: never), of how many are done so far: a long iteration's
  /// caller can tell it is still running.
  IterationClock(const Simulation& sim, const std::vector<CoreProgram>& programs,
                 std::size_t iterations, std::function<void(std::size_t, std::size_t)> on_done = {},
                 std::uint64_t beat_events = 0)
      : sim_(sim),
        ends_(iterations),
        passed_(iterations),
        expected_(iterations),
        beat_events_(beat_events),
        on_done_(std::move(on_done)) {
    for (const CoreProgram& p : programs) {
      if (p.core >= bounds_.size()) bounds_.resize(p.core + 1);
      bounds_[p.core] = &p.iteration_end;
      for (std::size_t k = 0; k < iterations && k < p.iteration_end.size(); ++k) ++expected_[k];
    }
    next_.assign(bounds_.size(), 0);
    std::size_t digits = 1;
    for (std::size_t n = bounds_.size(); n >= 10; n /= 10) ++digits;
    longest_ = 4 + digits + 5;  // "core" N ".pool"
  }

  void record(const sim::TraceRecord& r) override {
    if (pending_ != kNone) poll(pending_, last_);
    pending_ = kNone;
    if (++events_ == beat_events_ && on_done_ && done_ < ends_.size()) {
      events_ = 0;
      on_done_(done_, ends_.size());
    }
    // Turned away by length alone, without touching the label: the engines' "coreN.dmaM.step"
    // and ".land" events, the most frequent ones, are longer than any "coreN.pool".
    if (r.label.size() < 9 || r.label.size() > longest_) return;
    // Remember each label's verdict by its address: the sequencer and semaphore labels are
    // process and signal names, alive at one address for the whole run, so a cached entry for
    // them is never stale; any other label only ever maps to kNone.
    const auto key = reinterpret_cast<std::uintptr_t>(r.label.data());
    Seen& seen = seen_[(key >> 4) % kSeen];
    if (seen.key != key || seen.size != r.label.size()) {
      seen = Seen{key, r.label.size(), pool_core(r.label)};
    }
    pending_ = seen.core;
    last_ = r.time;
  }
  void finish() {
    if (pending_ != kNone) poll(pending_, last_);
    pending_ = kNone;
  }
  /// `on_pass(core, k, t)` hears of each core passing the end of its iteration k at `t`,
  /// before the on_done call that iteration may complete.
  void set_on_pass(std::function<void(device::CoreId, std::size_t, base::Tick)> on_pass) {
    on_pass_ = std::move(on_pass);
  }
  [[nodiscard]] const std::vector<base::Tick>& ends() const { return ends_; }

 private:
  static constexpr device::CoreId kNone = ~device::CoreId{0};
  static constexpr std::size_t kSeen = 4096;
  struct Seen {
    std::uintptr_t key = 0;
    std::size_t size = 0;
    device::CoreId core = kNone;
  };

  /// N for a label "coreN.pool" or "coreN.sem", else kNone. Called for every event: the
  /// engines' ".step" / ".land" labels are turned away by their last letter.
  static device::CoreId pool_core(std::string_view label) {
    if (label.size() < 8 || (label.back() != 'l' && label.back() != 'm') || label[0] != 'c') {
      return kNone;
    }
    device::CoreId c = 0;
    std::size_t i = 4;
    for (; i < label.size() && label[i] >= '0' && label[i] <= '9'; ++i) {
      c = c * 10 + static_cast<device::CoreId>(label[i] - '0');
    }
    const std::string_view rest = label.substr(i);
    if (i == 4 || label.substr(0, 4) != "core" || (rest != ".pool" && rest != ".sem")) return kNone;
    return c;
  }

  void poll(device::CoreId core, base::Tick t) {
    if (core >= bounds_.size() || bounds_[core] == nullptr) return;
    const firmware::PoolFirmware* fw = sim_.firmware(core);
    if (fw == nullptr) return;
    const std::vector<std::size_t>& b = *bounds_[core];
    std::size_t& k = next_[core];
    while (k < b.size() && k < ends_.size() && fw->pc() >= b[k]) {
      ends_[k] = std::max(ends_[k], t);
      ++passed_[k];
      if (on_pass_) on_pass_(core, k, t);
      ++k;
    }
    // A core passes its iterations in order, so they complete in order too.
    while (done_ < ends_.size() && passed_[done_] == expected_[done_]) {
      ++done_;
      if (on_done_) on_done_(done_, ends_.size());
    }
  }

  const Simulation& sim_;
  std::vector<const std::vector<std::size_t>*> bounds_;
  std::vector<std::size_t> next_;
  std::vector<base::Tick> ends_;
  std::vector<std::size_t> passed_;    // per iteration: the cores past its end
  std::vector<std::size_t> expected_;  // per iteration: the cores whose program has it
  std::size_t done_ = 0;               // iterations every core has passed
  std::uint64_t beat_events_;          ///< events between two "still running" calls; 0: none
  std::uint64_t events_ = 0;
  std::function<void(std::size_t, std::size_t)> on_done_;
  std::function<void(device::CoreId, std::size_t, base::Tick)> on_pass_;
  device::CoreId pending_ = kNone;
  std::size_t longest_ = 0;  ///< the longest label a programmed core's sequencer can have
  std::vector<Seen> seen_ = std::vector<Seen>(kSeen);
  base::Tick last_;
};

CollectiveData data_of(const CollectiveJob& job) {
  return CollectiveData{.op = job.request.op,
                        .dtype = job.request.dtype,
                        .reduce = job.request.reduce,
                        .fill = *job.check,
                        .seed = job.seed,
                        .pairs = job.request.pairs};
}

/// The counters a TimeBreakdown is worked out from, all as totals since the run began: the
/// programmed cores' Q7 time by what for, their engines' busy time, each link direction's
/// booked time (index Fabric slot: link * 2 + reverse).
struct Usage {
  base::Tick desc_gen;
  base::Tick compute;
  base::Tick engines;
  std::vector<base::Tick> links;
};

/// The usage now; the Q7 figures are `q7`'s sums where given (each core's own as it passed a
/// boundary), else the programmed cores' now. With `before`, the engines' and links' figures
/// leave out the time they are busy from `before` on, though taken or booked already: the
/// usage before that moment of simulated time.
Usage usage_of(const Simulation& sim, const std::vector<CoreProgram>& programs,
               const std::vector<Q7Busy>* q7 = nullptr,
               std::optional<base::Tick> before = std::nullopt) {
  Usage u;
  for (const CoreProgram& p : programs) {
    const Q7Busy b = q7 != nullptr ? (*q7)[p.core] : sim.q7_busy(p.core);
    u.desc_gen += b.desc_gen;
    u.compute += b.compute;
  }
  const device::Machine& m = sim.machine();
  u.engines = m.stats().engine_busy;
  if (before) {  // a pair taken before then streams on after it
    for (const CoreProgram& p : programs) {
      u.engines = u.engines - m.engine_busy_from(p.core, *before);
    }
  }
  const device::Fabric& f = m.fabric();
  const std::size_t links = sim.topology().links().size();
  u.links.reserve(2 * links);
  for (device::LinkId l = 0; l < links; ++l) {
    for (const bool reverse : {false, true}) {
      const device::Hop hop{l, reverse};
      u.links.push_back(f.booked_total(hop) -
                        (before ? f.booked_from(hop, *before) : base::Tick{}));
    }
  }
  return u;
}

/// The breakdown of a window of `span` between the usage `from` and `to`; none for an empty
/// window (nothing ran: groups of one rank). [CHOICE D45]
std::optional<TimeBreakdown> breakdown_of(const Usage& from, const Usage& to, base::Tick span,
                                          std::size_t cores, const device::Topology& topo) {
  if (span.ps == 0 || cores == 0) return std::nullopt;
  TimeBreakdown b;
  const auto share = [](base::Tick part, double whole) {
    return std::clamp(static_cast<double>(part.ps) / whole, 0.0, 1.0);
  };
  const double core_time = static_cast<double>(span.ps) * static_cast<double>(cores);
  b.desc_gen = share(to.desc_gen - from.desc_gen, core_time);
  b.compute = share(to.compute - from.compute, core_time);
  b.waiting = std::max(0.0, 1.0 - b.desc_gen - b.compute);
  b.engines = share(to.engines - from.engines, core_time * firmware::kRdmaEngines);
  std::size_t busiest = to.links.size();
  base::Tick most;
  for (std::size_t i = 0; i < to.links.size(); ++i) {
    const base::Tick booked = to.links[i] - from.links[i];
    if (booked > most) {  // the first of equals: the lowest link id
      most = booked;
      busiest = i;
    }
  }
  if (busiest < to.links.size()) {
    const device::Link& l = topo.link(static_cast<device::LinkId>(busiest / 2));
    const bool reverse = busiest % 2 != 0;
    b.link = share(most, static_cast<double>(span.ps));
    b.link_name = fmt::format("{} {}->{}", l.name, topo.node_name(reverse ? l.b : l.a),
                              topo.node_name(reverse ? l.a : l.b));
  }
  return b;
}

/// A simulation of `low`'s programs, run; fills inputs first when asked. `on_iteration` as
/// CollectiveJob's, for this run. An untraced run borrows the programs' words rather than
/// copying them (a gigabyte at a large -n) and gives them back as soon as it has run.
struct Ran {
  std::unique_ptr<Simulation> sim;
  RunReport report;
  std::vector<base::Tick> ends;
  std::chrono::steady_clock::time_point start;  ///< of Simulation::run, and its end
  std::chrono::steady_clock::time_point end;
  /// With `usage_after`: the usage once that many iterations were done.
  std::optional<Usage> window_start;
};

base::Result<Ran> simulate(const CollectiveJob& job, Lowered& low, bool fill, bool trace,
                           std::size_t iterations,
                           const std::function<void(std::size_t, std::size_t)>& on_iteration = {},
                           std::optional<std::size_t> usage_after = std::nullopt) {
  SimOptions o;
  o.timing_only = job.timing_only;
  o.seed = job.tie_seed;
  o.trace = trace;
  if (trace) o.trace_cores = job.trace_cores;
  o.elide_data_landings = job.elide_data_landings;
  o.check_races = job.check_races;
  o.dense_sbuf = backs_sbufs_whole(job, low.sbuf_bytes, buffer_span(low.buffers));
  if (o.dense_sbuf) {
    for (const auto& g : job.comm.groups) o.prefault_sbufs += static_cast<std::uint32_t>(g.size());
  }
  auto sim = Simulation::create(*job.topology, o);
  if (!sim) return sim.error();
  for (CoreProgram& p : low.programs) {
    if (trace) {
      SBRDMA_TRY((*sim)->load_program(p.core, p.words));  // the trace reads them after the run
    } else {
      SBRDMA_TRY((*sim)->load_program(p.core, std::move(p.words)));
    }
  }
  if (fill) SBRDMA_TRY(fill_inputs(**sim, job.comm, low, data_of(job)));
  const Simulation& watched = **sim;
  std::optional<Usage> window_start;
  if (usage_after == 0) window_start = usage_of(watched, low.programs);  // all zero: no run yet
  // Each core's Q7 time as it passes the end of iteration `usage_after` - 1 (its own words:
  // gen is never hoisted across an iteration's end, D30c, so its later gens are all the
  // window's; the clock reads a pc at the next event, by when the event that moved it may have
  // started the next iteration's first delay), and the engines' and links' as the last core
  // does (the kernel reports the next event before it runs: nothing has happened since).
  std::vector<Q7Busy> q7_at_start(watched.topology().num_cores());
  base::Tick boundary;  // when the last core passed it
  auto on_done = [&](std::size_t done, std::size_t total) {
    if (!window_start && usage_after && done >= *usage_after) {
      window_start = usage_of(watched, low.programs, &q7_at_start, boundary);
    }
    if (on_iteration) on_iteration(done, total);
  };
  IterationClock clock(**sim, low.programs, iterations, on_done, job.progress_beat_events);
  if (usage_after && *usage_after > 0) {
    clock.set_on_pass([&](device::CoreId core, std::size_t k, base::Tick at) {
      if (k + 1 == *usage_after) {
        q7_at_start[core] = watched.q7_busy(core, at);
        boundary = std::max(boundary, at);
      }
    });
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto rep = (*sim)->run(&clock);
  const auto t1 = std::chrono::steady_clock::now();
  if (!trace) {
    for (CoreProgram& p : low.programs) p.words = (*sim)->take_program(p.core);
  }
  if (!rep) return rep.error();
  clock.finish();
  if (rep->races_total + rep->unfenced_total > 0 && rep->ok_but_races()) {
    return races_error(*rep);
  }
  if (!rep->ok()) {
    std::string lines;
    for (const base::Error& e : report_failures(*rep)) {
      if (!lines.empty()) lines += "; ";
      lines += e.message;
    }
    return base::make_error(fmt::format("the collective's run failed: {}", lines));
  }
  Ran out;
  out.sim = std::move(*sim);
  out.report = std::move(*rep);
  out.ends = clock.ends();
  out.start = t0;
  out.end = t1;
  out.window_start = std::move(window_start);
  return out;
}

bool idempotent(const collectives::LowerRequest& r) {
  return !collectives::is_reduction(r.op) || r.reduce != collectives::ReduceOp::kSum;
}

}  // namespace

base::Error races_error(const RunReport& r) {
  SBRDMA_CHECK(r.races_total + r.unfenced_total > 0);
  // The races, first to last, then the unfenced waits.
  const std::vector<base::Error> lines = report_failures(r);
  std::string_view first = lines.front().message;
  if (first.starts_with("race: ")) first.remove_prefix(6);
  const std::uint64_t n = r.races_total + r.unfenced_total;
  return base::make_error(fmt::format(
      "the collective's programs race ({} race{} in all; the first: {}). sbrdma lowers every "
      "collective race-free (D49b): please report this. To list them all, run this size alone "
      "with `--dump-programs DIR`, then `sbrdma run DIR --check-races` with the same "
      "--topology and --param",
      n, n == 1 ? "" : "s", first));
}

collectives::Geometry geometry_of(const device::Topology& topology) {
  auto prof = soc::find_profile(topology.profile());
  collectives::Geometry g =
      collectives::Geometry::of(prof ? **prof : soc::cayman_profile(), topology.num_chips());
  g.dies_per_chip = topology.dies_per_chip();
  g.cores_per_die = topology.cores_per_die();
  g.ring_depth = default_firmware_config(topology).ring_depth;
  return g;
}

base::Status check_data_mode(bool check, bool timing_only) {
  if (check && timing_only) {
    return base::make_error("-c (data check) needs data: it cannot run with --timing-only");
  }
  return base::ok_status();
}

base::Status check_iteration_total(unsigned iterations, unsigned warmups) {
  if (warmups > std::numeric_limits<unsigned>::max() - iterations) {
    return base::make_error(fmt::format("-n {} and -w {}: more than {} iterations in all",
                                        iterations, warmups, std::numeric_limits<unsigned>::max()));
  }
  return base::ok_status();
}

namespace {

/// The job's own contradictions: a data check asked of a run without data, and warmups plus
/// iterations past what one count holds.
base::Status check_modes(const CollectiveJob& job) {
  SBRDMA_TRY(check_data_mode(job.check.has_value(), job.timing_only));
  return check_iteration_total(job.request.iterations, job.warmups);
}

/// What the timed run lowers: the warmups and the measured iterations, back to back.
collectives::LowerRequest timed_request(const CollectiveJob& job) {
  collectives::LowerRequest req = job.request;
  req.iterations = job.warmups + job.request.iterations;
  return req;
}

}  // namespace

bool backs_sbufs_whole(const CollectiveJob& job, std::uint64_t sbuf_bytes,
                       std::uint64_t buffer_bytes) {
  constexpr std::uint64_t kDenseSbufBytes = 64 * 1024;  // below: a few bytes a partition
  if (job.timing_only || sbuf_bytes < kDenseSbufBytes) return false;
  const collectives::Geometry g = geometry_of(*job.topology);
  std::uint64_t cores = 0;
  for (const auto& group : job.comm.groups) cores += group.size();
  const std::uint64_t extra = g.partition_bytes - std::min(buffer_bytes, g.partition_bytes);
  return cores * g.partitions * extra <= kMaxWholeBackingExtra;
}

std::uint64_t buffer_span(const std::vector<std::vector<collectives::RankBuffers>>& buffers) {
  std::uint64_t span = 0;
  for (const auto& group : buffers) {
    for (const collectives::RankBuffers& b : group) {
      const std::uint64_t lo = std::min(b.in.base, b.out.base);
      const std::uint64_t hi =
          std::max(b.in.byte_of(b.in.end_col()), b.out.byte_of(b.out.end_col()));
      span = std::max(span, hi - lo);
    }
  }
  return span;
}

MemoryNeed memory_need(const CollectiveJob& job,
                       const std::vector<std::vector<collectives::RankBuffers>>& buffers,
                       std::uint64_t sbuf_bytes, std::uint64_t words) {
  std::uint64_t cores = 0;
  for (const auto& group : job.comm.groups) cores += group.size();
  const std::uint64_t own = cores * kSimulatorBytesPerCore + words * kSimulatorBytesPerWord;
  if (job.timing_only) return MemoryNeed{.simulator = own};
  const collectives::Geometry g = geometry_of(*job.topology);
  // Every participating partition, whole: what a run may map either way.
  const std::uint64_t whole = cores * g.partitions * g.partition_bytes;
  const std::uint64_t mapped_at_most = whole + own + kSimulatorAddressSpace;
  if (backs_sbufs_whole(job, sbuf_bytes, buffer_span(buffers))) {  // prefaulted whole
    return MemoryNeed{whole, whole + own, whole, mapped_at_most, own, true};
  }
  // A sparse SBUF is backed by the OS 4 KiB at a time where written (D33). Only a data check
  // writes every input and makes sure of every output (without one, inputs stay unwritten
  // pages that read as zeros, and a rank that receives nothing writes nothing).
  constexpr std::uint64_t kPage = 4096;
  MemoryNeed need;
  if (job.check) {
    for (const auto& group : buffers) {
      for (const collectives::RankBuffers& b : group) {
        // In every partition, the input's and the output's byte ranges, as OS page ranges.
        const std::uint64_t in_end = b.in.byte_of(b.in.end_col());
        const std::uint64_t out_end = b.out.byte_of(b.out.end_col());
        std::uint64_t pages = 0;
        if (in_end > b.in.base) pages += (in_end - 1) / kPage - b.in.base / kPage + 1;
        if (out_end > b.out.base) pages += (out_end - 1) / kPage - b.out.base / kPage + 1;
        if (in_end > b.in.base && out_end > b.out.base) {  // less the pages both ranges hold
          const std::uint64_t first = std::max(b.in.base, b.out.base) / kPage;
          const std::uint64_t last = (std::min(in_end, out_end) - 1) / kPage;
          if (first <= last) pages -= last - first + 1;
        }
        need.at_least += pages * kPage * std::min(b.in.partitions, b.out.partitions);
        // Each partition written maps whole (the fill writes the input's, the collective the
        // output's).
        const unsigned written = std::max(in_end > b.in.base ? b.in.partitions : 0U,
                                          out_end > b.out.base ? b.out.partitions : 0U);
        need.mapped_at_least += std::uint64_t{written} * g.partition_bytes;
      }
    }
  }
  const std::uint64_t scratch_pages = base::ceil_div(sbuf_bytes, kPage);
  need.at_most = std::max(need.at_least, cores * g.partitions * scratch_pages * kPage) + own;
  need.mapped_at_most = mapped_at_most;
  need.simulator = own;
  return need;
}

base::Result<MemoryNeed> check_collective(const CollectiveJob& job) {
  SBRDMA_TRY(check_modes(job));
  auto fp = collectives::check_request(geometry_of(*job.topology), job.comm, timed_request(job));
  if (!fp) return fp.error();
  const std::uint64_t iterations = std::uint64_t{job.warmups} + job.request.iterations;
  const MemoryNeed need = memory_need(job, fp->buffers, fp->sbuf_bytes, fp->words * iterations);
  if (auto verdict = judge_memory(need, job.host_memory, job.address_space, job.address_space_left);
      !verdict) {
    return verdict.error();
  }
  return need;
}

base::Result<CollectiveResult> run_collective(const CollectiveJob& job) {
  SBRDMA_TRY(check_modes(job));
  const collectives::Geometry geom = geometry_of(*job.topology);
  const collectives::LowerRequest req = timed_request(job);
  auto low = collectives::lower(geom, job.comm, req);
  if (!low) return low.error();
  {
    std::uint64_t words = 0;
    for (const CoreProgram& p : low->programs) words += p.words.size();
    auto verdict = judge_memory(memory_need(job, low->buffers, low->sbuf_bytes, words),
                                job.host_memory, job.address_space, job.address_space_left);
    if (!verdict) return verdict.error();
    if (*verdict && job.on_warning) job.on_warning(**verdict);
  }

  CollectiveResult res;
  res.algorithm = low->algorithm;
  res.count = low->count;
  res.emit = low->stats;
  res.sbuf_bytes = low->sbuf_bytes;
  const bool check_here = job.check.has_value() && idempotent(req);
  auto progress = [&](RunPart part) -> std::function<void(std::size_t, std::size_t)> {
    if (!job.on_iteration) return {};
    return [&job, part, alg = low->algorithm](std::size_t done, std::size_t total) {
      job.on_iteration(part, alg, done, total);
    };
  };
  // Every run the job takes (timed, check, trace) counts in its cost.
  const auto count_run = [&](const Ran& r) {
    res.sim_seconds += std::chrono::duration<double>(r.end - r.start).count();
    res.sim_spans.emplace_back(r.start, r.end);
    res.descriptors += r.report.stats.descriptors;
    res.race_checked_accesses += r.report.stats.race_checked_accesses;
    if (!job.timing_only) res.copied_bytes += r.report.stats.data_bytes;
  };
  auto timed = simulate(job, *low, check_here, false, req.iterations, progress(RunPart::kTimed),
                        job.breakdown ? std::optional<std::size_t>(job.warmups) : std::nullopt);
  if (!timed) return timed.error();
  res.end_time = timed->report.end_time;
  res.stats = timed->report.stats;
  count_run(*timed);
  for (unsigned i = job.warmups; i < req.iterations; ++i) {
    const base::Tick before = i == 0 ? base::Tick{} : timed->ends[i - 1];
    res.iterations.push_back(timed->ends[i] - before);
  }
  if (job.breakdown && timed->window_start && !timed->ends.empty()) {
    const base::Tick from = job.warmups == 0 ? base::Tick{} : timed->ends[job.warmups - 1];
    res.breakdown = breakdown_of(*timed->window_start, usage_of(*timed->sim, low->programs),
                                 timed->ends.back() - from, low->programs.size(), *job.topology);
  }

  if (job.check || job.trace) {
    // One iteration: the data check of an in-place sum, and the trace.
    collectives::LowerRequest one = job.request;
    one.iterations = 1;
    // The timed run's algorithm: auto's choice can depend on the iterations (relay slots).
    one.algorithm = low->algorithm;
    one.notes = one.notes || job.trace;  // step marks for the trace's boxes
    auto low1 = collectives::lower(geom, job.comm, one);
    if (!low1) return low1.error();
    if (job.check) {
      std::optional<Ran> own;
      Simulation* sim = timed->sim.get();
      const Lowered* used = &*low;
      if (!check_here) {
        // The timed run's memory goes back to the page pool for this run to reuse.
        timed->sim.reset();
        auto r = simulate(job, *low1, true, false, 1, progress(RunPart::kCheck));
        if (!r) return r.error();
        count_run(*r);  // a check is never timing-only: its bytes count
        res.check_run = true;
        res.check_end_time = r->report.end_time;
        own = std::move(*r);
        sim = own->sim.get();
        used = &*low1;
      }
      auto count = check_outputs(*sim, job.comm, *used, data_of(job));
      if (!count) return count.error();
      res.wrong = count->wrong;
      res.checked = count->checked;
    }
    timed->sim.reset();
    if (job.trace) {
      auto r = simulate(job, *low1, job.check.has_value(), true, 1, progress(RunPart::kTrace));
      if (!r) return r.error();
      count_run(*r);  // as the other runs: the point's wall time holds it too
      res.trace_run = true;
      res.trace_json =
          add_step_boxes(r->sim->trace_json(), r->sim->trace()->word_spans(), low1->programs);
    }
  }
  res.programs = std::move(low->programs);
  return res;
}

}  // namespace sbrdma::platform
