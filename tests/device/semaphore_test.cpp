// Semaphore banks and waits on them: windows, wake-ups from DMA semaphore writes, and the
// description a deadlock report shows.
#include <gtest/gtest.h>

#include "device/semaphore_bank.h"
#include "machine_rig.h"

namespace sbrdma::device {
namespace {

using testing::Channel;
using testing::Rig;

SemCondition at_least(std::uint32_t v) {
  return SemCondition{[v](std::uint32_t x) { return x >= v; }, ">= " + std::to_string(v)};
}

TEST(SemaphoreBank, WindowsSetIncDecAndEvents) {
  sim::Kernel k;
  SemaphoreBank b(k, "sem", 256, 256);
  ASSERT_TRUE(b.write(soc::SemWindow::kSet, 7, 10).ok());
  ASSERT_TRUE(b.write(soc::SemWindow::kInc, 7, 5).ok());
  ASSERT_TRUE(b.write(soc::SemWindow::kDec, 7, 3).ok());
  EXPECT_EQ(b.read(soc::SemWindow::kRead, 7).value(), 12U);
  ASSERT_TRUE(b.write(soc::SemWindow::kDec, 8, 1).ok());
  EXPECT_EQ(b.value(8), 0xFFFFFFFFU);  // wraps
  ASSERT_TRUE(b.write(soc::SemWindow::kEvents, 3, 0xFF).ok());
  EXPECT_EQ(b.read(soc::SemWindow::kEvents, 3).value(), 1U);
  EXPECT_FALSE(b.write(soc::SemWindow::kInc, 256, 1).ok());
  EXPECT_FALSE(b.read(soc::SemWindow::kSet, 0).ok());
  EXPECT_EQ(b.writes(), 5U);
}

TEST(SemaphoreBank, ReportsValueChangesToAWatcherOnly) {
  sim::Kernel k;
  SemaphoreBank b(k, "sem", 256, 256);
  std::vector<SemChange> log;
  ASSERT_TRUE(b.write(soc::SemWindow::kInc, 1, 1).ok());  // before the watch: not reported
  b.report_changes(&log, 9);
  ASSERT_TRUE(b.write(soc::SemWindow::kSet, 7, 10).ok());
  ASSERT_TRUE(b.write(soc::SemWindow::kInc, 7, 5).ok());
  ASSERT_TRUE(b.write(soc::SemWindow::kEvents, 3, 1).ok());  // an event, not a value
  ASSERT_TRUE(b.write(soc::SemWindow::kDec, 200, 1).ok());
  EXPECT_FALSE(b.write(soc::SemWindow::kInc, 256, 1).ok());  // refused: no change
  b.set(4, 2);
  ASSERT_EQ(log.size(), 4U);
  const unsigned idx[] = {7, 7, 200, 4};
  for (std::size_t i = 0; i < log.size(); ++i) {
    EXPECT_EQ(log[i].tag, 9U) << i;
    EXPECT_EQ(log[i].idx, idx[i]) << i;
  }
  b.report_changes(nullptr, 0);
  b.set(4, 3);
  EXPECT_EQ(log.size(), 4U);
}

base::Task<void> waiter(Machine& m, CoreId core, unsigned idx, std::uint32_t v, base::Tick* when) {
  co_await m.wait_semaphore(core, idx, at_least(v));
  *when = m.kernel().now();
}

TEST(MachineSemaphores, AWaiterWakesWhenDmaWritesReachTheTarget) {
  Rig rig;
  base::Tick woke{~std::uint64_t{0}};
  rig.kernel.spawn("waiter", waiter(*rig.m, 6, 40, 3, &woke));
  rig.one_word(0);
  Channel ch = rig.open(0, 0, 0, 8);
  for (int i = 0; i < 3; ++i) rig.sema(ch, rig.routed(0, rig.sem_inc(6, 40), 6));
  rig.start(ch, 3);
  const sim::RunResult r = rig.run();
  EXPECT_EQ(rig.m->semaphore(6, 40), 3U);
  EXPECT_EQ(woke, r.end_time);  // woken by the last of the three writes
}

TEST(MachineSemaphores, AWatcherHearsOfDmaAndDirectWritesByCore) {
  Rig rig;
  std::vector<SemChange> log;
  rig.m->watch_semaphores(&log);
  rig.m->set_semaphore(2, 5, 12);
  rig.one_word(0);
  Channel ch = rig.open(0, 0, 0, 8);
  for (int i = 0; i < 2; ++i) rig.sema(ch, rig.routed(0, rig.sem_inc(6, 40), 6));
  rig.start(ch, 2);
  rig.run();
  rig.m->watch_semaphores(nullptr);
  rig.m->set_semaphore(2, 5, 13);
  ASSERT_EQ(log.size(), 3U);
  EXPECT_EQ(log[0].tag, 2U);
  EXPECT_EQ(log[0].idx, 5U);
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(log[i].tag, 6U);
    EXPECT_EQ(log[i].idx, 40U);
  }
}

TEST(MachineSemaphores, AnUnmetWaitIsADeadlockWithItsCondition) {
  Rig rig;
  base::Tick woke{};
  rig.kernel.spawn("waiter", waiter(*rig.m, 2, 5, 16, &woke));
  rig.m->set_semaphore(2, 5, 12);
  const sim::RunResult r = rig.kernel.run();
  ASSERT_TRUE(r.deadlocked());
  EXPECT_NE(r.deadlock_report().find("core 2 sem[5] >= 16, current 12"), std::string::npos)
      << r.deadlock_report();
}

TEST(MachineSemaphores, MmioWritesToTheWindowsAndTheWriteFence) {
  Rig rig("trn2.48xlarge");
  const CoreId peer = 3 * 8 + 1;
  rig.bus(0).write32(rig.routed(0, rig.sem_inc(peer, 2), peer), 5);
  const base::Tick fence = rig.m->writes_landed_by(0);
  EXPECT_GT(fence, rig.m->params().mmio_write_latency);  // plus the route's latencies
  rig.kernel.run_until(fence - base::Tick{1});
  EXPECT_EQ(rig.m->semaphore(peer, 2), 0U);
  rig.kernel.run_until(fence);
  EXPECT_EQ(rig.m->semaphore(peer, 2), 5U);
  EXPECT_EQ(rig.bus(0).read32(rig.routed(
                0, rig.map().sem_window_addr(1, soc::SemWindow::kRead, 2).value(), peer)),
            5U);
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
}

TEST(MachineSemaphores, ADirectSetDuringTheRunWakesItsWaiter) {
  // set_semaphore() notifies the waiters as a landing does: a waiter already parked wakes at
  // the tick of the set, not never.
  Rig rig;
  base::Tick woke{~std::uint64_t{0}};
  rig.kernel.spawn("waiter", waiter(*rig.m, 2, 5, 16, &woke));
  rig.kernel.schedule(
      base::Tick{1000}, [&] { rig.m->set_semaphore(2, 5, 16); }, "set");
  const sim::RunResult r = rig.run();
  EXPECT_TRUE(r.blocked.empty()) << r.deadlock_report();
  EXPECT_EQ(woke, base::Tick{1000});
}

TEST(MachineSemaphores, ADmaIncrementOfTheLastSemaphoreLands) {
  // The window's last slot (semaphores - 1) is inside it: the bound is exclusive of the end.
  Rig rig;
  rig.one_word(0);
  Channel ch = rig.open(0, 0, 0, 8);
  const unsigned last = rig.m->profile().semaphores - 1;
  rig.sema(ch, rig.routed(0, rig.sem_inc(1, last), 1));
  rig.start(ch, 1);
  rig.run();
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
  EXPECT_EQ(rig.m->semaphore(1, last), 1U);
}

}  // namespace
}  // namespace sbrdma::device
