#include "base/ordered_jobs.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "base/split_work.h"
#include "base/stop_signals.h"

namespace sbrdma::base {
namespace {

/// What the threads share, under `mu`.
struct Shared {
  std::mutex mu;
  std::condition_variable freed;  ///< a job finished: its cost is free again
  std::size_t next = 0;           ///< the next job to start
  std::size_t failed;             ///< the first job that failed (n: none yet)
  std::size_t reported = 0;       ///< done() was called for jobs [0, reported)
  std::vector<bool> ran;          ///< run(i) returned true
  /// Jobs running; written under `mu`, read without it by their OwnCoreOnly scopes.
  std::atomic<unsigned> running{0};
  unsigned most = 0;  ///< the largest `running` seen
  std::uint64_t running_cost = 0;
  bool alone_running = false;  ///< a job that runs alone (JobLimits::alone) is running
};

}  // namespace

OrderedRun run_ordered(std::size_t n, const JobLimits& limits,
                       const std::function<bool(std::size_t)>& run,
                       const std::function<void(std::size_t)>& done) {
  Shared s;
  s.failed = n;
  s.ran.assign(n, false);
  const unsigned threads =
      static_cast<unsigned>(std::min<std::size_t>(std::max(limits.threads, 1U), n));
  const auto work = [&] {
    std::unique_lock<std::mutex> lock(s.mu);
    // Jobs start in order, so once one failed, every job before it has started.
    while (s.next < n && s.failed == n) {
      const std::size_t i = s.next;
      const std::uint64_t c = limits.cost ? limits.cost(i) : 0;
      const bool alone = limits.alone && limits.alone(i);
      const bool over_budget =
          limits.budget && c > *limits.budget - std::min(*limits.budget, s.running_cost);
      if (s.running > 0 && (alone || s.alone_running || over_budget)) {
        s.freed.wait(lock);  // until a running job finishes; then look again
        continue;
      }
      ++s.next;
      s.alone_running = alone;
      s.most = std::max(s.most, ++s.running);
      s.running_cost += c;
      lock.unlock();
      bool ok = false;
      {
        std::optional<OwnCoreOnly> own_core;
        if (threads > 1) own_core.emplace(s.running);
        ok = run(i);
      }
      lock.lock();
      --s.running;
      s.running_cost -= c;
      if (alone) s.alone_running = false;
      if (ok) {
        s.ran[i] = true;
      } else {
        s.failed = std::min(s.failed, i);
      }
      while (s.reported < s.failed && s.ran[s.reported]) done(s.reported++);
      s.freed.notify_all();
    }
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t) {
    std::thread w = worker_thread(work);  // none made: the others do without it
    if (w.joinable()) workers.push_back(std::move(w));
  }
  work();
  for (std::thread& w : workers) w.join();
  return OrderedRun{s.failed, s.most};
}

}  // namespace sbrdma::base
