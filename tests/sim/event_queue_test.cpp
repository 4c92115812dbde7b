#include "sim/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace sbrdma::sim {
namespace {

using base::Tick;

/// Pops everything, running each action; returns the labels in pop order.
std::vector<std::string> drain(EventQueue& q) {
  std::vector<std::string> order;
  Tick last{};
  while (!q.empty()) {
    Event ev = q.pop();
    EXPECT_GE(ev.time, last);  // time never goes backwards
    last = ev.time;
    order.emplace_back(ev.label);
    ev.fn();
  }
  return order;
}

TEST(EventQueue, OrdersByTimeThenSequence) {
  EventQueue q;
  q.push(
      Tick{30}, [] {}, "c30");
  q.push(
      Tick{10}, [] {}, "a10");
  q.push(
      Tick{20}, [] {}, "b20");
  q.push(
      Tick{10}, [] {}, "d10");
  EXPECT_EQ(q.next_time(), Tick{10});
  EXPECT_EQ(drain(q), (std::vector<std::string>{"a10", "d10", "b20", "c30"}));
}

TEST(EventQueue, PopCarriesTimeAndSequence) {
  EventQueue q;
  EXPECT_EQ(q.push(
                Tick{5}, [] {}, "x"),
            0u);
  EXPECT_EQ(q.push(
                Tick{1}, [] {}, "y"),
            1u);
  Event first = q.pop();
  EXPECT_EQ(first.time, Tick{1});
  EXPECT_EQ(first.seq, 1u);
  EXPECT_EQ(first.label, "y");
  EXPECT_EQ(q.pushed(), 2u);
}

std::vector<int> same_time_order(std::uint64_t seed, int n) {
  EventQueue q(seed);
  std::vector<int> order;
  for (int i = 0; i < n; ++i)
    q.push(
        Tick{7}, [&order, i] { order.push_back(i); }, "e");
  drain(q);
  return order;
}

TEST(EventQueue, SameTimeEventsRunInInsertionOrder) {
  std::vector<int> expected(200);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(same_time_order(0, 200), expected);
}

TEST(EventQueue, SeedShufflesTiesReproducibly) {
  const std::vector<int> a = same_time_order(1, 200);
  const std::vector<int> b = same_time_order(1, 200);
  const std::vector<int> c = same_time_order(2, 200);
  std::vector<int> identity(200);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(a, b);         // same seed, same order
  EXPECT_NE(a, identity);  // the seed did shuffle
  EXPECT_NE(a, c);         // another seed, another order
  std::vector<int> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, identity);  // a permutation: nothing lost or duplicated
}

TEST(EventQueue, SeedNeverReordersDifferentTimes) {
  EventQueue q(12345);
  std::vector<std::uint64_t> times;
  for (std::uint64_t i = 0; i < 300; ++i) {
    const std::uint64_t t = (i * 7919) % 13;  // many ties, many distinct times
    q.push(
        Tick{t}, [&times, t] { times.push_back(t); }, "e");
  }
  drain(q);
  ASSERT_EQ(times.size(), 300u);
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
}

TEST(EventQueue, PopsBeforeAgreesWithThePopOrderWithAndWithoutASeed) {
  // The kernel's ran_before_now() asks pops_before() whether a DMA completion already "ran"
  // relative to the event now running; under a tie seed the answer must follow the shuffled
  // order the queue really pops in, for either argument, or same-time completions are
  // reported out of order.
  for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{99}}) {
    EventQueue q(seed);
    for (int i = 0; i < 40; ++i) {  // three times, many events at each
      q.push(
          Tick{static_cast<std::uint64_t>(5 + i % 3)}, [] {}, "e");
    }
    std::vector<std::pair<Tick, std::uint64_t>> popped;
    while (!q.empty()) {
      const Event ev = q.pop();
      popped.emplace_back(ev.time, ev.seq);
    }
    unsigned wrong = 0;
    for (std::size_t a = 0; a < popped.size(); ++a) {
      for (std::size_t b = 0; b < popped.size(); ++b) {
        const bool before =
            q.pops_before(popped[a].first, popped[a].second, popped[b].first, popped[b].second);
        if (before != (a < b)) ++wrong;
      }
    }
    EXPECT_EQ(wrong, 0u) << "seed " << seed;
  }
}

TEST(EventQueue, RecyclesSlotsAndKeepsOrderWhilePushingDuringDrain) {
  EventQueue q;
  std::vector<std::string> order;
  q.push(
      Tick{1}, [&] { order.push_back("a"); }, "a");
  q.push(
      Tick{2}, [&] { order.push_back("b"); }, "b");
  Event ev = q.pop();
  ev.fn();
  q.push(
      Tick{2}, [&] { order.push_back("c"); }, "c");  // same time as b, inserted later
  drain(q);
  EXPECT_EQ(order, (std::vector<std::string>{"a", "b", "c"}));
}

TEST(EventQueue, ClearDropsActionsWithoutRunning) {
  EventQueue q;
  int ran = 0;
  auto token = std::make_shared<int>(0);
  q.push(
      Tick{1}, [&ran, token] { ++ran; }, "x");
  EXPECT_EQ(token.use_count(), 2);
  q.clear();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(ran, 0);
  EXPECT_EQ(token.use_count(), 1);  // the capture was destroyed
}

TEST(Callback, InlineHeapAndMoveOnlyCaptures) {
  int hits = 0;
  Callback small([&hits] { ++hits; });
  struct Big {
    char pad[200];
  };
  Callback big([&hits, b = Big{}] { hits += 10 + b.pad[0]; });
  auto owned = std::make_unique<int>(100);
  Callback move_only([&hits, p = std::move(owned)] { hits += *p; });

  Callback moved = std::move(big);
  EXPECT_FALSE(static_cast<bool>(big));  // NOLINT(bugprone-use-after-move)
  small();
  moved();
  move_only();
  EXPECT_EQ(hits, 1 + 10 + 100);
}

}  // namespace
}  // namespace sbrdma::sim
