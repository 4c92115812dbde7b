// split_work: every piece runs once, on two threads where there are two cores, call after call.
#include "base/split_work.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/resource.h>
#endif

#include "base/stop_signals.h"

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

TEST(SplitWork, AHelperLateForASmallJobDoesNotClaimInTheNextLargerOne) {
  // Tiny jobs of 2 pieces, each followed by one of 64: the caller often runs the small job
  // alone while the helper is still waking for it. A helper that then checked its stale claim
  // against the next job's larger count (published before the claim counter moved on) ran a
  // piece twice and counted it twice: the caller waited forever for a count it had passed.
  // Each piece counts its own runs. Before the fix, 300,000 calls hung (or ran a piece twice)
  // in 7 of 9 tries; a watchdog turns a hang into a failure.
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mu);
    if (!cv.wait_for(lock, std::chrono::seconds(120), [&] { return done; })) {
      std::fprintf(stderr, "split_work hung: the caller waits for pieces no thread runs\n");
      std::abort();
    }
  });
  std::vector<int> runs(64);
  int wrong = 0;
  for (int call = 0; call < 300000 && wrong == 0; ++call) {
    const std::size_t n = call % 2 == 0 ? 2 : runs.size();
    split_work(n, [&](std::size_t i) { ++runs[i]; });
    for (std::size_t i = 0; i < n; ++i) {
      if (runs[i] != 1) {
        ADD_FAILURE() << "call " << call << ": piece " << i << " ran " << runs[i] << " times";
        ++wrong;
      }
    }
    std::fill(runs.begin(), runs.end(), 0);
  }
  {
    const std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_one();
  watchdog.join();
}

TEST(SplitWork, WhileTheCallerIsBusyTheHelperTakesAnotherPiece) {
  if (!split_work_parallel()) GTEST_SKIP() << "one core: everything runs on the caller";
  // Each piece waits until both are running at once, which only two threads can do. A helper
  // that never claims leaves the first piece waiting out its (generous) limit.
  std::atomic<int> running{0};
  std::vector<std::thread::id> who(2);
  std::vector<char> met(2, 0);  // not vector<bool>: its bits share a word between threads
  split_work(2, [&](std::size_t i) {
    who[i] = std::this_thread::get_id();
    running.fetch_add(1);
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (running.load() < 2 && std::chrono::steady_clock::now() < limit) {
      std::this_thread::yield();
    }
    met[i] = running.load() == 2 ? 1 : 0;
  });
  EXPECT_EQ(met, std::vector<char>(2, 1));
  EXPECT_NE(who[0], who[1]);
}

TEST(SplitWork, ACallerWhoseHelperSleepsRunsThePiecesItself) {
  // After a pause long enough for the helper to sleep, a call still finishes every piece, on
  // whichever threads claimed them.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::vector<int> runs(9, 0);
  split_work(runs.size(), [&](std::size_t i) { ++runs[i]; });
  EXPECT_EQ(runs, std::vector<int>(9, 1));
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

TEST(BackgroundWork, TheCallerGoesOnWhileTheHelperRunsThePieces) {
  if (!split_work_parallel()) GTEST_SKIP() << "one core: start() runs every piece itself";
  // The piece starts and then waits for the caller's signal; the caller, back from start(),
  // sees it start and gives the signal. Only a helper can run the piece meanwhile: a start()
  // that ran it itself would never return, and one that left it would never see it start.
  std::atomic<bool> started{false};
  std::atomic<bool> go{false};
  std::atomic<bool> ran{false};
  std::thread::id who;
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  BackgroundWork work;
  work.start(1, [&](std::size_t) {
    who = std::this_thread::get_id();
    started = true;
    while (!go.load() && std::chrono::steady_clock::now() < limit) std::this_thread::yield();
    ran = go.load();
  });
  EXPECT_TRUE(work.running());
  while (!started.load() && std::chrono::steady_clock::now() < limit) std::this_thread::yield();
  EXPECT_TRUE(started.load());
  go = true;
  work.finish();
  EXPECT_FALSE(work.running());
  EXPECT_TRUE(ran.load());
  EXPECT_NE(who, std::this_thread::get_id());
}

TEST(BackgroundWork, FinishRunsWhatTheHelperLeftAndEveryPieceRunsOnce) {
  for (const std::size_t n : {1U, 2U, 7U, 300U}) {
    std::vector<int> runs(n, 0);
    BackgroundWork work;
    work.start(n, [&](std::size_t i) { ++runs[i]; });
    work.finish();
    EXPECT_EQ(runs, std::vector<int>(n, 1)) << n << " pieces";
    work.finish();  // nothing running: returns at once
  }
}

TEST(BackgroundWork, SplitWorkAndANewStartFinishTheUnfinishedJobFirst) {
  // The helper takes one job at a time: a split_work() on the same thread, or the next
  // start(), must not wait for a helper lock the unfinished job holds (a hang), and the first
  // job's pieces have all run by then.
  std::vector<std::uint64_t> first(32, 0);
  std::vector<std::uint64_t> second(32, 0);
  BackgroundWork work;
  work.start(first.size(), [&](std::size_t i) { first[i] += i + 1; });
  split_work(second.size(), [&](std::size_t i) { second[i] = first[i]; });
  EXPECT_FALSE(work.running());
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(second[i], i + 1) << i;
  work.start(first.size(), [&](std::size_t i) { first[i] += 100; });
  BackgroundWork other;
  other.start(second.size(), [&](std::size_t i) { second[i] = first[i]; });
  other.finish();
  for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(second[i], i + 101) << i;
}

TEST(BackgroundWork, DestroyingAJobFinishesIt) {
  std::vector<int> runs(50, 0);
  {
    BackgroundWork work;
    work.start(runs.size(), [&](std::size_t i) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      ++runs[i];
    });
  }
  EXPECT_EQ(runs, std::vector<int>(50, 1));
  split_work(runs.size(), [&](std::size_t i) { ++runs[i]; });  // the helper is free again
  EXPECT_EQ(runs, std::vector<int>(50, 2));
}

