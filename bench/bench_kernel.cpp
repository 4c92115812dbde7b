// Events per wall-second of the sim kernel: coroutine processes looping on delay(), and a
// chain of scheduled callbacks. items_per_second is events per second.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "base/coro.h"
#include "sim/kernel.h"

namespace {

using sbrdma::base::Task;
using sbrdma::base::Tick;
using sbrdma::sim::Kernel;

Task<void> ticker(Kernel& k, int laps, std::uint64_t step_ps) {
  for (int i = 0; i < laps; ++i) co_await k.delay(Tick{step_ps});
}

/// `processes` coroutines each awaiting `laps` delays (distinct steps, so the heap works).
void BM_ProcessDelays(benchmark::State& state) {
  const auto processes = static_cast<int>(state.range(0));
  constexpr int kLaps = 1000;
  std::uint64_t events = 0;
  for (auto _ : state) {
    Kernel k;
    for (int p = 0; p < processes; ++p) {
      k.spawn("p" + std::to_string(p), ticker(k, kLaps, 1000 + static_cast<std::uint64_t>(p)));
    }
    const auto r = k.run();
    events += r.events_processed;
    benchmark::DoNotOptimize(r.end_time);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}
BENCHMARK(BM_ProcessDelays)->Arg(1)->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond);

/// `chains` callback chains; each event schedules the next of its chain `length` times.
struct Chain {
  Kernel* k;
  int left;
  std::uint64_t step;
  void operator()() {
    if (--left > 0) k->schedule(Tick{step}, Chain{*this}, "chain");
  }
};

/// Runs `chains` chains of kLength events, chain c stepping by step(c).
template <typename StepOf>
void run_chains(benchmark::State& state, StepOf step) {
  const auto chains = static_cast<int>(state.range(0));
  constexpr int kLength = 10000;
  std::uint64_t events = 0;
  for (auto _ : state) {
    Kernel k;
    for (int c = 0; c < chains; ++c) k.schedule(Tick{}, Chain{&k, kLength, step(c)}, "chain");
    const auto r = k.run();
    events += r.events_processed;
    benchmark::DoNotOptimize(r.end_time);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}

void BM_ScheduleChains(benchmark::State& state) {
  run_chains(state, [](int c) { return 1000 + static_cast<std::uint64_t>(c); });
}
BENCHMARK(BM_ScheduleChains)->Arg(1)->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond);

/// As above, but the chains' steps come from four latencies, so events crowd onto shared ticks
/// the way the machine's do (tens to hundreds of events per tick, few ticks pending).
void BM_ScheduleChainsOnSharedTicks(benchmark::State& state) {
  static constexpr std::uint64_t kSteps[] = {8000, 16000, 24000, 64000};
  run_chains(state, [](int c) { return kSteps[c % 4]; });
}
BENCHMARK(BM_ScheduleChainsOnSharedTicks)->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
