// Collectives run on the real simulator (device + firmware) through platform::run_collective:
// data checked against the CPU reference, iterations timed.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "collectives/communicator.h"
#include "collectives/lower.h"
#include "device/topology.h"
#include "platform/collective_runner.h"
#include "platform/simulation.h"
#include "platform/topology_json.h"
#include "platform/trace_slices.h"

namespace sbrdma::platform {
namespace {

using collectives::Algorithm;
using collectives::DataFill;
using collectives::DataType;
using collectives::Op;

struct Machine {
  device::Topology topo;
  collectives::Communicator comm;
};

Machine on(std::string_view topology, unsigned ranks) {
  auto t = load_topology(topology);
  EXPECT_TRUE(t.ok());
  auto c = collectives::default_communicator(geometry_of(*t), ranks);
  EXPECT_TRUE(c.ok());
  return Machine{std::move(*t), std::move(*c)};
}

CollectiveJob job(const Machine& s, Op op, Algorithm a, DataType dt, std::uint64_t bytes) {
  CollectiveJob j;
  j.topology = &s.topo;
  j.comm = s.comm;
  j.request.op = op;
  j.request.algorithm = a;
  j.request.dtype = dt;
  j.request.bytes = bytes;
  j.request.iterations = 1;
  j.warmups = 0;
  j.check = DataFill::kRandom;
  j.seed = 3;
  return j;
}

std::string what(const CollectiveJob& j) {
  return fmt::format("{} {} {} {} B", op_name(j.request.op), algorithm_name(j.request.algorithm),
                     dtype_name(j.request.dtype), j.request.bytes);
}

void expect_right(const CollectiveJob& j) {
  auto r = run_collective(j);
  ASSERT_TRUE(r.ok()) << what(j) << ": " << r.error().message;
  ASSERT_TRUE(r->wrong.has_value());
  EXPECT_EQ(*r->wrong, 0u) << what(j);
  EXPECT_GT(r->checked, 0u);
  ASSERT_EQ(r->iterations.size(), 1u);
  for (base::Tick t : r->iterations) EXPECT_GT(t.ps, 0u) << what(j);
}

TEST(BenchRunner, SbufsAreBackedWholeOnlyWhenThatAddsLittleBeyondTheBuffers) {
  const Machine m = on("trn2", 8);
  CollectiveJob j = job(m, Op::kAllReduce, Algorithm::kAuto, DataType::kFp32, 16 << 20);
  // The buffers' span, not what the lowering reserves: 16 MiB on 8 ranks is 128 KiB of each
  // partition, an 8 MiB all-gather 64 KiB, a 64K all-to-all 1 KiB (its input and output).
  auto low = collectives::lower(geometry_of(m.topo), m.comm, j.request);
  ASSERT_TRUE(low.ok()) << low.error().message;
  EXPECT_EQ(buffer_span(low->buffers), 128U << 10);
  EXPECT_TRUE(backs_sbufs_whole(j, low->sbuf_bytes, buffer_span(low->buffers)));
  const CollectiveJob allg = job(m, Op::kAllGather, Algorithm::kRing, DataType::kFp32, 8 << 20);
  auto low_allg = collectives::lower(geometry_of(m.topo), m.comm, allg.request);
  ASSERT_TRUE(low_allg.ok()) << low_allg.error().message;
  EXPECT_EQ(buffer_span(low_allg->buffers), 64U << 10);
  const CollectiveJob a2a = job(m, Op::kAllToAll, Algorithm::kAuto, DataType::kFp32, 64 << 10);
  auto low_a2a = collectives::lower(geometry_of(m.topo), m.comm, a2a.request);
  ASSERT_TRUE(low_a2a.ok()) << low_a2a.error().message;
  EXPECT_EQ(buffer_span(low_a2a->buffers), 1U << 10);
  // Below 64 KiB used: 4 KiB pages. On 8 cores whole partitions add at most 224 MiB: whole.
  EXPECT_FALSE(backs_sbufs_whole(j, (64 << 10) - 1, 64 << 10));
  EXPECT_TRUE(backs_sbufs_whole(j, 64 << 10, 0));
  // On 256 cores of trn2u, whole partitions beyond a 64 KiB span add 5 GiB: 4 KiB pages; from
  // a span of 192 KiB (32 KiB a partition beyond it: 1 GiB) whole again.
  const Machine u = on("trn2u", 256);
  const CollectiveJob big = job(u, Op::kAllGather, Algorithm::kRing, DataType::kFp32, 8 << 20);
  EXPECT_FALSE(backs_sbufs_whole(big, 64 << 10, 64 << 10));
  EXPECT_FALSE(backs_sbufs_whole(big, 224 << 10, (192 << 10) - 1));
  EXPECT_TRUE(backs_sbufs_whole(big, 224 << 10, 192 << 10));
  j.timing_only = true;
  j.check.reset();
  EXPECT_FALSE(backs_sbufs_whole(j, 192 << 10, 128 << 10));
}

TEST(BenchRunner, EveryOpAndAlgorithmOnTrn2) {
  // Both dies: ranks 2..5 (the test interpreter covers every dtype and size on every algorithm).
  Machine s = on("trn2", 4);
  s.comm.groups = {{2, 3, 4, 5}};
  for (Op op : {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter}) {
    for (Algorithm a : {Algorithm::kRing, Algorithm::kMesh, Algorithm::kRdh}) {
      expect_right(job(s, op, a, DataType::kFp32, 40000));
    }
  }
  for (Op op : {Op::kAllToAll, Op::kSendRecv, Op::kPermute}) {
    expect_right(job(s, op, Algorithm::kAuto, DataType::kBf16, 6002));
  }
}

TEST(BenchRunner, CopiesStillHeldWhenTheRunEndsLandBeforeTheCheckReads) {
  // A permute's last events are landings: megabytes of copies are still held (D44) when the
  // run ends, and the data check reads the SBUFs from two threads. They land at the run's end
  // (before, the check's threads both ran them: a hang here, a race elsewhere).
  Machine s = on("trn2", 8);
  expect_right(job(s, Op::kPermute, Algorithm::kAuto, DataType::kFp32, 3 << 20));
  expect_right(job(s, Op::kAllGather, Algorithm::kMesh, DataType::kBf16, 1 << 20));
}

TEST(BenchRunner, DtypesAndOddSizes) {
  const Machine s = on("trn2", 3);
  for (DataType dt : collectives::all_dtypes()) {
    expect_right(job(s, Op::kAllReduce, Algorithm::kRing, dt, 3 * 1031));
  }
  expect_right(job(s, Op::kAllGather, Algorithm::kMesh, DataType::kUint8, 1));
  expect_right(job(s, Op::kReduceScatter, Algorithm::kRing, DataType::kInt8, 3));
}

TEST(BenchRunner, AcrossChipsAndHierarchical) {
  Machine s = on("trn2.48xlarge", 4);
  s.comm.groups = {{0, 6, 8, 14}};  // chips 0 and 1, both dies
  expect_right(job(s, Op::kAllReduce, Algorithm::kHierarchical, DataType::kFp32, 65536));
  expect_right(job(s, Op::kAllGather, Algorithm::kRing, DataType::kFp16, 20000));
}

TEST(BenchRunner, TheIterationsTimeAddsUpToTheRun) {
  const Machine s = on("trn2", 4);
  CollectiveJob j = job(s, Op::kAllReduce, Algorithm::kRing, DataType::kFp32, 1 << 18);
  j.check.reset();
  j.request.iterations = 3;
  j.warmups = 1;
  auto r = run_collective(j);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->iterations.size(), 3u);  // the warmup runs but is not timed
  base::Tick sum;
  for (base::Tick t : r->iterations) sum += t;
  EXPECT_LE(sum.ps, r->end_time.ps);      // the warmup is not in the sum
  EXPECT_GT(sum.ps, r->end_time.ps / 2);  // three of four iterations
  EXPECT_GT(r->stats.descriptors, 0u);
  EXPECT_EQ(r->copied_bytes, r->stats.data_bytes);
  EXPECT_FALSE(r->wrong.has_value());
}

TEST(BenchRunner, TheBreakdownSplitsTheRanksTimeByWhatTheyDid) {
  // [CHOICE D45] Without warmups the window is the whole run, so its figures can be checked
  // against the run's own counters: every descriptor pair simulated was built once by
  // rdma_desc_gen (both roles build the same count, charged once), at q7_desc_gen_cost each;
  // an engine is busy dma_desc_cost per pair plus its bytes at the engine's rate.
  const Machine s = on("trn2", 4);
  const device::TimingParams& tp = s.topo.params();
  for (const auto& [op, algo] :
       {std::pair{Op::kAllReduce, Algorithm::kRing}, std::pair{Op::kAllGather, Algorithm::kMesh}}) {
    CollectiveJob j = job(s, op, algo, DataType::kFp32, 1 << 20);
    j.request.iterations = 2;
    j.breakdown = true;
    auto r = run_collective(j);
    ASSERT_TRUE(r.ok()) << what(j) << ": " << r.error().message;
    ASSERT_TRUE(r->breakdown.has_value()) << what(j);
    const TimeBreakdown& b = *r->breakdown;
    base::Tick span;
    for (base::Tick t : r->iterations) span += t;
    const double core_time = static_cast<double>(span.ps) * 4;  // four ranks' cores
    const double gen =
        static_cast<double>(tp.q7_desc_gen_cost.ps) * static_cast<double>(r->stats.descriptors);
    EXPECT_NEAR(b.desc_gen, gen / core_time, 1e-12) << what(j);
    EXPECT_NEAR(b.desc_gen + b.compute + b.waiting, 1.0, 1e-12) << what(j);
    if (op == Op::kAllReduce) {
      EXPECT_GT(b.compute, 0.0) << what(j);  // the reduce-scatter's sums
    } else {
      EXPECT_EQ(b.compute, 0.0) << what(j);  // all-gather reduces nothing
    }
    const double engine_time = core_time * 16;
    const double least =
        static_cast<double>(tp.dma_desc_cost.ps) * static_cast<double>(r->stats.descriptors);
    // Semaphore pairs stream their 4-byte word too.
    const std::uint64_t bytes = r->stats.data_bytes + 4 * r->stats.semaphore_writes;
    const double bytes_time =
        static_cast<double>(device::transfer_time(base::Bytes{bytes}, tp.dma_engine_rate).ps);
    EXPECT_GE(b.engines, least / engine_time) << what(j);
    // Each pair's streaming rounds up to a whole picosecond.
    EXPECT_LE(b.engines,
              (least + bytes_time + static_cast<double>(r->stats.descriptors)) / engine_time)
        << what(j);
    EXPECT_GT(b.link, 0.0) << what(j);
    EXPECT_LE(b.link, 1.0) << what(j);
    EXPECT_NE(b.link_name.find("->"), std::string::npos) << b.link_name;
  }
}

TEST(BenchRunner, TheBreakdownIsTheSameWithOrWithoutData) {
  // Times do not depend on the data (D27), so neither does where they go; with a warmup the
  // window starts at its end. Not asked for: none.
  Machine s = on("trn2.48xlarge", 8);
  s.comm.groups = {{0, 3, 5, 7, 8, 11, 13, 14}};  // two chips, both dies
  CollectiveJob j = job(s, Op::kAllReduce, Algorithm::kRdh, DataType::kBf16, 1 << 18);
  j.request.iterations = 2;
  j.warmups = 1;
  auto plain = run_collective(j);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_FALSE(plain->breakdown.has_value());
  j.breakdown = true;
  auto data = run_collective(j);
  j.check.reset();
  j.timing_only = true;
  auto timing = run_collective(j);
  ASSERT_TRUE(data.ok() && timing.ok());
  ASSERT_TRUE(data->breakdown && timing->breakdown);
  const TimeBreakdown& d = *data->breakdown;
  const TimeBreakdown& t = *timing->breakdown;
  EXPECT_EQ(d.desc_gen, t.desc_gen);
  EXPECT_EQ(d.compute, t.compute);
  EXPECT_EQ(d.waiting, t.waiting);
  EXPECT_EQ(d.engines, t.engines);
  EXPECT_EQ(d.link, t.link);
  EXPECT_EQ(d.link_name, t.link_name);
  EXPECT_GT(d.desc_gen, 0.0);
  EXPECT_GT(d.compute, 0.0);
  EXPECT_GT(d.waiting, 0.0);
  EXPECT_NEAR(d.desc_gen + d.compute + d.waiting, 1.0, 1e-12);
  EXPECT_EQ(plain->iterations, data->iterations);  // asking changes no time
  // The warmup's gen is not in the window, and all of the measured iterations' is (each
  // iteration builds as many descriptors): each core's own iterations count, whenever the
  // last core ends the warmup, and the first gen after its boundary is the window's.
  base::Tick span;
  for (base::Tick it : data->iterations) span += it;
  const double gen = static_cast<double>(s.topo.params().q7_desc_gen_cost.ps) *
                     static_cast<double>(data->stats.descriptors) * 2 / 3;
  const double expected = gen / (static_cast<double>(span.ps) * 8);
  EXPECT_NEAR(d.desc_gen, expected, 1e-12) << d.desc_gen << " vs " << expected;
  // Groups of one rank run nothing: no time to break down.
  j.comm.groups = {{0}, {1}};
  auto alone = run_collective(j);
  ASSERT_TRUE(alone.ok()) << alone.error().message;
  EXPECT_EQ(alone->iterations, (std::vector<base::Tick>{base::Tick{}, base::Tick{}}));
  EXPECT_FALSE(alone->breakdown.has_value());
}

TEST(BenchRunner, TheCheckAndTraceRunsUseTheTimedRunsAlgorithm) {
  // 32 ranks on trn2u, chip 24's second die with four cores of chips 0-6: some legs go through
  // relays. A lone reduce-scatter's RDH reuses slots by iteration parity, so its relay slots
  // fit 4 MiB for one iteration but not for two: auto picks RDH for one iteration and ring
  // for two. The one-iteration run that traces (and checks: the same lowering) must run the
  // timed run's ring. Timing only, to keep the test short.
  Machine m = on("trn2u", 32);
  m.comm.groups = {{196, 197, 198, 199}};
  for (collectives::CoreId chip = 0; chip < 7; ++chip) {
    for (collectives::CoreId k = 0; k < 4; ++k) m.comm.groups[0].push_back(chip * 8 + k);
  }
  const auto traced = [&](Algorithm a, unsigned iterations) {
    CollectiveJob j = job(m, Op::kReduceScatter, a, DataType::kFp32, 4 << 20);
    j.check.reset();
    j.timing_only = true;
    j.trace = true;
    j.request.iterations = iterations;
    auto r = run_collective(j);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? std::move(*r) : CollectiveResult{};
  };
  const CollectiveResult rdh = traced(Algorithm::kAuto, 1);
  ASSERT_EQ(rdh.algorithm, Algorithm::kRdh);
  const CollectiveResult ring = traced(Algorithm::kRing, 1);
  ASSERT_TRUE(ring.trace_run);
  ASSERT_NE(ring.trace_json, rdh.trace_json);  // so the test can tell them apart
  const CollectiveResult r = traced(Algorithm::kAuto, 2);
  EXPECT_EQ(r.algorithm, Algorithm::kRing);
  ASSERT_TRUE(r.trace_run);
  EXPECT_TRUE(r.trace_json == ring.trace_json) << "the trace is not ring's one iteration";
}

TEST(BenchRunner, TheResultKeepsTheTimedRunsWordsWhichTheRunBorrowed) {
  // The timed run borrows the programs' words (moved into the simulation, not copied) and
  // gives them back: the result's programs are lower()'s, word for word, with a check run
  // and a trace run after it or without them.
  const Machine s = on("trn2", 4);
  CollectiveJob j = job(s, Op::kAllReduce, Algorithm::kRing, DataType::kFp32, 4096);
  j.request.iterations = 3;
  auto low = collectives::lower(geometry_of(s.topo), s.comm, j.request);
  ASSERT_TRUE(low.ok()) << low.error().message;
  for (const bool trace : {false, true}) {
    j.trace = trace;
    auto r = run_collective(j);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(r->check_run);  // an in-place sum is checked on a run of its own
    ASSERT_EQ(r->programs.size(), low->programs.size());
    for (std::size_t k = 0; k < low->programs.size(); ++k) {
      EXPECT_EQ(r->programs[k].core, low->programs[k].core);
      EXPECT_TRUE(r->programs[k].words == low->programs[k].words) << "core " << k;
      EXPECT_FALSE(r->programs[k].words.empty());
    }
  }
}

TEST(BenchRunner, TimingOnlyMovesNoBytesAndRefusesACheck) {
  const Machine s = on("trn2", 4);
  CollectiveJob j = job(s, Op::kAllGather, Algorithm::kRing, DataType::kFp32, 1 << 16);
  j.timing_only = true;
  EXPECT_EQ(run_collective(j).error().message,
            "-c (data check) needs data: it cannot run with --timing-only");
  j.check.reset();
  auto r = run_collective(j);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->copied_bytes, 0u);
  CollectiveJob f = j;
  f.timing_only = false;
  auto g = run_collective(f);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->iterations, r->iterations) << "timing-only changes no tick";
}

