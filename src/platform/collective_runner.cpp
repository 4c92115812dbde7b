#include "platform/collective_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "platform/collective_trace.h"
#include "platform/simulation.h"
#include "sim/trace.h"
#include "soc/profile.h"

namespace sbrdma::platform {
namespace {

using collectives::CoreProgram;
using collectives::Lowered;
using collectives::RankBuffers;
using collectives::Tiled;

/// Watches the sequencers' program counters and dates the end of every iteration: the kernel
/// reports each event before it runs, so the pc a core's event moved is read at the next
/// event and dated at the moving event's tick (the way ChromeTrace polls). A sequencer runs
/// in events of its process ("coreN.pool") or of its semaphore bank's signal ("coreN.sem",
/// which resumes semaphore waiters).
class IterationClock final : public sim::TraceSink {
 public:
  IterationClock(const Simulation& sim, const std::vector<CoreProgram>& programs,
                 std::size_t iterations)
      : sim_(sim), ends_(iterations) {
    for (const CoreProgram& p : programs) {
      if (p.core >= bounds_.size()) bounds_.resize(p.core + 1);
      bounds_[p.core] = &p.iteration_end;
    }
    next_.assign(bounds_.size(), 0);
  }

  void record(const sim::TraceRecord& r) override {
    if (pending_) poll(*pending_, last_);
    pending_ = pool_core(r.label);
    last_ = r.time;
  }
  void finish() {
    if (pending_) poll(*pending_, last_);
    pending_.reset();
  }
  [[nodiscard]] const std::vector<base::Tick>& ends() const { return ends_; }

 private:
  /// N for a label "coreN.pool" or "coreN.sem".
  static std::optional<device::CoreId> pool_core(std::string_view label) {
    if (label.size() < 6 || label.substr(0, 4) != "core") return std::nullopt;
    device::CoreId c = 0;
    std::size_t i = 4;
    for (; i < label.size() && label[i] >= '0' && label[i] <= '9'; ++i) {
      c = c * 10 + static_cast<device::CoreId>(label[i] - '0');
    }
    const std::string_view rest = label.substr(i);
    if (i == 4 || (rest != ".pool" && rest != ".sem")) return std::nullopt;
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
      ++k;
    }
  }

  const Simulation& sim_;
  std::vector<const std::vector<std::size_t>*> bounds_;
  std::vector<std::size_t> next_;
  std::vector<base::Tick> ends_;
  std::optional<device::CoreId> pending_;
  base::Tick last_;
};

/// The SBUF region of block b of `t` on `core`: its columns in all partitions.
SbufRegion block_region(device::CoreId core, const Tiled& t, std::size_t b) {
  const collectives::Cols c = t.block_cols(b);
  return SbufRegion{core, t.byte_of(c.begin), c.size() * t.elem_bytes, 0, t.partitions};
}

/// Writes `logical` (the tile's elements, blocks in order) into `core`'s SBUF.
base::Status write_tile(Simulation& sim, device::CoreId core, const Tiled& t,
                        const std::vector<std::uint8_t>& logical) {
  const unsigned eb = t.elem_bytes;
  std::uint64_t first = 0;
  for (std::size_t b = 0; b < t.blocks(); ++b) {
    const SbufRegion r = block_region(core, t, b);
    if (r.bytes == 0) continue;
    const std::uint64_t cols = r.bytes / eb;
    std::vector<std::uint8_t> bytes(r.total_bytes(), 0);  // padding cells stay 0
    for (unsigned p = 0; p < t.partitions; ++p) {
      for (std::uint64_t i = 0; i < cols; ++i) {
        const std::uint64_t e = i * t.partitions + p;
        if (e >= t.counts[b]) break;
        std::memcpy(&bytes[(p * cols + i) * eb], &logical[(first + e) * eb], eb);
      }
    }
    SBRDMA_TRY(sim.write(r, bytes));
    first += t.counts[b];
  }
  return base::ok_status();
}

/// Reads the tile's elements from `core`'s SBUF, blocks in order.
base::Result<std::vector<std::uint8_t>> read_tile(const Simulation& sim, device::CoreId core,
                                                  const Tiled& t) {
  const unsigned eb = t.elem_bytes;
  std::vector<std::uint8_t> out(t.elements() * eb);
  std::uint64_t first = 0;
  for (std::size_t b = 0; b < t.blocks(); ++b) {
    const SbufRegion r = block_region(core, t, b);
    if (r.bytes == 0) continue;
    auto bytes = sim.read(r);
    if (!bytes) return bytes.error();
    const std::uint64_t cols = r.bytes / eb;
    for (unsigned p = 0; p < t.partitions; ++p) {
      for (std::uint64_t i = 0; i < cols; ++i) {
        const std::uint64_t e = i * t.partitions + p;
        if (e >= t.counts[b]) break;
        std::memcpy(&out[(first + e) * eb], &(*bytes)[(p * cols + i) * eb], eb);
      }
    }
    first += t.counts[b];
  }
  return out;
}

base::Status fill_inputs(Simulation& sim, const CollectiveJob& job, const Lowered& low) {
  for (std::size_t g = 0; g < job.comm.groups.size(); ++g) {
    for (unsigned r = 0; r < job.comm.ranks(); ++r) {
      const RankBuffers& b = low.buffers[g][r];
      const auto in = collectives::make_input(job.request.dtype, b.in.elements(), *job.check,
                                              job.seed, static_cast<unsigned>(g), r);
      SBRDMA_TRY(write_tile(sim, job.comm.groups[g][r], b.in, in));
    }
  }
  return base::ok_status();
}

/// Wrong elements over every rank's output.
base::Result<std::uint64_t> check_outputs(const Simulation& sim, const CollectiveJob& job,
                                          const Lowered& low, std::uint64_t& checked) {
  std::uint64_t wrong = 0;
  for (std::size_t g = 0; g < job.comm.groups.size(); ++g) {
    std::vector<std::vector<std::uint8_t>> inputs;
    std::vector<std::uint64_t> out_elems;
    for (unsigned r = 0; r < job.comm.ranks(); ++r) {
      const RankBuffers& b = low.buffers[g][r];
      inputs.push_back(collectives::make_input(job.request.dtype, b.in.elements(), *job.check,
                                               job.seed, static_cast<unsigned>(g), r));
      out_elems.push_back(b.out.elements());
    }
    const auto want = collectives::expected_outputs(job.request.op, job.request.dtype,
                                                    job.request.reduce, inputs, out_elems);
    for (unsigned r = 0; r < job.comm.ranks(); ++r) {
      auto got = read_tile(sim, job.comm.groups[g][r], low.buffers[g][r].out);
      if (!got) return got.error();
      wrong += collectives::count_wrong(job.request.dtype, job.comm.ranks(), *got, want[r]);
      checked += out_elems[r];
    }
  }
  return wrong;
}

/// A simulation of `low`'s programs, run; fills inputs first when asked.
struct Ran {
  std::unique_ptr<Simulation> sim;
  RunReport report;
  std::vector<base::Tick> ends;
  double seconds = 0;
};

base::Result<Ran> simulate(const CollectiveJob& job, const Lowered& low, bool fill, bool trace,
                           std::size_t iterations) {
  SimOptions o;
  o.timing_only = job.timing_only;
  o.trace = trace;
  auto sim = Simulation::create(*job.topology, o);
  if (!sim) return sim.error();
  for (const CoreProgram& p : low.programs) SBRDMA_TRY((*sim)->load_program(p.core, p.words));
  if (fill) SBRDMA_TRY(fill_inputs(**sim, job, low));
  IterationClock clock(**sim, low.programs, iterations);
  if (!trace) (*sim)->kernel().set_trace(&clock);
  const auto t0 = std::chrono::steady_clock::now();
  auto rep = (*sim)->run();
  const auto t1 = std::chrono::steady_clock::now();
  if (!rep) return rep.error();
  clock.finish();
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
  out.seconds = std::chrono::duration<double>(t1 - t0).count();
  return out;
}

bool idempotent(const collectives::LowerRequest& r) {
  return !collectives::is_reduction(r.op) || r.reduce != collectives::ReduceOp::kSum;
}

}  // namespace

