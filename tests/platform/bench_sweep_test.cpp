// platform/bench.h: size parsing, sweeps, the shape of busbw against size, and the
// deterministic table / JSON / plot.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectives/lower.h"
#include "device/paged_memory.h"
#include "platform/bench.h"
#include "platform/collective_groups.h"
#include "platform/collective_runner.h"
#include "platform/topology_json.h"

namespace sbrdma::platform {
namespace {

TEST(BenchSweep, MemcpyReferenceIsARateAndNothingForNoBytes) {
  EXPECT_EQ(measure_memcpy(0, 4096), std::optional<MemcpyRate>(MemcpyRate{}));
  // 3 MiB in 4 KiB chunks through one span: a rate, finite and above zero (too short to bound
  // it from below: this machine is shared).
  const std::optional<MemcpyRate> rate = measure_memcpy(3ULL << 20, 4096);
  ASSERT_TRUE(rate.has_value());
  EXPECT_GT(rate->bytes_per_s, 0.0);
  EXPECT_TRUE(std::isfinite(rate->bytes_per_s));
  EXPECT_EQ(rate->reduced_span, 0U);  // its 3 MiB buffers mapped
}

/// A MapBuffer that maps buffers of at most `limit` bytes and records every request.
struct LimitedMapper {
  std::uint64_t limit = 0;
  std::vector<std::uint64_t> asked;
  MapBuffer fn() {
    return [this](std::uint64_t bytes) -> std::unique_ptr<device::DenseBuffer> {
      asked.push_back(bytes);
      return bytes <= limit ? map_dense_buffer(bytes) : nullptr;
    };
  }
};

TEST(BenchSweep, MemcpyReferenceHalvesItsBuffersWhereTheyCannotBeMapped) {
  // After a run that held most of the memory: 64 MiB buffers do not fit, 16 MiB ones do. The
  // reference is still measured (over all the bytes), with the larger spans given back first.
  LimitedMapper m;
  m.limit = 16ULL << 20;
  const std::optional<MemcpyRate> rate = measure_memcpy(96ULL << 20, 32ULL << 20, m.fn());
  ASSERT_TRUE(rate.has_value());
  EXPECT_GT(rate->bytes_per_s, 0.0);
  EXPECT_EQ(rate->reduced_span, 16ULL << 20);
  EXPECT_EQ(m.asked,
            (std::vector<std::uint64_t>{64ULL << 20, 32ULL << 20, 16ULL << 20, 16ULL << 20}));
  // Where the source maps and the destination does not, the pair is tried again at half.
  std::vector<std::uint64_t> asked;
  const MapBuffer second_from_8m =
      [&](std::uint64_t bytes) -> std::unique_ptr<device::DenseBuffer> {
    asked.push_back(bytes);
    const bool second = asked.size() % 2 == 0;
    return !second || bytes <= (8ULL << 20) ? map_dense_buffer(bytes) : nullptr;
  };
  ASSERT_TRUE(measure_memcpy(32ULL << 20, 4096, second_from_8m).has_value());
  EXPECT_EQ(asked, (std::vector<std::uint64_t>{32ULL << 20, 32ULL << 20, 16ULL << 20, 16ULL << 20,
                                               8ULL << 20, 8ULL << 20}));
}

TEST(BenchSweep, NoMemcpyReferenceWhereNoBufferCanBeMapped) {
  LimitedMapper m;  // maps nothing
  EXPECT_EQ(measure_memcpy(16ULL << 20, 4096, m.fn()), std::nullopt);
  // It gave up at the smallest span, a 2 MiB mapping block, halving from 16 MiB.
  EXPECT_EQ(m.asked, (std::vector<std::uint64_t>{16ULL << 20, 8ULL << 20, 4ULL << 20, 2ULL << 20}));
  EXPECT_EQ(kMemcpyMinSpan, 2ULL << 20);
  // A sample smaller than that is not halved.
  LimitedMapper small;
  EXPECT_EQ(measure_memcpy(1ULL << 20, 4096, small.fn()), std::nullopt);
  EXPECT_EQ(small.asked, std::vector<std::uint64_t>{1ULL << 20});
}

TEST(BenchSweep, SizesTakeBinarySuffixes) {
  EXPECT_EQ(*parse_size("1K", "-b"), 1024u);
  EXPECT_EQ(*parse_size("16M", "-b"), 16u << 20);
  EXPECT_EQ(*parse_size("2g", "-e"), 2ULL << 30);
  EXPECT_EQ(*parse_size("4097", "-b"), 4097u);
  // nccom-test's spellings: 1kb, 1MB, 1gb; and KiB. All binary.
  EXPECT_EQ(*parse_size("1kb", "-b"), 1024u);
  EXPECT_EQ(*parse_size("3MB", "-b"), 3u << 20);
  EXPECT_EQ(*parse_size("1gb", "-e"), 1ULL << 30);
  EXPECT_EQ(*parse_size("2KiB", "-b"), 2048u);
  EXPECT_EQ(*parse_size("5mIb", "-b"), 5u << 20);
  for (const char* bad : {"12B", "12iB", "1KK", "1kbb", "1 KB", "KB", "1Kib2", "1TB"}) {
    EXPECT_FALSE(parse_size(bad, "-b").ok()) << bad;
  }
  EXPECT_EQ(parse_size("1.5M", "-b").error().message,
            "-b: bad size '1.5M' (a number of bytes, decimal or 0x hex, then K/KB/KiB, "
            "M/MB/MiB or G/GB/GiB in any case)");
  EXPECT_FALSE(parse_size("", "-b").ok());
  EXPECT_FALSE(parse_size("K", "-b").ok());
  // Any number of digits up to 2^64 - 1; past it, or past it once multiplied, one message.
  EXPECT_EQ(*parse_size("1000000000000", "-b"), 1000000000000ULL);
  EXPECT_EQ(*parse_size("18446744073709551615", "-e"), ~0ULL);
  EXPECT_EQ(*parse_size("000000000000004096", "-b"), 4096u);
  EXPECT_EQ(parse_size("18446744073709551616", "-e").error().message,
            "-e: size '18446744073709551616' does not fit in 64 bits");
  EXPECT_EQ(parse_size("17179869184G", "-e").error().message,
            "-e: size '17179869184G' does not fit in 64 bits");
  EXPECT_EQ(parse_size("99999999999999999999x", "-b").error().message,
            "-b: bad size '99999999999999999999x' (a number of bytes, decimal or 0x hex, then "
            "K/KB/KiB, M/MB/MiB or G/GB/GiB in any case)");
  // The number as every other flag reads it: 0x hex, '_' between two digits.
  EXPECT_EQ(*parse_size("1_024", "-b"), 1024u);
  EXPECT_EQ(*parse_size("0x400", "-b"), 1024u);
  EXPECT_EQ(*parse_size("0x1_0K", "-b"), 16u << 10);
  EXPECT_EQ(*parse_size("1_0kb", "-b"), 10u << 10);
  EXPECT_EQ(*parse_size("0xab", "-b"), 0xabu);  // b is a hex digit here, not a unit
  EXPECT_EQ(*parse_size("0x2gb", "-e"), 2ULL << 30);
  for (const char* bad : {"_1K", "1_K", "1__0", "0x", "0xK", "0x_1", "0x1ib", "0X1G_"}) {
    EXPECT_FALSE(parse_size(bad, "-b").ok()) << bad;
  }
  EXPECT_EQ(parse_size("0x1_0000_0000_0000_0000", "-e").error().message,
            "-e: size '0x1_0000_0000_0000_0000' does not fit in 64 bits");
}

TEST(BenchSweep, TimeStatsAreTheAverageOrAnyWholePercentile) {
  EXPECT_EQ(*parse_time_stat("avg"), TimeStat{});
  EXPECT_EQ(*parse_time_stat("p1"), TimeStat{1});
  EXPECT_EQ(*parse_time_stat("p25"), TimeStat{25});
  EXPECT_EQ(*parse_time_stat("p100"), TimeStat{100});
  EXPECT_EQ(parse_time_stat("p25")->name(), "p25");
  EXPECT_EQ(parse_time_stat("avg")->name(), "avg");
  for (const char* bad : {"p0", "p101", "p050", "p", "P50", "p5x", "p1000", "mean", "", "avg "}) {
    EXPECT_FALSE(parse_time_stat(bad).ok()) << bad;
  }
  // Nearest rank over the sorted times: p25 of 4 is the first, p26 the second, p100 the last.
  BenchRow row;
  row.times_us = {1, 2, 3, 10};
  row.avg_us = 4;
  EXPECT_EQ(stat_value(row, TimeStat{}), 4);
  EXPECT_EQ(stat_value(row, TimeStat{25}), 1);
  EXPECT_EQ(stat_value(row, TimeStat{26}), 2);
  EXPECT_EQ(stat_value(row, TimeStat{50}), 2);
  EXPECT_EQ(stat_value(row, TimeStat{75}), 3);
  EXPECT_EQ(stat_value(row, TimeStat{100}), 10);
  EXPECT_EQ(percentile({}, 50), 0);
  // Rank ceil(p n / 100) exactly, for every p and n = 100 (where p / 100.0 * n rounds p7 up
  // to the 8th) and n = 1000.
  for (const std::size_t n : {std::size_t{100}, std::size_t{1000}, std::size_t{7}}) {
    std::vector<double> ranks(n);
    for (std::size_t i = 0; i < n; ++i) ranks[i] = static_cast<double>(i + 1);
    for (unsigned p = 1; p <= 100; ++p) {
      std::size_t want = 1;  // the smallest rank holding at least p% of the values
      while (want * 100 < p * n) ++want;
      EXPECT_EQ(percentile(ranks, p), static_cast<double>(want)) << "p" << p << " of " << n;
    }
  }
}

TEST(BenchSweep, SweepsMultiplyOrStep) {
  EXPECT_EQ(*sweep_sizes(1024, 16384, 4, 0), (std::vector<std::uint64_t>{1024, 4096, 16384}));
  EXPECT_EQ(*sweep_sizes(1000, 3500, 2, 1000), (std::vector<std::uint64_t>{1000, 2000, 3000}));
  EXPECT_EQ(*sweep_sizes(7, 7, 2, 0), (std::vector<std::uint64_t>{7}));
  EXPECT_EQ(sweep_sizes(4096, 1024, 2, 0).error().message, "-b 4096 is larger than -e 1024");
  EXPECT_EQ(sweep_sizes(0, 1024, 2, 0).error().message,
            "-b: size 0: a collective needs at least one byte");
  EXPECT_EQ(sweep_sizes(1, 1024, 1, 0).error().message, "-f: the factor must be at least 2");
  // Every error of the bounds, each once, in flag order.
  auto messages = [](const std::vector<base::Error>& errors) {
    std::vector<std::string> out;
    for (const base::Error& e : errors) out.push_back(e.message);
    return out;
  };
  EXPECT_TRUE(sweep_errors(1, 1, 2, 0).empty());
  EXPECT_TRUE(sweep_errors(1, 8, 1, 3).empty());  // a step: the factor is not used
  EXPECT_EQ(messages(sweep_errors(0, 0, 1, 0)),
            (std::vector<std::string>{"-b: size 0: a collective needs at least one byte",
                                      "-e: size 0: a collective needs at least one byte",
                                      "-f: the factor must be at least 2"}));
  // An -e that defaults to -b is -b's error; a zero -e is not "below" a -b.
  EXPECT_EQ(messages(sweep_errors(0, 0, 2, 0, /*end_given=*/false)),
            (std::vector<std::string>{"-b: size 0: a collective needs at least one byte"}));
  EXPECT_EQ(messages(sweep_errors(4, 0, 2, 0)),
            (std::vector<std::string>{"-e: size 0: a collective needs at least one byte"}));
  EXPECT_EQ(
      messages(sweep_errors(8, 4, 0, 0)),
      (std::vector<std::string>{"-b 8 is larger than -e 4", "-f: the factor must be at least 2"}));
  // A step past 64 bits ends the sweep; it does not wrap into a small size.
  const std::uint64_t top = ~std::uint64_t{0};
  EXPECT_EQ(*sweep_sizes(1024, 16384, (std::uint64_t{1} << 54) + 2, 0),
            (std::vector<std::uint64_t>{1024}));  // 1024 x (2^54 + 2) wraps to 2048
  EXPECT_EQ(*sweep_sizes(1024, top, top, 0), (std::vector<std::uint64_t>{1024}));
  EXPECT_EQ(*sweep_sizes(top - 1, top, 2, 1), (std::vector<std::uint64_t>{top - 1, top}));
  EXPECT_EQ(*sweep_sizes(top - 1, top, 2, top), (std::vector<std::uint64_t>{top - 1}));
}

TEST(BenchSweep, SizesBelowOneElementAreLeftOutOfASweepThatHasOthers) {
  // fp32 from 1 B by +1: 1, 2 and 3 B hold no element; 4 and 5 B hold one (one row).
  std::vector<std::uint64_t> left_out;
  EXPECT_EQ(*sweep_sizes(1, 9, 2, 1, 4, &left_out), (std::vector<std::uint64_t>{4, 8}));
  EXPECT_EQ(left_out, (std::vector<std::uint64_t>{1, 2, 3}));
  // None holds one: they stay, to fail with their own message.
  left_out.clear();
  EXPECT_EQ(*sweep_sizes(1, 3, 2, 1, 4, &left_out), (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_TRUE(left_out.empty());
  EXPECT_EQ(*sweep_sizes(3, 100, 2, 0, 4), (std::vector<std::uint64_t>{6, 12, 24, 48, 96}));
  // Those left out do not count against the sweep's limit: 1 B, then 1000 whole sizes.
  left_out.clear();
  EXPECT_EQ(sweep_sizes(1, 4001, 2, 4, 4, &left_out)->size(), kMaxSweepSizes);
  EXPECT_EQ(left_out, (std::vector<std::uint64_t>{1}));
  EXPECT_FALSE(sweep_sizes(1, 4005, 2, 4, 4).ok());
}

TEST(BenchSweep, SizesThatRoundToTheSameElementCountRunOnce) {
  // -b 4 -e 16 -i 2 with fp32: 4 and 6 B are one element, 8 and 10 B two, ...
  EXPECT_EQ(*sweep_sizes(4, 16, 2, 2, 4), (std::vector<std::uint64_t>{4, 8, 12, 16}));
  // Below one element: left out before the first whole one (SizesBelowOneElement... above).
  EXPECT_EQ(*sweep_sizes(1, 5, 2, 1, 4), (std::vector<std::uint64_t>{4}));
  // A one-byte type keeps every size.
  EXPECT_EQ(*sweep_sizes(3, 5, 2, 1, 1), (std::vector<std::uint64_t>{3, 4, 5}));
  EXPECT_EQ(*sweep_sizes(8, 18, 2, 1, 8), (std::vector<std::uint64_t>{8, 16}));
  // The size limit counts the sizes kept: 4 B to 2 KiB in steps of 1 B is 512 fp32 rows.
  EXPECT_EQ(sweep_sizes(4, 2048, 2, 1, 4)->size(), 512U);
  EXPECT_FALSE(sweep_sizes(4, 2048, 2, 1, 1).ok());
}

TEST(BenchSweep, SizesPast64BitsAreRefused) {
  EXPECT_EQ(*parse_size("17179869183G", "-e"), 17179869183ULL << 30);
  EXPECT_EQ(parse_size("17179869184G", "-b").error().message,
            "-b: size '17179869184G' does not fit in 64 bits");
  EXPECT_EQ(parse_size("17179869185G", "-e").error().message,  // not 1G
            "-e: size '17179869185G' does not fit in 64 bits");
}

// size_name: a size as -b takes it, in the largest whole unit (the progress lines, "-e 1536K"
// in a sweep's error), so that it reads back as the same number of bytes.
TEST(BenchSweep, SizeNamesAreTheLargestWholeUnit) {
  EXPECT_EQ(size_name(1000), "1000");
  EXPECT_EQ(size_name(1024), "1K");
  EXPECT_EQ(size_name(1536ULL << 10), "1536K");  // 1.5 MiB: not a whole M
  EXPECT_EQ(size_name(3ULL << 20), "3M");
  EXPECT_EQ(size_name(1536ULL << 20), "1536M");  // 1.5 GiB: not a whole G
  EXPECT_EQ(size_name(2ULL << 30), "2G");
  for (const std::uint64_t b : {1000ULL, 1024ULL, 1536ULL << 10, 3ULL << 20, 1536ULL << 20}) {
    EXPECT_EQ(*parse_size(size_name(b), "-e"), b) << size_name(b);
  }
}

// --show-input-output-size: rank 0's bytes, whose block is the longest when the count does not
// divide by the ranks (docs/bench.md): 10 fp32 elements on 4 ranks are blocks 3, 3, 2, 2.
TEST(BenchSweep, InputOutputSizesAreRankZerosWithUnevenBlocks) {
  using collectives::Op;
  const auto io = [](Op op) {
    const IoSizes s = io_sizes(op, 10, 4, 4);
    return std::pair{s.input, s.output};
  };
  EXPECT_EQ(io(Op::kAllGather), (std::pair<std::uint64_t, std::uint64_t>{12, 40}));
  EXPECT_EQ(io(Op::kReduceScatter), (std::pair<std::uint64_t, std::uint64_t>{40, 12}));
  // All-to-all: the whole in, block 0 (3 elements) from each of the 4 ranks out.
  EXPECT_EQ(io(Op::kAllToAll), (std::pair<std::uint64_t, std::uint64_t>{40, 48}));
  EXPECT_EQ(io(Op::kAllReduce), (std::pair<std::uint64_t, std::uint64_t>{40, 40}));
}

TEST(BenchSweep, ASweepHasAtMostKMaxSweepSizes) {
  EXPECT_EQ(sweep_sizes(1, kMaxSweepSizes, 2, 1)->size(), kMaxSweepSizes);
  EXPECT_EQ(sweep_sizes(1, kMaxSweepSizes + 1, 2, 1).error().message,
            "-b 1 to -e 1001 in steps of +1: more than 1000 sizes");
  EXPECT_EQ(sweep_sizes(1, 1ULL << 30, 2, 1).error().message,
            "-b 1 to -e 1073741824 in steps of +1: more than 1000 sizes");
  // A size past the 1000th that rounds to the last row's elements is no row: the sweep fits
  // (bf16: 2001 B holds the 1000 elements of 2000 B).
  const auto bf16 = sweep_sizes(2, 2001, 2, 1, 2);
  ASSERT_TRUE(bf16.ok());
  EXPECT_EQ(bf16->size(), kMaxSweepSizes);
  EXPECT_EQ(bf16->back(), 2000U);
  EXPECT_EQ(sweep_sizes(2, 2002, 2, 1, 2).error().message,
            "-b 2 to -e 2002 in steps of +1: more than 1000 sizes");
}

BenchOptions ring_allreduce(std::vector<std::uint64_t> sizes) {
  BenchOptions o;
  o.op = collectives::Op::kAllReduce;
  o.ranks = 8;
  o.sizes = std::move(sizes);
  o.algorithms = {collectives::Algorithm::kRing};
  o.iterations = 1;
  o.warmups = 0;
  o.timing_only = true;
  return o;
}

TEST(BenchSweep, TheTableWarnsOfLinkBookingOrderWhereAGroupSpansChips) {
  // On several chips RDH's times (flat, or hierarchical's across the chips) depend on which
  // engine books a shared link first (D31d): the table says so under its header. Groups that
  // each stay on one chip need no such line, however many chips the groups cover together,
  // and neither do the other algorithms (ring's times do not move with the tie seed).
  auto topo = load_topology("trn2.48xlarge");
  ASSERT_TRUE(topo.ok());
  const std::string_view note = "# several chips: engines contending for chip-to-chip links";
  auto table_of = [&](BenchOptions o) {
    o.sizes = {4096};
    auto r = run_bench(o, *topo, {});
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? std::optional(std::pair(r->several_chips, format_table(o, *r))) : std::nullopt;
  };
  BenchOptions o = ring_allreduce({});
  o.ranks = 16;  // chips 0 and 1
  auto t = table_of(o);
  ASSERT_TRUE(t.has_value());
  EXPECT_TRUE(t->first);
  EXPECT_EQ(t->second.find("several chips"), std::string::npos) << t->second;  // ring
  o.algorithms = {collectives::Algorithm::kHierarchical};
  t = table_of(o);
  ASSERT_TRUE(t.has_value());
  EXPECT_NE(t->second.find(note), std::string::npos) << t->second;
  o.algorithms = {collectives::Algorithm::kRdh};
  t = table_of(o);
  ASSERT_TRUE(t.has_value());
  EXPECT_NE(t->second.find(note), std::string::npos) << t->second;
  o.ranks = 8;  // chip 0 alone
  t = table_of(o);
  ASSERT_TRUE(t.has_value());
  EXPECT_FALSE(t->first);
  EXPECT_EQ(t->second.find("several chips"), std::string::npos) << t->second;
  o.groups = collectives::Communicator{{{0, 1}, {8, 9}}};  // one chip each
  t = table_of(o);
  ASSERT_TRUE(t.has_value());
  EXPECT_FALSE(t->first);
  o.groups = collectives::Communicator{{{0, 1}, {2, 8}}};  // the second spans chips 0 and 1
  t = table_of(o);
  ASSERT_TRUE(t.has_value());
  EXPECT_TRUE(t->first);
  EXPECT_NE(t->second.find(note), std::string::npos) << t->second;
}

TEST(BenchSweep, TheMeanIsTheDoubleNearestTheExactMeanOfWholePicoseconds) {
  // Summed as doubles, a mean could come out an ulp or so off the exact one, and the JSON
  // carried the noise (19.939602999999998 for 19.939603).
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  BenchOptions o = ring_allreduce({1024, 4096, 65536});
  o.ranks = 4;
  o.iterations = 7;
  o.algorithms = {collectives::Algorithm::kRing, collectives::Algorithm::kMesh};
  auto r = run_bench(o, *topo, {});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->rows.size(), 6u);
  for (const BenchRow& row : r->rows) {
    ASSERT_EQ(row.times_us.size(), 7u);
    std::uint64_t ps = 0;
    for (double t : row.times_us) ps += static_cast<std::uint64_t>(std::llround(t * 1e6));
    EXPECT_EQ(row.avg_us, static_cast<double>(ps) / 7e6);
  }
}

TEST(BenchSweep, EachSizesProgressLineGivesItsRowsFigures) {
  // The table comes once the sweep is done; a size's line on stderr gives its results as soon
  // as it has them, the very figures its row will show. #wrong only where the data is checked.
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  BenchOptions o = ring_allreduce({1024, 65536});
  std::vector<std::string> lines;
  auto r = run_bench(o, *topo, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(lines.size(), 2u);
  ASSERT_EQ(r->rows.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const BenchRow& row = r->rows[i];
    const std::string tail =
        fmt::format("descriptors; avg {:.2f} us, busbw {:.2f} GB/s", row.avg_us, row.busbw);
    ASSERT_GE(lines[i].size(), tail.size());
    EXPECT_EQ(lines[i].substr(lines[i].size() - tail.size()), tail) << lines[i];
  }
  EXPECT_NE(r->rows[0].busbw, r->rows[1].busbw);  // each line has its own row's figures
  o.timing_only = false;
  o.check = collectives::DataFill::kRandom;
  o.sizes = {1024};
  lines.clear();
  r = run_bench(o, *topo, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(lines.size(), 1u);
  const std::string tail = ", #wrong 0";
  ASSERT_GE(lines[0].size(), tail.size());
  EXPECT_EQ(lines[0].substr(lines[0].size() - tail.size()), tail) << lines[0];
}

TEST(BenchSweep, ALongPointReportsItsIterationsAsTheyFinish) {
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  BenchOptions o = ring_allreduce({1000, 4096});
  o.iterations = 2;
  o.warmups = 1;
  o.check = collectives::DataFill::kRandom;  // its own run of one: only beats would report
  o.timing_only = false;
  o.progress_every_s = 0;      // every iteration counts as long
  o.progress_beat_events = 0;  // and only a finished one is told
  std::vector<std::string> lines;
  auto r = run_bench(o, *topo, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_TRUE(r.ok()) << r.error().message;
  // Per point: iterations 1 and 2 of 3 as they finish (the third is the point's own line).
  ASSERT_EQ(lines.size(), 6u);
  const std::vector<std::string> starts{
      "bench: allr 1000 (1000 B), ring: 1 of 3 iterations done, ",
      "bench: allr 1000 (1000 B), ring: 2 of 3 iterations done, ",
      "bench: allr 1000 (1000 B), ring: 3 iterations, a check run in ",
      "bench: allr 4K (4096 B), ring: 1 of 3 iterations done, ",
      "bench: allr 4K (4096 B), ring: 2 of 3 iterations done, ",
      "bench: allr 4K (4096 B), ring: 3 iterations, a check run in "};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].substr(0, starts[i].size()), starts[i]) << lines[i];
  }
  // auto is named as resolved, as the point's own line names it.
  o.algorithms = {collectives::Algorithm::kAuto};
  o.sizes = {1000};
  lines.clear();
  ASSERT_TRUE(run_bench(o, *topo, [&](const std::string& l) { lines.push_back(l); }).ok());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].substr(0, 55), "bench: allr 1000 (1000 B), mesh: 1 of 3 iterations done");
  // The default: a short point gives its one line.
  o.progress_every_s = BenchOptions{}.progress_every_s;
  lines.clear();
  ASSERT_TRUE(run_bench(o, *topo, [&](const std::string& l) { lines.push_back(l); }).ok());
  EXPECT_EQ(lines.size(), 1u);
  // A traced run is named on the point's line too.
  o.trace = true;
  lines.clear();
  ASSERT_TRUE(run_bench(o, *topo, [&](const std::string& l) { lines.push_back(l); }).ok());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("mesh: 3 iterations, a check run, a traced run in "), std::string::npos)
      << lines[0];
}

