// The event queue against a plain reference (a std::set of (time, tie, seq)) under random
// interleavings of everything its users do: same-time bursts, reserved sequence numbers entered
// late (at the time being popped, below the tie just popped, and later), far-future outliers,
// pushes before the time being popped (allowed by the queue, though not by the kernel), clear(),
// with and without a tie seed. Every pop must be exactly the reference's earliest event.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "sim/event_queue.h"

namespace sbrdma::sim {
namespace {

/// The queue's documented tie: the sequence number, or with a seed splitmix64's finaliser of
/// (seq ^ finaliser(seed)). Restated here so that the reference does not use the queue's code.
std::uint64_t ref_tie(std::uint64_t seed, std::uint64_t seq) {
  const auto mix = [](std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  return seed == 0 ? seq : mix(seq ^ mix(seed));
}

/// Weights of the random operations, out of 100.
struct Mix {
  int push_now = 20;       // at the time being popped
  int push_near = 25;      // a few distinct times ahead (buckets of many events)
  int push_far = 2;        // an outlier far ahead
  int push_before = 1;     // earlier than the time being popped
  int reserve = 10;        // hand out a sequence number for later
  int push_reserved = 10;  // enter a reserved one, at now or ahead
  // the rest: pop
};

struct Counts {
  std::uint64_t pops = 0;
  std::uint64_t same_time_pops = 0;
  std::uint64_t reserved_below_popped = 0;  // entered at now with a tie below the last pop's
};

using Ref = std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>>;  // time tie seq

/// Runs `steps` random operations on a queue and the reference; checks every observable.
Counts run_differential(std::uint64_t seed, std::uint64_t rng_seed, int steps, Mix mix,
                        bool with_clear) {
  EventQueue q(seed);
  Ref ref;
  std::mt19937_64 rng(rng_seed);
  std::vector<std::uint64_t> reserved;
  std::uint64_t now = 0;
  std::uint64_t last_tie = 0;
  std::uint64_t ran = UINT64_MAX;
  Counts counts;
  const auto pick = [&](int weight, int& acc, int roll) {
    acc += weight;
    return roll < acc;
  };
  const auto near_time = [&] { return now + 1000 * (1 + rng() % 4); };
  for (int step = 0; step < steps; ++step) {
    const int roll = static_cast<int>(rng() % 100);
    int acc = 0;
    if (with_clear && rng() % 5000 == 0) {
      q.clear();
      ref.clear();
    } else if (pick(mix.push_now, acc, roll)) {
      const std::uint64_t seq = q.push(
          base::Tick{now}, [&ran, s = q.pushed()] { ran = s; }, "n");
      ref.emplace(now, ref_tie(seed, seq), seq);
    } else if (pick(mix.push_near, acc, roll)) {
      const std::uint64_t t = near_time();
      const std::uint64_t seq = q.push(
          base::Tick{t}, [&ran, s = q.pushed()] { ran = s; }, "a");
      ref.emplace(t, ref_tie(seed, seq), seq);
    } else if (pick(mix.push_far, acc, roll)) {
      const std::uint64_t t = now + (std::uint64_t{1} << 40) + rng() % 3;
      const std::uint64_t seq = q.push(
          base::Tick{t}, [&ran, s = q.pushed()] { ran = s; }, "f");
      ref.emplace(t, ref_tie(seed, seq), seq);
    } else if (pick(mix.push_before, acc, roll)) {
      const std::uint64_t t = now - std::min<std::uint64_t>(now, 1 + rng() % 1500);
      const std::uint64_t seq = q.push(
          base::Tick{t}, [&ran, s = q.pushed()] { ran = s; }, "b");
      ref.emplace(t, ref_tie(seed, seq), seq);
    } else if (pick(mix.reserve, acc, roll)) {
      reserved.push_back(q.reserve_seq());
    } else if (pick(mix.push_reserved, acc, roll)) {
      if (reserved.empty()) continue;
      const std::size_t i = rng() % reserved.size();
      const std::uint64_t seq = reserved[i];
      reserved[i] = reserved.back();
      reserved.pop_back();
      const std::uint64_t t = rng() % 2 == 0 ? now : near_time();
      if (t == now && ref_tie(seed, seq) < last_tie) ++counts.reserved_below_popped;
      q.push_reserved(
          base::Tick{t}, seq, [&ran, seq] { ran = seq; }, "r");
      ref.emplace(t, ref_tie(seed, seq), seq);
    } else if (!ref.empty()) {
      const auto [t, tie, seq] = *ref.begin();
      ref.erase(ref.begin());
      EXPECT_EQ(q.next_time().ps, t);
      Event ev = q.pop();
      EXPECT_EQ(ev.time.ps, t);
      EXPECT_EQ(ev.seq, seq) << "step " << step;
      if (ev.seq != seq) return counts;  // one divergence explains the rest
      ev.fn();
      EXPECT_EQ(ran, seq);
      if (t == now) ++counts.same_time_pops;
      ++counts.pops;
      now = t;
      last_tie = tie;
    }
    if (q.size() != ref.size() || q.empty() != ref.empty()) {
      ADD_FAILURE() << "size " << q.size() << " vs " << ref.size() << " at step " << step;
      return counts;
    }
  }
  // Drain: the rest comes out in order too.
  for (const auto& [t, tie, seq] : ref) {
    if (q.empty()) {
      ADD_FAILURE() << "the queue drained early";
      return counts;
    }
    const Event ev = q.pop();
    EXPECT_EQ(ev.time.ps, t);
    EXPECT_EQ(ev.seq, seq);
    if (ev.seq != seq) return counts;
  }
  EXPECT_TRUE(q.empty());
  return counts;
}

TEST(EventQueueDiff, MatchesReferenceWithoutSeed) {
  for (std::uint64_t r = 1; r <= 4; ++r) {
    const Counts c = run_differential(0, r, 40000, Mix{}, false);
    // The run really exercised what it is about.
    EXPECT_GT(c.pops, 5000U);
    EXPECT_GT(c.same_time_pops, 2000U);
    EXPECT_GT(c.reserved_below_popped, 100U);
  }
}

TEST(EventQueueDiff, MatchesReferenceWithSeeds) {
  for (const std::uint64_t seed : {1ULL, 7ULL, 0xdeadbeefULL}) {
    const Counts c = run_differential(seed, seed + 10, 40000, Mix{}, false);
    EXPECT_GT(c.pops, 5000U);
    EXPECT_GT(c.reserved_below_popped, 100U);
  }
}

TEST(EventQueueDiff, MatchesReferenceAcrossClears) {
  run_differential(0, 21, 60000, Mix{}, true);
  run_differential(3, 22, 60000, Mix{}, true);
}

TEST(EventQueueDiff, MatchesReferenceWhenEveryTimeIsDistinctOrShared) {
  // Few pops: the queue grows to thousands of pending times and buckets.
  Mix grow;
  grow.push_near = 40;
  grow.push_far = 10;
  run_differential(0, 31, 30000, grow, false);
  // Only pops and pushes at the time being popped: one bucket refilled while it drains.
  Mix burst{};
  burst.push_now = 45;
  burst.push_near = 3;
  burst.push_far = 0;
  burst.push_before = 0;
  burst.reserve = 15;
  burst.push_reserved = 15;
  run_differential(0, 32, 30000, burst, false);
  run_differential(5, 33, 30000, burst, false);
}

TEST(EventQueueDiff, EndlessSameTimeChainKeepsItsOrder) {
  // Each pop pushes the next event at the same time (and now and then a reserved one below
  // it): one run grows at its end as it pops from its head, far past the point where it gives
  // back its popped prefix.
  EventQueue q;
  Ref ref;
  std::vector<std::uint64_t> reserved;
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t seq = q.push(
        base::Tick{7}, [] {}, "c");
    ref.emplace(7, seq, seq);
  }
  for (int step = 0; step < 30000; ++step) {
    const auto [t, tie, seq] = *ref.begin();
    ref.erase(ref.begin());
    const Event ev = q.pop();
    ASSERT_EQ(ev.seq, seq) << "step " << step;
    if (step % 7 == 0) reserved.push_back(q.reserve_seq());
    const std::uint64_t next = q.push(
        base::Tick{7}, [] {}, "c");
    ref.emplace(7, next, next);
    if (step % 11 == 0 && !reserved.empty()) {
      q.push_reserved(
          base::Tick{7}, reserved.back(), [] {}, "r");
      ref.emplace(7, reserved.back(), reserved.back());
      reserved.pop_back();
    }
  }
  while (!ref.empty()) {
    ASSERT_EQ(q.pop().seq, std::get<2>(*ref.begin()));
    ref.erase(ref.begin());
  }
  EXPECT_TRUE(q.empty());
}

TEST(EventQueueDiff, ReservedEventRightAfterALongRunGivesBackItsPrefix) {
  // 6000 events at one time form one run; popping past 4096 of them makes the run give back
  // its popped prefix. Reserved (older) sequence numbers entered at that time right then, and
  // after a few more pops, must still pop next, and the run's rest after them in order.
  EventQueue q;
  Ref ref;
  std::vector<std::uint64_t> reserved;
  for (int i = 0; i < 8; ++i) reserved.push_back(q.reserve_seq());
  for (int i = 0; i < 6000; ++i) {
    const std::uint64_t seq = q.push(
        base::Tick{5}, [] {}, "b");
    ref.emplace(5, seq, seq);
  }
  const auto pop_checked = [&](int step) {
    const auto [t, tie, seq] = *ref.begin();
    ref.erase(ref.begin());
    const Event ev = q.pop();
    EXPECT_EQ(ev.time.ps, t);
    EXPECT_EQ(ev.seq, seq) << "pop " << step;
  };
  int step = 0;
  for (; step < 4097; ++step) pop_checked(step);  // the 4097th pop compacts the run
  for (int k = 0; k < 8; ++k) {
    q.push_reserved(
        base::Tick{5}, reserved[k], [] {}, "r");
    ref.emplace(5, reserved[k], reserved[k]);
    if (k % 2 == 1) pop_checked(step++);  // some pop between the entries
    if (k == 5) {
      const std::uint64_t later = q.push(
          base::Tick{5}, [] {}, "l");
      ref.emplace(5, later, later);
    }
  }
  EXPECT_EQ(q.size(), ref.size());
  while (!ref.empty()) pop_checked(step++);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueueDiff, EarlierPushAfterPartPopsPopsFirstAndTheRestResumes) {
  // A time partly popped, then an event before it: the earlier one pops, then the rest of the
  // first time in order, including what was pushed to it out of order meanwhile.
  EventQueue q;
  std::vector<std::uint64_t> s;
  const std::uint64_t r = q.reserve_seq();
  for (int i = 0; i < 4; ++i)
    s.push_back(q.push(
        base::Tick{100}, [] {}, "x"));
  EXPECT_EQ(q.pop().seq, s[0]);
  EXPECT_EQ(q.pop().seq, s[1]);
  q.push_reserved(
      base::Tick{100}, r, [] {}, "r");  // below everything: pops next
  const std::uint64_t early = q.push(
      base::Tick{50}, [] {}, "e");
  EXPECT_EQ(q.next_time().ps, 50U);
  EXPECT_EQ(q.pop().seq, early);
  EXPECT_EQ(q.pop().seq, r);
  EXPECT_EQ(q.pop().seq, s[2]);
  EXPECT_EQ(q.pop().seq, s[3]);
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace sbrdma::sim
