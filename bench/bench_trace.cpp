// What --trace costs: an all-reduce of 1 MiB per rank (timing only, one iteration) run by
// platform::run_collective without and with the Chrome trace, timed in the same iterations.
// The traced run is the plain one plus a traced iteration, so traced_over_plain is near 2
// plus what writing the trace costs; it should not grow with the rank count (the trace reads
// only what each event changed, not every core and semaphore after every event).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "base/check.h"
#include "collectives/communicator.h"
#include "platform/collective_runner.h"
#include "platform/topology_json.h"
#include "same_run.h"

namespace {

using namespace sbrdma;

void BM_TraceOverPlain(benchmark::State& state) {
  const unsigned ranks = static_cast<unsigned>(state.range(0));
  auto topo = platform::load_topology(ranks <= 8 ? "trn2" : "trn2.48xlarge");
  SBRDMA_CHECK(topo.ok());
  auto comm = collectives::default_communicator(platform::geometry_of(*topo), ranks);
  SBRDMA_CHECK(comm.ok());
  platform::CollectiveJob job;
  job.topology = &*topo;
  job.comm = *comm;
  job.request.op = collectives::Op::kAllReduce;
  job.request.bytes = 1 << 20;
  job.request.iterations = 1;
  job.warmups = 0;
  job.timing_only = true;
  platform::CollectiveJob traced = job;
  traced.trace = true;

  using Clock = std::chrono::steady_clock;
  std::chrono::duration<double> t_plain{0};
  std::chrono::duration<double> t_traced{0};
  std::uint64_t trace_bytes = 0;
  for (auto _ : state) {
    const auto a = Clock::now();
    auto p = platform::run_collective(job);
    const auto b = Clock::now();
    auto t = platform::run_collective(traced);
    const auto c = Clock::now();
    SBRDMA_CHECK(p.ok() && t.ok());
    trace_bytes = t->trace_json.size();
    benchmark::DoNotOptimize(trace_bytes);
    t_plain += b - a;
    t_traced += c - b;
  }
  bench::report_same_run(state, "plain", t_plain, "traced", t_traced);
  state.counters["trace_MB"] = static_cast<double>(trace_bytes) / 1e6;
}
BENCHMARK(BM_TraceOverPlain)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