/// One ring all-reduce of 1 MiB, one iteration of many events, reporting at every chance:
/// every 1000 events (progress_every_s 0).
BenchOptions long_single_iteration() {
  BenchOptions o = ring_allreduce({1 << 20});
  o.progress_every_s = 0;
  o.progress_beat_events = 1000;
  return o;
}

TEST(BenchSweep, ALongSingleIterationReportsWhileItRuns) {
  // Between iterations nothing would be said, so the run says every so many events that
  // none is done yet.
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  const BenchOptions o = long_single_iteration();
  std::vector<std::string> lines;
  auto r = run_bench(o, *topo, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_GE(lines.size(), 2u);
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::string start = "bench: allr 1M (1048576 B), ring: 0 of 1 iterations done, ";
    EXPECT_EQ(lines[i].substr(0, start.size()), start) << lines[i];
  }
  EXPECT_EQ(lines.back().substr(0, 45), "bench: allr 1M (1048576 B), ring: 1 iteration");
}

TEST(BenchSweep, TheCheckAndTraceRunsReportWhileTheyRun) {
  // An in-place sum's data check runs once more on its own, and a trace runs once more: a
  // long one of either says so while it runs, as the timed run does.
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  BenchOptions o = long_single_iteration();
  o.timing_only = false;
  o.check = collectives::DataFill::kRandom;
  o.trace = true;
  std::vector<std::string> lines;
  auto r = run_bench(o, *topo, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->rows.at(0).wrong, 0u);
  EXPECT_FALSE(r->trace_json.empty());
  const std::string timed = "bench: allr 1M (1048576 B), ring: 0 of 1 iterations done, ";
  const std::string check =
      "bench: allr 1M (1048576 B), ring: data check's run, 0 of 1 iterations done, ";
  const std::string trace =
      "bench: allr 1M (1048576 B), ring: trace's run, 0 of 1 iterations done, ";
  std::size_t timed_lines = 0;
  std::size_t check_lines = 0;
  std::size_t trace_lines = 0;
  for (const std::string& l : lines) {
    // The runs follow each other: timed, then the check's, then the trace's.
    if (l.starts_with(timed)) {
      EXPECT_EQ(check_lines + trace_lines, 0u) << l;
      ++timed_lines;
    } else if (l.starts_with(check)) {
      EXPECT_EQ(trace_lines, 0u) << l;
      ++check_lines;
    } else if (l.starts_with(trace)) {
      ++trace_lines;
    }
  }
  EXPECT_GE(timed_lines, 1u);
  EXPECT_GE(check_lines, 1u);
  EXPECT_GE(trace_lines, 1u);
  EXPECT_EQ(timed_lines + check_lines + trace_lines + 1, lines.size());
  EXPECT_EQ(lines.back().substr(0, 45), "bench: allr 1M (1048576 B), ring: 1 iteration");
}