collectives::Geometry geometry_of(const device::Topology& topology) {
  auto prof = soc::find_profile(topology.profile());
  collectives::Geometry g =
      collectives::Geometry::of(prof ? **prof : soc::cayman_profile(), topology.num_chips());
  g.dies_per_chip = topology.dies_per_chip();
  g.cores_per_die = topology.cores_per_die();
  g.ring_depth = default_firmware_config(topology).ring_depth;
  return g;
}

base::Result<CollectiveResult> run_collective(const CollectiveJob& job) {
  if (job.check && job.timing_only) {
    return base::make_error("-c (data check) needs data: it cannot run with --timing-only");
  }
  const collectives::Geometry geom = geometry_of(*job.topology);
  collectives::LowerRequest req = job.request;
  const unsigned measured = req.iterations;
  req.iterations = job.warmups + measured;
  auto low = collectives::lower(geom, job.comm, req);
  if (!low) return low.error();

  CollectiveResult res;
  res.algorithm = low->algorithm;
  res.count = low->count;
  res.emit = low->stats;
  res.sbuf_bytes = low->sbuf_bytes;
  const bool check_here = job.check.has_value() && idempotent(req);
  auto timed = simulate(job, *low, check_here, false, req.iterations);
  if (!timed) return timed.error();
  res.end_time = timed->report.end_time;
  res.stats = timed->report.stats;
  res.sim_seconds += timed->seconds;
  res.descriptors += res.stats.descriptors;
  if (!job.timing_only) res.copied_bytes += res.stats.data_bytes;
  for (unsigned i = job.warmups; i < req.iterations; ++i) {
    const base::Tick before = i == 0 ? base::Tick{} : timed->ends[i - 1];
    res.iterations.push_back(timed->ends[i] - before);
  }

  if (job.check || job.trace) {
    // One iteration: the data check of an in-place sum, and the trace.
    collectives::LowerRequest one = job.request;
    one.iterations = 1;
    one.notes = one.notes || job.trace;  // step marks for the trace's boxes
    auto low1 = collectives::lower(geom, job.comm, one);
    if (!low1) return low1.error();
    if (job.check) {
      std::optional<Ran> own;
      const Simulation* sim = timed->sim.get();
      const Lowered* used = &*low;
      if (!check_here) {
        auto r = simulate(job, *low1, true, false, 1);
        if (!r) return r.error();
        res.sim_seconds += r->seconds;
        res.descriptors += r->report.stats.descriptors;
        res.copied_bytes += r->report.stats.data_bytes;
        own = std::move(*r);
        sim = own->sim.get();
        used = &*low1;
      }
      std::uint64_t checked = 0;
      auto wrong = check_outputs(*sim, job, *used, checked);
      if (!wrong) return wrong.error();
      res.wrong = *wrong;
      res.checked = checked;
    }
    if (job.trace) {
      auto r = simulate(job, *low1, job.check.has_value(), true, 1);
      if (!r) return r.error();
      res.trace_json = add_step_boxes(r->sim->trace_json(), low1->programs);
    }
  }
  res.programs = std::move(low->programs);
  return res;
}

}  // namespace sbrdma::platform
