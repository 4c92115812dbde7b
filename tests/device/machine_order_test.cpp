// Program order under a tie seed: the kernel may run same-tick events in any order, yet one
// core's posted writes land in issue order ([CHOICE D26a]), an engine's same-tick landings
// apply in the order it took the pairs ([CHOICE D26d]) and a write fence resumes only after
// the writes took effect.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "base/bits.h"
#include "base/coro.h"
#include "device/ordered_arrivals.h"
#include "machine_rig.h"

namespace sbrdma::device {
namespace {

using base::Tick;
using soc::Direction;
using testing::Channel;
using testing::pattern;
using testing::Rig;

constexpr std::uint64_t kSeeds = 50;

TEST(OrderedArrivals, SameTickItemsComeOutInAddOrderEarlierTicksFirst) {
  OrderedArrivals<int> a;
  EXPECT_TRUE(a.empty());
  a.add(Tick{10}, 1);
  a.add(Tick{10}, 2);
  a.add(Tick{5}, 3);  // due earlier, added later: goes first
  a.add(Tick{10}, 4);
  a.add(Tick{7}, 5);
  ASSERT_EQ(a.size(), 5U);
  std::vector<int> got;
  std::vector<std::uint64_t> at;
  while (!a.empty()) {
    at.push_back(a.earliest().ps);
    got.push_back(a.take());
  }
  EXPECT_EQ(got, (std::vector<int>{3, 5, 1, 2, 4}));
  EXPECT_EQ(at, (std::vector<std::uint64_t>{5, 7, 10, 10, 10}));
}

TEST(OrderedArrivals, KeepsOrderAcrossItsCompaction) {
  OrderedArrivals<int> a;
  int next_in = 0;
  int next_out = 0;
  for (int round = 0; round < 20; ++round) {  // never fully drained, so the prefix is dropped
    for (int i = 0; i < 50; ++i) a.add(Tick{static_cast<std::uint64_t>(round)}, next_in++);
    for (int i = 0; i < 40; ++i) ASSERT_EQ(a.take(), next_out++);
  }
  while (!a.empty()) ASSERT_EQ(a.take(), next_out++);
  EXPECT_EQ(next_out, next_in);
}

TEST(MachineOrder, TwoSameTickWritesToOneSemaphoreLandInIssueOrderForEverySeed) {
  for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Rig rig("trn2", {}, seed);
    const auto set3 = rig.map().sem_window_addr(rig.tpb(0), soc::SemWindow::kSet, 3).value();
    rig.bus(0).write32(set3, 5);  // both issued at t = 0, both land at mmio_write_latency
    rig.bus(0).write32(set3, 7);
    const sim::RunResult r = rig.run();
    EXPECT_EQ(r.end_time, rig.m->params().mmio_write_latency);
    EXPECT_EQ(rig.m->semaphore(0, 3), 7U) << "seed " << seed;
  }
}

// The reproduction of the reordering bug at device level: two broadcast triggers, each a
// BROADCAST_CFG_GROUP write then a doorbell, issued at one tick. Swapping a group write and a
// doorbell posts the second trigger's descriptors to the first trigger's engines.
TEST(MachineOrder, BroadcastGroupAndDoorbellWritesKeepTheirOrderForEverySeed) {
  for (std::uint64_t seed = 0; seed <= kSeeds; ++seed) {
    Rig rig("trn2", {}, seed);
    std::vector<Channel> chs;
    for (unsigned e = 0; e < 4; ++e) chs.push_back(rig.open(0, e, 0, 8));
    const unsigned t = rig.tpb(0);
    ASSERT_TRUE(set_broadcast_group(rig.bus(0), rig.map(), t, 0xF).ok());
    ASSERT_TRUE(ring_broadcast_doorbell(rig.bus(0), rig.map(), t, Direction::kS2M, 0, 2).ok());
    ASSERT_TRUE(set_broadcast_group(rig.bus(0), rig.map(), t, 0x1).ok());
    ASSERT_TRUE(ring_broadcast_doorbell(rig.bus(0), rig.map(), t, Direction::kS2M, 0, 1).ok());
    rig.run();
    EXPECT_TRUE(rig.m->errors().empty()) << "seed " << seed << "\n" << rig.m->error_report();
    for (const Channel& ch : chs) {
      EXPECT_EQ(rig.queue(ch, Direction::kS2M).tail.offset, ch.engine == 0 ? 3U : 2U)
          << "seed " << seed << " engine " << ch.engine;
    }
  }
}

// A semaphore pair lands at max(own arrival, the queue's earlier data) + semaphore latency
// (D26d). With that latency 0 and the data coming from further away than the semaphore's
// operand, both land at the same tick; the semaphore's operand is the data's destination, so
// it reads the data only if the data was applied first.
TEST(MachineOrder, SemaphoreLandingAtTheDatasTickAppliesAfterTheDataForEverySeed) {
  auto spec = builtin_topology_spec("trn2").value();
  spec.params.push_back({"semaphore_write_latency", 0});
  constexpr std::uint32_t kLen = 1024;
  const auto data = pattern(kLen, 13, 1);
  const std::uint32_t first_word = base::load_le<std::uint32_t>(data.data());
  ASSERT_NE(first_word, 0U);
  for (std::uint64_t seed = 0; seed <= kSeeds; ++seed) {
    Rig rig(build_topology(spec).value(), {}, seed);
    rig.seed(5, 1, 0, data);
    Channel ch = rig.open(0, 0, 0, 8);
    const base::SocAddr far = rig.routed(0, rig.sbuf(5, 1, 0), 5);  // a remote read across dies
    rig.copy(ch, far, rig.sbuf(0, 2, 0), kLen);
    const auto set9 = rig.map().sem_window_addr(rig.tpb(0), soc::SemWindow::kSet, 9).value();
    ch.m2s.push(rig.bus(0), soc::make_copy_descriptor(rig.sbuf(0, 2, 0), 4, 0).value());
    ch.s2m.push(rig.bus(0), soc::make_copy_descriptor(set9, 4, 0).value());
    rig.start(ch, 2);
    // The data's landing tick (D26c, uncontended); the semaphore lands at the same tick.
    const TimingParams& p = rig.m->params();
    Tick lands = p.mmio_write_latency + p.dma_fixed_cost + p.dma_desc_cost +
                 transfer_time(base::Bytes{kLen}, p.dma_engine_rate);
    for (const Hop& h : rig.m->topology().route(5, 0)) {
      lands += rig.m->topology().link(h.link).latency;
    }
    rig.kernel.run_until(lands - Tick{1});
    EXPECT_EQ(rig.queue(ch, Direction::kM2S).completion.offset, 0U);
    rig.kernel.run_until(lands);
    EXPECT_EQ(rig.queue(ch, Direction::kM2S).completion.offset, 2U) << "seed " << seed;
    EXPECT_EQ(rig.m->semaphore(0, 9), first_word) << "seed " << seed;
    rig.run();
    EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
  }
}

/// A process that writes a semaphore, fences, and records what it sees after the fence.
base::Task<void> write_then_fence(Machine& m, CoreId core, base::SocAddr set, std::uint32_t* seen) {
  m.bus(core).write32(set, 42);
  co_await base::Suspend(
      [&m, core](std::coroutine_handle<> h) { return m.park_until_writes_landed(h, core); });
  *seen = m.semaphore(core, 4);
}

TEST(MachineOrder, WriteFenceResumesAfterTheWritesTookEffectForEverySeed) {
  for (std::uint64_t seed = 0; seed <= kSeeds; ++seed) {
    Rig rig("trn2", {}, seed);
    const auto set4 = rig.map().sem_window_addr(rig.tpb(0), soc::SemWindow::kSet, 4).value();
    std::uint32_t seen = 0;
    rig.kernel.spawn("fence", write_then_fence(*rig.m, 0, set4, &seen));
    const sim::RunResult r = rig.run();
    EXPECT_EQ(r.end_time, rig.m->params().mmio_write_latency);
    EXPECT_EQ(seen, 42U) << "seed " << seed;
  }
}

}  // namespace
}  // namespace sbrdma::device
