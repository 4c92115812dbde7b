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
    if (pending_ != kNone) poll(pending_, last_);
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
      ++k;
    }
  }

  const Simulation& sim_;
  std::vector<const std::vector<std::size_t>*> bounds_;
  std::vector<std::size_t> next_;
  std::vector<base::Tick> ends_;
  device::CoreId pending_ = kNone;
  std::vector<Seen> seen_ = std::vector<Seen>(kSeen);
  base::Tick last_;
};

/// The SBUF region of block b of `t` on `core`: its columns in all partitions.
SbufRegion block_region(device::CoreId core, const Tiled& t, std::size_t b) {
  const collectives::Cols c = t.block_cols(b);
  return SbufRegion{core, t.byte_of(c.begin), c.size() * t.elem_bytes, 0, t.partitions};
}

/// Moves the elements of one block between its logical order (element e at e) and the
/// partition-major bytes of its SBUF region (element e at partition e % P, column e / P):
/// to_sbuf true copies logical -> region. Typed by element size so each copy is one move.
template <unsigned EB>
void transpose(std::uint8_t* logical, std::uint8_t* region, std::uint64_t n, std::uint64_t cols,
               unsigned partitions, bool to_sbuf) {
  for (std::uint64_t i = 0; i < cols; ++i) {
    const std::uint64_t base = i * partitions;
    const unsigned parts = static_cast<unsigned>(std::min<std::uint64_t>(partitions, n - base));
    for (unsigned p = 0; p < parts; ++p) {
      std::uint8_t* a = logical + (base + p) * EB;
      std::uint8_t* b = region + (p * cols + i) * EB;
      if (to_sbuf) {
        std::memcpy(b, a, EB);
      } else {
        std::memcpy(a, b, EB);
      }
    }
  }
}

void transpose_block(unsigned eb, std::uint8_t* logical, std::uint8_t* region, std::uint64_t n,
                     std::uint64_t cols, unsigned partitions, bool to_sbuf) {
  switch (eb) {
    case 1:
      return transpose<1>(logical, region, n, cols, partitions, to_sbuf);
    case 2:
      return transpose<2>(logical, region, n, cols, partitions, to_sbuf);
    default:
      return transpose<4>(logical, region, n, cols, partitions, to_sbuf);
  }
}

/// Writes `logical` (the tile's elements, blocks in order) into `core`'s SBUF.
base::Status write_tile(Simulation& sim, device::CoreId core, const Tiled& t,
                        std::vector<std::uint8_t>& logical) {
  std::uint64_t first = 0;
  std::vector<std::uint8_t> bytes;
  for (std::size_t b = 0; b < t.blocks(); ++b) {
    const SbufRegion r = block_region(core, t, b);
    if (r.bytes == 0) continue;
    bytes.assign(r.total_bytes(), 0);  // padding cells stay 0
    transpose_block(t.elem_bytes, logical.data() + first * t.elem_bytes, bytes.data(), t.counts[b],
                    r.bytes / t.elem_bytes, t.partitions, true);
    SBRDMA_TRY(sim.write(r, bytes));
    first += t.counts[b];
  }
  return base::ok_status();
}

/// Reads the tile's elements from `core`'s SBUF, blocks in order.
base::Result<std::vector<std::uint8_t>> read_tile(const Simulation& sim, device::CoreId core,
                                                  const Tiled& t) {
  std::vector<std::uint8_t> out(t.elements() * t.elem_bytes);
  std::uint64_t first = 0;
  for (std::size_t b = 0; b < t.blocks(); ++b) {
    const SbufRegion r = block_region(core, t, b);
    if (r.bytes == 0) continue;
    auto bytes = sim.read(r);
    if (!bytes) return bytes.error();
    transpose_block(t.elem_bytes, out.data() + first * t.elem_bytes, bytes->data(), t.counts[b],
                    r.bytes / t.elem_bytes, t.partitions, false);
    first += t.counts[b];
  }
  return out;
}

/// Every rank's input, [group][rank] (the check's reference needs them again).
using Inputs = std::vector<std::vector<std::vector<std::uint8_t>>>;

/// Inputs are kept for the check up to this many bytes; beyond, the check makes them again.
constexpr std::uint64_t kKeepInputs = 1ULL << 30;

std::vector<std::uint8_t> input_of(const CollectiveJob& job, const Lowered& low, std::size_t g,
                                   unsigned r) {
  return collectives::make_input(job.request.dtype, low.buffers[g][r].in.elements(), *job.check,
                                 job.seed, static_cast<unsigned>(g), r);
}

base::Status fill_inputs(Simulation& sim, const CollectiveJob& job, const Lowered& low,
                         Inputs& kept) {
  std::uint64_t total = 0;
  for (const auto& group : low.buffers) {
    for (const RankBuffers& b : group) total += b.in.elements() * b.in.elem_bytes;
  }
  for (std::size_t g = 0; g < job.comm.groups.size(); ++g) {
    if (total <= kKeepInputs) kept.emplace_back();
    for (unsigned r = 0; r < job.comm.ranks(); ++r) {
      auto in = input_of(job, low, g, r);
      SBRDMA_TRY(write_tile(sim, job.comm.groups[g][r], low.buffers[g][r].in, in));
      if (total <= kKeepInputs) kept.back().push_back(std::move(in));
    }
  }
  return base::ok_status();
}

/// Wrong elements over every rank's output.
base::Result<std::uint64_t> check_outputs(const Simulation& sim, const CollectiveJob& job,
                                          const Lowered& low, Inputs& kept,
                                          std::uint64_t& checked) {
  std::uint64_t wrong = 0;
  for (std::size_t g = 0; g < job.comm.groups.size(); ++g) {
    std::vector<std::vector<std::uint8_t>> inputs;
    if (g < kept.size()) inputs = std::move(kept[g]);
    std::vector<std::uint64_t> out_elems;
    for (unsigned r = 0; r < job.comm.ranks(); ++r) {
      if (g >= kept.size()) inputs.push_back(input_of(job, low, g, r));
      out_elems.push_back(low.buffers[g][r].out.elements());
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
  Inputs inputs;  ///< kept from the fill
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
  Inputs kept;
  if (fill) SBRDMA_TRY(fill_inputs(**sim, job, low, kept));
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
  out.inputs = std::move(kept);
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
      Inputs* inputs = &timed->inputs;
      const Lowered* used = &*low;
      if (!check_here) {
        // The timed run's memory goes back to the page pool for this run to reuse.
        timed->sim.reset();
        auto r = simulate(job, *low1, true, false, 1);
        if (!r) return r.error();
        res.sim_seconds += r->seconds;
        res.descriptors += r->report.stats.descriptors;
        res.copied_bytes += r->report.stats.data_bytes;
        own = std::move(*r);
        sim = own->sim.get();
        inputs = &own->inputs;
        used = &*low1;
      }
      std::uint64_t checked = 0;
      auto wrong = check_outputs(*sim, job, *used, *inputs, checked);
      if (!wrong) return wrong.error();
      res.wrong = *wrong;
      res.checked = checked;
    }
    timed->sim.reset();
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
