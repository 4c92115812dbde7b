// run_ordered: every job once, reported in index order, stopping at the first failure, and
// never more cost at once than the budget.
#include "base/ordered_jobs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "base/split_work.h"

namespace sbrdma::base {
namespace {

using namespace std::chrono_literals;

/// Waits (at most 5 s) until `f` holds: a job that waits for another to start cannot hang the
/// test where no second thread could be made.
template <typename F>
void wait_for(F f) {
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (!f() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(1ms);
}

TEST(OrderedJobs, EveryJobRunsOnceAndIsReportedInOrder) {
  for (const unsigned threads : {1U, 2U, 4U}) {
    for (const std::size_t n : {0U, 1U, 2U, 7U, 100U}) {
      std::vector<std::atomic<int>> runs(n);
      std::vector<std::size_t> reported;
      std::atomic<int> in_done{0};
      bool overlapped = false;
      const OrderedRun done_run = run_ordered(
          n, JobLimits{threads, std::nullopt, {}, {}},
          [&](std::size_t i) {
            // Later jobs finish first: a report in finishing order would show.
            std::this_thread::sleep_for(std::chrono::microseconds((n - i) % 5 * 200));
            ++runs[i];
            return true;
          },
          [&](std::size_t i) {
            if (in_done.fetch_add(1) != 0) overlapped = true;
            // What run(i) wrote is visible here.
            EXPECT_EQ(runs[i].load(), 1) << i;
            reported.push_back(i);
            in_done.fetch_sub(1);
          });
      EXPECT_EQ(done_run.failed, n) << threads << " threads, " << n << " jobs";
      EXPECT_LE(done_run.most, threads);
      EXPECT_EQ(done_run.most == 0, n == 0);
      for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << i;
      std::vector<std::size_t> in_order(n);
      for (std::size_t i = 0; i < n; ++i) in_order[i] = i;
      EXPECT_EQ(reported, in_order) << threads << " threads, " << n << " jobs";
      EXPECT_FALSE(overlapped);
    }
  }
}

TEST(OrderedJobs, JobsRunAtOnceOnSeveralThreads) {
  // Each of the first two jobs waits until both have started: with two threads they meet.
  std::atomic<int> started{0};
  std::atomic<int> most{0};
  std::atomic<int> now{0};
  const OrderedRun ran = run_ordered(
      6, JobLimits{2, std::nullopt, {}, {}},
      [&](std::size_t i) {
        const int in = ++now;
        int m = most.load();
        while (in > m && !most.compare_exchange_weak(m, in)) {
        }
        if (i < 2) {
          ++started;
          wait_for([&] { return started.load() >= 2; });
        }
        --now;
        return true;
      },
      [](std::size_t) {});
  EXPECT_EQ(most.load(), 2);
  EXPECT_EQ(ran.most, 2U);  // and run_ordered counts them the same
}

TEST(OrderedJobs, JobsRunningAtOnceKeepTheirSplitWorkOnTheirOwnThreads) {
  // Two jobs that meet each split work while the other runs: every piece stays on the job's
  // own thread (the helper would serve one job at a time and make the other queue).
  std::atomic<int> started{0};
  std::atomic<int> finished{0};
  std::vector<std::vector<std::thread::id>> pieces(2, std::vector<std::thread::id>(16));
  std::vector<std::thread::id> job_thread(2);
  run_ordered(
      2, JobLimits{2, std::nullopt, {}, {}},
      [&](std::size_t i) {
        job_thread[i] = std::this_thread::get_id();
        ++started;
        wait_for([&] { return started.load() >= 2; });
        split_work(16, [&](std::size_t k) {
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          pieces[i][k] = std::this_thread::get_id();
        });
        ++finished;
        wait_for([&] { return finished.load() >= 2; });  // the other still runs meanwhile
        return true;
      },
      [](std::size_t) {});
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(pieces[i], std::vector<std::thread::id>(16, job_thread[i])) << "job " << i;
  }
}

TEST(OrderedJobs, TheFirstFailureStopsTheRestAndOnlyTheJobsBeforeItAreReported) {
  for (const unsigned threads : {1U, 2U, 3U}) {
    std::vector<std::atomic<int>> runs(20);
    std::vector<std::size_t> reported;
    const std::size_t failed = run_ordered(
                                   20, JobLimits{threads, std::nullopt, {}, {}},
                                   [&](std::size_t i) {
                                     ++runs[i];
                                     // Job 9 fails too, but may have started only if job 5 was slow
                                     // to fail.
                                     return i != 5 && i != 9;
                                   },
                                   [&](std::size_t i) { reported.push_back(i); })
                                   .failed;
    EXPECT_EQ(failed, 5U) << threads << " threads";
    EXPECT_EQ(reported, (std::vector<std::size_t>{0, 1, 2, 3, 4})) << threads << " threads";
    for (std::size_t i = 0; i <= 5; ++i) EXPECT_EQ(runs[i].load(), 1) << i;
    int later = 0;
    for (std::size_t i = 6; i < 20; ++i) later += runs[i].load();
    if (threads == 1) {
      EXPECT_EQ(later, 0);  // one at a time: nothing after the failure starts
    }
  }
}

TEST(OrderedJobs, ALaterFailureCannotHideAnEarlierOne) {
  // Job 1 fails late, job 2 at once (it starts while job 1 still runs): the first failed job
  // is 1, and job 0 alone is reported.
  std::atomic<bool> two_failed{false};
  std::vector<std::size_t> reported;
  const std::size_t failed = run_ordered(
                                 4, JobLimits{2, std::nullopt, {}, {}},
                                 [&](std::size_t i) {
                                   if (i == 1) {
                                     wait_for([&] { return two_failed.load(); });
                                     return false;
                                   }
                                   if (i == 2) {
                                     two_failed = true;
                                     return false;
                                   }
                                   return true;
                                 },
                                 [&](std::size_t i) { reported.push_back(i); })
                                 .failed;
  EXPECT_EQ(failed, 1U);
  EXPECT_EQ(reported, std::vector<std::size_t>{0});
}

TEST(OrderedJobs, AnEarlierFailureStaysTheFirstWhenALaterJobFailsAfterIt) {
  // Job 0 fails first, while job 1 (started beside it) still runs; job 1 fails afterwards.
  // The first failed job is 0 whatever order the failures come in: not the last to fail.
  std::atomic<bool> one_started{false};
  std::atomic<bool> zero_failing{false};
  std::vector<std::size_t> reported;
  const std::size_t failed = run_ordered(
                                 3, JobLimits{2, std::nullopt, {}, {}},
                                 [&](std::size_t i) {
                                   if (i == 0) {
                                     wait_for([&] { return one_started.load(); });
                                     zero_failing = true;
                                     return false;
                                   }
                                   if (i == 1) {
                                     one_started = true;
                                     wait_for([&] { return zero_failing.load(); });
                                     // Time for job 0's failure to be recorded first.
                                     std::this_thread::sleep_for(100ms);
                                     return false;
                                   }
                                   return true;
                                 },
                                 [&](std::size_t i) { reported.push_back(i); })
                                 .failed;
  EXPECT_EQ(failed, 0U);
  EXPECT_TRUE(reported.empty());
}

TEST(OrderedJobs, AJobCostingExactlyWhatTheBudgetLeavesStartsBesideTheOthers) {
  // Costs 2 and 3 with a budget of 5: together they cost the budget exactly, which is within
  // it, so job 1 starts while job 0 runs (job 0 waits for it, at most 5 s).
  const std::vector<std::uint64_t> cost{2, 3};
  std::atomic<bool> one_started{false};
  const OrderedRun r = run_ordered(
      cost.size(), JobLimits{2, 5, [&](std::size_t i) { return cost[i]; }, {}},
      [&](std::size_t i) {
        if (i == 1) one_started = true;
        if (i == 0) wait_for([&] { return one_started.load(); });
        return true;
      },
      [](std::size_t) {});
  EXPECT_EQ(r.failed, cost.size());
  EXPECT_EQ(r.most, 2U);
}

TEST(OrderedJobs, JobsRunningAtOnceStayWithinTheBudget) {
  // Costs 3, 3, 3, 1, 1, 10 (alone past the budget) with a budget of 5: at most one 3 at a time
  // (3 + 3 > 5), a 3 beside a 1, and the 10 alone; nothing waits for ever.
  const std::vector<std::uint64_t> cost{3, 3, 3, 1, 1, 10, 1};
  std::mutex mu;
  std::uint64_t running = 0;
  std::uint64_t most = 0;
  bool ten_with_others = false;
  const std::size_t failed =
      run_ordered(
          cost.size(), JobLimits{4, 5, [&](std::size_t i) { return cost[i]; }, {}},
          [&](std::size_t i) {
            {
              const std::lock_guard<std::mutex> lock(mu);
              running += cost[i];
              most = std::max(most, running);
              if (cost[i] == 10 && running != 10) ten_with_others = true;
            }
            std::this_thread::sleep_for(2ms);
            const std::lock_guard<std::mutex> lock(mu);
            running -= cost[i];
            return true;
          },
          [](std::size_t) {})
          .failed;
  EXPECT_EQ(failed, cost.size());
  EXPECT_LE(most, 10U);
  EXPECT_FALSE(ten_with_others);
  // Without the 10, never above the budget: run again on the first five.
  most = 0;
  run_ordered(
      5, JobLimits{4, 5, [&](std::size_t i) { return cost[i]; }, {}},
      [&](std::size_t i) {
        {
          const std::lock_guard<std::mutex> lock(mu);
          running += cost[i];
          most = std::max(most, running);
        }
        std::this_thread::sleep_for(2ms);
        const std::lock_guard<std::mutex> lock(mu);
        running -= cost[i];
        return true;
      },
      [](std::size_t) {});
  EXPECT_LE(most, 5U);
}

TEST(OrderedJobs, AJobThatRunsAloneHasNoOtherBesideIt) {
  // Jobs 2 and 5 run alone: each waits for the running ones, and none starts beside it;
  // the others still run several at once.
  const std::vector<bool> alone{false, false, true, false, false, true, false, false};
  std::mutex mu;
  unsigned running = 0;
  unsigned most = 0;
  bool company = false;  // another job ran beside one that runs alone
  std::vector<bool> alone_now(alone.size(), false);
  const JobLimits limits{3, std::nullopt, {}, [&](std::size_t i) { return alone[i]; }};
  const OrderedRun r = run_ordered(
      alone.size(), limits,
      [&](std::size_t i) {
        {
          const std::lock_guard<std::mutex> lock(mu);
          ++running;
          most = std::max(most, running);
          if (running > 1 && (alone[i] || std::find(alone_now.begin(), alone_now.end(), true) !=
                                              alone_now.end())) {
            company = true;
          }
          alone_now[i] = alone[i];
        }
        std::this_thread::sleep_for(3ms);
        const std::lock_guard<std::mutex> lock(mu);
        alone_now[i] = false;
        --running;
        return true;
      },
      [](std::size_t) {});
  EXPECT_EQ(r.failed, alone.size());
  EXPECT_FALSE(company);
  EXPECT_GE(most, 2U);  // the others did run at once
}

}  // namespace
}  // namespace sbrdma::base
