// ChainedArrivals against the one-event-per-item use of OrderedArrivals it replaces: on a
// random schedule of adds (out-of-order ticks and same-tick runs included), both hand out the
// same items at the same ticks, and without a tie seed the kernel runs the very same events
// (time, seq) in the same order. With a seed, every chain still takes its items in (tick, add
// order) at their ticks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "device/ordered_arrivals.h"
#include "sim/kernel.h"
#include "sim/trace.h"

namespace sbrdma::device {
namespace {

using base::Tick;

constexpr int kChains = 4;
constexpr int kSources = 3;
constexpr int kAddsPerSource = 400;

/// One item taken: when, from which chain, which item (its source and number).
struct Taken {
  std::uint64_t time = 0;
  int chain = 0;
  int item = 0;
  std::uint64_t due = 0;  ///< the tick it was added for
  int rank = 0;           ///< its place in its chain's add order
  bool operator==(const Taken&) const = default;
};

struct Item {
  int id = 0;
  std::uint64_t due = 0;
  int rank = 0;
};

/// Sources add items to random chains at random future ticks (each source with its own
/// random stream, so the program does not depend on the event order). `chained` picks the
/// implementation.
struct Rig {
  explicit Rig(std::uint64_t seed, bool chained_mode) : kernel(seed), chained(chained_mode) {
    kernel.set_trace(&trace);
    for (int s = 0; s < kSources; ++s) {
      rngs.emplace_back(100 + s);
      kernel.schedule(
          Tick{}, [this, s] { source(s, 0); }, "src");
    }
  }

  void source(int s, int n) {
    std::mt19937_64& r = rngs[s];
    const int c = static_cast<int>(r() % kChains);
    // Mostly in order, sometimes earlier than what the chain holds, often the same tick.
    const std::uint64_t at = kernel.now().ps + (r() % 4 == 0 ? r() % 5 : 20 + r() % 8);
    add(c, Item{s * 10000 + n, at});
    if (n + 1 < kAddsPerSource) {
      kernel.schedule(
          Tick{1 + r() % 6}, [this, s, n] { source(s, n + 1); }, "src");
    }
  }

  void add(int c, Item it) {
    it.rank = added[c]++;
    const Tick at{it.due};
    if (!chained) {
      plain[c].add(at, it);
      kernel.schedule(
          at - kernel.now(), [this, c] { record(c, plain[c].take()); }, "land");
      return;
    }
    if (auto due = chain[c].add(at, kernel.reserve_seq(), it)) schedule(c, *due);
  }

  void schedule(int c, ChainedArrivals<Item>::Due due) {
    kernel.schedule_at(
        due.at, due.seq,
        [this, c, seq = due.seq] {
          const Item it = chain[c].take(seq);
          if (auto next = chain[c].next_due()) schedule(c, *next);
          record(c, it);
        },
        "land");
  }

  void record(int c, const Item& it) {
    taken.push_back(Taken{kernel.now().ps, c, it.id, it.due, it.rank});
  }

