// split_work: every piece runs once, on two threads where there are two cores, call after call.
#include "base/split_work.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace sbrdma::base {
namespace {

TEST(SplitWork, EveryPieceRunsExactlyOnce) {
  for (const std::size_t n : {0U, 1U, 2U, 3U, 128U, 1001U}) {
    std::vector<int> runs(n, 0);  // each piece writes only its own slot
    split_work(n, [&](std::size_t i) { ++runs[i]; });
    EXPECT_EQ(runs, std::vector<int>(n, 1)) << n << " pieces";
  }
}

TEST(SplitWork, ManyCallsInARowEachSeeTheirOwnPieces) {
  // Back to back, as the reduces of a run come: a stale job or a lost wake-up would show as a
  // wrong sum or a hang.
  std::vector<std::uint64_t> slot(64);
  for (std::uint64_t call = 1; call <= 3000; ++call) {
    split_work(slot.size(), [&](std::size_t i) { slot[i] += call * (i + 1); });
  }
  const std::uint64_t calls_sum = 3000ULL * 3001 / 2;
  for (std::size_t i = 0; i < slot.size(); ++i) EXPECT_EQ(slot[i], calls_sum * (i + 1)) << i;
}

TEST(SplitWork, TheOddPiecesRunOnTheHelperWhenThereAreTwoCores) {
  if (!split_work_parallel()) GTEST_SKIP() << "one core: everything runs on the caller";
  std::vector<std::thread::id> who(6);
  split_work(who.size(), [&](std::size_t i) { who[i] = std::this_thread::get_id(); });
  const std::thread::id me = std::this_thread::get_id();
  for (std::size_t i = 0; i < who.size(); ++i) {
    if (i % 2 == 0) {
      EXPECT_EQ(who[i], me) << i;
    } else {
      EXPECT_NE(who[i], me) << i;
    }
  }
  EXPECT_EQ(std::set<std::thread::id>(who.begin(), who.end()).size(), 2U);
}

TEST(SplitWork, CallsFromTwoThreadsTakeTurns) {
  std::vector<std::uint64_t> a(16);
  std::vector<std::uint64_t> b(16);
  std::thread other([&] {
    for (int k = 0; k < 500; ++k) split_work(b.size(), [&](std::size_t i) { ++b[i]; });
  });
  for (int k = 0; k < 500; ++k) split_work(a.size(), [&](std::size_t i) { ++a[i]; });
  other.join();
  EXPECT_EQ(a, std::vector<std::uint64_t>(16, 500));
  EXPECT_EQ(b, std::vector<std::uint64_t>(16, 500));
}

}  // namespace
}  // namespace sbrdma::base
