// The 4-ary heap under random interleaved pushes and pops, with and without a tie seed: the
// pop order must be the sorted (time, tie) order of what is pending, ties in push order
// without a seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "sim/event_queue.h"

namespace sbrdma::sim {
namespace {

/// Runs random pushes (times in a small range, so ties are common) and pops; returns the
/// popped (time, seq) pairs and checks each pop against the pending set.
std::vector<std::pair<std::uint64_t, std::uint64_t>> churn(std::uint64_t seed) {
  EventQueue q(seed);
  std::mt19937_64 rng(99);
  std::multimap<std::uint64_t, std::uint64_t> pending;  // time -> seq
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  std::uint64_t now = 0;
  for (int step = 0; step < 20000; ++step) {
    if (pending.empty() || rng() % 5 < 3) {
      const std::uint64_t t = now + rng() % 64;
      const std::uint64_t seq = q.push(base::Tick{t}, [] {}, "x");
      pending.emplace(t, seq);
    } else {
      EXPECT_EQ(q.next_time().ps, pending.begin()->first);
      const Event ev = q.pop();
      now = ev.time.ps;
      // The earliest time, and one of the events pending at it.
      EXPECT_EQ(now, pending.begin()->first);
      auto [lo, hi] = pending.equal_range(now);
      auto it = std::find_if(lo, hi, [&](const auto& p) { return p.second == ev.seq; });
      EXPECT_NE(it, hi);
      if (seed == 0) {
        EXPECT_EQ(it, lo);  // no seed: ties in push order
      }
      if (it != hi) pending.erase(it);
      out.emplace_back(now, ev.seq);
    }
    EXPECT_EQ(q.size(), pending.size());
  }
  return out;
}

TEST(EventQueueHeap, RandomPushesAndPopsComeOutInTimeThenTieOrder) {
  const auto plain = churn(0);
  EXPECT_GT(plain.size(), 5000U);
  const auto seeded = churn(7);
  EXPECT_EQ(seeded, churn(7));  // a seed reproduces its order
  EXPECT_NE(seeded, plain);     // and shuffles some ties
}

}  // namespace
}  // namespace sbrdma::sim