TEST(BenchSweep, BusBandwidthRisesWithSizeAndSaturates) {
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  const BenchOptions o = ring_allreduce({64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20});
  auto r = run_bench(o, *topo);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->rows.size(), 5u);
  for (std::size_t i = 1; i < r->rows.size(); ++i) {
    EXPECT_GT(r->rows[i].busbw, r->rows[i - 1].busbw) << "size " << r->rows[i].size;
  }
  // Small sizes are latency-bound: 64 KiB gets a small fraction of what 16 MiB gets ...
  EXPECT_LT(r->rows[0].busbw * 10, r->rows[4].busbw);
  // ... and the curve flattens: x4 in size is far from x4 in busbw at the top.
  EXPECT_LT(r->rows[4].busbw, r->rows[3].busbw * 2);
  // Bounded by what a core's 16 engines can stream (368 B/ns = 368 GB/s, hw-params 1b).
  EXPECT_LT(r->rows[4].busbw, 368.0);
}

TEST(BenchSweep, RowsRunAtOnceGiveTheSameReportsInRowOrder) {
  // --jobs (D48): the rows of a sweep run on several threads at once, and the table, JSON,
  // plot, trace, programs and the rows' progress lines are those of one row at a time. Data
  // and checks too: each row then copies and reduces on its own thread.
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  for (const bool timing_only : {true, false}) {
    BenchOptions o = ring_allreduce({1024, 4096, 16384, 65536, 262144});
    o.ranks = 4;
    o.algorithms = {collectives::Algorithm::kRing, collectives::Algorithm::kMesh};
    o.show_algorithm = true;
    o.iterations = 2;
    o.warmups = 1;
    o.timing_only = timing_only;
    if (!timing_only) o.check = collectives::DataFill::kRandom;
    o.trace = true;
    o.keep_programs = true;
    o.progress_every_s = 1e9;  // the rows' own lines only
    const auto bench = [&](unsigned jobs, std::vector<std::string>& lines) {
      o.jobs = jobs;
      return run_bench(o, *topo, [&](const std::string& l) {
        // Without the row's wall seconds, which differ run to run.
        const std::size_t in = l.find(" in ");
        const std::size_t wall = l.find(" s wall");
        lines.push_back(in == std::string::npos || wall == std::string::npos
                            ? l
                            : l.substr(0, in) + l.substr(wall));
      });
    };
    std::vector<std::string> one_lines;
    std::vector<std::string> four_lines;
    auto one = bench(1, one_lines);
    auto four = bench(4, four_lines);
    ASSERT_TRUE(one.ok()) << one.error().message;
    ASSERT_TRUE(four.ok()) << four.error().message;
    auto strip_cost = [](std::string t) { return t.substr(0, t.find("# run:")); };
    EXPECT_EQ(strip_cost(format_table(o, *one)), strip_cost(format_table(o, *four)));
    EXPECT_EQ(format_plot(o, *one), format_plot(o, *four));
    const auto json_rows = [&](const BenchResult& r) {
      nlohmann::json j = nlohmann::json::parse(format_json(o, r));
      for (auto& row : j["results"]) row.erase("wall_seconds");
      return j["results"].dump();
    };
    EXPECT_EQ(json_rows(*one), json_rows(*four));
    EXPECT_EQ(one->trace_json, four->trace_json);
    EXPECT_FALSE(one->trace_json.empty());
    ASSERT_EQ(one->programs.size(), four->programs.size());
    ASSERT_FALSE(one->programs.empty());
    for (std::size_t i = 0; i < one->programs.size(); ++i) {
      EXPECT_EQ(one->programs[i].words, four->programs[i].words) << "core " << i;
    }
    EXPECT_EQ(one_lines, four_lines);
    ASSERT_EQ(one_lines.size(), 10u);
    EXPECT_NE(one_lines[0].find("allr 1K (1024 B), ring"), std::string::npos) << one_lines[0];
    EXPECT_NE(one_lines[9].find("allr 256K (262144 B), mesh"), std::string::npos);
    EXPECT_EQ(one->cost.descriptors, four->cost.descriptors);
    EXPECT_EQ(one->cost.copied_bytes, four->cost.copied_bytes);
    // Time inside simulations: one at a time, the rows' own; at once, overlaps count once.
    double rows_sim = 0;
    for (const BenchRow& row : one->rows) rows_sim += row.sim_seconds;
    EXPECT_NEAR(one->cost.sim_seconds, rows_sim, 1e-6);
    EXPECT_LE(four->cost.sim_seconds, four->cost.wall_seconds);
    EXPECT_EQ(one->cost.jobs, 1u);
    EXPECT_LE(four->cost.jobs, 4u);  // the most that ran at once
  }
}

