// Whole-kernel properties: byte-identical traces across runs, seeded tie shuffles, and the
// deadlock report.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/fifo.h"
#include "sim/kernel.h"
#include "sim/signal.h"
#include "sim/trace.h"

namespace sbrdma::sim {
namespace {

using base::Task;
using base::Tick;

/// A small mixed scenario: producers and consumers over a Fifo, a counter guarded by a Signal,
/// many same-time events. Everything it owns lives in the struct (frames refer to it).
struct Scenario {
  Kernel kernel;
  Signal counter_changed{kernel, "counter"};
  Fifo<int> fifo{kernel, "fifo"};
  int counter = 0;
  std::vector<std::string> log;

  explicit Scenario(std::uint64_t seed) : kernel(seed) {}

  static Task<void> producer(Scenario& s, int id) {
    for (int i = 0; i < 4; ++i) {
      co_await s.kernel.delay(Tick{10});
      s.fifo.push(id * 100 + i);
    }
  }
  static Task<void> consumer(Scenario& s, int id) {
    for (int i = 0; i < 4; ++i) {
      const int v = co_await s.fifo.pop();
      s.log.push_back("c" + std::to_string(id) + ":" + std::to_string(v));
      ++s.counter;
      s.counter_changed.notify();
    }
  }
  static Task<void> watcher(Scenario& s) {
    co_await s.counter_changed.wait_until([&s] { return s.counter >= 12; });
    s.log.push_back("done@" + std::to_string(s.kernel.now().ps));
  }

  std::string run() {
    StringTrace trace;
    kernel.set_trace(&trace);
    for (int i = 0; i < 3; ++i) kernel.spawn("producer" + std::to_string(i), producer(*this, i));
    for (int i = 0; i < 3; ++i) kernel.spawn("consumer" + std::to_string(i), consumer(*this, i));
    kernel.spawn("watcher", watcher(*this));
    const RunResult r = kernel.run();
    EXPECT_FALSE(r.deadlocked()) << r.deadlock_report();
    EXPECT_EQ(trace.lines(), kernel.events_processed());
    kernel.set_trace(nullptr);
    std::string out = trace.text();
    for (const std::string& l : log) out += l + "\n";
    return out;
  }
};

std::string run_scenario(std::uint64_t seed) {
  return Scenario(seed).run();
}

TEST(Determinism, SameRunTwiceGivesAnIdenticalTrace) {
  const std::string a = run_scenario(0);
  const std::string b = run_scenario(0);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("done@40"), std::string::npos);
  EXPECT_NE(a.find("0 0 producer0\n"), std::string::npos);  // `<time> <seq> <label>` lines
}

TEST(Determinism, SeedIsReproducibleAndChangesTieOrder) {
  const std::string plain = run_scenario(0);
  const std::string s1 = run_scenario(1);
  EXPECT_EQ(s1, run_scenario(1));
  EXPECT_NE(s1, plain);
  EXPECT_NE(s1, run_scenario(2));
  EXPECT_NE(s1.find("done@40"), std::string::npos);  // ties move, times do not
}

Task<void> wait_sem(Signal& s, const std::vector<int>& sem, int idx, int value) {
  co_await s.wait_until([&sem, idx, value] { return sem[idx] >= value; },
                        [&sem, idx, value] {
                          return "sem[" + std::to_string(idx) + "] >= " + std::to_string(value) +
                                 ", current " + std::to_string(sem[idx]);
                        });
}

Task<void> pop_one(Fifo<int>& f) {
  (void)co_await f.pop();
}

Task<void> wait_flag(Signal& s, const bool& flag) {
  co_await s.wait_until([&flag] { return flag; });
}

Task<void> quick(Kernel& k) {
  co_await k.delay(Tick{1});
}

TEST(Deadlock, ReportsEveryBlockedProcessWithALiveDescription) {
  Kernel k;
  Signal sem_changed(k, "sem");
  Fifo<int> left(k, "left_pop");
  std::vector<int> sem(8, 0);
  k.spawn("ok", quick(k));
  k.spawn("core0.q7.3", wait_sem(sem_changed, sem, 3, 16));
  k.spawn("core1.q7.0", pop_one(left));
  k.spawn("core0.q7.5", wait_sem(sem_changed, sem, 5, 1));
  k.schedule(
      Tick{20},
      [&] {
        sem[3] = 12;  // progress, but not enough
        sem[5] = 1;
        sem_changed.notify();
      },
      "sem writes");

  const RunResult r = k.run();
  ASSERT_TRUE(r.deadlocked());
  ASSERT_EQ(r.blocked.size(), 2u);
  EXPECT_EQ(r.blocked[0].id, 1u);
  EXPECT_EQ(r.blocked[0].name, "core0.q7.3");
  EXPECT_EQ(r.blocked[0].waiting_for, "sem[3] >= 16, current 12");  // value at report time
  EXPECT_EQ(r.blocked[1].name, "core1.q7.0");
  EXPECT_EQ(r.blocked[1].waiting_for, "pop from empty fifo left_pop");
  EXPECT_EQ(r.processes_finished, 2u);
  EXPECT_EQ(r.end_time, Tick{20});
  EXPECT_EQ(r.deadlock_report(),
            "deadlock at t=20 ps: 2 processes blocked\n"
            "  #1 core0.q7.3: waiting for sem[3] >= 16, current 12\n"
            "  #2 core1.q7.0: waiting for pop from empty fifo left_pop\n");
}

TEST(Deadlock, DefaultDescriptionNamesTheSignal) {
  Kernel k;
  Signal s(k, "doorbell");
  bool never = false;
  k.spawn("w", wait_flag(s, never));
  const RunResult r = k.run();
  ASSERT_EQ(r.blocked.size(), 1u);
  EXPECT_EQ(r.blocked[0].waiting_for, "signal doorbell");
}

TEST(Deadlock, PendingEventsAreNotADeadlock) {
  Kernel k;
  Signal s(k, "x");
  bool flag = false;
  k.spawn("w", wait_flag(s, flag));
  k.schedule(
      Tick{100},
      [&] {
        flag = true;
        s.notify();
      },
      "release");
  EXPECT_FALSE(k.run_until(Tick{50}).deadlocked());
  const RunResult r = k.run();
  EXPECT_FALSE(r.deadlocked());
  EXPECT_EQ(r.processes_finished, 1u);
}

}  // namespace
}  // namespace sbrdma::sim
