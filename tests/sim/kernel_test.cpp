#include "sim/kernel.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sbrdma::sim {
namespace {

using base::Task;
using base::Tick;

/// Counts live instances, to prove process frames are destroyed.
struct Alive {
  static inline int count = 0;
  Alive() { ++count; }
  Alive(const Alive&) = delete;
  Alive& operator=(const Alive&) = delete;
  ~Alive() { --count; }
};

TEST(Kernel, ScheduleRunsCallbacksAtTheirTime) {
  Kernel k;
  std::vector<std::uint64_t> seen;
  k.schedule(
      Tick{50}, [&] { seen.push_back(k.now().ps); }, "b");
  k.schedule(
      Tick{20},
      [&] {
        seen.push_back(k.now().ps);
        k.schedule(
            Tick{5}, [&] { seen.push_back(k.now().ps); }, "nested");
      },
      "a");
  const RunResult r = k.run();
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{20, 25, 50}));
  EXPECT_EQ(r.end_time, Tick{50});
  EXPECT_EQ(r.events_processed, 3u);
  EXPECT_EQ(k.events_processed(), 3u);
  EXPECT_FALSE(r.deadlocked());
}

Task<void> sleeper(Kernel& k, Tick d, int* value) {
  co_await k.delay(d);
  *value = 1;
}

TEST(Kernel, DelayResumesAtExactlyNowPlusD) {
  // Tick-exact probe: old one tick before the event, new at its tick.
  Kernel k;
  int value = 0;
  k.run_until(Tick{1000});  // start the process at a non-zero time
  const ProcessId pid = k.spawn("sleeper", sleeper(k, Tick{250}, &value));
  k.run_until(Tick{1249});
  EXPECT_EQ(k.now(), Tick{1249});
  EXPECT_EQ(value, 0);
  EXPECT_EQ(k.state(pid), ProcessState::kSleeping);
  const RunResult r = k.run_until(Tick{1250});
  EXPECT_EQ(value, 1);
  EXPECT_EQ(k.state(pid), ProcessState::kFinished);
  EXPECT_EQ(r.processes_finished, 1u);
}

Task<void> logger(Kernel& k, std::string tag, std::vector<std::string>* log) {
  for (int i = 0; i < 3; ++i) {
    log->push_back(tag + std::to_string(i) + "@" + std::to_string(k.now().ps));
    co_await k.delay(Tick{10});
  }
}

TEST(Kernel, SameTimeProcessesRunInSpawnOrder) {
  Kernel k;
  std::vector<std::string> log;
  k.spawn("a", logger(k, "a", &log));
  k.spawn("b", logger(k, "b", &log));
  const RunResult r = k.run();
  EXPECT_EQ(log, (std::vector<std::string>{"a0@0", "b0@0", "a1@10", "b1@10", "a2@20", "b2@20"}));
  EXPECT_EQ(r.processes_finished, 2u);
  EXPECT_EQ(r.end_time, Tick{30});
}

Task<int> nested_wait(Kernel& k, int depth) {
  if (depth == 0) {
    co_await k.delay(Tick{7});
    co_return 1;
  }
  const int below = co_await nested_wait(k, depth - 1);
  co_await k.delay(Tick{1});
  co_return below + 1;
}

Task<void> nested_top(Kernel& k, int* out, Tick* at) {
  *out = co_await nested_wait(k, 3);
  *at = k.now();
}

TEST(Kernel, NestedTasksSuspendTheWholeProcess) {
  Kernel k;
  int out = 0;
  Tick at{};
  k.spawn("nested", nested_top(k, &out, &at));
  k.run();
  EXPECT_EQ(out, 4);
  EXPECT_EQ(at, Tick{7 + 3});
}

Task<void> spawner(Kernel& k, std::vector<std::string>* log) {
  co_await k.delay(Tick{5});
  k.spawn("child", logger(k, "c", log));
  log->push_back("parent@" + std::to_string(k.now().ps));
}

TEST(Kernel, SpawnFromAProcessStartsAtNow) {
  Kernel k;
  std::vector<std::string> log;
  k.spawn("parent", spawner(k, &log));
  k.run();
  EXPECT_EQ(log, (std::vector<std::string>{"parent@5", "c0@5", "c1@15", "c2@25"}));
  EXPECT_EQ(k.processes_spawned(), 2u);
  EXPECT_EQ(k.processes_finished(), 2u);
}

TEST(Kernel, RunUntilLeavesLaterEventsPending) {
  Kernel k;
  int ran = 0;
  k.schedule(
      Tick{10}, [&] { ++ran; }, "early");
  k.schedule(
      Tick{11}, [&] { ++ran; }, "late");
  const RunResult r = k.run_until(Tick{10});
  EXPECT_EQ(ran, 1);
  EXPECT_EQ(k.pending_events(), 1u);
  EXPECT_FALSE(r.deadlocked());
  EXPECT_EQ(r.end_time, Tick{10});
}

