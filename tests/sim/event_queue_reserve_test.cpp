// Reserved sequence numbers: an event whose seq is reserved when it is decided and pushed
// later (push_reserved) pops exactly where a plain push at decision time would have, as long
// as it is in the queue by the time it could be the earliest. Checked on a random schedule
// whose events schedule more events, with and without a tie seed.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sim/event_queue.h"
#include "sim/kernel.h"

namespace sbrdma::sim {
namespace {

using base::Tick;

/// One popped event as seen by the test.
struct Popped {
  std::uint64_t time = 0;
  std::uint64_t seq = 0;
  int id = 0;
  bool operator==(const Popped&) const = default;
};

/// A decided event not pushed yet (reserve mode only).
struct Deferred {
  std::uint64_t time = 0;
  std::uint64_t seq = 0;
  int id = 0;
};

/// Runs a random schedule of `n` events. Each popped event decides up to three new ones at
/// now + [0, 40) (ties are common). With `reserve`, new events get a reserved seq and enter
/// the queue at a random later step, at the latest just before the queue's next time reaches
/// theirs.
std::vector<Popped> run(std::uint64_t tie_seed, bool reserve, int n) {
  EventQueue q(tie_seed);
  std::mt19937_64 decide(7);   // what events decide: the same in both modes
  std::mt19937_64 delay(11);   // when deferred events enter (reserve mode only)
  std::vector<Deferred> deferred;
  std::vector<Popped> out;
  int next_id = 0;
  int fired = -1;
  auto add = [&](std::uint64_t t) {
    const int id = next_id++;
    if (!reserve) {
      q.push(Tick{t}, [&fired, id] { fired = id; }, "e");
      return;
    }
    deferred.push_back(Deferred{t, q.reserve_seq(), id});
  };
  auto flush = [&](bool only_due) {
    for (std::size_t i = 0; i < deferred.size();) {
      const Deferred d = deferred[i];
      const bool due = q.empty() || d.time <= q.next_time().ps;
      if (due || (!only_due && delay() % 3 == 0)) {
        q.push_reserved(Tick{d.time}, d.seq, [&fired, id = d.id] { fired = id; }, "e");
        deferred[i] = deferred.back();
        deferred.pop_back();
      } else {
        ++i;
      }
    }
  };
  for (int i = 0; i < 8; ++i) add(decide() % 40);
  while (out.size() < static_cast<std::size_t>(n)) {
    flush(false);
    flush(true);  // what must be in before the next pop (after random pushes moved next_time)
    if (q.empty()) break;
    Event ev = q.pop();
    ev.fn();
    out.push_back(Popped{ev.time.ps, ev.seq, fired});
    const unsigned k = decide() % 4;
    for (unsigned j = 0; j < k; ++j) add(ev.time.ps + decide() % 40);
  }
  return out;
}

TEST(EventQueueReserve, ReservedPushesPopInPlainPushOrder) {
  const auto plain = run(0, false, 5000);
  ASSERT_EQ(plain.size(), 5000U);
  EXPECT_EQ(run(0, true, 5000), plain);
}

TEST(EventQueueReserve, ReservedPushesPopInPlainPushOrderWithTieSeed) {
  const auto plain = run(0x5eed, false, 5000);
  ASSERT_EQ(plain.size(), 5000U);
  EXPECT_EQ(run(0x5eed, true, 5000), plain);
  EXPECT_NE(plain, run(0, false, 5000));  // the seed did shuffle something
}

TEST(EventQueueReserve, ReserveCountsAsHandedOutAndKeepsSeqs) {
  EventQueue q;
  const std::uint64_t a = q.reserve_seq();
  const std::uint64_t b = q.push(Tick{5}, [] {}, "b");
  EXPECT_EQ(q.pushed(), 2U);
  EXPECT_EQ(q.size(), 1U);
  q.push_reserved(Tick{5}, a, [] {}, "a");  // decided first: runs first at the same time
  const Event first = q.pop();
  EXPECT_EQ(first.seq, a);
  EXPECT_EQ(first.label, "a");
  EXPECT_EQ(q.pop().seq, b);
}

TEST(KernelReserve, ScheduleAtRunsAtTheReservedPlace) {
  Kernel k;
  std::string order;
  const std::uint64_t early = k.reserve_seq();
  k.schedule(Tick{10}, [&] { order += "p"; }, "p");
  k.schedule_at(Tick{10}, early, [&] { order += "r"; }, "r");
  k.run();
  EXPECT_EQ(order, "rp");
  EXPECT_EQ(k.now(), Tick{10});
}

}  // namespace
}  // namespace sbrdma::sim