TEST(BenchRunner, RaceCheckedRunsPassAndKeepTheirTimes) {
  // `bench --check-races`: every run of the job under the race checker. A fenced all-gather
  // (D49b) and an all-reduce, several iterations each: no race, the same times, and the
  // checker saw every access: each data descriptor pair's read and write, each reduce's.
  const Machine s = on("trn2", 4);
  for (const Op op : {Op::kAllGather, Op::kAllReduce}) {
    CollectiveJob j = job(s, op, Algorithm::kRing, DataType::kFp32, 3 << 14);
    j.request.iterations = 3;
    j.warmups = 1;
    j.check.reset();
    j.timing_only = true;
    auto plain = run_collective(j);
    j.check_races = true;
    auto checked = run_collective(j);
    ASSERT_TRUE(plain.ok() && checked.ok()) << what(j);
    EXPECT_EQ(checked->iterations, plain->iterations) << what(j);
    EXPECT_EQ(plain->stats.race_checked_accesses, 0U);
    const std::uint64_t data_pairs = checked->stats.descriptors - checked->stats.semaphore_writes;
    EXPECT_GE(checked->stats.race_checked_accesses, 2 * data_pairs) << what(j);
    EXPECT_EQ(checked->race_checked_accesses, checked->stats.race_checked_accesses)
        << "one run: the timed one";
  }
}

