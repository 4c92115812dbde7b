#pragma once
/// split_work: runs independent pieces of one bulk job on two cores, the caller's and one helper
/// thread's, for the simulator's data work (a reduce over 128 partitions), which is bound by
/// memory bandwidth that one core does not exhaust. The pieces must touch disjoint memory: the
/// result is then the same bytes whichever thread ran which piece, so the simulation stays
/// deterministic.
///
///   caller:  post job --> claim a piece, run it, claim the next ... --> wait for claimed ones
///   helper:  (asleep) --> wakes on post --> claims pieces too --> none left --> spins, sleeps
///
/// Pieces are claimed one at a time by whichever thread is free, so the caller never waits for
/// a helper that is slow to wake: it runs whatever the helper has not claimed. The helper is
/// started on first use and lives until the process exits (it holds no resource but its
/// stack); it spins briefly after each job, since bulk jobs come in bursts, then sleeps on a
/// futex (std::atomic::wait). With one usable core everything runs on the caller.

#include <atomic>
#include <cstddef>
#include <functional>
#include <thread>

namespace sbrdma::base {

/// Runs piece(i) for every i in [0, n) and returns when all have run, each on the calling thread
/// or the helper, whichever claimed it (all on the caller when n < 2 or there is no second
/// usable core).
/// Contract: the pieces are independent (no piece reads what another writes), do not throw and
/// do not call split_work themselves; calls from several threads run one after another.
void split_work(std::size_t n, const std::function<void(std::size_t)>& piece);

/// A split_work job the caller does not wait for at once: start() hands its pieces to the
/// helper and returns, so the caller goes on with other work; finish() runs here whatever the
/// helper has not claimed yet and returns once every piece has run.
///
///   caller:  start --> (its own work) ................ finish: claim what is left, wait
///   helper:           wakes --> claims pieces, runs them --^
///
/// One job at a time per thread, and the helper takes one job at a time: start() and
/// split_work() on this thread finish the thread's unfinished job first. finish() (and the
/// destructor, while a job runs) must be called on the thread that started the job. Without a
/// second core, start() runs every piece before it returns. The destructor finishes. Contract: as
/// split_work's, and the pieces must not touch what the caller works on until finish().
/// Its user is device::DeferredCopies. [CHOICE D44]
class BackgroundWork {
 public:
  BackgroundWork() = default;
  ~BackgroundWork();
  BackgroundWork(const BackgroundWork&) = delete;
  BackgroundWork& operator=(const BackgroundWork&) = delete;

  /// Starts piece(i) for every i in [0, n), after finishing this thread's unfinished job.
  void start(std::size_t n, std::function<void(std::size_t)> piece);
  /// Returns once every piece of the job start() began has run (at once if none is running).
  void finish();
  [[nodiscard]] bool running() const noexcept { return running_; }

 private:
  std::function<void(std::size_t)> piece_;
  bool running_ = false;
  std::thread::id starter_;  ///< the thread that started the running job
};

/// Whether this thread is running a piece of a split_work() or BackgroundWork job now (for
/// callers that must not be reached from a piece).
bool in_piece() noexcept;

/// Whether split_work() uses a helper thread here (two or more cores this process may run on).
bool split_work_parallel();

/// The cores this process may run on (at least 1).
unsigned usable_cores();

/// While it lives, split_work() and BackgroundWork::start() on this thread run every piece on
/// this thread, not on the helper: for a thread that is one of several running jobs at once
/// (base::run_ordered, D48), which would otherwise queue for the one helper, each waiting on
/// another's job. Given a count of the jobs running, only while it is above 1: a job that runs
/// alone (the last of a sweep, or one kept alone by a memory budget) has the helper again.
/// That cannot make two threads wait on each other: a thread posts to the helper only while
/// its job is the only one running, and finishes what it posted before its job ends or, once
/// another job runs, before its next split. Scopes nest; each restores what it found.
class OwnCoreOnly {
 public:
  OwnCoreOnly() noexcept;
  /// Contract: `running` counts this thread's job too, and outlives the scope.
  explicit OwnCoreOnly(const std::atomic<unsigned>& running) noexcept;
  ~OwnCoreOnly();
  OwnCoreOnly(const OwnCoreOnly&) = delete;
  OwnCoreOnly& operator=(const OwnCoreOnly&) = delete;

 private:
  bool was_always_;
  const std::atomic<unsigned>* was_running_;
};

}  // namespace sbrdma::base
