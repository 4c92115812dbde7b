#pragma once
// Two ways of doing the same work, timed in the same iterations of one benchmark: the
// figure kept is their ratio, which the machine's load moves far less than either time.

#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

namespace sbrdma::bench {

/// Sets the counters NAME_s (mean seconds per iteration) for `base` and `other`, and
/// OTHER_over_BASE, their ratio (above 1: `other` took longer).
inline void report_same_run(benchmark::State& state, const std::string& base_name,
                            std::chrono::duration<double> base, const std::string& other_name,
                            std::chrono::duration<double> other) {
  const auto n = static_cast<double>(state.iterations());
  state.counters[base_name + "_s"] = base.count() / n;
  state.counters[other_name + "_s"] = other.count() / n;
  state.counters[other_name + "_over_" + base_name] = other.count() / base.count();
}

}  // namespace sbrdma::bench
