// How `sbrdma run` tells a run's device errors (platform::report_failures): errors per
// wall-second at 1 000, 10 000 and 100 000 errors. Folding engines' errors into lines found each
// line by a scan of every line so far until stop 49 (a program with half a million errors then
// spent 110 s printing them); the rate should not fall with the count.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "platform/run_report.h"

namespace {

using sbrdma::base::Tick;
using sbrdma::platform::ErrorOrigin;
using sbrdma::platform::RunReport;

/// `n` errors as a ring overrun gives them: each of 16 engines of one core stops at each word's
/// descriptor, the messages differing only in their hex numbers, one word in 16 errors.
RunReport overrun_errors(std::size_t n) {
  RunReport r;
  for (std::size_t i = 0; i < n; ++i) {
    sbrdma::device::ModelledError e;
    e.time = Tick{1000 * (i / 16)};
    e.core = 0;
    e.engine = static_cast<unsigned>(i % 16);
    e.dir = sbrdma::soc::Direction::kM2S;
    e.queue = 0;
    e.slot = static_cast<unsigned>((i / 16) % 1024);
    e.message = fmt::format("pref_ring_id: descriptor at slot {} ({:#x}) has ring id 2, expected 1",
                            *e.slot, 0x2040000100 + 16 * (i % 16));
    r.device_errors.push_back(std::move(e));
    r.device_error_origins.push_back(ErrorOrigin{i / 16, {"p.s", static_cast<int>(i / 16)}, true});
  }
  return r;
}

void BM_DeviceErrorLines(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const RunReport r = overrun_errors(n);
  for (auto _ : state) {
    const auto lines = sbrdma::platform::report_failures(r);
    benchmark::DoNotOptimize(lines.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_DeviceErrorLines)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
