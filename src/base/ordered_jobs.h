#pragma once
/// run_ordered: independent jobs 0 .. n-1 run several at a time, each on one thread, and are
/// reported in index order, so that what a caller prints is the same whatever their timing:
/// the rows of a `bench` sweep (D48).
///
///   threads:   caller  [job 0    ][job 2 ][job 4      ]
///              worker  [job 1 ][job 3        ]
///   reported:          0 ...... 1 .. 2 ........ 3 .. 4      (done(i) once 0 .. i all ran)
///
/// Jobs start in index order. Once a job fails no further job starts (those running finish),
/// and only the jobs before the first failed one are reported, as a loop that stopped at it
/// would. A job may also wait to start while others run: with a budget, the jobs running at
/// once together cost at most the budget (each job's cost from `cost`), except a job that runs
/// alone. With more than one thread, a job's split_work pieces stay on its own thread while
/// other jobs run (base::OwnCoreOnly, given the count of jobs running): the jobs do not queue
/// for the one helper, and a job running alone has it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

namespace sbrdma::base {

/// How many jobs may run at once, and what they may cost together.
struct JobLimits {
  unsigned threads = 1;  ///< jobs at once: the caller's thread and threads - 1 workers
  /// nullopt: no limit. Else the jobs running at once cost at most this (one job alone may
  /// cost more).
  std::optional<std::uint64_t> budget;
  std::function<std::uint64_t(std::size_t)> cost;  ///< a job's cost (empty: 0)
  /// True for a job that runs with no other beside it (empty: none): it waits for the running
  /// jobs to finish, and no job starts while it runs.
  std::function<bool(std::size_t)> alone;
};

/// What run_ordered did.
struct OrderedRun {
  std::size_t failed = 0;  ///< the first failed job's index; n if none failed
  unsigned most = 0;       ///< the most jobs that ran at once
};

/// Runs `run(i)` for i = 0, 1 ... n - 1 under `limits` (all on the caller when threads < 2, or
/// when no worker thread can be made) and calls `done(i)` for each job that succeeded, in index
/// order, each once run(0) .. run(i) have returned true; done() calls never overlap. `run`
/// returns false for a failed job: no job after it starts, and done() is not called for it or
/// any after it.
/// Contract: run and done do not throw; run(i) and run(j) may run at once (they must not touch
/// the same data unguarded); done may touch what run(i) left.
OrderedRun run_ordered(std::size_t n, const JobLimits& limits,
                       const std::function<bool(std::size_t)>& run,
                       const std::function<void(std::size_t)>& done);

}  // namespace sbrdma::base