/// Program words of all cores of `low`.
std::uint64_t words_of(const collectives::Lowered& low) {
  std::uint64_t n = 0;
  for (const auto& p : low.programs) n += p.words.size();
  return n;
}

TEST(BenchRunner, TheMemoryNeedCountsTheBuffersPagesAndAtMostTheScratch) {
  // [CHOICE D43] 1 MiB on 8 ranks in place, checked: 8 KiB of each of 128 partitions, two
  // 4 KiB pages each, on every rank; at most the pages of all the bytes the lowering uses, and
  // the simulator's own share.
  const Machine m = on("trn2", 8);
  CollectiveJob j = job(m, Op::kAllReduce, Algorithm::kRing, DataType::kFp32, 1 << 20);
  auto low = collectives::lower(geometry_of(m.topo), m.comm, j.request);
  ASSERT_TRUE(low.ok()) << low.error().message;
  ASSERT_FALSE(backs_sbufs_whole(j, low->sbuf_bytes, buffer_span(low->buffers)));
  const std::uint64_t words = words_of(*low);
  const std::uint64_t own = 8 * kSimulatorBytesPerCore + words * kSimulatorBytesPerWord;
  const MemoryNeed need = memory_need(j, low->buffers, low->sbuf_bytes, words);
  EXPECT_EQ(need.at_least, 8U << 20);
  EXPECT_EQ(need.at_most, 8U * 128 * ((low->sbuf_bytes + 4095) / 4096 * 4096) + own);
  EXPECT_GT(need.at_most, need.at_least + own);  // the ring's scratch
  // Address space: every partition the buffers use maps whole (224 KiB on trn2).
  EXPECT_EQ(need.mapped_at_least, 8U * 128 * geometry_of(m.topo).partition_bytes);
  EXPECT_EQ(need.mapped_at_most, need.mapped_at_least + own + kSimulatorAddressSpace);
  // More iterations: more words.
  EXPECT_EQ(memory_need(j, low->buffers, low->sbuf_bytes, 10 * words).at_most,
            need.at_most + 9 * words * kSimulatorBytesPerWord);
  // Without a data check no input is written and no output is sure: nothing is certain.
  CollectiveJob unchecked = j;
  unchecked.check.reset();
  const MemoryNeed loose = memory_need(unchecked, low->buffers, low->sbuf_bytes, words);
  EXPECT_EQ(loose.at_least, 0U);
  EXPECT_EQ(loose.at_most, need.at_most);
  EXPECT_EQ(loose.mapped_at_least, 0U);
  EXPECT_EQ(loose.mapped_at_most, need.mapped_at_most);  // the same partitions may be written
  // An all-to-all's input and output are apart: both count. 2 MiB on 8 ranks: 2 MiB in and
  // 2 MiB out on every rank, 16 KiB of each partition each, on whole pages.
  const CollectiveJob a2a = job(m, Op::kAllToAll, Algorithm::kMesh, DataType::kFp32, 2 << 20);
  auto low_a2a = collectives::lower(geometry_of(m.topo), m.comm, a2a.request);
  ASSERT_TRUE(low_a2a.ok()) << low_a2a.error().message;
  const auto& b = low_a2a->buffers[0][0];
  const std::uint64_t in_len = b.in.byte_of(b.in.end_col()) - b.in.base;
  const std::uint64_t out_len = b.out.byte_of(b.out.end_col()) - b.out.base;
  ASSERT_EQ(in_len, 16U << 10);
  ASSERT_EQ(out_len, 16U << 10);
  ASSERT_FALSE(backs_sbufs_whole(a2a, low_a2a->sbuf_bytes, buffer_span(low_a2a->buffers)));
  ASSERT_GE(b.out.base, b.in.base + in_len) << "apart";
  ASSERT_EQ(b.in.base % 4096, 0U);
  ASSERT_EQ(b.out.base % 4096, 0U);
  const MemoryNeed a2a_need =
      memory_need(a2a, low_a2a->buffers, low_a2a->sbuf_bytes, words_of(*low_a2a));
  EXPECT_EQ(a2a_need.at_least, 8U * 128 * (in_len + out_len));
  // Backed whole: every participating partition, whole, checked or not.
  CollectiveJob big = job(m, Op::kAllReduce, Algorithm::kRing, DataType::kFp32, 16 << 20);
  auto low_big = collectives::lower(geometry_of(m.topo), m.comm, big.request);
  ASSERT_TRUE(low_big.ok()) << low_big.error().message;
  ASSERT_TRUE(backs_sbufs_whole(big, low_big->sbuf_bytes, buffer_span(low_big->buffers)));
  big.check.reset();
  const MemoryNeed whole = memory_need(big, low_big->buffers, low_big->sbuf_bytes, 0);
  const std::uint64_t partitions = 8U * geometry_of(m.topo).partitions;
  EXPECT_EQ(whole.at_least, partitions * geometry_of(m.topo).partition_bytes);
  EXPECT_EQ(whole.at_most, whole.at_least + 8 * kSimulatorBytesPerCore);
  EXPECT_EQ(whole.mapped_at_least, whole.at_least);
  EXPECT_EQ(whole.mapped_at_most, whole.at_most + kSimulatorAddressSpace);
  // Timing only: no data pages.
  CollectiveJob t = j;
  t.timing_only = true;
  t.check.reset();
  const MemoryNeed none = memory_need(t, low->buffers, low->sbuf_bytes, words);
  EXPECT_EQ(none.at_least, 0U);
  EXPECT_EQ(none.at_most, 0U);
  EXPECT_EQ(none.mapped_at_least, 0U);
  EXPECT_EQ(none.mapped_at_most, 0U);
}