TEST(BenchSweep, RowsThatTogetherPassTheMemoryBudgetRunOneAtATime) {
  // A budget below any row's estimate: each row runs alone (none waits for ever), the same.
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  BenchOptions o = ring_allreduce({1024, 4096, 16384});
  o.timing_only = false;
  o.check = collectives::DataFill::kRandom;
  o.jobs = 1;
  auto one = run_bench(o, *topo);
  o.jobs = 3;
  o.memory_budget = 1;
  auto three = run_bench(o, *topo);
  ASSERT_TRUE(one.ok() && three.ok());
  auto strip_cost = [](std::string t) { return t.substr(0, t.find("# run:")); };
  EXPECT_EQ(strip_cost(format_table(o, *one)), strip_cost(format_table(o, *three)));
  EXPECT_EQ(three->cost.jobs, 1u);  // the closing line says what ran, not what was asked
}

TEST(BenchSweep, RowsWhoseSbufsAreBackedWholeRunAlone) {
  // 8 ranks of 8 MiB and 16 MiB: SBUFs backed whole (D33), rows that copy much per event and
  // run alone, with the helper core; rows of 1 KiB and 4 KiB run two at a time.
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  BenchOptions o = ring_allreduce({8 << 20, 16 << 20});
  o.ranks = 8;
  o.iterations = 1;
  o.warmups = 0;
  o.timing_only = false;
  o.check = collectives::DataFill::kRandom;
  o.jobs = 2;
  auto whole = run_bench(o, *topo);
  ASSERT_TRUE(whole.ok()) << whole.error().message;
  EXPECT_EQ(whole->cost.jobs, 1u);
  EXPECT_EQ(whole->rows.at(1).wrong, std::optional<std::uint64_t>(0));
  o.sizes = {1024, 4096};
  auto sparse = run_bench(o, *topo);
  ASSERT_TRUE(sparse.ok());
  EXPECT_EQ(sparse->cost.jobs, 2u);
  // Race-checked rows run alone: the checker's memory is in no row's estimate.
  o.check_races = true;
  auto checked = run_bench(o, *topo);
  ASSERT_TRUE(checked.ok()) << checked.error().message;
  EXPECT_EQ(checked->cost.jobs, 1u);
  EXPECT_EQ(checked->rows.at(1).wrong, std::optional<std::uint64_t>(0));
}

