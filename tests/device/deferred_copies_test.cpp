// DeferredCopies: held copies give the bytes immediate copies give, whatever depends on what,
// on one thread or two.
#include "device/deferred_copies.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "base/split_work.h"

namespace sbrdma::device {
namespace {

constexpr std::uint64_t kPage = 64 * 1024;
constexpr std::uint64_t kValid = 56 * 1024;  // with holes, as an SBUF's partitions
constexpr std::uint64_t kPages = 8;

/// Two memories as the machine has them (SBUFs), and a twin of each that takes every copy at
/// once: the reference.
struct Rig {
  std::vector<std::unique_ptr<PagedMemory>> held;
  std::vector<std::unique_ptr<PagedMemory>> now;
  Rig() {
    for (int i = 0; i < 2; ++i) {
      held.push_back(std::make_unique<PagedMemory>(kPages * kPage, kPage, kValid));
      now.push_back(std::make_unique<PagedMemory>(kPages * kPage, kPage, kValid));
    }
    // Distinct bytes everywhere, but the last page of each memory, left untouched (reads zero).
    std::vector<std::uint8_t> bytes(kValid);
    for (int m = 0; m < 2; ++m) {
      for (std::uint64_t p = 0; p + 1 < kPages; ++p) {
        for (std::size_t i = 0; i < bytes.size(); ++i) {
          bytes[i] = static_cast<std::uint8_t>(i * 31 + p * 7 + m * 101);
        }
        held[m]->write(p * kPage, bytes);
        now[m]->write(p * kPage, bytes);
      }
    }
  }
  /// Copies into both: held through `d` (or at once when it cannot be held), now at once.
  void copy(DeferredCopies& d, int s, std::uint64_t so, int t, std::uint64_t to,
            std::uint64_t len) {
    if (!d.add(*held[s], so, *held[t], to, len)) {
      d.run();
      copy_bytes(*held[s], so, *held[t], to, len);
    }
    copy_bytes(*now[s], so, *now[t], to, len);
  }
  /// Both memories equal their twins.
  void expect_same() const {
    std::vector<std::uint8_t> a(kValid);
    std::vector<std::uint8_t> b(kValid);
    for (int m = 0; m < 2; ++m) {
      for (std::uint64_t p = 0; p < kPages; ++p) {
        held[m]->read(p * kPage, a);
        now[m]->read(p * kPage, b);
        ASSERT_EQ(a, b) << "memory " << m << " page " << p;
      }
    }
  }
};

TEST(DeferredCopies, HeldCopiesWaitForRunAndThenGiveTheBytes) {
  Rig r;
  DeferredCopies d;
  std::vector<std::uint8_t> before(100);
  r.held[1]->read(kPage + 10, before);
  ASSERT_TRUE(d.add(*r.held[0], 10, *r.held[1], kPage + 10, 100));
  EXPECT_FALSE(d.empty());
  d.run();
  EXPECT_TRUE(d.empty());
  EXPECT_EQ(d.copies_run(), 1U);
  EXPECT_EQ(d.batches_run(), 1U);
  r.copy(d, 0, 10, 1, kPage + 10, 100);  // the reference's copy, and the same again held
  d.run();
  r.expect_same();
  std::vector<std::uint8_t> after(100);
  r.held[1]->read(kPage + 10, after);
  EXPECT_NE(after, before);
}

TEST(DeferredCopies, ACopyThatDependsOnAHeldOneRunsItFirst) {
  Rig r;
  DeferredCopies d;
  r.copy(d, 0, 0, 1, 0, 4096);  // A: 0[0, 4096) -> 1[0, 4096)
  EXPECT_EQ(d.batches_run(), 0U);
  r.copy(d, 1, 1000, 0, 2 * kPage, 2000);  // B reads what A writes: A runs first
  EXPECT_EQ(d.batches_run(), 1U);
  r.copy(d, 1, 5 * kPage, 0, 2 * kPage + 500, 100);  // C writes what B writes: B first
  EXPECT_EQ(d.batches_run(), 2U);
  r.copy(d, 0, 3 * kPage, 0, 2 * kPage + 1500, 64);  // D: independent of C, held with it
  EXPECT_EQ(d.batches_run(), 2U);
  r.copy(d, 0, 6 * kPage, 0, 3 * kPage + 10, 64);  // E writes what D reads: C and D first
  EXPECT_EQ(d.batches_run(), 3U);
  EXPECT_EQ(d.copies_run(), 4U);
  d.run();
  r.expect_same();
}

TEST(DeferredCopies, ABatchGoesToTheBackgroundAtTwoMebibytes) {
  // Whole valid pages, page p to page p: 36 of them (2016 KiB) stay open; the 37th passes
  // 2 MiB, far below the copy count's bound, and starts the batch in the background.
  constexpr std::uint64_t kPagesHere = 40;
  PagedMemory src(kPagesHere * kPage, kPage, kValid);
  PagedMemory dst(kPagesHere * kPage, kPage, kValid);
  std::vector<std::uint8_t> bytes(kValid);
  for (std::uint64_t p = 0; p < kPagesHere; ++p) {
    for (std::uint64_t i = 0; i < kValid; ++i) bytes[i] = static_cast<std::uint8_t>(p * 7 + i);
    src.write(p * kPage, bytes);
  }
  DeferredCopies d;
  for (std::uint64_t p = 0; p < 36; ++p) ASSERT_TRUE(d.add(src, p * kPage, dst, p * kPage, kValid));
  EXPECT_EQ(d.background_batches(), 0U);
  ASSERT_TRUE(d.add(src, 36 * kPage, dst, 36 * kPage, kValid));
  EXPECT_EQ(d.background_batches(), 1U);
  EXPECT_EQ(d.batches_run(), 1U);
  d.run();
  std::vector<std::uint8_t> got(kValid);
  for (std::uint64_t p = 0; p < 37; ++p) {
    src.read(p * kPage, bytes);
    dst.read(p * kPage, got);
    ASSERT_EQ(got, bytes) << "page " << p;
  }
}

TEST(DeferredCopies, OverlapsInOneMemoryAndRangesOverSeveralPagesAreNotHeld) {
  Rig r;
  DeferredCopies d;
  EXPECT_FALSE(d.add(*r.held[0], 100, *r.held[0], 150, 100));  // a memmove
  EXPECT_TRUE(d.empty());
  PagedMemory flat(4 * 4096, 4096, 4096);  // no holes: a range may cross pages
  EXPECT_FALSE(d.add(*r.held[0], 0, flat, 4096 - 8, 16));
  EXPECT_TRUE(d.empty());
  EXPECT_TRUE(d.add(*r.held[0], 0, flat, 4096, 16));
  EXPECT_TRUE(d.add(*r.held[0], 0, *r.held[1], 0, 0));  // nothing to copy
  EXPECT_FALSE(d.empty());
  d.run();
  std::vector<std::uint8_t> got(16);
  std::vector<std::uint8_t> want(16);
  flat.read(4096, got);
  r.held[0]->read(0, want);
  EXPECT_EQ(got, want);
}

TEST(DeferredCopies, RandomCopiesGiveTheBytesImmediateCopiesGive) {
  // Small copies stay on one thread; large batches split across two (when there are two
  // cores): both must match copying at once, with dependencies at every distance.
  for (const std::uint64_t most : {std::uint64_t{512}, std::uint64_t{40 * 1024}}) {
    Rig r;
    DeferredCopies d;
    std::mt19937_64 rng(most);
    for (int i = 0; i < 3000; ++i) {
      const std::uint64_t len = 1 + rng() % most;
      const auto at = [&](std::uint64_t n) {
        const std::uint64_t page = rng() % kPages;  // the last page reads as zeros
        return page * kPage + rng() % (kValid - n + 1);
      };
      const int s = static_cast<int>(rng() % 2);
      const int t = static_cast<int>(rng() % 2);
      const std::uint64_t so = at(len);
      const std::uint64_t to = at(len);
      r.copy(d, s, so, t, to, len);
      if (rng() % 200 == 0) d.run();  // the machine runs them before other uses
    }
    d.run();
    r.expect_same();
    EXPECT_GT(d.batches_run(), 10U) << most;
    EXPECT_LT(d.batches_run(), d.copies_run()) << most;  // some copies ran together
  }
}

TEST(DeferredCopies, FullBatchesRunInTheBackgroundAndGiveTheSameBytes) {
  // Copies from one memory into 2 KiB slots of another, each slot once, so that batches fill
  // up and start in the background while more are added (the next batch starts only once that
  // one has finished); every 200th copy rewrites the slot of a recent one, held or started.
  constexpr std::uint64_t kBig = 160;  // pages of 28 slots
  constexpr std::uint64_t kSlot = 2048;
  constexpr std::uint64_t kSlots = kValid / kSlot;
  PagedMemory src(kBig * kPage, kPage, kValid);
  PagedMemory held(kBig * kPage, kPage, kValid);
  PagedMemory now(kBig * kPage, kPage, kValid);
  std::vector<std::uint8_t> bytes(kValid);
  for (std::uint64_t p = 0; p < kBig; ++p) {
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i + p);
    src.write(p * kPage, bytes);
  }
  std::vector<std::uint64_t> slots(kBig * kSlots);
  for (std::size_t i = 0; i < slots.size(); ++i) slots[i] = i;
  std::mt19937_64 rng(7);
  std::shuffle(slots.begin(), slots.end(), rng);
  DeferredCopies d;
  for (std::size_t i = 0; i < 4000; ++i) {
    const std::uint64_t slot = i % 200 == 199 ? slots[i - 1 - rng() % 190] : slots[i];
    const std::uint64_t len = 1 + rng() % kSlot;
    const std::uint64_t so = (rng() % kBig) * kPage + rng() % (kValid - len + 1);
    const std::uint64_t to = slot / kSlots * kPage + slot % kSlots * kSlot;
    ASSERT_TRUE(d.add(src, so, held, to, len));
    copy_bytes(src, so, now, to, len);
  }
  d.run();
  EXPECT_TRUE(d.empty());
  std::vector<std::uint8_t> a(kValid);
  std::vector<std::uint8_t> b(kValid);
  for (std::uint64_t p = 0; p < kBig; ++p) {
    held.read(p * kPage, a);
    now.read(p * kPage, b);
    ASSERT_EQ(a, b) << "page " << p;
  }
  EXPECT_GT(d.background_batches(), 5U);
  EXPECT_EQ(d.copies_run(), 4000U);
}

TEST(DeferredCopiesDeathTest, RunningCopiesFromAnotherThreadIsABug) {
  // Two threads running one set of held copies would race; the one that did not hold them
  // stops the process instead.
  EXPECT_DEATH(
      {
        Rig r;
        DeferredCopies d;
        ASSERT_TRUE(d.add(*r.held[0], 0, *r.held[1], 0, 64));
        std::thread([&] { d.run(); }).join();
      },
      "held SBUF copies run from a thread other than the one that held them");
  // Nor from a piece of a split job on the same thread: its siblings may be running them.
  EXPECT_DEATH(
      {
        Rig r;
        DeferredCopies d;
        ASSERT_TRUE(d.add(*r.held[0], 0, *r.held[1], 0, 64));
        base::split_work(1, [&](std::size_t) { d.run(); });
      },
      "or from a piece of a job split across threads");
}

}  // namespace
}  // namespace sbrdma::device