TEST(Kernel, RunStopsAtTheTimeLimitInsteadOfOverflowingTick) {
  // A process that sleeps a quarter of the limit at a time: the fourth wake-up is exactly at
  // the limit and runs; the fifth would be past it (and 2^64 ps is only 4 quarters further).
  Kernel k;
  const Tick quarter{kTimeLimit.ps / 4};
  std::vector<std::uint64_t> woke;
  auto body = [](Kernel& kk, Tick d, std::vector<std::uint64_t>& out) -> Task<void> {
    for (;;) {
      co_await kk.delay(d);
      out.push_back(kk.now().ps);
    }
  };
  k.spawn("sleeper", body(k, quarter, woke));
  const RunResult r = k.run();
  EXPECT_TRUE(r.past_time_limit);
  EXPECT_FALSE(r.stopped);
  EXPECT_TRUE(r.blocked.empty());
  EXPECT_EQ(r.end_time, kTimeLimit);
  EXPECT_EQ(woke, (std::vector<std::uint64_t>{quarter.ps, 2 * quarter.ps, 3 * quarter.ps,
                                              kTimeLimit.ps}));
  // A run that ends on its own is not past the limit.
  Kernel quiet;
  quiet.schedule(
      kTimeLimit, [] {}, "at the limit");
  EXPECT_FALSE(quiet.run().past_time_limit);
}

TEST(Kernel, RequestStopEndsTheRunAfterTheCurrentEvent) {
  Kernel k;
  int ran = 0;
  k.schedule(
      Tick{1},
      [&] {
        ++ran;
        k.request_stop();
      },
      "stop");
  k.schedule(
      Tick{1}, [&] { ++ran; }, "after");
  const RunResult r = k.run();
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(ran, 1);
  const RunResult rest = k.run();
  EXPECT_FALSE(rest.stopped);
  EXPECT_EQ(ran, 2);
}

TEST(Kernel, AStoppedRunIsNotPastTheTimeLimit) {
  // Events are still pending after a stop, but the run did not reach the limit.
  Kernel k;
  k.schedule(
      Tick{1}, [&] { k.request_stop(); }, "stop");
  k.schedule(
      Tick{2}, [] {}, "later");
  const RunResult r = k.run();
  EXPECT_TRUE(r.stopped);
  EXPECT_FALSE(r.past_time_limit);
  EXPECT_EQ(k.pending_events(), 1u);
}

TEST(Kernel, AStoppedRunUntilKeepsTheClockAtTheStop) {
  // A run_until that ends on its own moves the clock to the limit; a stopped one does not.
  Kernel k;
  k.schedule(
      Tick{3}, [&] { k.request_stop(); }, "stop");
  k.schedule(
      Tick{4}, [] {}, "later");
  const RunResult r = k.run_until(Tick{10});
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.end_time, Tick{3});
  EXPECT_EQ(k.now(), Tick{3});
  const RunResult rest = k.run_until(Tick{10});
  EXPECT_FALSE(rest.stopped);
  EXPECT_EQ(rest.end_time, Tick{10});
}

Task<void> forever(Kernel& k) {
  Alive here;
  for (;;) co_await k.delay(Tick{3});
}

Task<void> deep_sleeper(Kernel& k, int depth) {
  Alive here;
  if (depth == 0) {
    co_await k.delay(Tick{1'000'000});
    co_return;
  }
  co_await deep_sleeper(k, depth - 1);
}

TEST(Kernel, DestroyingTheKernelFreesSuspendedProcesses) {
  ASSERT_EQ(Alive::count, 0);
  {
    Kernel k;
    k.spawn("forever", forever(k));
    k.spawn("deep", deep_sleeper(k, 50));
    k.spawn("forever2", forever(k));
    k.run_until(Tick{100});
    k.spawn("never-ran", forever(k));  // its start event is still pending
    EXPECT_EQ(Alive::count, 2 + 51);
  }
  EXPECT_EQ(Alive::count, 0);  // and LeakSanitizer sees no frame left in the ASan build
}

Task<void> raw_suspend(Kernel& k, std::coroutine_handle<>* stolen) {
  co_await base::Suspend([stolen](std::coroutine_handle<> h) {
    *stolen = h;  // parks outside the kernel: the kernel must notice
    return true;
  });
  (void)k;
}

TEST(KernelDeathTest, SuspendingOutsideTheKernelIsCaught) {
  EXPECT_DEATH(
      {
        Kernel k;
        std::coroutine_handle<> h;
        k.spawn("rogue", raw_suspend(k, &h));
        k.run();
      },
      "did not park it in the kernel");
}

Task<void> kernel_sleep_via_suspend(Kernel& k, Tick* woke) {
  co_await base::Suspend([&k](std::coroutine_handle<> h) {
    k.sleep(h, Tick{42});
    return true;
  });
  *woke = k.now();
}

TEST(Kernel, TypeErasedSuspendCanSleep) {
  Kernel k;
  Tick woke{};
  k.spawn("erased", kernel_sleep_via_suspend(k, &woke));
  k.run();
  EXPECT_EQ(woke, Tick{42});
}

}  // namespace
}  // namespace sbrdma::sim
