#include "sim/fifo.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace sbrdma::sim {
namespace {

using base::Task;
using base::Tick;

struct Got {
  std::string who;
  int value;
  std::uint64_t at;
  bool operator==(const Got&) const = default;
};

Task<void> popper(Kernel& k, Fifo<int>& f, std::string who, int n, std::vector<Got>* out) {
  for (int i = 0; i < n; ++i) {
    const int v = co_await f.pop();
    out->push_back(Got{who, v, k.now().ps});
  }
}

TEST(Fifo, PopBlocksUntilPush) {
  Kernel k;
  Fifo<int> f(k, "left");
  std::vector<Got> got;
  const ProcessId pid = k.spawn("rx", popper(k, f, "rx", 1, &got));
  k.schedule(
      Tick{50}, [&] { f.push(9); }, "push");
  k.run_until(Tick{49});
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(k.state(pid), ProcessState::kWaiting);
  EXPECT_EQ(f.waiting(), 1u);
  k.run();
  EXPECT_EQ(got, (std::vector<Got>{{"rx", 9, 50}}));
}

TEST(Fifo, QueuedItemsPopInOrderWithoutWaiting) {
  Kernel k;
  Fifo<int> f(k, "q");
  f.push(1);
  f.push(2);
  f.push(3);
  std::vector<Got> got;
  k.spawn("rx", popper(k, f, "rx", 3, &got));
  const RunResult r = k.run();
  EXPECT_EQ(got, (std::vector<Got>{{"rx", 1, 0}, {"rx", 2, 0}, {"rx", 3, 0}}));
  EXPECT_EQ(r.events_processed, 1u);
  EXPECT_TRUE(f.empty());
}

Task<void> late_popper(Kernel& k, Fifo<int>& f, std::vector<Got>* out) {
  co_await k.delay(Tick{10});  // runs at t=10 after the push below, before p1's wake event
  const int v = co_await f.pop();
  out->push_back(Got{"late", v, k.now().ps});
}

TEST(Fifo, WaitingPoppersAreServedInOrderAndCannotBeOvertaken) {
  Kernel k;
  Fifo<int> f(k, "q");
  std::vector<Got> got;
  k.spawn("p1", popper(k, f, "p1", 1, &got));
  k.spawn("p2", popper(k, f, "p2", 1, &got));
  k.schedule(
      Tick{10}, [&] { f.push(100); }, "push a");  // seq before late's resume at 10
  k.spawn("late", late_popper(k, f, &got));
  k.schedule(
      Tick{20},
      [&] {
        f.push(200);
        f.push(300);
      },
      "push b c");
  k.run();
  EXPECT_EQ(got, (std::vector<Got>{{"p1", 100, 10}, {"p2", 200, 20}, {"late", 300, 20}}));
}

Task<void> pop_owned(Fifo<std::unique_ptr<int>>& f, int* out) {
  std::unique_ptr<int> p = co_await f.pop();
  *out = *p;
}

TEST(Fifo, CarriesMoveOnlyValues) {
  Kernel k;
  Fifo<std::unique_ptr<int>> f(k, "owned");
  int out = 0;
  k.spawn("rx", pop_owned(f, &out));
  k.schedule(
      Tick{1}, [&] { f.push(std::make_unique<int>(77)); }, "push");
  k.run();
  EXPECT_EQ(out, 77);
  EXPECT_FALSE(f.try_pop().has_value());
}

}  // namespace
}  // namespace sbrdma::sim