TEST(BenchSweep, TheReportsAreDeterministic) {
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  BenchOptions o = ring_allreduce({4096, 8192});
  o.ranks = 4;
  o.algorithms = {collectives::Algorithm::kRing, collectives::Algorithm::kMesh};
  o.show_algorithm = true;
  o.stats = {TimeStat{50}, TimeStat{}};
  auto a = run_bench(o, *topo);
  auto b = run_bench(o, *topo);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(format_plot(o, *a), format_plot(o, *b));
  auto strip_cost = [](std::string t) { return t.substr(0, t.find("# run:")); };
  EXPECT_EQ(strip_cost(format_table(o, *a)), strip_cost(format_table(o, *b)));
  const std::string table = format_table(o, *a);
  EXPECT_NE(table.find("time:p50(us)  time:avg(us)"), std::string::npos) << table;
  EXPECT_NE(table.find("Avg bus bandwidth (ring):"), std::string::npos);
  EXPECT_NE(table.find("Avg bus bandwidth (mesh):"), std::string::npos);
  const std::string svg = format_plot(o, *a);
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_GT(std::count(svg.begin(), svg.end(), '\n'), 10);
  EXPECT_NE(svg.find(">ring</text>"), std::string::npos);
  EXPECT_NE(svg.find(">mesh</text>"), std::string::npos);
  const std::string json = format_json(o, *a);
  EXPECT_NE(json.find("\"collective\": \"allr\""), std::string::npos);
  EXPECT_NE(json.find("\"algorithm\": \"mesh\""), std::string::npos);
  EXPECT_NE(json.find("\"wrong\": null"), std::string::npos);
}

/// A row per busbw given, per algorithm, at sizes 4 KiB, 8 KiB, ... (no run: the reports
/// only read the rows).
BenchResult rows_of(const std::vector<std::pair<collectives::Algorithm, std::vector<double>>>& by) {
  BenchResult r;
  for (const auto& [a, busbws] : by) {
    std::uint64_t size = 4096;
    for (double bw : busbws) {
      BenchRow row;
      row.requested = row.algorithm = a;
      row.size = size;
      row.count = size / 4;
      row.avg_us = 1;
      row.times_us = {1};
      row.busbw = bw;
      r.rows.push_back(row);
      size *= 2;
    }
  }
  return r;
}

