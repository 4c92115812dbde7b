// Local reduce throughput: the in-place fp32 add a 16 MiB all-reduce on 8 ranks runs at each
// reduce-scatter step (128 partitions x 8 KiB: acc += in), over 16 such buffer sets (32 MiB, past
// the caches, as a run's are), on one core and split across two (base::split_work), timed in the
// same iterations. BM_ReduceSplitVsOneCore reports each rate and their ratio (> 1: the split is
// faster).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "base/split_work.h"
#include "firmware/elementwise.h"

namespace {

constexpr std::size_t kPartitions = 128;
constexpr std::size_t kPartitionBytes = 8 * 1024;
constexpr std::size_t kSets = 16;

/// One buffer set: per partition, the accumulator and the landed input side by side.
struct Sets {
  Sets() : bytes(kSets * kPartitions * 2 * kPartitionBytes) {
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 7);
  }
  std::uint8_t* acc(std::size_t set, std::size_t p) {
    return bytes.data() + (set * kPartitions + p) * 2 * kPartitionBytes;
  }
  std::vector<std::uint8_t> bytes;
};

void reduce_partition(Sets& s, std::size_t set, std::size_t p) {
  std::uint8_t* a = s.acc(set, p);
  sbrdma::firmware::elementwise(sbrdma::firmware::ArithOp::kAdd, sbrdma::isa::Dtype::kFp32, a,
                                a + kPartitionBytes, a, kPartitionBytes / 4);
}

void BM_ReduceSplitVsOneCore(benchmark::State& state) {
  Sets s;
  using Clock = std::chrono::steady_clock;
  std::chrono::duration<double> t_one{0};
  std::chrono::duration<double> t_split{0};
  for (auto _ : state) {
    const auto a = Clock::now();
    for (std::size_t set = 0; set < kSets; ++set) {
      for (std::size_t p = 0; p < kPartitions; ++p) reduce_partition(s, set, p);
    }
    const auto b = Clock::now();
    for (std::size_t set = 0; set < kSets; ++set) {
      sbrdma::base::split_work(kPartitions, [&](std::size_t p) { reduce_partition(s, set, p); });
    }
    const auto c = Clock::now();
    t_one += b - a;
    t_split += c - b;
  }
  const double out_bytes =
      static_cast<double>(state.iterations()) * kSets * kPartitions * kPartitionBytes;
  state.counters["one_core_GBps"] = out_bytes / t_one.count() / 1e9;
  state.counters["split_GBps"] = out_bytes / t_split.count() / 1e9;
  state.counters["split_over_one_core"] = t_one.count() / t_split.count();
  state.SetLabel(sbrdma::base::split_work_parallel() ? "two cores" : "one core only");
}
BENCHMARK(BM_ReduceSplitVsOneCore)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