TEST(BenchRunner, ARunWhoseBuffersDoNotFitTheHostMemoryIsRefusedBeforeItStarts) {
  const Machine m = on("trn2", 8);
  CollectiveJob j = job(m, Op::kAllReduce, Algorithm::kRing, DataType::kFp32, 1 << 20);
  j.host_memory = 6U << 20;
  const std::string want =
      "the simulated SBUFs need at least 8.00 MiB of host memory for the ranks' buffers, and "
      "6.00 MiB is available (SBRDMA_MEMORY_LIMIT sets the figure to plan with); use fewer "
      "ranks, a smaller size or --timing-only";
  EXPECT_EQ(check_collective(j).error().message, want);
  EXPECT_EQ(run_collective(j).error().message, want);
  // With just the buffers' pages it runs, after a warning that the scratch may not fit.
  j.host_memory = 8U << 20;
  std::vector<std::string> warnings;
  j.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  auto need = check_collective(j);
  ASSERT_TRUE(need.ok()) << need.error().message;
  EXPECT_EQ(need->at_least, 8U << 20);
  auto r = run_collective(j);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->wrong, std::optional<std::uint64_t>(0));
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("may need up to"), std::string::npos) << warnings[0];
  // Unchecked, the same memory only warns; timing only, nothing is refused or warned of.
  j.check.reset();
  j.host_memory = 6U << 20;
  EXPECT_TRUE(run_collective(j).ok());
  EXPECT_EQ(warnings.size(), 2U);
  j.timing_only = true;
  j.host_memory = 0;
  EXPECT_TRUE(run_collective(j).ok());
  EXPECT_EQ(warnings.size(), 2U);
}