TEST(BenchSweep, ThePlotsAxesNameTheirTicks) {
  using collectives::Algorithm;
  // Sizes 4 KiB to 1 MiB: the last tick is 1M, not 1024K.
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = 4096; s <= (1U << 20); s *= 2) sizes.push_back(s);
  std::string svg = format_plot(ring_allreduce(sizes),
                                rows_of({{Algorithm::kRing, {1, 1, 1, 1, 1, 1, 1, 1, 1}}}));
  EXPECT_NE(svg.find(">1M</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("1024K"), std::string::npos) << svg;
  // A busbw of 5 is ticked 0 to 5 by 1, not 0 to 6 by 2.
  svg = format_plot(ring_allreduce({4096}), rows_of({{Algorithm::kRing, {5}}}));
  EXPECT_NE(svg.find(">5</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find(">6</text>"), std::string::npos) << svg;
  // Two sizes: the second point sits at the plot's right edge, and no tick lies past it.
  svg = format_plot(ring_allreduce({4096, 8192}), rows_of({{Algorithm::kRing, {1, 2}}}));
  EXPECT_NE(svg.find("<circle cx=\"560.0\""), std::string::npos) << svg;
  EXPECT_EQ(svg.find(">16K</text>"), std::string::npos) << svg;
}

TEST(BenchSweep, OneWrongElementFailsTheRun) {
  // The exit status follows wrong_data_error: a single wrong element anywhere fails the run;
  // rows without a check (n/a) or with 0 wrong do not.
  BenchResult r = rows_of({{collectives::Algorithm::kRing, {1, 2, 3}}});
  EXPECT_FALSE(wrong_data_error(r).has_value());  // no check
  r.rows[0].wrong = 0;
  r.rows[1].wrong = 0;
  EXPECT_FALSE(wrong_data_error(r).has_value());
  r.rows[2].wrong = 1;
  ASSERT_TRUE(wrong_data_error(r).has_value());
  EXPECT_EQ(wrong_data_error(r)->message, "1 wrong element in 1 row");
  r.rows[0].wrong = 4;
  EXPECT_EQ(wrong_data_error(r)->message, "5 wrong elements in 2 rows");
}

TEST(BenchSweep, ATimeAboveZeroNeverShowsAsZero) {
  // Two decimals, as nccom-test's table has them; a time that would round to 0.00 (costs
  // zeroed with --param) gets two significant digits, down to a picosecond.
  EXPECT_EQ(time_us_text(171.5749), "171.57");
  EXPECT_EQ(time_us_text(0.005), "0.01");
  EXPECT_EQ(time_us_text(0), "0.00");
  EXPECT_EQ(time_us_text(0.0049), "0.0049");
  EXPECT_EQ(time_us_text(0.0035152), "0.0035");
  EXPECT_EQ(time_us_text(0.00052), "0.00052");
  EXPECT_EQ(time_us_text(0.0000123), "0.000012");
  EXPECT_EQ(time_us_text(0.000001), "0.000001");  // 1 ps, the model's tick
  // Rounding up to a power of ten keeps two digits; under half a picosecond (a mean) shows.
  EXPECT_EQ(time_us_text(0.000995), "0.0010");
  EXPECT_EQ(time_us_text(0.0049999), "0.0050");
  EXPECT_EQ(time_us_text(0.0009996), "0.0010");
  EXPECT_EQ(time_us_text(0.0000004), "4.0e-07");
  // The table and the column widths take the same text.
  BenchOptions o = ring_allreduce({4096, 8192});
  BenchResult r = rows_of({{collectives::Algorithm::kRing, {1, 2}}});
  r.rows[0].avg_us = 0.0035152;
  r.rows[0].times_us = {0.0035152};
  const std::string table = format_table(o, r);
  EXPECT_NE(table.find("  fp32      0.0035  "), std::string::npos) << table;
}

TEST(BenchSweep, AFigureWiderThanItsColumnWidensTheColumn) {
  // 12 345 678 901.25 us (a bandwidth flag near its minimum gives such times) is wider than
  // the 10 characters of `time(us)`: every row's columns still end where the heading's do.
  BenchOptions o = ring_allreduce({4096, 8192});
  BenchResult r = rows_of({{collectives::Algorithm::kRing, {1, 2}}});
  r.rows[1].avg_us = 12345678901.25;
  r.rows[1].times_us = {12345678901.25};
  // So do a busbw past 13 characters and a #wrong past 7.
  r.rows[0].busbw = 12345678901234.5;
  r.rows[0].wrong = 123456789;
  const std::string table = format_table(o, r);
  std::vector<std::string> lines;
  for (std::size_t at = 0, end; (end = table.find('\n', at)) != std::string::npos; at = end + 1) {
    const std::string line = table.substr(at, end - at);
    const bool row = line.find("fp32") != std::string::npos && !line.starts_with("#");
    if (row || line.find("#wrong") != std::string::npos) {
      lines.push_back(line);
    }
  }
  ASSERT_EQ(lines.size(), 3U) << table;
  EXPECT_NE(lines[2].find(" 12345678901.25 "), std::string::npos) << table;
  for (const std::string& line : lines) EXPECT_EQ(line.size(), lines[0].size()) << table;
  const std::size_t time_end = lines[0].find("time(us)") + 8;
  EXPECT_TRUE(lines[1].substr(0, time_end).ends_with(" 1.00")) << table;
  EXPECT_TRUE(lines[2].substr(0, time_end).ends_with(" 12345678901.25")) << table;
  const std::size_t busbw_end = lines[0].find("busbw(GB/s)") + 11;
  EXPECT_TRUE(lines[1].substr(0, busbw_end).ends_with(" 12345678901234.50")) << table;
  EXPECT_TRUE(lines[2].substr(0, busbw_end).ends_with(" 2.00")) << table;
  EXPECT_TRUE(lines[1].ends_with(" 123456789")) << table;
  EXPECT_TRUE(lines[2].ends_with(" n/a")) << table;
  // Every row ends where the heading does: the #wrong column is as wide as its widest figure.
  EXPECT_EQ(lines[1].size(), lines[0].size()) << table;
  EXPECT_EQ(lines[2].size(), lines[0].size()) << table;
}

TEST(BenchSweep, CoincidingLinesBothShowInThePlot) {
  // Two algorithms with the same busbw at every size: the second line is dashed over the first,
  // and its points are smaller, so both lines and both point sets stay visible.
  BenchOptions o = ring_allreduce({4096, 8192});
  o.algorithms = {collectives::Algorithm::kRing, collectives::Algorithm::kMesh};
  const std::string svg = format_plot(o, rows_of({{collectives::Algorithm::kRing, {1, 2}},
                                                  {collectives::Algorithm::kMesh, {1, 2}}}));
  std::vector<std::string> lines;
  for (std::size_t at = svg.find("<polyline "); at != std::string::npos;
       at = svg.find("<polyline ", at + 1)) {
    lines.push_back(svg.substr(at, svg.find('>', at) - at));
  }
  ASSERT_EQ(lines.size(), 2u) << svg;
  EXPECT_EQ(lines[0].find("stroke-dasharray"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("stroke-dasharray=\"9 6\""), std::string::npos) << lines[1];
  EXPECT_EQ(lines[0].substr(0, lines[0].find(" fill")), lines[1].substr(0, lines[1].find(" fill")))
      << "the rows coincide, so must the points";
  const auto radii = [&](std::string_view color) {
    std::set<std::string> out;
    const std::string tail = std::string("fill=\"") + std::string(color) + "\"><title>";
    for (std::size_t at = svg.find("<circle "); at != std::string::npos;
         at = svg.find("<circle ", at + 1)) {
      const std::string c = svg.substr(at, svg.find('\n', at) - at);
      if (c.find(tail) == std::string::npos) continue;
      const std::size_t r = c.find(" r=\"") + 4;
      out.insert(c.substr(r, c.find('"', r) - r));
    }
    return out;
  };
  const std::set<std::string> first = radii("#1f77b4");
  const std::set<std::string> second = radii("#d62728");
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_GT(std::stod(*first.begin()), std::stod(*second.begin()));
  // Points are drawn after every line (SVG paints in document order): a 2 px line drawn later
  // would cover the 1.2-4.5 px points, its own or an earlier algorithm's.
  EXPECT_GT(svg.find("<circle "), svg.rfind("<polyline ")) << svg;
  // The second algorithm's (smaller) points come after the first's, so they show on top.
  EXPECT_GT(svg.find("fill=\"#d62728\"><title>"), svg.rfind("fill=\"#1f77b4\"><title>")) << svg;
  // The legend draws each line's dash pattern too.
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(),
                          [](const std::string& l) { return l.find("dasharray") != l.npos; }),
            1);
  EXPECT_NE(svg.find("h24\" stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"9 6\"/>"),
            std::string::npos)
      << svg;
}

TEST(BenchSweep, ThePlotKeepsItsTextApartAndInside) {
  // 4 B to 4 MiB: 21 powers of 2 on the axis; a tick at each, labels 40 px apart or more.
  BenchOptions o = ring_allreduce({4});
  BenchResult r;
  for (std::uint64_t size = 4; size <= (4U << 20); size *= 2) {
    BenchRow row;
    row.requested = row.algorithm = collectives::Algorithm::kRing;
    row.size = size;
    row.busbw = 1;
    r.rows.push_back(row);
  }
  std::string svg = format_plot(o, r);
  std::size_t ticks = 0;
  for (std::size_t at = svg.find(" v5\""); at != std::string::npos;
       at = svg.find(" v5\"", at + 1)) {
    ++ticks;
  }
  EXPECT_EQ(ticks, 21U);
  std::vector<double> label_x;
  for (std::size_t at = svg.find("<text x=\""); at != std::string::npos;
       at = svg.find("<text x=\"", at + 1)) {
    const std::string t = svg.substr(at, svg.find('\n', at) - at);
    if (t.find("y=\"398.0\"") == std::string::npos) continue;  // the size labels' row
    label_x.push_back(std::stod(t.substr(9)));
  }
  ASSERT_GE(label_x.size(), 5U) << svg;
  EXPECT_LT(label_x.size(), 21U);
  for (std::size_t i = 1; i < label_x.size(); ++i) EXPECT_GE(label_x[i] - label_x[i - 1], 40.0);
  EXPECT_NE(svg.find(">4M</text>"), std::string::npos);  // 2^22: a multiple of every step here

  // A long topology name is cut with an ellipsis, whole UTF-8 characters only, so that the
  // title keeps to 84 characters; a short one is whole.
  const auto title = [&] {
    const std::size_t from = svg.find("font-size=\"14\">") + 15;
    return svg.substr(from, svg.find("</text>", from) - from);
  };
  const auto chars = [](const std::string& t) {
    return std::count_if(t.begin(), t.end(), [](char c) { return (c & 0xC0) != 0x80; });
  };
  o.topology_name = std::string(100, 'n');
  svg = format_plot(o, r);
  EXPECT_EQ(chars(title()), 84) << title();
  EXPECT_TRUE(title().ends_with("n\u2026, fp32 sum")) << title();
  o.topology_name.clear();
  for (int i = 0; i < 50; ++i) o.topology_name += "\u00e9";
  svg = format_plot(o, r);
  EXPECT_EQ(chars(title()), 84) << title();
  EXPECT_TRUE(title().ends_with("\u00e9\u2026, fp32 sum")) << title();
  // With blanks (a parameter's note), after the last blank that fits: a value is whole or
  // absent ("cost=100000…" read as another value).
  o.topology_name = "trn2 with q7_desc_gen_cost=1000000000000000000000000000000000000000000";
  svg = format_plot(o, r);
  EXPECT_EQ(title(), "sbrdma bench allr: 8 ranks x 1 group on trn2 with \u2026, fp32 sum");
  // A value the cut ends right after stays: the next character is a separator.
  o.topology_name = "trn2 with q7_desc_gen_cost=100000, c2c_latency=400, d2d_latency=123456, x=9";
  svg = format_plot(o, r);
  EXPECT_EQ(title(),
            "sbrdma bench allr: 8 ranks x 1 group on trn2 with q7_desc_gen_cost=100000\u2026, "
            "fp32 sum");
  o.topology_name = "trn2";
  svg = format_plot(o, r);
  EXPECT_EQ(title(), "sbrdma bench allr: 8 ranks x 1 group on trn2, fp32 sum");
  o.op = collectives::Op::kAllGather;  // reduces nothing: no reduction named
  svg = format_plot(o, r);
  EXPECT_EQ(title(), "sbrdma bench allg: 8 ranks x 1 group on trn2, fp32");
}

TEST(BenchSweep, ThePlotsPointsNameTheAlgorithmThatRan) {
  // auto's line joins sizes that ran different algorithms: each point's tooltip says which.
  BenchOptions o = ring_allreduce({4096, 8192});
  o.algorithms = {collectives::Algorithm::kAuto};
  BenchResult r = rows_of({{collectives::Algorithm::kAuto, {1, 2.5}}});
  r.rows[0].algorithm = collectives::Algorithm::kMesh;
  r.rows[1].algorithm = collectives::Algorithm::kRdh;
  const std::string svg = format_plot(o, r);
  EXPECT_NE(svg.find("<title>4096 B: mesh, busbw 1.00 GB/s</title></circle>"), std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<title>8192 B: rdh, busbw 2.50 GB/s</title></circle>"), std::string::npos)
      << svg;
}

TEST(BenchSweep, ThePlotEscapesItsText) {
  // A JSON topology is named after its file, which may hold any of XML's five specials.
  BenchOptions o = ring_allreduce({4096, 8192});
  o.topology_name = "R&D <x> \"q\" 'a'";
  const std::string svg = format_plot(o, rows_of({{collectives::Algorithm::kRing, {1, 2}}}));
  EXPECT_NE(svg.find(">sbrdma bench allr: 8 ranks x 1 group on R&amp;D &lt;x&gt; &quot;q&quot; "
                     "&apos;a&apos;, fp32 sum</text>\n"),
            std::string::npos)
      << svg;
  // The title counts ranks and groups as the table's header does ("1 rank", not "1 ranks").
  o.ranks = 1;
  BenchResult one = rows_of({{collectives::Algorithm::kRing, {1, 2}}});
  one.groups = 3;
  EXPECT_NE(format_plot(o, one).find(">sbrdma bench allr: 1 rank x 3 groups on R&amp;D"),
            std::string::npos);
  EXPECT_NE(format_table(o, one).find("# sbrdma bench allr: 1 rank x 3 groups on R&D"),
            std::string::npos);
  // Every & starts an entity, and no text holds a raw < or >: the plot is well-formed.
  for (std::size_t at = svg.find('&'); at != std::string::npos; at = svg.find('&', at + 1)) {
    const std::string_view rest = std::string_view(svg).substr(at);
    EXPECT_TRUE(rest.starts_with("&amp;") || rest.starts_with("&lt;") || rest.starts_with("&gt;") ||
                rest.starts_with("&quot;") || rest.starts_with("&apos;"))
        << rest.substr(0, 20);
  }
  EXPECT_EQ(svg.find("<x>"), std::string::npos);
  EXPECT_EQ(svg.find("\"q\""), std::string::npos);
  EXPECT_EQ(svg.find("'a'"), std::string::npos);
}

TEST(BenchSweep, TheJsonAveragesPerAlgorithmAsTheTableDoes) {
  BenchOptions o = ring_allreduce({4096, 8192});
  o.algorithms = {collectives::Algorithm::kRing, collectives::Algorithm::kRdh};
  const BenchResult r =
      rows_of({{collectives::Algorithm::kRing, {1, 2}}, {collectives::Algorithm::kRdh, {3, 5}}});
  const std::string table = format_table(o, r);
  EXPECT_NE(table.find("Avg bus bandwidth (ring):      1.5000GB/s\n"), std::string::npos) << table;
  EXPECT_NE(table.find("Avg bus bandwidth (rdh):      4.0000GB/s\n"), std::string::npos) << table;
  const auto j = nlohmann::ordered_json::parse(format_json(o, r));
  // No average across algorithms (2.75 here): the table prints none.
  EXPECT_TRUE(j.at("avg_busbw").is_null()) << j.at("avg_busbw");
  ASSERT_TRUE(j.contains("avg_busbw_by_algorithm")) << j.dump(2);
  EXPECT_EQ(j.at("avg_busbw_by_algorithm").dump(), R"({"ring":1.5,"rdh":4.0})");

  // One algorithm: one "avg_busbw", as before, and no object.
  o.algorithms = {collectives::Algorithm::kRing};
  const BenchResult one = rows_of({{collectives::Algorithm::kRing, {1, 2}}});
  EXPECT_NE(format_table(o, one).find("Avg bus bandwidth:      1.5000GB/s\n"), std::string::npos);
  const std::string json = format_json(o, one);
  EXPECT_NE(json.find("\n  \"avg_busbw\": 1.5,\n  \"run\": {"), std::string::npos) << json;
  EXPECT_EQ(json.find("avg_busbw_by_algorithm"), std::string::npos);
}

TEST(BenchSweep, AJsonReportNamesATopologyPathThatIsNotUtf8) {
  // A path's directory may hold any bytes; the JSON must still be written, and valid.
  BenchOptions o = ring_allreduce({4096});
  o.topology_file =
      "bad\xff"
      "dir/t\xc3\xbc.json";
  const std::string json = format_json(o, rows_of({{collectives::Algorithm::kRing, {1}}}));
  const auto j = nlohmann::ordered_json::parse(json);
  // The stray byte reads U+FFFD; the well-formed u-umlaut stays as it is.
  EXPECT_EQ(j.at("topology_file"),
            "bad\xef\xbf\xbd"
            "dir/t\xc3\xbc.json")
      << json;
}

TEST(BenchSweep, TheBreakdownFollowsTheTableAsCommentLinesAndGoesInTheJson) {
  BenchOptions o = ring_allreduce({4096, 8192});
  BenchResult r = rows_of({{collectives::Algorithm::kRing, {1, 2}}});
  r.rows[0].breakdown = TimeBreakdown{.desc_gen = 0.5,
                                      .compute = 0.125,
                                      .waiting = 0.375,
                                      .engines = 0.0625,
                                      .link = 0.25,
                                      .link_name = "c2c.x.chip0-chip1 chip0.die0->chip1.die0"};
  r.rows[1].breakdown = TimeBreakdown{};  // no link carried a byte
  // Not asked for: neither in the table nor in the JSON.
  EXPECT_EQ(format_table(o, r).find("where the time goes"), std::string::npos);
  EXPECT_EQ(format_json(o, r).find("breakdown"), std::string::npos);
  o.breakdown = true;
  const std::string table = format_table(o, r);
  const std::size_t avg = table.find("Avg bus bandwidth:");
  const std::size_t block = table.find("# where the time goes (--breakdown, D45)");
  const std::size_t cost = table.find("# run:");
  ASSERT_NE(block, std::string::npos) << table;
  EXPECT_LT(avg, block);  // nccom-test's lines first: a parser of its output reads the same
  EXPECT_LT(block, cost);
  EXPECT_NE(table.find("\n#    size(B)     algorithm     gen  compute    wait     dma    link  "
                       "busiest link\n#       4096          ring   50.0%    12.5%   37.5%    6.2%  "
                       " 25.0%  c2c.x.chip0-chip1 chip0.die0->chip1.die0\n#       8192          "
                       "ring    0.0%     0.0%    0.0%    0.0%    0.0%  (no link carried data)\n"),
            std::string::npos)
      << table;
  const auto j = nlohmann::ordered_json::parse(format_json(o, r));
  EXPECT_EQ(
      j.at("results").at(0).at("breakdown").dump(),
      R"({"desc_gen":0.5,"compute":0.125,"waiting":0.375,"engines":0.0625,)"
      R"("busiest_link":0.25,"busiest_link_name":"c2c.x.chip0-chip1 chip0.die0->chip1.die0"})");
  EXPECT_TRUE(j.at("results").at(1).at("breakdown").at("busiest_link_name").is_null());
  r.rows[1].breakdown.reset();  // a row that took no time (groups of one rank) has none
  EXPECT_TRUE(nlohmann::ordered_json::parse(format_json(o, r))
                  .at("results")
                  .at(1)
                  .at("breakdown")
                  .is_null());
  EXPECT_NE(format_table(o, r).find(
                "\n#       8192          ring  (no time to break down: nothing ran)\n# run:"),
            std::string::npos)
      << format_table(o, r);
}

TEST(BenchSweep, TheJsonGivesTheMedianAndThe99thPercentileOfTheIterations) {
  // 100 iterations timed 1..100 us: nearest rank, p50 is the 50th, p99 the 99th.
  const BenchOptions o = ring_allreduce({4096});
  BenchResult r = rows_of({{collectives::Algorithm::kRing, {1}}});
  r.rows[0].times_us.clear();
  for (int t = 1; t <= 100; ++t) r.rows[0].times_us.push_back(t);
  r.rows[0].avg_us = 50.5;
  const auto j = nlohmann::ordered_json::parse(format_json(o, r));
  const auto& row = j.at("results").at(0);
  EXPECT_EQ(row.at("time_avg_us"), 50.5);
  EXPECT_EQ(row.at("time_p50_us"), 50.0);
  EXPECT_EQ(row.at("time_p99_us"), 99.0);
}

TEST(BenchSweep, TheRunLineAndTheJsonGiveTheSystemTime) {
  BenchCost c;
  c.wall_seconds = 0.58;
  c.sim_seconds = 0.54;
  c.system_seconds = 0.85;
  c.descriptors = 128296;
  c.copied_bytes = 1'644'000'000;
  c.memcpy = MemcpyRate{11e9, 0};
  EXPECT_EQ(format_cost(c),
            "# run: 0.58 s wall (0.54 s simulating, 0.85 s system CPU), 128296 descriptors (0.22 "
            "M/s per wall-second, 0.24 M/s while simulating), 1.644 GB copied: 2.83 GB/s per "
            "wall-second = 26% of memcpy (28% while simulating; memcpy 11.00 GB/s in this run)");
  // A memcpy through smaller buffers than asked (no memory for them) says so: a span that
  // fits the cache copies faster.
  c.memcpy = MemcpyRate{11e9, 2ULL << 20};
  EXPECT_EQ(format_cost(c),
            "# run: 0.58 s wall (0.54 s simulating, 0.85 s system CPU), 128296 descriptors (0.22 "
            "M/s per wall-second, 0.24 M/s while simulating), 1.644 GB copied: 2.83 GB/s per "
            "wall-second = 26% of memcpy (28% while simulating; memcpy 11.00 GB/s in this run, "
            "through 2M buffers: no memory was left for larger ones)");
  // Without a memcpy (no memory was left for its buffers) the line says so, and the JSON
  // has null.
  c.memcpy = std::nullopt;
  EXPECT_EQ(format_cost(c),
            "# run: 0.58 s wall (0.54 s simulating, 0.85 s system CPU), 128296 descriptors (0.22 "
            "M/s per wall-second, 0.24 M/s while simulating), 1.644 GB copied: 2.83 GB/s per "
            "wall-second (3.04 GB/s while simulating; no memcpy to compare: no memory was left "
            "for its buffers)");
  {
    BenchResult r = rows_of({{collectives::Algorithm::kRing, {1}}});
    r.cost = c;
    const auto j = nlohmann::ordered_json::parse(format_json(ring_allreduce({4096}), r));
    EXPECT_TRUE(j.at("run").at("memcpy_bytes_per_second").is_null()) << j.at("run");
    EXPECT_TRUE(j.at("run").at("memcpy_reduced_span_bytes").is_null()) << j.at("run");
    r.cost.memcpy = MemcpyRate{11e9, 2ULL << 20};
    const auto reduced = nlohmann::ordered_json::parse(format_json(ring_allreduce({4096}), r));
    EXPECT_EQ(reduced.at("run").at("memcpy_reduced_span_bytes"), 2ULL << 20) << reduced.at("run");
  }
  c.memcpy = MemcpyRate{11e9, 0};
  c.copied_bytes = 0;
  c.timing_only = true;
  EXPECT_EQ(format_cost(c),
            "# run: 0.58 s wall (0.54 s simulating, 0.85 s system CPU), 128296 descriptors (0.22 "
            "M/s per wall-second, 0.24 M/s while simulating), no bytes copied (timing only)");
  BenchResult r = rows_of({{collectives::Algorithm::kRing, {1}}});
  r.cost = c;
  const auto j = nlohmann::ordered_json::parse(format_json(ring_allreduce({4096}), r));
  EXPECT_EQ(j.at("run").at("system_seconds"), 0.85) << j.at("run");
  EXPECT_EQ(j.at("run").at("memcpy_bytes_per_second"), 11e9) << j.at("run");
  EXPECT_TRUE(j.at("run").at("memcpy_reduced_span_bytes").is_null()) << j.at("run");
  EXPECT_EQ(j.at("run").at("jobs"), 1) << j.at("run");
  // Rows run at once (--jobs, D48): the line names how many, and so does the JSON.
  r.cost.jobs = c.jobs = 2;
  EXPECT_EQ(format_cost(c),
            "# run: 0.58 s wall, 2 rows at a time (0.54 s simulating, 0.85 s system CPU), 128296 "
            "descriptors (0.22 M/s per wall-second, 0.24 M/s while simulating), no bytes copied "
            "(timing only)");
  const auto two = nlohmann::ordered_json::parse(format_json(ring_allreduce({4096}), r));
  EXPECT_EQ(two.at("run").at("jobs"), 2) << two.at("run");
}

TEST(BenchSweep, TheJsonNamesAReductionOnlyForACollectiveThatReduces) {
  BenchOptions o = ring_allreduce({4096});
  o.reduce = collectives::ReduceOp::kMax;
  const BenchResult r = rows_of({{collectives::Algorithm::kRing, {1}}});
  for (collectives::Op op : collectives::all_ops()) {
    o.op = op;
    const auto j = nlohmann::ordered_json::parse(format_json(o, r));
    const bool header_has_it = format_table(o, r).find(", fp32 max,") != std::string::npos;
    if (collectives::is_reduction(op)) {
      EXPECT_EQ(j.at("reduce"), "max") << collectives::op_name(op);
      EXPECT_TRUE(header_has_it) << collectives::op_name(op);
    } else {
      EXPECT_TRUE(j.at("reduce").is_null()) << collectives::op_name(op) << ": " << j.at("reduce");
      EXPECT_FALSE(header_has_it) << collectives::op_name(op);
    }
  }
}

TEST(BenchSweep, ASweepThatCannotRunWholeFailsBeforeRunningAnySize) {
  // The last size (or one algorithm of two) does not apply: the error comes before any size
  // has run (no progress line), and says what lower() would say of that size.
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  const collectives::Geometry geom = geometry_of(*topo);
  auto comm = collectives::default_communicator(geom, 8);
  ASSERT_TRUE(comm.ok());
  BenchOptions o = ring_allreduce({1 << 20, 4 << 20, 32 << 20});
  o.timing_only = false;
  std::vector<std::string> lines;
  const Progress progress = [&](const std::string& l) { lines.push_back(l); };
  auto r = run_bench(o, *topo, progress);
  ASSERT_FALSE(r.ok());
  collectives::LowerRequest req;
  req.bytes = 32 << 20;
  req.algorithm = collectives::Algorithm::kRing;
  auto low = collectives::lower(geom, *comm, req);
  ASSERT_FALSE(low.ok());
  // The sizes before it run: the error says up to which -e.
  EXPECT_EQ(r.error().message, "33554432 B (ring): " + low.error().message +
                                   "; the sweep runs whole up to -e 4M (4194304 B)");
  EXPECT_NE(r.error().message.find("at most 23486464 B"), std::string::npos) << r.error().message;
  EXPECT_TRUE(lines.empty()) << lines.front();
  // With two algorithms the sweep runs whole up to the last size both run: ring runs up to
  // 16M, RDH (more scratch) up to 8M. The error still names the first row that fails.
  o.sizes = {1 << 20, 8 << 20, 16 << 20, 32 << 20};
  o.algorithms = {collectives::Algorithm::kRing, collectives::Algorithm::kRdh};
  r = run_bench(o, *topo, progress);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.substr(0, 19), "33554432 B (ring): ") << r.error().message;
  // The row that set the limit is named too.
  EXPECT_NE(r.error().message.find("; 16777216 B (rdh) cannot run either: the sweep runs whole up "
                                   "to -e 8M (8388608 B)"),
            std::string::npos)
      << r.error().message;
  // Where not even the first size runs, there is no shorter sweep to offer.
  o.sizes = {32 << 20, 64 << 20};
  r = run_bench(o, *topo, progress);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.find("runs whole"), std::string::npos) << r.error().message;
  EXPECT_TRUE(lines.empty()) << lines.front();
  // The -e offered is the sweep's own size, not its row's (6 B is one fp32 element, a row of
  // 4 B): -e 4 would fall below -b 6.
  o.sizes = {6, 32 << 20};
  o.algorithms = {collectives::Algorithm::kRing};
  r = run_bench(o, *topo, progress);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().message.ends_with("; the sweep runs whole up to -e 6 (6 B)"))
      << r.error().message;

  o = ring_allreduce({1 << 20});
  o.ranks = 6;
  o.algorithms = {collectives::Algorithm::kRing, collectives::Algorithm::kRdh};
  r = run_bench(o, *topo, progress);
  ASSERT_FALSE(r.ok());
  // It applies to no size: told without one.
  EXPECT_EQ(r.error().message,
            "--algorithm rdh needs a power-of-2 number of ranks per group, got 6");
  EXPECT_TRUE(lines.empty());

  o = ring_allreduce({1 << 20, 4 << 20});  // both fit: both run
  r = run_bench(o, *topo, progress);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(lines.size(), 2u);
}

