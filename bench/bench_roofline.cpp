// The ceiling of the "% of memcpy" figure of `sbrdma bench allr -r 8 -b 16M -c random` on this
// host (issue 5's target: 50%): the least time its memory traffic can take, whatever the
// simulator does around it.
//
// A ring all-reduce of S bytes a rank on r ranks lands 2(r-1)S bytes of DMA copies (the bytes
// the closing line counts) and reduces (r-1)S output bytes (each reduce reads two operands and
// writes one), so its copies are twice its reduce output. The figure divides copied bytes per
// wall-second by a one-core memcpy measured in the same run. At best, the run's two cores copy
// and reduce at the machine's two-core rates and do nothing else (no fill, no check, no event,
// no fresh page):
//
//   ceiling = C / (C / memcpy_two + R / reduce_two) / memcpy_one,   C = 2R
//
// Measured here in one process, on memory mapped as a dense SBUF is (device::DenseBuffer), past
// the caches (two SBUFs of 128 partitions x 224 KiB a side), in 16 KiB pieces (a 16 MiB
// all-reduce's landings are about that size) that go from partition to partition as a leg's
// do (the next piece 224 KiB on, where the prefetchers have not run ahead; sequential pieces
// copy about 1.4 times as fast here): the bench's own reference (platform::measure_memcpy, one
// core, sequential), memcpy on one and two cores (base::split_work, as the simulator uses its
// second core), and the fp32 add kernel (firmware::elementwise, acc += in) on one and two.
// Counters: the rates in GB/s (reduce: output bytes) and ceiling_pct.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/split_work.h"
#include "device/paged_memory.h"
#include "firmware/elementwise.h"
#include "platform/bench.h"

namespace {

constexpr std::size_t kPartition = 224ULL << 10;   // bytes of an SBUF partition (trn2)
constexpr std::size_t kRows = 2 * 128;             // partitions of two SBUFs
constexpr std::size_t kSpan = kRows * kPartition;  // bytes a side, per thread
constexpr std::size_t kPiece = 16ULL << 10;        // one landing
constexpr std::size_t kBytes = 256ULL << 20;       // bytes each measurement moves or reduces

using Clock = std::chrono::steady_clock;

/// One thread's two sides, written once so that no page is fresh when measured.
struct Sides {
  Sides() : a(kSpan), b(kSpan) {
    for (std::size_t i = 0; i < kSpan; ++i) {
      a.data()[i] = static_cast<std::uint8_t>(i * 7);
      b.data()[i] = static_cast<std::uint8_t>(i * 13);
    }
  }
  sbrdma::device::DenseBuffer a;
  sbrdma::device::DenseBuffer b;
};

/// `bytes` of 16 KiB copies (a -> b) or fp32 adds (b += a), partition after partition.
void work(Sides& s, std::size_t bytes, bool reduce) {
  std::size_t k = 0;
  for (std::size_t done = 0; done < bytes; done += kPiece, ++k) {
    const std::size_t at = k % kRows * kPartition + k / kRows % (kPartition / kPiece) * kPiece;
    if (reduce) {
      sbrdma::firmware::elementwise(sbrdma::firmware::ArithOp::kAdd, sbrdma::isa::Dtype::kFp32,
                                    s.b.data() + at, s.a.data() + at, s.b.data() + at, kPiece / 4);
    } else {
      std::memcpy(s.b.data() + at, s.a.data() + at, kPiece);
    }
  }
}

/// Seconds for kBytes of work on one core, or split across two (half each).
double timed(std::vector<Sides>& sides, bool reduce, bool two) {
  const auto t0 = Clock::now();
  if (two) {
    sbrdma::base::split_work(2, [&](std::size_t k) { work(sides[k], kBytes / 2, reduce); });
  } else {
    work(sides[0], kBytes, reduce);
  }
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void BM_AllReduceCeiling(benchmark::State& state) {
  std::vector<Sides> sides(2);
  if (!sides[0].a.mapped() || !sides[0].b.mapped() || !sides[1].a.mapped() ||
      !sides[1].b.mapped()) {
    state.SkipWithError("no memory for the buffers");
    return;
  }
  double reference = 0;  // the bench's memcpy rate, bytes per second
  double copy_one = 0;
  double copy_two = 0;
  double reduce_one = 0;
  double reduce_two = 0;
  for (auto _ : state) {
    const auto m = sbrdma::platform::measure_memcpy(kBytes, kPiece);
    if (!m) {
      state.SkipWithError("measure_memcpy could not map its buffers");
      return;
    }
    reference += m->bytes_per_s / static_cast<double>(state.max_iterations);
    copy_one += timed(sides, false, false);
    copy_two += timed(sides, false, true);
    reduce_one += timed(sides, true, false);
    reduce_two += timed(sides, true, true);
  }
  const double bytes = static_cast<double>(state.iterations()) * kBytes;
  const double m1 = bytes / copy_one;
  const double m2 = bytes / copy_two;
  const double a1 = bytes / reduce_one;
  const double a2 = bytes / reduce_two;
  state.counters["bench_memcpy_GBps"] = reference / 1e9;
  state.counters["memcpy_one_GBps"] = m1 / 1e9;
  state.counters["memcpy_two_GBps"] = m2 / 1e9;
  state.counters["reduce_one_GBps"] = a1 / 1e9;
  state.counters["reduce_two_GBps"] = a2 / 1e9;
  constexpr double kCopiesPerReduced = 2;  // C = 2R: 2(r-1)S copied, (r-1)S reduced
  const double least_s_per_reduced = kCopiesPerReduced / m2 + 1 / a2;
  state.counters["ceiling_pct"] = 100 * kCopiesPerReduced / least_s_per_reduced / reference;
  state.SetLabel(sbrdma::base::split_work_parallel() ? "two cores" : "one core only");
}
BENCHMARK(BM_AllReduceCeiling)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace

BENCHMARK_MAIN();