TEST(BenchRunner, ARunWhoseBuffersMapMoreThanTheAddressSpaceLeftIsRefused) {
  // 1 MiB checked on 8 ranks: 8 MiB of pages, but 8 x 128 whole partitions of address space.
  const Machine m = on("trn2", 8);
  CollectiveJob j = job(m, Op::kAllReduce, Algorithm::kRing, DataType::kFp32, 1 << 20);
  j.host_memory = 1U << 30;  // plenty of memory
  j.address_space = 200U << 20;
  const std::string want =
      "the simulated SBUFs map at least 224 MiB of address space for the ranks' buffers (each "
      "SBUF partition written takes a whole partition's), and the address-space limit (ulimit "
      "-v) leaves 200 MiB; use fewer ranks or --timing-only (a rank's buffers use every "
      "partition, whatever their size)";
  EXPECT_EQ(check_collective(j).error().message, want);
  EXPECT_EQ(run_collective(j).error().message, want);
  // Room for the buffers' partitions but not for the simulator's own mappings too: it runs,
  // after a warning.
  j.address_space = 224U << 20;
  std::vector<std::string> warnings;
  j.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  auto r = run_collective(j);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("may map up to"), std::string::npos) << warnings[0];
  // Without a check nothing is sure to be written (a warning only), and a timing-only run
  // maps no data.
  j.address_space = 0;
  j.check.reset();
  EXPECT_TRUE(check_collective(j).ok());
  j.timing_only = true;
  EXPECT_TRUE(run_collective(j).ok());
}

