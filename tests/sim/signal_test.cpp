#include "sim/signal.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/trace.h"

namespace sbrdma::sim {
namespace {

using base::Task;
using base::Tick;

Task<void> wait_ge(Signal& s, const int& x, int v, Kernel& k, std::vector<Tick>* woke) {
  co_await s.wait_until([&x, v] { return x >= v; });
  EXPECT_GE(x, v);  // never resumed with a false predicate
  woke->push_back(k.now());
}

TEST(Signal, WaitBlocksUntilANotifyMakesThePredicateTrue) {
  Kernel k;
  Signal s(k, "x");
  int x = 0;
  std::vector<Tick> woke;
  const ProcessId pid = k.spawn("w", wait_ge(s, x, 3, k, &woke));
  k.schedule(
      Tick{10},
      [&] {
        x = 1;
        s.notify();
      },
      "x=1");  // still false
  k.schedule(
      Tick{20}, [&] { x = 3; }, "x=3 silently");  // true, but nobody notified
  k.schedule(
      Tick{30}, [&] { s.notify(); }, "notify");

  k.run_until(Tick{29});
  EXPECT_TRUE(woke.empty());
  EXPECT_EQ(k.state(pid), ProcessState::kWaiting);
  EXPECT_EQ(s.waiters(), 1u);
  k.run();
  EXPECT_EQ(woke, std::vector<Tick>{Tick{30}});
  EXPECT_EQ(k.state(pid), ProcessState::kFinished);
  EXPECT_EQ(s.waiters(), 0u);
}

/// Logs each event and each process the kernel says is about to run inside it.
class RunLog final : public TraceSink {
 public:
  void record(const TraceRecord& r) override { log.push_back(std::string(r.label)); }
  void resumed(std::uint32_t pid) override { log.push_back("  runs " + std::to_string(pid)); }
  std::vector<std::string> log;
};

TEST(Signal, ATraceHearsOfEveryProcessRunEvenInsideANotifyRecheck) {
  // A woken waiter runs inside the signal's recheck event, not an event of its own: a trace
  // that polls only the processes that ran must hear of it there.
  Kernel k;
  RunLog trace;
  k.set_trace(&trace);
  Signal s(k, "x.signal");
  int x = 0;
  std::vector<Tick> woke;
  const ProcessId a = k.spawn("a", wait_ge(s, x, 1, k, &woke));
  const ProcessId b = k.spawn("b", wait_ge(s, x, 5, k, &woke));
  k.schedule(
      Tick{10},
      [&] {
        x = 1;
        s.notify();
      },
      "x=1");
  k.run();
  const std::vector<std::string> want = {
      "a",        "  runs " + std::to_string(a), "b", "  runs " + std::to_string(b), "x=1",
      "x.signal", "  runs " + std::to_string(a)};
  EXPECT_EQ(trace.log, want);
  EXPECT_EQ(woke, std::vector<Tick>{Tick{10}});
}

TEST(Signal, SpuriousNotifyKeepsTheWaiterBlocked) {
  Kernel k;
  Signal s(k, "x");
  int x = 0;
  std::vector<Tick> woke;
  const ProcessId pid = k.spawn("w", wait_ge(s, x, 1, k, &woke));
  for (std::uint64_t t = 1; t <= 5; ++t)
    k.schedule(
        Tick{t}, [&] { s.notify(); }, "spurious");
  const RunResult r = k.run();
  EXPECT_TRUE(woke.empty());
  EXPECT_EQ(k.state(pid), ProcessState::kWaiting);
  EXPECT_TRUE(r.deadlocked());
}

TEST(Signal, TruePredicateDoesNotSuspend) {
  Kernel k;
  Signal s(k, "x");
  int x = 5;
  std::vector<Tick> woke;
  k.run_until(Tick{9});
  k.spawn("w", wait_ge(s, x, 1, k, &woke));
  const RunResult r = k.run();
  EXPECT_EQ(woke, std::vector<Tick>{Tick{9}});
  EXPECT_EQ(r.events_processed, 1u);  // only the start event: no wake needed
}

TEST(Signal, WakesSatisfiedWaitersInFifoOrder) {
  Kernel k;
  Signal s(k, "x");
  int x = 0;
  std::vector<std::string> order;
  auto waiter = [](Signal& sig, const int& xr, int v, std::string tag,
                   std::vector<std::string>* out) -> Task<void> {
    co_await sig.wait_until([&xr, v] { return xr >= v; });
    out->push_back(tag);
  };
  k.spawn("w1", waiter(s, x, 2, "w1", &order));
  k.spawn("w2", waiter(s, x, 1, "w2", &order));
  k.spawn("w3", waiter(s, x, 1, "w3", &order));
  k.schedule(
      Tick{5},
      [&] {
        x = 1;
        s.notify();
      },
      "x=1");  // w2, w3 (w1 still false)
  k.schedule(
      Tick{6},
      [&] {
        x = 2;
        s.notify();
      },
      "x=2");  // w1
  k.run();
  EXPECT_EQ(order, (std::vector<std::string>{"w2", "w3", "w1"}));
}

Task<void> take_token(Signal& s, int& tokens, std::vector<std::string>* log, std::string tag) {
  co_await s.wait_until([&tokens] { return tokens > 0; });
  --tokens;  // consumes what the other waiter was also woken for
  log->push_back(tag);
}

TEST(Signal, WakeRechecksSoAConsumedConditionKeepsTheSecondWaiterBlocked) {
  Kernel k;
  Signal s(k, "tokens");
  int tokens = 0;
  std::vector<std::string> log;
  k.spawn("a", take_token(s, tokens, &log, "a"));
  const ProcessId b = k.spawn("b", take_token(s, tokens, &log, "b"));
  k.schedule(
      Tick{3},
      [&] {
        tokens = 1;
        s.notify();
      },
      "one token");
  const RunResult r = k.run();
  EXPECT_EQ(log, std::vector<std::string>{"a"});
  EXPECT_EQ(tokens, 0);
  EXPECT_EQ(k.state(b), ProcessState::kWaiting);
  EXPECT_EQ(s.waiters(), 1u);
  ASSERT_EQ(r.blocked.size(), 1u);
  EXPECT_EQ(r.blocked[0].name, "b");
}

Task<void> erased_wait(Signal& s, const int& x, Kernel& k, Tick* woke) {
  // What platform/ will hand firmware: a base::Suspend over Signal::park.
  co_await base::Suspend([&s, &x](std::coroutine_handle<> h) {
    return s.park(
        h, [&x] { return x == 7; }, [&x] { return "x == 7, current " + std::to_string(x); });
  });
  *woke = k.now();
}

TEST(Signal, TypeErasedSuspendOverPark) {
  Kernel k;
  Signal s(k, "x");
  int x = 0;
  Tick woke{};
  const ProcessId pid = k.spawn("erased", erased_wait(s, x, k, &woke));
  k.run_until(Tick{1});
  EXPECT_EQ(k.waiting_for(pid), "x == 7, current 0");
  k.schedule(
      Tick{4},
      [&] {
        x = 7;
        s.notify();
      },
      "x=7");
  k.run();
  EXPECT_EQ(woke, Tick{5});
}

}  // namespace
}  // namespace sbrdma::sim
