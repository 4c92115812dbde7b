// Lowering checks that throw their words away (collectives::check_request, and the "at most N B"
// search of a refusal) count words instead of encoding and storing them (Emitter::Output::
// kCountOnly, with notes formatted only when kept). BM_CountOnlyVsPrograms times, in the same
// iterations, check_request and lower() of one request that emit the same three iterations: a
// 1 MiB ring all-reduce on 512 ranks of trn2u, whose legs into one die of chip 24 go through
// relays (so check_request emits every iteration, D30g). It reports both times and their ratio
// (> 1: counting is faster). BM_RefusalSearch times the search a refusal runs:
// max_fitting_bytes of that ring at 32 MiB (a size that does not fit), which took 5.4 s
// before the words were only counted.
#include <benchmark/benchmark.h>

#include <chrono>
#include <stdexcept>
#include <utility>

#include "collectives/communicator.h"
#include "collectives/lower.h"
#include "device/topology.h"
#include "platform/collective_runner.h"
#include "same_run.h"

namespace {

using sbrdma::collectives::Algorithm;
using sbrdma::collectives::Communicator;
using sbrdma::collectives::Geometry;
using sbrdma::collectives::LowerRequest;

struct Case {
  Case() {
    auto topology = sbrdma::device::builtin_topology("trn2u");
    if (!topology) throw std::runtime_error(topology.error().message);
    g = sbrdma::platform::geometry_of(*topology);
    auto c = sbrdma::collectives::default_communicator(g, 512);
    if (!c) throw std::runtime_error(c.error().message);
    comm = std::move(*c);
    req.bytes = 1 << 20;
    req.algorithm = Algorithm::kRing;
    req.iterations = 3;
  }
  Geometry g;
  Communicator comm;
  LowerRequest req;
};

void BM_CountOnlyVsPrograms(benchmark::State& state) {
  const Case c;
  using Clock = std::chrono::steady_clock;
  std::chrono::duration<double> t_count{0};
  std::chrono::duration<double> t_programs{0};
  for (auto _ : state) {
    const auto a = Clock::now();
    auto fp = sbrdma::collectives::check_request(c.g, c.comm, c.req);
    const auto b = Clock::now();
    auto low = sbrdma::collectives::lower(c.g, c.comm, c.req);
    const auto d = Clock::now();
    if (!fp || !low) {
      state.SkipWithError("the request does not lower");
      return;
    }
    benchmark::DoNotOptimize(fp->words);
    benchmark::DoNotOptimize(low->programs.data());
    t_count += b - a;
    t_programs += d - b;
  }
  sbrdma::bench::report_same_run(state, "count_only", t_count, "programs", t_programs);
}
BENCHMARK(BM_CountOnlyVsPrograms)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_RefusalSearch(benchmark::State& state) {
  Case c;
  c.req.bytes = 32 << 20;
  c.req.iterations = 6;  // the bench's default -n 5 -w 1
  for (auto _ : state) {
    benchmark::DoNotOptimize(sbrdma::collectives::max_fitting_bytes(c.g, c.comm, c.req));
  }
}
BENCHMARK(BM_RefusalSearch)->Unit(benchmark::kMillisecond)->Iterations(3);

// lower() of a long run: `bench allr -r 8 -b 1K -n 5000` on trn2 (mesh), about 1.8 million
// words. A large -n spends its first seconds here, before the first simulated event.
void BM_LowerManyIterations(benchmark::State& state) {
  auto topology = sbrdma::device::builtin_topology("trn2");
  if (!topology) throw std::runtime_error(topology.error().message);
  const Geometry g = sbrdma::platform::geometry_of(*topology);
  auto comm = sbrdma::collectives::default_communicator(g, 8);
  if (!comm) throw std::runtime_error(comm.error().message);
  LowerRequest req;
  req.bytes = 1024;
  req.algorithm = Algorithm::kMesh;
  req.iterations = static_cast<unsigned>(state.range(0));
  std::size_t words = 0;
  for (auto _ : state) {
    auto low = sbrdma::collectives::lower(g, *comm, req);
    if (!low) {
      state.SkipWithError("the request does not lower");
      return;
    }
    words = 0;
    for (const auto& p : low->programs) words += p.words.size();
    benchmark::DoNotOptimize(low->programs.data());
  }
  state.counters["words"] = static_cast<double>(words);
  state.counters["words_per_s"] =
      benchmark::Counter(static_cast<double>(words) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LowerManyIterations)->Arg(5000)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace

BENCHMARK_MAIN();