TEST(BenchRunner, WarmupsPlusIterationsThatOverflowAreRefused) {
  const Machine s = on("trn2", 2);
  CollectiveJob j = job(s, Op::kAllReduce, Algorithm::kMesh, DataType::kFp32, 1024);
  j.request.iterations = 4'294'967'295U;
  j.warmups = 1;  // 4294967296 would wrap to 0
  const std::string want = "-n 4294967295 and -w 1: more than 4294967295 iterations in all";
  EXPECT_EQ(check_collective(j).error().message, want);
  EXPECT_EQ(run_collective(j).error().message, want);
}

TEST(BenchRunner, TimingOnlyRunsWithoutLandingEventsReportTheSame) {
  // [CHOICE D35]: every timed figure and counter, the event count included, is the one a run
  // with an event per landing gives.
  Machine s = on("trn2.48xlarge", 8);
  s.comm.groups = {{0, 3, 5, 7, 8, 11, 13, 14}};  // two chips, both dies
  for (const auto& [op, algo] :
       {std::pair{Op::kAllReduce, Algorithm::kRdh}, std::pair{Op::kAllGather, Algorithm::kRing},
        std::pair{Op::kAllToAll, Algorithm::kMesh},
        std::pair{Op::kReduceScatter, Algorithm::kHierarchical}}) {
    CollectiveJob j = job(s, op, algo, DataType::kBf16, 12000);
    j.check.reset();
    j.timing_only = true;
    j.request.iterations = 1;
    j.warmups = 1;
    auto quiet = run_collective(j);
    j.elide_data_landings = false;
    auto loud = run_collective(j);
    ASSERT_TRUE(quiet.ok() && loud.ok()) << what(j);
    EXPECT_EQ(quiet->iterations, loud->iterations) << what(j);
    EXPECT_EQ(quiet->end_time, loud->end_time) << what(j);
    EXPECT_EQ(quiet->stats.events, loud->stats.events) << what(j);
    EXPECT_EQ(quiet->stats.descriptors, loud->stats.descriptors) << what(j);
    EXPECT_EQ(quiet->stats.data_bytes, loud->stats.data_bytes) << what(j);
    EXPECT_EQ(quiet->stats.semaphore_writes, loud->stats.semaphore_writes) << what(j);
    EXPECT_GT(quiet->stats.data_bytes, 0u) << what(j);
  }
  // Timing-only runs elide unless traced or shuffled.
  auto elides = [&](bool timing_only, bool trace, std::uint64_t seed) {
    SimOptions o;
    o.timing_only = timing_only;
    o.trace = trace;
    o.seed = seed;
    auto sim = Simulation::create(s.topo, o);
    SBRDMA_CHECK(sim.ok());
    return (*sim)->machine().options().elide_data_landings;
  };
  EXPECT_TRUE(elides(true, false, 0));
  EXPECT_FALSE(elides(true, true, 0));
  EXPECT_FALSE(elides(true, false, 5));
  EXPECT_FALSE(elides(false, false, 0));
}

TEST(BenchRunner, TheTraceHasAStepBoxPerStep) {
  const Machine s = on("trn2", 4);
  CollectiveJob j = job(s, Op::kAllReduce, Algorithm::kRing, DataType::kFp32, 8192);
  j.trace = true;
  auto r = run_collective(j);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NE(r->trace_json.find("\"name\":\"steps\""), std::string::npos);
  EXPECT_NE(r->trace_json.find("\"name\":\"ring rs step 2\""), std::string::npos);
  EXPECT_NE(r->trace_json.find("\"name\":\"ring ag step 0\""), std::string::npos);
  EXPECT_NE(r->trace_json.find("DMA 15"), std::string::npos);
}

TEST(BenchRunner, TheTraceEndsEachSemaphoreWaitWhenItsCounterGetsThere) {
  // The trace reads only what each event can have changed (the cores whose process ran, the
  // semaphores the machine logged): a wait must still end at the tick its semaphore reaches
  // the value (the waiter resumes inside the landing's recheck, not in an event of its own).
  const Machine s = on("trn2", 8);
  CollectiveJob j = job(s, Op::kAllReduce, Algorithm::kRing, DataType::kFp32, 64 << 10);
  j.check.reset();
  j.trace = true;
  auto r = run_collective(j);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const testing_trace::WaitEnds w = testing_trace::wait_ends(r->trace_json);
  EXPECT_GT(w.waits, 0U);
  EXPECT_EQ(w.wrong, "");
}