TEST(SplitWork, APieceKnowsItIsOneOnWhicheverThreadRunsIt) {
  EXPECT_FALSE(in_piece());
  std::vector<char> inside(64, 0);
  split_work(inside.size(), [&](std::size_t i) { inside[i] = in_piece() ? 1 : 0; });
  EXPECT_EQ(inside, std::vector<char>(64, 1));
  split_work(1, [&](std::size_t i) { inside[i] = in_piece() ? 2 : 0; });  // run in place
  EXPECT_EQ(inside[0], 2);
  BackgroundWork work;
  work.start(inside.size(), [&](std::size_t i) { inside[i] = in_piece() ? 3 : 0; });
  work.finish();
  EXPECT_EQ(inside, std::vector<char>(64, 3));
  EXPECT_FALSE(in_piece());
}

/// Pieces of a split_work job the calling thread ran, of 64; piece 0 waits (at most 10 s) until a
/// piece runs on another thread than its own, so a helper that exists takes at least one.
std::ptrdiff_t helped_split() {
  const std::thread::id me = std::this_thread::get_id();
  std::vector<std::thread::id> ran(64);
  std::atomic<bool> other{false};
  std::thread::id first;
  std::atomic<bool> first_known{false};
  split_work(ran.size(), [&](std::size_t i) {
    ran[i] = std::this_thread::get_id();
    if (i == 0) {
      first = ran[0];
      first_known = true;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!other && std::chrono::steady_clock::now() < until) std::this_thread::yield();
    } else if (first_known && ran[i] != first) {
      other = true;
    }
  });
  return std::count(ran.begin(), ran.end(), me);
}

TEST(SplitWork, InAnOwnCoreOnlyScopeEveryPieceRunsOnTheCallingThread) {
  const auto threads_of = [](std::size_t n) {
    std::vector<std::thread::id> ran(n);
    split_work(n, [&](std::size_t i) {
      // Long enough that an idle helper would claim some of them.
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      ran[i] = std::this_thread::get_id();
    });
    return ran;
  };
  const std::thread::id me = std::this_thread::get_id();
  {
    const OwnCoreOnly own;
    {
      const OwnCoreOnly nested;
      EXPECT_EQ(threads_of(64), std::vector<std::thread::id>(64, me));
    }
    EXPECT_EQ(threads_of(64), std::vector<std::thread::id>(64, me));  // the outer scope holds
    BackgroundWork job;
    std::vector<int> done(16, 0);
    job.start(done.size(), [&](std::size_t i) { done[i] = 1; });
    EXPECT_FALSE(job.running());  // run here, before start() returned
    EXPECT_EQ(done, std::vector<int>(16, 1));
  }
  // Given a count of running jobs: on the caller while it is above 1.
  std::atomic<unsigned> running{2};
  {
    const OwnCoreOnly own(running);
    EXPECT_EQ(threads_of(64), std::vector<std::thread::id>(64, me));
  }
  if (split_work_parallel()) {
    running = 1;  // this job alone: the helper takes pieces again
    const OwnCoreOnly own(running);
    EXPECT_NE(helped_split(), 64);
  }
  if (split_work_parallel()) {
    // Out of the scope the helper takes pieces again.
    EXPECT_NE(helped_split(), 64);
  }
}

TEST(BackgroundWorkDeathTest, FinishingOnAnotherThreadIsABug) {
  if (!split_work_parallel()) GTEST_SKIP() << "one core: start() finishes the job itself";
  // The job holds the helper's lock, which only the starting thread may let go.
  EXPECT_DEATH(
      {
        BackgroundWork work;
        work.start(4, [](std::size_t) {});
        std::thread([&] { work.finish(); }).join();
      },
      "a background job finished on a thread other than the one that started it");
}

#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
/// This process's address space in bytes (VmSize in /proc/self/status), 0 if unknown.
std::uint64_t address_space_bytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmSize: %llu kB", &kib) == 1) break;
  }
  std::fclose(f);
  return kib * 1024;
}

/// The body of the test below, in its own process: exits 0 if every piece ran twice, once per
/// job, with no helper thread to be had.
[[noreturn]] void run_pieces_without_a_helper_thread() {
  const std::uint64_t now = address_space_bytes();
  if (now == 0) std::_Exit(3);
  rlimit lim{};
  lim.rlim_cur = lim.rlim_max = now + (1U << 20);  // no room for a thread's 8 MiB stack
  if (setrlimit(RLIMIT_AS, &lim) != 0) std::_Exit(4);
  if (worker_thread([] {}).joinable()) std::_Exit(5);  // the limit did not bite
  std::vector<int> runs(64, 0);
  split_work(runs.size(), [&](std::size_t i) { ++runs[i]; });
  BackgroundWork work;
  work.start(runs.size(), [&](std::size_t i) { ++runs[i]; });
  work.finish();
  std::_Exit(runs == std::vector<int>(64, 2) ? 0 : 6);
}

// A helper thread only speeds jobs up: where the system refuses to create one (here, an
// address space with no room for its stack), split_work and BackgroundWork run every piece on
// the caller instead of failing (it used to reach main as an internal error, exit 2), and
// worker_thread() gives an empty thread. In a fresh process, so that this is the helper's
// first use.
TEST(SplitWorkDeathTest, WithoutAHelperThreadTheCallerRunsEveryPiece) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_pieces_without_a_helper_thread(), ::testing::ExitedWithCode(0), "");
}
#endif

}  // namespace
}  // namespace sbrdma::base
