#include "base/stop_signals.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <thread>

namespace sbrdma::base {
namespace {

// A stop signal that arrives while held waits until the hold ends, then ends the process by
// its default action: the work inside the hold finishes first.
TEST(StopSignalsDeathTest, HeldUntilTheWritesAreDone) {
  EXPECT_EXIT(
      {
        {
          StopSignalsHeld held;
          ::kill(::getpid(), SIGTERM);
          std::fputs("writes done\n", stderr);
        }
        std::fputs("after the hold\n", stderr);
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "^writes done\n$");
}

// With a worker thread that blocked them for good, a signal sent to the process can only be
// taken by the main thread, and so waits for its hold too.
TEST(StopSignalsDeathTest, WorkerThreadsNeverTakeThem) {
  EXPECT_EXIT(
      {
        std::atomic<bool> blocked{false};
        std::thread worker = worker_thread([&blocked] {
          blocked = true;
          ::sleep(5);
        });
        while (!blocked) std::this_thread::yield();
        {
          StopSignalsHeld held;
          ::kill(::getpid(), SIGINT);
          ::usleep(100000);  // time for the signal to reach a thread that could take it
          std::fputs("writes done\n", stderr);
        }
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGINT), "writes done");
}

// A worker made by worker_thread() blocks them from its first instruction, and its creator's
// mask is as it was.
TEST(StopSignals, AWorkerThreadStartsWithThemBlocked) {
  sigset_t before;
  ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, nullptr, &before), 0);
  int blocked_in_worker = -1;
  std::thread worker = worker_thread([&blocked_in_worker] {
    sigset_t now;
    ::pthread_sigmask(SIG_SETMASK, nullptr, &now);
    blocked_in_worker =
        sigismember(&now, SIGINT) + sigismember(&now, SIGTERM) + sigismember(&now, SIGHUP);
  });
  worker.join();
  EXPECT_EQ(blocked_in_worker, 3);
  sigset_t after;
  ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, nullptr, &after), 0);
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) {
    EXPECT_EQ(sigismember(&after, s), sigismember(&before, s)) << s;
  }
}

// Released inside a hold (around a write that may wait for ever), a signal acts at once; the
// hold applies again after.
TEST(StopSignalsDeathTest, ReleasedInsideAHoldActsAtOnce) {
  EXPECT_EXIT(
      {
        StopSignalsHeld held;
        {
          StopSignalsReleased released;
          ::kill(::getpid(), SIGTERM);
          std::fputs("still writing\n", stderr);
        }
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "^$");
}

// Outside a hold nothing changes: the signal acts at once.
TEST(StopSignalsDeathTest, NotHeldActsAtOnce) {
  EXPECT_EXIT(
      {
        ::kill(::getpid(), SIGTERM);
        std::fputs("still running\n", stderr);
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "^$");
}

}  // namespace
}  // namespace sbrdma::base