TEST(ReplicaGroups, ARankPast32BitsIsRefusedNotCut) {
  auto c = parse_replica_groups("[[0, 4294967297]]", "g.json");  // not rank 1
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().format(), "g.json: error: /0/1: rank 4294967297 is too large");
  EXPECT_EQ(parse_replica_groups("[[0, 4294967295]]", "g.json")->groups[0][1], 4294967295U);
}

// JSON's -0 is the integer 0 (it was refused as "got 0"); -0.0 and 1.0 are not integers.
TEST(ReplicaGroups, MinusZeroIsRankZero) {
  auto g = parse_replica_groups("[[1, -0]]", "g.json");
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->groups[0][1], 0U);
  EXPECT_EQ(parse_replica_groups("[[1, -0.0]]", "g.json").error().format(),
            "g.json: error: /0/1: expected a rank (a core id, 0 or more), got -0.0, written with a "
            "fraction or an exponent");
  EXPECT_EQ(parse_replica_groups("[[1, 1.0]]", "g.json").error().format(),
            "g.json: error: /0/1: expected a rank (a core id, 0 or more), got 1.0, written with a "
            "fraction or an exponent");
}

TEST(ReplicaGroups, AGroupThatIsNoListIsRefusedAtItsPath) {
  EXPECT_EQ(parse_replica_groups("[[0, 1], 5]", "g.json").error().format(),
            "g.json: error: /1: expected a list of ranks");
  EXPECT_EQ(parse_replica_groups(R"([[0, 1], {"a": 1}])", "g.json").error().format(),
            "g.json: error: /1: expected a list of ranks");
}

