// RaceChecker on its own: the happens-before edges it knows (program order, a doorbell's
// batch, a semaphore written and waited on), the accesses it compares (read/write, write/write,
// not read/read) and how it reports (one race per pair of sides, with repeats).
#include "device/race_checker.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace sbrdma::device {
namespace {

constexpr std::uint64_t kPartition = 0x40000;

/// Words by core, and the descriptor writer of every slot (word 100 + slot).
class FakeOrigins final : public RaceOrigins {
 public:
  [[nodiscard]] std::optional<std::size_t> running_word(CoreId core) const override {
    const auto it = running.find(core);
    return it == running.end() ? std::nullopt : std::optional<std::size_t>(it->second);
  }
  [[nodiscard]] std::optional<std::size_t> descriptor_word(CoreId, unsigned, unsigned,
                                                           unsigned slot) const override {
    return 100 + slot;
  }
  std::map<CoreId, std::size_t> running;
};

struct Rig {
  FakeOrigins origins;
  RaceChecker rc{2, kPartition, origins};
  std::uint64_t seq = 0;
  base::Tick now;

  /// Core `core` issues a write (its release); returns the batch clock a doorbell in it gives.
  std::uint32_t doorbell(CoreId core) {
    rc.on_post(core, ++seq);
    rc.begin_posted(seq);
    const std::uint32_t c = rc.capture_release();
    rc.end_posted();
    return c;
  }
  /// Semaphore `idx` of `target` goes up by one (the checker is told both values).
  void increment(CoreId target, unsigned idx) {
    std::uint32_t& v = sems[{target, idx}];
    rc.on_semaphore_write(target, soc::SemWindow::kInc, idx, v, v + 1);
    ++v;
  }
  /// Core `core` writes semaphore `idx` of core `target` by MMIO (an increment).
  void sem_write(CoreId core, CoreId target, unsigned idx) {
    rc.on_post(core, ++seq);
    rc.begin_posted(seq);
    increment(target, idx);
    rc.end_posted();
  }
  /// Core `core` posts a write of `w` (INC, DEC: by one; SET: to `v`) to its own semaphore
  /// `idx`, which lands.
  void own_write(CoreId core, unsigned idx, soc::SemWindow w, std::uint32_t v = 0) {
    std::uint32_t& cur = sems[{core, idx}];
    const std::uint32_t before = cur;
    cur = w == soc::SemWindow::kInc ? cur + 1 : w == soc::SemWindow::kDec ? cur - 1 : v;
    rc.on_post(core, ++seq);
    rc.begin_posted(seq);
    rc.on_semaphore_write(core, w, idx, before, cur);
    rc.end_posted();
  }
  /// Core `core`'s wait for its semaphore `idx` to be at least `n` passes.
  void acquire(CoreId core, unsigned idx, std::uint32_t n = 1) {
    rc.on_acquire(
        core, idx, [n](std::uint32_t v) { return v >= n; }, now);
  }
  std::map<std::pair<CoreId, unsigned>, std::uint32_t> sems;
  /// A DMA pair of core `core` engine 0 copying `len` bytes of its SBUF at `src` to core
  /// `dst_core`'s SBUF at `dst`, from the batch `batch`.
  /// `s2m_batch`: the clock of the S2M doorbell that published the pair's S2M side (0: none).
  void dma(CoreId core, std::uint32_t batch, std::uint64_t src, CoreId dst_core, std::uint64_t dst,
           std::uint64_t len, unsigned slot = 0, std::uint32_t s2m_batch = 0) {
    const std::uint32_t p = rc.on_take(core, 0, 0, slot, {batch, false}, {s2m_batch, false}, now);
    rc.on_dma(p, core, true, src, dst_core, true, dst, len, now);
    rc.end_pair(p);
  }
  /// A semaphore descriptor of core `core` engine 0 into `target`'s semaphore `idx`.
  void dma_sem(CoreId core, std::uint32_t batch, CoreId target, unsigned idx, unsigned slot = 1) {
    const std::uint32_t p = rc.on_take(core, 0, 0, slot, {batch, false}, {}, now);
    rc.begin_pair(p);
    increment(target, idx);
    rc.end_pair(p);
  }
};

TEST(RaceChecker, ADoorbellOrdersTheCoresEarlierWritesBeforeItsDescriptors) {
  Rig r;
  r.rc.on_core_access(0, 1, 0, 64, true, r.now);  // compute writes the source
  const std::uint32_t b = r.doorbell(0);
  r.dma(0, b, 0, 1, 0x100, 64);
  EXPECT_EQ(r.rc.total(), 0U);
}

TEST(RaceChecker, AWriteAfterTheDoorbellRacesTheDescriptorsRead) {
  Rig r;
  const std::uint32_t b = r.doorbell(0);
  r.origins.running[0] = 7;
  r.rc.on_core_access(0, 1, 0x10, 16, true, r.now);  // overwrites the source too early
  r.now = base::Tick{5000};
  r.dma(0, b, 0, 1, 0x100, 64, 3);
  ASSERT_EQ(r.rc.total(), 1U);
  const Race& x = r.rc.races().front();
  EXPECT_EQ(RaceChecker::where(x), "core 0 SBUF partition 0 bytes [0x10, 0x20)");
  EXPECT_FALSE(x.first.engine.has_value());
  EXPECT_EQ(x.first.pc, std::optional<std::size_t>(7));
  EXPECT_TRUE(x.first.write);
  ASSERT_TRUE(x.second.engine.has_value());
  EXPECT_EQ(x.second.slot, 3U);
  EXPECT_EQ(x.second.pc, std::optional<std::size_t>(103));
  EXPECT_FALSE(x.second.write);
  EXPECT_EQ(x.second.time, base::Tick{5000});
}

TEST(RaceChecker, ASemaphoreWaitOrdersALandingBeforeTheReadsAfterIt) {
  for (const bool wait : {true, false}) {
    Rig r;
    const std::uint32_t b = r.doorbell(0);
    r.dma(0, b, 0, 1, 0x100, 64);  // data into core 1
    r.dma_sem(0, b, 1, 4);         // then its semaphore, from the same queue
    if (wait) r.acquire(1, 4);
    r.rc.on_core_access(1, 1, 0x100, 64, false, r.now);
    EXPECT_EQ(r.rc.total(), wait ? 0U : 1U) << "wait " << wait;
  }
}

/// Engine e of core 0 copies 64 bytes to core 1 at 0x100 + 64 e, then increments core 1's
/// semaphore 4 (one item, its own batch).
void item(Rig& r, unsigned e) {
  const std::uint32_t b = r.doorbell(0);
  const std::uint32_t p = r.rc.on_take(0, e, 0, 0, {b, false}, {}, r.now);
  r.rc.on_dma(p, 0, true, 0, 1, true, 0x100 + 64ULL * e, 64, r.now);
  r.rc.end_pair(p);
  const std::uint32_t q = r.rc.on_take(0, e, 0, 1, {b, true}, {}, r.now);
  r.rc.begin_pair(q);
  r.increment(1, 4);
  r.rc.end_pair(q);
}

/// item() of each engine in [0, engines).
void fan_in(Rig& r, unsigned engines) {
  for (unsigned e = 0; e < engines; ++e) item(r, e);
}

TEST(RaceChecker, AWaitJoinsOnlyTheWritesItCounted) {
  // Eight engines' increments all land before the wait is looked at (one tick, say), but a
  // wait for 7 counted only the first seven: the last engine's data is not ordered before
  // what follows it, whichever engine came last.
  for (const std::uint32_t n : {7U, 8U}) {
    Rig r;
    fan_in(r, 8);
    r.acquire(1, 4, n);
    r.rc.on_core_access(1, 1, 0x100, 8 * 64, false, r.now);
    if (n == 8) {
      EXPECT_EQ(r.rc.total(), 0U);
      continue;
    }
    ASSERT_EQ(r.rc.total(), 1U);
    EXPECT_EQ(r.rc.races().front().second.core, 1U);
    EXPECT_EQ(r.rc.races().front().first.engine, std::optional<unsigned>(7));
    EXPECT_EQ(RaceChecker::where(r.rc.races().front()),
              "core 1 SBUF partition 0 bytes [0x2c0, 0x300)");
    // A second wait, for 8, counts the rest.
    r.acquire(1, 4, 8);
    r.rc.on_core_access(1, 1, 0x100, 8 * 64, false, r.now);
    EXPECT_EQ(r.rc.total(), 1U);
  }
}

TEST(RaceChecker, AWaitThatHeldBeforeTheLaterWritesJoinsNoneOfThem) {
  // Semaphore 4 was 1 when the first wait passed; three more increments come, and a wait for
  // at least 1 passes again at once: it counted none of them.
  Rig r;
  fan_in(r, 1);
  r.acquire(1, 4, 1);
  const std::uint32_t b = r.doorbell(0);
  const std::uint32_t p = r.rc.on_take(0, 1, 0, 0, {b, false}, {}, r.now);
  r.rc.on_dma(p, 0, true, 0, 1, true, 0x800, 64, r.now);
  r.rc.end_pair(p);
  const std::uint32_t q = r.rc.on_take(0, 1, 0, 1, {b, true}, {}, r.now);
  r.rc.begin_pair(q);
  r.increment(1, 4);
  r.rc.end_pair(q);
  r.acquire(1, 4, 1);
  r.rc.on_core_access(1, 1, 0x800, 64, false, r.now);
  EXPECT_EQ(r.rc.total(), 1U);
  // One whose condition the write made true counts it.
  r.acquire(1, 4, 2);
  r.rc.on_core_access(1, 1, 0x800, 64, false, r.now);
  EXPECT_EQ(r.rc.total(), 1U);
}

TEST(RaceChecker, AFencedOwnDecrementCountsBeforeTheIncrementsAroundIt) {
  // Four engines' data and increments land; core 1 takes them one at a time: a wait for 1,
  // a read of item k, its own decrement. Once a fence has seen the decrement land, the next
  // wait for 1 needs one more increment on any device, and joins it; without the fence a
  // device may look at the wait before the decrement lands, and the read of item k+1 races.
  for (const bool fenced : {true, false}) {
    Rig r;
    fan_in(r, 4);
    for (unsigned k = 0; k < 4; ++k) {
      r.acquire(1, 4, 1);
      r.rc.on_core_access(1, 1, 0x100 + 64ULL * k, 64, false, r.now);
      r.own_write(1, 4, soc::SemWindow::kDec);
      if (fenced) r.rc.on_fence(1);
    }
    EXPECT_EQ(r.rc.total(), fenced ? 0U : 3U) << "fenced " << fenced;
  }
}

TEST(RaceChecker, AFenceCountsOnlyTheWaitersOwnWritesPostedBeforeIt) {
  // Two increments and then core 1's decrement: a fenced wait for 1 needs both increments.
  // Core 0's decrement of core 1's semaphore is not core 1's own: the wait counts only the
  // first increment, and the second engine's data races (as it does when core 1's decrement
  // was posted after the fence).
  for (const int who : {0, 1, 2}) {
    Rig r;
    fan_in(r, 2);
    if (who == 2) r.rc.on_fence(1);
    const CoreId poster = who == 0 ? 0 : 1;
    std::uint32_t& v = r.sems[{1, 4}];
    r.rc.on_post(poster, ++r.seq);
    r.rc.begin_posted(r.seq);
    r.rc.on_semaphore_write(1, soc::SemWindow::kDec, 4, v, v - 1);
    r.rc.end_posted();
    --v;
    if (who != 2) r.rc.on_fence(1);
    r.acquire(1, 4, 1);
    r.rc.on_core_access(1, 1, 0x100, 2 * 64, false, r.now);
    EXPECT_EQ(r.rc.total(), who == 1 ? 0U : 1U) << "case " << who;
  }
}

TEST(RaceChecker, AnUnfencedRaiseAndLowerBeforeAWaitIsAnUnfencedWait) {
  // Core 1 raises its semaphore 4 (word 1) and lowers it again (word 2), then an item's
  // increment lands, and word 5 waits for 1. Both its writes landed first here, so the wait
  // needed the item; a device that looks at the wait between the two passes without it.
  // Fenced, both are before the wait on any device.
  for (const bool fenced : {false, true}) {
    Rig r;
    r.origins.running[1] = 1;
    r.own_write(1, 4, soc::SemWindow::kInc);
    r.origins.running[1] = 2;
    r.own_write(1, 4, soc::SemWindow::kDec);
    if (fenced) r.rc.on_fence(1);
    item(r, 0);
    r.origins.running[1] = 5;
    r.now = base::Tick{7000};
    r.acquire(1, 4, 1);
    r.rc.on_core_access(1, 1, 0x100, 64, false, r.now);
    EXPECT_EQ(r.rc.total(), 0U) << "fenced " << fenced;  // the wait still joins the item
    if (fenced) {
      EXPECT_EQ(r.rc.unfenced_total(), 0U);
      continue;
    }
    ASSERT_EQ(r.rc.unfenced_total(), 1U);
    const UnfencedWait& w = r.rc.unfenced_waits().front();
    EXPECT_EQ(w.core, 1U);
    EXPECT_EQ(w.pc, std::optional<std::size_t>(5));
    EXPECT_EQ(w.semaphore, 4U);
    EXPECT_EQ(w.time, base::Tick{7000});
    EXPECT_EQ(w.own, std::vector<std::size_t>{2});  // the raise landed: only the lower matters
    EXPECT_EQ(w.counted, 1U);
    EXPECT_EQ(w.fewest, 0U);
  }
}

TEST(RaceChecker, AnUnfencedConsumerAheadOfItsProducerIsAnUnfencedWait) {
  // Items come one at a time; core 1 waits for 1 (word 3), reads the item, decrements (word
  // 4). Its decrement lands before the next item's increment, so each next wait needs that
  // item here, but not on a device that looks at it before the decrement lands: one unfenced
  // wait per item after the first, all at word 3.
  for (const bool fenced : {false, true}) {
    Rig r;
    for (unsigned k = 0; k < 3; ++k) {
      item(r, k);
      r.origins.running[1] = 3;
      r.acquire(1, 4, 1);
      r.rc.on_core_access(1, 1, 0x100 + 64ULL * k, 64, false, r.now);
      r.origins.running[1] = 4;
      r.own_write(1, 4, soc::SemWindow::kDec);
      if (fenced) r.rc.on_fence(1);
    }
    EXPECT_EQ(r.rc.total(), 0U);
    EXPECT_EQ(r.rc.unfenced_total(), fenced ? 0U : 2U) << "fenced " << fenced;
    if (fenced) continue;
    ASSERT_EQ(r.rc.unfenced_waits().size(), 1U);
    const UnfencedWait& w = r.rc.unfenced_waits().front();
    EXPECT_EQ(w.pc, std::optional<std::size_t>(3));
    EXPECT_EQ(w.own, std::vector<std::size_t>{4});
    EXPECT_EQ(w.repeats, 1U);
  }
}

TEST(RaceChecker, AnUnfencedWaitNeedsOthersThatCarrySomethingNew) {
  // As above, core 1 raises and lowers its semaphore 4 unfenced, and core 0's MMIO write
  // increments it. Where core 1 already knows everything core 0 did (a wait on semaphore 5,
  // which core 0 wrote after), passing without core 0's write orders nothing less.
  for (const bool knows : {false, true}) {
    Rig r;
    r.own_write(1, 4, soc::SemWindow::kInc);
    r.own_write(1, 4, soc::SemWindow::kDec);
    r.sem_write(0, 1, 4);
    r.sem_write(0, 1, 5);
    if (knows) r.acquire(1, 5, 1);
    r.acquire(1, 4, 1);
    EXPECT_EQ(r.rc.unfenced_total(), knows ? 0U : 1U) << "knows " << knows;
  }
}

TEST(RaceChecker, AnEqualsWaitLookedAtBeforeItsOwnUpdateLandsPassesAtOnce) {
  // Core 1 lowers its semaphore 4 by two (word 0, landed), issues a wait for == 0, and two
  // items' increments make it pass. A device that looks at the wait before the decrement lands
  // sees 0 and passes at once, though the value at the end (2, without the decrement) fails
  // the condition. Issued after the items landed instead, the wait would not pass early.
  for (const bool early : {true, false}) {
    Rig r;
    r.origins.running[1] = 0;
    r.own_write(1, 4, soc::SemWindow::kDec);
    r.own_write(1, 4, soc::SemWindow::kDec);
    if (early) r.rc.on_wait(1, 4);
    item(r, 0);
    item(r, 1);
    if (!early) r.rc.on_wait(1, 4);
    r.origins.running[1] = 2;
    r.rc.on_acquire(
        1, 4, [](std::uint32_t v) { return v == 0; }, r.now);
    EXPECT_EQ(r.rc.unfenced_total(), early ? 1U : 0U) << "early " << early;
    if (!early) continue;
    const UnfencedWait& w = r.rc.unfenced_waits().front();
    EXPECT_EQ(w.counted, 2U);
    EXPECT_EQ(w.fewest, 0U);
  }
}

TEST(RaceChecker, AWaitIssuedAfterItsOwnDecrementMayPassOnTheFirstItem) {
  // Core 1's decrement (landed) takes its semaphore to -1 before it issues a wait for 1; two
  // items follow. Here the wait needs both; a device that looks at it before the decrement
  // lands sees 0, and the first item makes it pass.
  Rig r;
  r.own_write(1, 4, soc::SemWindow::kDec);
  r.rc.on_wait(1, 4);
  item(r, 0);
  item(r, 1);
  r.acquire(1, 4, 1);
  ASSERT_EQ(r.rc.unfenced_total(), 1U);
  EXPECT_EQ(r.rc.unfenced_waits().front().counted, 2U);
  EXPECT_EQ(r.rc.unfenced_waits().front().fewest, 1U);
}

TEST(RaceChecker, AWaitOnAnotherOwnSemaphoreProvesNothing) {
  // Core 1 raises and lowers its semaphore 4, then raises its semaphore 5 and waits for it.
  // Here only its own increment passed that wait, which would have it the writes of 4 landed
  // (a core's writes to its semaphores keep their order); but another core's increment of 5,
  // landing later here, may pass it first on a device, while the lower of 4 is still in
  // flight. So the item's wait on 4 is an unfenced wait either way (a review's program: taken
  // as proof, its data went wrong at another dma_fixed_cost with --check-races clean).
  for (const bool waited : {true, false}) {
    Rig r;
    r.own_write(1, 4, soc::SemWindow::kInc);
    r.own_write(1, 4, soc::SemWindow::kDec);
    r.own_write(1, 5, soc::SemWindow::kInc);
    if (waited) r.acquire(1, 5, 1);
    item(r, 0);
    r.acquire(1, 4, 1);
    EXPECT_EQ(r.rc.unfenced_total(), 1U) << "waited " << waited;
  }
}

TEST(RaceChecker, AWaitThatNeedsItsOwnUpdateAsWellIsNoUnfencedWait) {
  // Core 1's own increment, then an item's: a wait for 2 needs both, whichever landed first.
  // Without the own one landed, a device waits on; it never passes on fewer.
  Rig r;
  r.own_write(1, 4, soc::SemWindow::kInc);
  item(r, 0);
  r.acquire(1, 4, 2);
  r.rc.on_core_access(1, 1, 0x100, 64, false, r.now);
  EXPECT_EQ(r.rc.total(), 0U);
  EXPECT_EQ(r.rc.unfenced_total(), 0U);
}

TEST(RaceChecker, WithASetAmongTheWritesTheyCountInTheOrderTheyLanded) {
  // SET then two increments then the fenced decrement: a SET does not commute, so the rule is
  // the landing order's: the wait for 1 held since the first increment and joins that one
  // only (the second engine's data races).
  for (const bool set : {true, false}) {
    Rig r;
    r.own_write(1, 4, set ? soc::SemWindow::kSet : soc::SemWindow::kInc, 0);
    if (!set) r.own_write(1, 4, soc::SemWindow::kDec);
    fan_in(r, 2);
    r.own_write(1, 4, soc::SemWindow::kDec);
    r.rc.on_fence(1);
    r.acquire(1, 4, 1);
    r.rc.on_core_access(1, 1, 0x100, 2 * 64, false, r.now);
    EXPECT_EQ(r.rc.total(), set ? 1U : 0U) << "set " << set;
  }
}

TEST(RaceChecker, ASemaphoreKeepsItsLatestWritesApartAndJoinsTheOldest) {
  // Past kSemWritesKept unjoined writes the oldest are joined into one: a wait for 1 then
  // also orders the second engine's data (it may hide a race, never invent one), while the
  // last engine's stays apart.
  constexpr unsigned kEngines = RaceChecker::kSemWritesKept + 1;
  Rig r;
  fan_in(r, kEngines);
  r.acquire(1, 4, 1);
  r.rc.on_core_access(1, 1, 0x100, 2 * 64, false, r.now);
  EXPECT_EQ(r.rc.total(), 0U);
  r.rc.on_core_access(1, 1, 0x100 + 64ULL * (kEngines - 1), 64, false, r.now);
  EXPECT_EQ(r.rc.total(), 1U);
}

TEST(RaceChecker, NoUnfencedWaitIsCountedAcrossMergedWrites) {
  // Items, then core 1's own unfenced decrement, then one more item; a wait for as many as
  // the items before passes on the last one. Without the decrement it would pass one item
  // earlier: an unfenced wait. Past kSemWritesKept writes the oldest merge, and a merged
  // write is no count of writes: the check stays out of a wait that counted one (D49d).
  for (const unsigned items : {8U, static_cast<unsigned>(RaceChecker::kSemWritesKept) + 2}) {
    Rig r;
    fan_in(r, items);
    r.own_write(1, 4, soc::SemWindow::kDec);
    item(r, items);
    r.acquire(1, 4, items);
    EXPECT_EQ(r.rc.unfenced_total(), items > RaceChecker::kSemWritesKept ? 0U : 1U)
        << items << " items";
  }
}

TEST(RaceChecker, AWaitOnAnotherSemaphoreOrdersNothing) {
  Rig r;
  const std::uint32_t b = r.doorbell(0);
  r.dma(0, b, 0, 1, 0x100, 64);
  r.dma_sem(0, b, 1, 4);
  r.acquire(1, 5);
  r.rc.on_core_access(1, 1, 0x100, 64, false, r.now);
  EXPECT_EQ(r.rc.total(), 1U);
}

TEST(RaceChecker, ASemaphoreWrittenByACoreCarriesItsEarlierAccesses) {
  // Core 1 reads its buffer, then tells core 0 it is free; core 0's DMA overwrites it after
  // waiting for that (no race), or without waiting (a write after a read).
  for (const bool wait : {true, false}) {
    Rig r;
    r.rc.on_core_access(1, 1, 0x100, 64, false, r.now);
    r.sem_write(1, 0, 9);
    if (wait) r.acquire(0, 9);
    const std::uint32_t b = r.doorbell(0);
    r.dma(0, b, 0, 1, 0x100, 64);
    EXPECT_EQ(r.rc.total(), wait ? 0U : 1U) << "wait " << wait;
  }
}

TEST(RaceChecker, ReadsDoNotRaceReadsAndOneActorNeverRacesItself) {
  Rig r;
  r.rc.on_core_access(1, 1, 0, 64, false, r.now);
  r.rc.on_core_access(0, 1, 0, 64, false, r.now);  // its own SBUF, another core's bytes
  const std::uint32_t b = r.doorbell(1);
  r.dma(1, b, 0, 0, 0x200, 64);                   // reads what core 1 read: no race
  r.rc.on_core_access(1, 1, 0, 64, true, r.now);  // core 1 after its own reads: in order
  EXPECT_EQ(r.rc.total(), 1U);  // only the write against the DMA's read, which is unordered
  EXPECT_TRUE(r.rc.races().front().second.write);
  EXPECT_TRUE(r.rc.races().front().first.engine.has_value());
}

TEST(RaceChecker, ABatchOrdersOnlyWhatCameBeforeItsDoorbell) {
  // Two batches of one queue: the second's doorbell follows a write that the first batch's
  // pair must not be ordered after.
  Rig r;
  const std::uint32_t b1 = r.doorbell(0);
  r.rc.on_core_access(0, 1, 0, 64, true, r.now);
  const std::uint32_t b2 = r.doorbell(0);
  r.dma(0, b1, 0, 1, 0x100, 64, 0);  // reads the bytes the write raced
  EXPECT_EQ(r.rc.total(), 1U);
  r.dma(0, b2, 0, 1, 0x200, 64, 1);  // after the second doorbell: ordered
  EXPECT_EQ(r.rc.total(), 1U);
}

TEST(RaceChecker, AnS2MDoorbellOrdersWhatCameBeforeIt) {
  // M2S rung first, then the core writes the destination, then rings S2M: the pair cannot
  // be taken before its S2M side is published, so its write comes after the core's.
  for (const bool s2m : {true, false}) {
    Rig r;
    const std::uint32_t b = r.doorbell(0);
    r.rc.on_core_access(0, 1, 0x100, 64, true, r.now);
    const std::uint32_t s = s2m ? r.doorbell(0) : 0;
    r.dma(0, b, 0x800, 0, 0x100, 64, 0, s);
    EXPECT_EQ(r.rc.total(), s2m ? 0U : 1U) << "s2m " << s2m;
  }
}

TEST(RaceChecker, ALaterS2MDoorbellDoesNotOrderAnEarlierBatchsPairs) {
  // Batch 1 (M2S and S2M rung) is still queued when the core overwrites its source and rings
  // both doorbells of batch 2. Batch 1's pair, taken after that, reads the source: nothing
  // orders the write before it. (Joining every S2M doorbell at its ring hid this: a review
  // found it, a later unrelated rdma_desc_start hiding a source overwritten after a start.)
  Rig r;
  const std::uint32_t m1 = r.doorbell(0);
  const std::uint32_t s1 = r.doorbell(0);
  r.rc.on_core_access(0, 1, 0, 64, true, r.now);  // overwrites batch 1's source
  const std::uint32_t s2 = r.doorbell(0);
  const std::uint32_t m2 = r.doorbell(0);
  r.dma(0, m1, 0, 1, 0x100, 64, 0, s1);
  EXPECT_EQ(r.rc.total(), 1U);
  r.dma(0, m2, 0, 1, 0x200, 64, 1, s2);  // batch 2's pair: after the write
  EXPECT_EQ(r.rc.total(), 1U);
}

TEST(RaceChecker, AQueueKeepsWhatEachDoorbellReleasedWhoeverRangIt) {
  // Core 0's queue takes a batch core 0 rang, then one core 1 rang (a remote doorbell): its
  // later pairs are after both cores' earlier writes, and after nothing else.
  Rig r;
  r.rc.on_core_access(0, 1, 0x100, 16, true, r.now);  // core 0 writes Y
  const std::uint32_t b0 = r.doorbell(0);
  r.dma(0, b0, 0x100, 1, 0x100, 16, 0);               // reads Y: ordered
  r.rc.on_core_access(1, 1, 0x200, 16, true, r.now);  // core 1 writes X (its own SBUF)
  const std::uint32_t b1 = r.doorbell(1);
  r.rc.on_core_access(1, 1, 0x300, 16, true, r.now);  // and Z, after its doorbell
  EXPECT_EQ(r.rc.total(), 0U);
  // The pair core 1's batch publishes reads X and Y (ordered), and writes Z (not ordered).
  const std::uint32_t p = r.rc.on_take(0, 0, 0, 1, {b1, true}, {}, r.now);
  r.rc.on_dma(p, 1, true, 0x200, 0, true, 0x400, 16, r.now);
  r.rc.on_dma(p, 0, true, 0x100, 0, true, 0x500, 16, r.now);
  EXPECT_EQ(r.rc.total(), 0U);
  r.rc.on_dma(p, 0, true, 0x600, 1, true, 0x300, 16, r.now);
  EXPECT_EQ(r.rc.total(), 1U);
  r.rc.end_pair(p);
}

TEST(RaceChecker, APairJoinsTheS2MDoorbellThatPublishedItsSideWhoeverRangIt) {
  // Core 1 rings the M2S side; core 0 writes X and publishes the S2M side; core 1 rings S2M
  // for the next pair; core 0 writes Y, then rings S2M for a third. The first pair, which
  // writes X, comes after core 0's first doorbell and so after its write; the second, whose
  // S2M side core 1 published, is not after Y, though core 0's second doorbell rang before
  // it was taken.
  Rig r;
  const std::uint32_t b = r.doorbell(1);
  r.rc.on_core_access(0, 1, 0, 8, true, r.now);
  const std::uint32_t s0 = r.doorbell(0);
  const std::uint32_t s1 = r.doorbell(1);
  r.rc.on_core_access(0, 1, 0x40, 8, true, r.now);  // Y
  r.doorbell(0);  // core 0's S2M doorbell for a third pair (never taken)
  const std::uint32_t p = r.rc.on_take(0, 0, 0, 0, {b, false}, {s0, true}, r.now);
  r.rc.on_dma(p, 1, true, 0x20, 0, true, 0, 8, r.now);
  r.rc.end_pair(p);
  EXPECT_EQ(r.rc.total(), 0U);
  const std::uint32_t q = r.rc.on_take(0, 0, 0, 1, {b, true}, {s1, true}, r.now);
  r.rc.on_dma(q, 1, true, 0x20, 0, true, 0x40, 8, r.now);
  r.rc.end_pair(q);
  EXPECT_EQ(r.rc.total(), 1U);
}

TEST(RaceChecker, OneRaceLinePerPairOfSidesWithItsRepeatsCounted) {
  Rig r;
  r.origins.running[1] = 2;
  const std::uint32_t b = r.doorbell(0);
  for (unsigned slot = 0; slot < 4; ++slot) {  // four descriptors of one word (100 + slot...)
    r.dma(0, b, 0x1000 * slot, 1, 0x1000 * slot, 0x1000, slot);
  }
  r.rc.on_core_access(1, 2, 0, 0x4000, false, r.now);  // two partitions
  // Each descriptor is its own word in this fake, so four sides; core 1's read of partition
  // 1 touches none of them.
  EXPECT_EQ(r.rc.total(), 4U);
  EXPECT_EQ(r.rc.races().size(), 4U);
  Rig s;
  const std::uint32_t c = s.doorbell(0);
  for (unsigned k = 0; k < 4; ++k) s.dma(0, c, 0x1000 * k, 1, 0x1000 * k, 0x1000, 0);  // one word
  s.rc.on_core_access(1, 1, 0, 0x4000, false, s.now);
  EXPECT_EQ(s.rc.total(), 4U);
  ASSERT_EQ(s.rc.races().size(), 1U);
  EXPECT_EQ(s.rc.races().front().repeats, 3U);
}

TEST(RaceChecker, PartialOverlapsSplitAndNameTheOverlap) {
  Rig r;
  const std::uint32_t b = r.doorbell(0);
  r.dma(0, b, 0, 1, 0x100, 0x100);                        // writes [0x100, 0x200) of core 1
  r.rc.on_core_access(1, 1, 0x180, 0x100, false, r.now);  // reads [0x180, 0x280)
  ASSERT_EQ(r.rc.total(), 1U);
  EXPECT_EQ(RaceChecker::where(r.rc.races().front()),
            "core 1 SBUF partition 0 bytes [0x180, 0x200)");
  // A later partition is named by its own offsets.
  r.rc.on_core_access(1, 3, 0x10, 0x10, true, r.now);  // partitions 0..2, no DMA there
  EXPECT_EQ(r.rc.total(), 1U);
  r.dma(0, b, 0, 1, 2 * kPartition + 0x14, 4, 1);
  ASSERT_EQ(r.rc.total(), 2U);
  EXPECT_EQ(RaceChecker::where(r.rc.races().back()), "core 1 SBUF partition 2 bytes [0x14, 0x18)");
}

TEST(RaceChecker, ARaceNamesThePartitionsAndBytesItsRepeatsSpan) {
  Rig r;
  const std::uint32_t b = r.doorbell(0);
  r.dma(0, b, 0, 1, 0x100, 0x20, 0);                   // partition 0 [0x100, 0x120)
  r.dma(0, b, 0, 1, 3 * kPartition + 0x120, 0x20, 0);  // partition 3 [0x120, 0x140)
  r.rc.on_core_access(1, 4, 0, 0x1000, false, r.now);
  ASSERT_EQ(r.rc.races().size(), 1U);
  EXPECT_EQ(r.rc.races().front().repeats, 1U);
  // Partitions 1 and 2 had no DMA: not named.
  EXPECT_EQ(RaceChecker::where(r.rc.races().front()),
            "core 1 SBUF bytes [0x100, 0x140) of partitions 0 and 3");
}

TEST(RaceChecker, AWriteWriteRaceAcrossTwoCoresDMAs) {
  Rig r;
  const std::uint32_t b0 = r.doorbell(0);
  const std::uint32_t b1 = r.doorbell(1);
  r.dma(0, b0, 0, 0, 0x800, 64);  // core 0 into its own 0x800
  r.dma(1, b1, 0, 0, 0x800, 64);  // core 1 into core 0's 0x800 too
  ASSERT_EQ(r.rc.total(), 1U);
  EXPECT_TRUE(r.rc.races().front().first.write);
  EXPECT_TRUE(r.rc.races().front().second.write);
  EXPECT_EQ(r.rc.races().front().second.core, 1U);
}

TEST(RaceChecker, ACopyOntoBytesItReadsRacesWithItself) {
  // [CHOICE D49c] One pair whose source and destination overlap in one memory: a device
  // moves it in pieces, with nothing ordering one piece's write before another's read.
  Rig r;
  r.now = base::Tick{7000};
  r.dma(0, r.doorbell(0), 0x100, 0, 0x110, 64, 2);  // [0x100, 0x140) onto [0x110, 0x150)
  ASSERT_EQ(r.rc.total(), 1U);
  const Race& x = r.rc.races().front();
  EXPECT_TRUE(x.self);
  EXPECT_EQ(RaceChecker::where(x), "core 0 SBUF partition 0 bytes [0x110, 0x140)");
  EXPECT_FALSE(x.first.write);
  EXPECT_TRUE(x.second.write);
  EXPECT_EQ(x.first.slot, 2U);
  EXPECT_EQ(x.second.slot, 2U);
  EXPECT_EQ(x.second.time, base::Tick{7000});
  // Ranges that meet without overlapping, a copy onto the very same bytes and the same
  // offsets of another core are no such race.
  Rig apart;
  apart.dma(0, apart.doorbell(0), 0x100, 0, 0x140, 64);
  apart.dma(0, apart.doorbell(0), 0x200, 0, 0x200, 64);
  apart.dma(0, apart.doorbell(0), 0x300, 1, 0x310, 64);
  EXPECT_EQ(apart.rc.total(), 0U);
}

/// A program's (core's) access at word `pc`.
RaceAccess side(CoreId core, std::size_t pc, bool write) {
  RaceAccess x;
  x.core = core;
  x.pc = pc;
  x.write = write;
  return x;
}

TEST(RaceLog, OneRacePerPairOfSidesWidenedInItsOwnMemoryOnly) {
  RaceLog log(kPartition);
  RaceAccess dma = side(0, 7, true);
  dma.engine = 3;
  dma.slot = 5;
  RaceAccess prog = side(1, 2, false);
  log.add(1, true, 0x100, 0x110, dma, prog);
  // Another engine and slot of the same word: the same race, widened.
  RaceAccess dma2 = dma;
  dma2.engine = 4;
  dma2.slot = 6;
  log.add(1, true, 2 * kPartition + 0x80, 2 * kPartition + 0x90, dma2, prog);
  // The same two sides in another memory: counted, the place kept.
  log.add(0, true, 0x0, 0x1000, dma, prog);
  ASSERT_EQ(log.races().size(), 1U);
  EXPECT_EQ(log.races().front().repeats, 2U);
  EXPECT_TRUE(log.races().front().first_others);  // engine 4 as well as the named engine 3
  EXPECT_FALSE(log.races().front().second_others);
  EXPECT_EQ(RaceChecker::where(log.races().front()),
            "core 1 SBUF bytes [0x80, 0x90) and [0x100, 0x110) of partitions 0 and 2");
  // The program reading instead of writing, a DMA as the second side, another word: new races.
  RaceAccess prog_w = prog;
  prog_w.write = true;
  log.add(1, true, 0x100, 0x110, dma, prog_w);
  log.add(1, true, 0x100, 0x110, dma, dma);
  RaceAccess prog9 = prog;
  prog9.pc = 9;
  log.add(1, true, 0x100, 0x110, dma, prog9);
  EXPECT_EQ(log.races().size(), 4U);
  EXPECT_EQ(log.total(), 6U);
  // Another memory than SBUF has no partitions.
  log.add(1, false, 0x5000, 0x5008, prog, dma);
  EXPECT_EQ(RaceChecker::where(log.races().back()), "core 1 memory bytes [0x5000, 0x5008)");
}

TEST(RaceLog, APlaceNamesOnlyThePartitionsAndBytesItsRepeatsTouched) {
  const RaceAccess dma = side(0, 7, true);
  const RaceAccess prog = side(1, 2, false);
  const auto where = [&](const std::vector<std::pair<std::uint64_t, std::uint64_t>>& hits) {
    RaceLog log(kPartition);  // each hit: partition, byte offset (16 bytes)
    for (const auto& [p, at] : hits)
      log.add(1, true, p * kPartition + at, p * kPartition + at + 16, dma, prog);
    return RaceChecker::where(log.races().front());
  };
  // Every 8th partition.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> hits;
  for (std::uint64_t p = 0; p <= 120; p += 8) hits.emplace_back(p, 0);
  EXPECT_EQ(where(hits), "core 1 SBUF bytes [0x0, 0x10) of partitions 0-120 (every 8th)");
  // Ranges of partitions; bytes that touch merge.
  EXPECT_EQ(where({{0, 0}, {1, 0x10}, {2, 0}, {3, 0}, {8, 0}, {9, 0}, {21, 0}}),
            "core 1 SBUF bytes [0x0, 0x20) of partitions 0-3, 8-9 and 21");
  EXPECT_EQ(where({{0, 0}, {2, 0}, {3, 0}, {5, 0}, {9, 0}}),
            "core 1 SBUF bytes [0x0, 0x10) of 5 of partitions 0-9");
  EXPECT_EQ(where({{0, 0}, {3, 0}, {6, 0}, {9, 0}}),
            "core 1 SBUF bytes [0x0, 0x10) of partitions 0-9 (every 3rd)");
  // Up to four byte ranges by name; past that, the span they lie in.
  EXPECT_EQ(where({{4, 0x2000}, {4, 0}, {4, 0x1000}, {4, 0x3000}}),
            "core 1 SBUF partition 4 bytes [0x0, 0x10), [0x1000, 0x1010), [0x2000, 0x2010) and "
            "[0x3000, 0x3010)");
  EXPECT_EQ(where({{4, 0x2000}, {4, 0}, {4, 0x1000}, {4, 0x3000}, {4, 0x4000}}),
            "core 1 SBUF partition 4 bytes in [0x0, 0x4010)");
  // A range that fills the gaps between kept ones merges them.
  EXPECT_EQ(where({{4, 0}, {4, 0x20}, {4, 0x40}, {4, 0x8}}),
            "core 1 SBUF partition 4 bytes [0x0, 0x18), [0x20, 0x30) and [0x40, 0x50)");
}

TEST(RaceLog, KeepsAtMostKKeptRacesAndCountsThemAll) {
  RaceLog log(kPartition);
  const RaceAccess a = side(0, 0, true);
  for (std::size_t i = 0; i < RaceLog::kKept + 5; ++i) {
    log.add(0, true, 0, 4, a, side(1, i, false));
  }
  log.add(0, true, 0, 4, a, side(1, 0, false));  // a repeat of a kept one
  EXPECT_EQ(log.races().size(), RaceLog::kKept);
  EXPECT_EQ(log.total(), RaceLog::kKept + 6);
  EXPECT_EQ(log.races().front().repeats, 1U);
  EXPECT_FALSE(log.races().front().first_others);  // the same side again
}

}  // namespace
}  // namespace sbrdma::device