TEST(BenchRunner, TheTraceSlicesNestOnEveryThread) {
  // Mesh all-reduce keeps up to 10 pairs in flight per engine: their DMA slices go to lanes,
  // and every thread (POOL, Q7, steps, DMA lanes) holds slices that nest or are disjoint.
  const Machine s = on("trn2", 8);
  CollectiveJob j = job(s, Op::kAllReduce, Algorithm::kMesh, DataType::kFp32, 64 << 10);
  j.check.reset();
  j.trace = true;
  auto r = run_collective(j);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const testing_trace::TraceSlices t = testing_trace::trace_slices(r->trace_json);
  EXPECT_EQ(t.crossing, 0U) << t.examples;
  EXPECT_EQ(t.inner_before_word, 0U) << "waits and q7 busy of a word's span come after it";
  // One slice per descriptor pair of the traced iteration, as before the lanes.
  EXPECT_EQ(t.dma, 17920U);
  EXPECT_EQ(t.dma, r->stats.descriptors);
  // The traced run counts in the point's descriptors, as its wall time counts in the point's.
  EXPECT_TRUE(r->trace_run);
  EXPECT_FALSE(r->check_run);
  EXPECT_EQ(r->descriptors, r->stats.descriptors + t.dma);
  EXPECT_EQ(t.spare_lanes, 0U) << "as few lanes as pairs in flight";
  const auto last = t.names.find({0, 1015});
  ASSERT_NE(last, t.names.end()) << "no tenth lane for core 0's engine 15";
  EXPECT_EQ(last->second, "DMA 15 (10)");
  EXPECT_FALSE(t.names.contains({0, 1115}));
}

TEST(BenchRunner, ShuffledSameTickOrderStillGivesRightData) {
  // [CHOICE D31e] `--tie-seed`: the collectives order everything that matters with
  // semaphores, so same-tick events in any order must give the same data. Two chips, both
  // dies; every operation on every algorithm that applies, under two tie seeds.
  Machine s = on("trn2.48xlarge", 8);
  s.comm.groups = {{0, 3, 5, 7, 8, 11, 13, 14}};
  constexpr std::uint64_t kTieSeeds[] = {0x5eed, 0xffffffffffffffff};
  unsigned ran = 0;
  for (Op op : {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter, Op::kAllToAll, Op::kSendRecv,
                Op::kPermute}) {
    for (Algorithm a :
         {Algorithm::kRing, Algorithm::kMesh, Algorithm::kRdh, Algorithm::kHierarchical}) {
      CollectiveJob j = job(s, op, a, DataType::kBf16, 6002);
      if (!check_collective(j).ok()) continue;  // an algorithm the operation does not take
      for (std::uint64_t tie : kTieSeeds) {
        j.tie_seed = tie;
        const std::string where = fmt::format("{} with tie seed {:#x}", what(j), tie);
        auto r = run_collective(j);
        ASSERT_TRUE(r.ok()) << where << ": " << r.error().message;
        ++ran;
        ASSERT_TRUE(r->wrong.has_value()) << where;
        EXPECT_EQ(*r->wrong, 0U) << where;
        EXPECT_GT(r->checked, 0U) << where;
        if (tie != kTieSeeds[0]) continue;
        auto again = run_collective(j);
        ASSERT_TRUE(again.ok()) << where;
        EXPECT_EQ(again->iterations, r->iterations) << where << ": a seed reproduces its run";
      }
    }
  }
  EXPECT_GE(ran, 2U * 12U);
  // The seed reaches each of a row's runs, the timed one, the trace's and the check's: here
  // engines' same-tick bookings of shared links change order, and the iteration ends at
  // another time (42 ns sooner).
  const Machine one_chip = on("trn2", 8);
  CollectiveJob t = job(one_chip, Op::kAllReduce, Algorithm::kRdh, DataType::kFp32, 256 << 10);
  t.check.reset();
  t.timing_only = true;
  t.trace = true;
  auto scheduled = run_collective(t);
  t.tie_seed = 42;
  auto shuffled = run_collective(t);
  ASSERT_TRUE(scheduled.ok() && shuffled.ok());
  EXPECT_NE(shuffled->iterations, scheduled->iterations);
  ASSERT_TRUE(scheduled->trace_run && shuffled->trace_run);
  EXPECT_NE(shuffled->trace_json, scheduled->trace_json);
  // And the data check's own run of an in-place sum.
  CollectiveJob c = job(one_chip, Op::kAllReduce, Algorithm::kRdh, DataType::kFp32, 256 << 10);
  auto checked = run_collective(c);
  c.tie_seed = 42;
  auto checked_shuffled = run_collective(c);
  ASSERT_TRUE(checked.ok() && checked_shuffled.ok());
  ASSERT_TRUE(checked->check_run && checked_shuffled->check_run);
  EXPECT_EQ(*checked_shuffled->wrong, 0U);
  EXPECT_NE(checked_shuffled->check_end_time, checked->check_end_time);
}

TEST(BenchRunner, TheBreakdownCountsALinksTimeInTheWindowWhenEverItWasBooked) {
  // [CHOICE D45] A permute ring on 16 ranks of two chips crosses one very slow link (4 KiB
  // in 4.1 ms); its pairs are booked when their engines take them, some during the warmup for
  // time inside the measured iteration. Counted when booked, that link showed 0% and an SBUF
  // port was called the busiest; counted where its bookings lie, it is the busiest link.
  auto spec = parse_topology_json(
      R"({"chips": 2, "links": [{"from": 0, "to": 1, "latency_ns": 1e6, "bandwidth_gbps": 0.001}]})",
      "slow.json");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto topo = device::build_topology(*spec);
  ASSERT_TRUE(topo.ok()) << topo.error().message;
  auto comm = collectives::default_communicator(geometry_of(*topo), 16);
  ASSERT_TRUE(comm.ok());
  const Machine m{*topo, std::move(*comm)};
  CollectiveJob j = job(m, Op::kPermute, Algorithm::kAuto, DataType::kFp32, 4096);
  j.check.reset();
  j.timing_only = true;
  j.warmups = 1;
  j.breakdown = true;
  auto r = run_collective(j);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->breakdown.has_value());
  EXPECT_EQ(r->breakdown->link_name.substr(0, 16), "c2c.chip0-chip1 ") << r->breakdown->link_name;
  EXPECT_GT(r->breakdown->link, 0.5);
}