TEST(ReplicaGroups, TheObjectFormHasNoOtherField) {
  EXPECT_EQ(
      parse_replica_groups(R"({"replica_groups": [[0, 1]], "x": 1})", "g.json").error().format(),
      "g.json: error: /x: unknown field");
  EXPECT_EQ(
      parse_replica_groups(R"({"replica_groups": [[0, 1]], "a/b": 1})", "g.json").error().format(),
      "g.json: error: /a~1b: unknown field");
  EXPECT_EQ(parse_replica_groups(R"({"replica_groups": [[0, 1]]})", "g.json")->groups.size(), 1U);
  EXPECT_EQ(
      parse_replica_groups(R"({"replica_groups": [[0, 1]], "replica_groups": [[0, 1]]})", "g.json")
          .error()
          .format(),
      R"(g.json: error: /replica_groups: duplicate key "replica_groups")");
}

/// The error of a replica-group file checked on trn2 (8 cores), or "ok".
std::string groups_error(const std::string& text) {
  auto topo = load_topology("trn2");
  SBRDMA_CHECK(topo.ok());
  auto c = parse_replica_groups(text, "g.json", geometry_of(*topo));
  return c.ok() ? "ok" : c.error().format();
}

TEST(ReplicaGroups, CheckErrorsNameTheGroupOrRankByItsPath) {
  EXPECT_EQ(groups_error("[[0, 1], [2, 3]]"), "ok");
  EXPECT_EQ(groups_error("[[0, 1], [1, 2]]"),
            "g.json: error: /1/0: replica groups 0 and 1 overlap at rank 1");
  EXPECT_EQ(groups_error("[[0, 1, 0]]"),
            "g.json: error: /0/2: replica group 0: rank 0 appears twice");
  EXPECT_EQ(groups_error("[[0, 1], [2, 8]]"),
            "g.json: error: /1/1: replica group 1: rank 8 is not a core of the topology "
            "(cores 0..7)");
  EXPECT_EQ(groups_error("[[0, 1], [2]]"),
            "g.json: error: /1: replica group 1 has 1 rank, group 0 has 2 (all groups must be "
            "the same size)");
  EXPECT_EQ(groups_error("[[0], []]"), "g.json: error: /1: replica group 1 is empty");
  // The object form's groups sit under /replica_groups.
  EXPECT_EQ(groups_error(R"({"replica_groups": [[0, 1, 2], [2, 3, 4]]})"),
            "g.json: error: /replica_groups/1/0: replica groups 0 and 1 overlap at rank 2");
  EXPECT_EQ(groups_error(R"({"replica_groups": [[0, 1], [2]]})"),
            "g.json: error: /replica_groups/1: replica group 1 has 1 rank, group 0 has 2 (all "
            "groups must be the same size)");
  // Syntax-level errors come first, as without a topology.
  EXPECT_EQ(groups_error("[[0, 1], [1, -2]]"),
            "g.json: error: /1/1: expected a rank (a core id, 0 or more), got -2");
}

}  // namespace
}  // namespace sbrdma::platform