  sim::Kernel kernel;
  bool chained;
  sim::StringTrace trace;
  std::vector<std::mt19937_64> rngs;
  OrderedArrivals<Item> plain[kChains];
  ChainedArrivals<Item> chain[kChains];
  int added[kChains] = {};
  std::vector<Taken> taken;
};

/// Every item taken at its tick, each chain's items in (tick, add order), and some ticks
/// with several items of one chain (so that the same-tick order was exercised).
void expect_in_order(const std::vector<Taken>& taken) {
  ASSERT_EQ(taken.size(), static_cast<std::size_t>(kSources * kAddsPerSource));
  std::vector<std::uint64_t> last_due(kChains, 0);
  std::vector<int> last_rank(kChains, -1);
  int same_tick = 0;
  for (const Taken& t : taken) {
    EXPECT_EQ(t.time, t.due) << "item " << t.item;
    EXPECT_GE(t.due, last_due[t.chain]);
    if (t.due == last_due[t.chain] && last_rank[t.chain] >= 0) {
      EXPECT_GT(t.rank, last_rank[t.chain]) << "item " << t.item;
      ++same_tick;
    }
    last_due[t.chain] = t.due;
    last_rank[t.chain] = t.rank;
  }
  EXPECT_GT(same_tick, 10);
}

TEST(ChainedArrivals, RunsTheSameEventsAsOneEventPerItem) {
  Rig plain(0, false);
  Rig chained(0, true);
  plain.kernel.run();
  chained.kernel.run();
  expect_in_order(plain.taken);
  EXPECT_EQ(chained.taken, plain.taken);
  EXPECT_EQ(chained.trace.text(), plain.trace.text());  // times, seqs and labels
  EXPECT_EQ(chained.kernel.events_processed(), plain.kernel.events_processed());
}

TEST(ChainedArrivals, KeepsEachChainsOrderUnderATieSeed) {
  Rig chained(0xfeed, true);
  chained.kernel.run();
  expect_in_order(chained.taken);
  for (const auto& c : chained.chain) EXPECT_TRUE(c.empty());
}

TEST(ChainedArrivals, OnlyTheEarliestItemAsksForAnEvent) {
  ChainedArrivals<int> c;
  ASSERT_TRUE(c.add(Tick{10}, 1, 100).has_value());   // first item
  EXPECT_FALSE(c.add(Tick{10}, 2, 200).has_value());  // same tick: after it
  EXPECT_FALSE(c.add(Tick{30}, 3, 300).has_value());
  const auto early = c.add(Tick{5}, 4, 400);  // earlier than all: needs its own
  ASSERT_TRUE(early.has_value());
  EXPECT_EQ(early->at, Tick{5});
  EXPECT_EQ(early->seq, 4U);
  EXPECT_EQ(c.take(4), 400);
  EXPECT_FALSE(c.next_due().has_value());  // item 1 still has its event
  EXPECT_EQ(c.take(1), 100);
  const auto next = c.next_due();
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->at, Tick{10});
  EXPECT_EQ(next->seq, 2U);
  EXPECT_FALSE(c.next_due().has_value());  // asked once only
  EXPECT_EQ(c.take(2), 200);
  EXPECT_EQ(c.next_due()->seq, 3U);
  EXPECT_EQ(c.take(3), 300);
  EXPECT_TRUE(c.empty());
}

TEST(ChainedArrivals, EmplaceAsksForTheSameEventsAndTakesInTheSameOrderAsAdd) {
  // The same adds, through add() on one instance and emplace() on the other, with the events
  // they ask for run in (tick, seq) order in between: both must ask for the same events and
  // hand out the same items.
  std::mt19937_64 rng(7);
  ChainedArrivals<Item> by_add;
  ChainedArrivals<Item> by_emplace;
  using Event = std::pair<std::uint64_t, std::uint64_t>;  // (tick, seq)
  std::vector<Event> pending;                             // events both asked for
  std::uint64_t seq = 0;
  std::uint64_t now = 0;
  int taken = 0;
  for (int i = 0; i < 400; ++i) {
    if (pending.empty() || rng() % 3 != 0) {
      const std::uint64_t at = now + rng() % 40;
      ++seq;
      const auto a = by_add.add(Tick{at}, seq, Item{i, at, 0});
      const auto e = by_emplace.emplace(Tick{at}, seq);
      ASSERT_NE(e.item, nullptr);
      e.item->id = i;
      e.item->due = at;
      ASSERT_EQ(a.has_value(), e.due.has_value()) << "add " << i;
      if (!a) continue;
      EXPECT_EQ(a->at, e.due->at);
      EXPECT_EQ(a->seq, e.due->seq);
      pending.emplace_back(a->at.ps, a->seq);
      continue;
    }
    // Run the earliest event: both instances hand out the same item for it.
    const auto first = std::min_element(pending.begin(), pending.end());
    const Event ev = *first;
    pending.erase(first);
    now = ev.first;
    const Item x = by_add.take(ev.second);
    const Item y = by_emplace.take(ev.second);
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.due, now);
    EXPECT_EQ(y.due, now);
    ++taken;
    const auto na = by_add.next_due();
    const auto ne = by_emplace.next_due();
    ASSERT_EQ(na.has_value(), ne.has_value());
    if (na) {
      EXPECT_EQ(na->seq, ne->seq);
      pending.emplace_back(na->at.ps, na->seq);
    }
  }
  EXPECT_GT(taken, 50);  // the takes really ran
  EXPECT_EQ(by_add.size(), by_emplace.size());
}

TEST(OrderedArrivals, TracksTheEarliestTickThroughInsertsTakesAndRefills) {
  OrderedArrivals<int> a;
  a.add(Tick{20}, 1);
  a.add(Tick{40}, 2);
  EXPECT_EQ(a.earliest(), Tick{20});
  a.add(Tick{30}, 3);  // in the middle: the earliest stays
  EXPECT_EQ(a.earliest(), Tick{20});
  a.add(Tick{10}, 4);  // before all: the new earliest
  EXPECT_EQ(a.earliest(), Tick{10});
  EXPECT_EQ(a.take(), 4);
  EXPECT_EQ(a.earliest(), Tick{20});
  EXPECT_EQ(a.take(), 1);
  EXPECT_EQ(a.earliest(), Tick{30});
  a.add(Tick{35}, 5);  // between 30 and 40, after the last one's predecessor
  EXPECT_EQ(a.take(), 3);
  EXPECT_EQ(a.take(), 5);
  EXPECT_EQ(a.take(), 2);
  EXPECT_TRUE(a.empty());
  a.add(Tick{5}, 6);  // a refill after draining starts afresh (earlier than anything before)
  a.add(Tick{7}, 7);
  a.add(Tick{6}, 8);
  EXPECT_EQ(a.earliest(), Tick{5});
  EXPECT_EQ(a.take(), 6);
  EXPECT_EQ(a.take(), 8);
  EXPECT_EQ(a.take(), 7);
}

}  // namespace
}  // namespace sbrdma::device