TEST(BenchRunner, EmptyPiecesStillPaceEveryIteration) {
  // Fewer elements than ranks leave some mesh pieces and RDH ranges empty. Their positions
  // used to hear from nobody, run iterations ahead, and meet their next same-parity wait
  // before a slow sender's leg had landed: reduce-scatter then reduced a slot never written.
  // Two chips joined by one slow link (50 us) make every iteration wait for that link: mesh
  // on 9 ranks (one on the second chip), RDH on 16 (its last all-gather step and first
  // reduce-scatter step cross the link).
  auto spec = parse_topology_json(
      R"({"name": "two-slow", "chips": 2, "links": [{"from": 0, "to": 1, "latency_ns": 50000}]})",
      "two-slow.json");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  auto topo = device::build_topology(*spec);
  ASSERT_TRUE(topo.ok()) << topo.error().message;
  struct Case {
    Op op;
    collectives::ReduceOp reduce;
    std::uint64_t bytes;
  };
  for (const auto& [alg, ranks] :
       {std::pair{Algorithm::kMesh, 9U}, std::pair{Algorithm::kRdh, 16U}}) {
    auto comm = collectives::default_communicator(geometry_of(*topo), ranks);
    ASSERT_TRUE(comm.ok());
    const Machine m{*topo, std::move(*comm)};
    for (const Case& c : {Case{Op::kReduceScatter, collectives::ReduceOp::kMin, 2},
                          Case{Op::kAllReduce, collectives::ReduceOp::kMax, 3},
                          Case{Op::kAllGather, collectives::ReduceOp::kSum, 1}}) {
      CollectiveJob j = job(m, c.op, alg, DataType::kUint8, c.bytes);
      j.request.reduce = c.reduce;  // max and min are checked on the timed run itself
      j.request.iterations = 5;
      j.warmups = 1;
      auto r = run_collective(j);
      ASSERT_TRUE(r.ok()) << what(j) << ": " << r.error().message;
      ASSERT_TRUE(r->wrong.has_value());
      EXPECT_EQ(*r->wrong, 0U) << what(j);
      ASSERT_EQ(r->iterations.size(), 5U);
      for (base::Tick t : r->iterations) EXPECT_GE(t.ps, 50'000'000U) << what(j);
    }
  }
}

TEST(BenchRunner, RandomConfigurationsGiveRightDataAndTheirTimesWithoutData) {
  // Draws a fixed sequence of collectives over operations, algorithms, types, reductions,
  // rank counts (across chips on trn2.48xlarge) and sizes that need not divide by anything:
  // each one the lowering accepts must give no wrong element, and --timing-only the same
  // iteration times. A seeded std::mt19937_64 (its output is fixed by the standard) and plain
  // modulo keep the draws the same on every library.
  std::mt19937_64 rng(20261204);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  // Ranks are the first 1..cores cores: on trn2.48xlarge, up to two chips.
  struct Place {
    std::string_view topology;
    std::size_t cores;
  };
  constexpr Place kPlaces[] = {{"trn2", 8}, {"trn2.48xlarge", 16}};
  constexpr Op kOps[] = {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter,
                         Op::kAllToAll,  Op::kSendRecv,  Op::kPermute};
  constexpr Algorithm kAlgorithms[] = {Algorithm::kAuto, Algorithm::kRing, Algorithm::kMesh,
                                       Algorithm::kRdh, Algorithm::kHierarchical};
  constexpr DataType kTypes[] = {DataType::kFp32,   DataType::kBf16,   DataType::kFp16,
                                 DataType::kInt32,  DataType::kUint32, DataType::kInt16,
                                 DataType::kUint16, DataType::kInt8,   DataType::kUint8};
  constexpr collectives::ReduceOp kReduces[] = {
      collectives::ReduceOp::kSum, collectives::ReduceOp::kMax, collectives::ReduceOp::kMin};
  unsigned ran = 0;
  for (int draw = 0; draw < 40; ++draw) {
    const Place& place = kPlaces[pick(2)];
    const Machine m = on(place.topology, 1 + static_cast<unsigned>(pick(place.cores)));
    CollectiveJob j = job(m, kOps[pick(6)], kAlgorithms[pick(5)], kTypes[pick(9)], 1 + pick(40000));
    j.request.reduce = kReduces[pick(3)];
    j.request.iterations = 2;
    j.warmups = 1;
    j.seed = rng();
    const std::string where = fmt::format("draw {}: {} on {} ranks of {}", draw, what(j),
                                          m.comm.groups[0].size(), m.topo.name());
    auto data = run_collective(j);
    if (!data.ok()) continue;  // an algorithm that does not apply, a size below one element
    ++ran;
    ASSERT_TRUE(data->wrong.has_value()) << where;
    EXPECT_EQ(*data->wrong, 0U) << where;
    CollectiveJob t = j;
    t.check.reset();
    t.timing_only = true;
    auto timing = run_collective(t);
    ASSERT_TRUE(timing.ok()) << where << ": " << timing.error().message;
    EXPECT_EQ(timing->iterations, data->iterations) << where;
    EXPECT_EQ(timing->iterations.size(), 2U) << where;
  }
  EXPECT_GE(ran, 20U) << "most draws must run, or the test checks little";
}

}  // namespace
}  // namespace sbrdma::platform
