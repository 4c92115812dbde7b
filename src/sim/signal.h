#pragma once
/// Signal: the condition-wait facility of the kernel. A process waits until a predicate over
/// some state holds; whoever changes that state calls notify() on the Signal that guards it.
///
///   co_await sem_changed.wait_until(
///       [&] { return sem[3] >= 16; },
///       [&] { return fmt::format("sem[3] >= 16, current {}", sem[3]); });
///   ...
///   sem[3] += 1; sem_changed.notify();
///
/// Semantics:
///  1. wait_until evaluates the predicate at once; if it holds, the process does not suspend.
///  2. Otherwise the process waits (kWaiting) in the Signal's FIFO list of waiters.
///  3. notify() evaluates every waiter's predicate in FIFO order; each one that now holds leaves
///     the list and gets a wake event at now(), in that order. Others stay (a notify that
///     changes nothing is harmless).
///  4. The wake event re-checks the predicate: if it still holds the process resumes, so a
///     process never leaves wait_until with a false predicate; if another event of the same
///     tick made it false again, the process rejoins the list (at the back).
/// Predicates must not have side effects. The Signal must outlive the waits on it.

#include <coroutine>
#include <functional>
#include <string>
#include <vector>

#include "sim/kernel.h"

namespace sbrdma::sim {

/// A condition to wait for. Evaluated at wait, at every notify, and at the wake event.
using Predicate = std::function<bool()>;

class Signal;

/// `co_await signal.wait_until(pred, describe)`.
class WaitUntilAwaiter {
 public:
  WaitUntilAwaiter(Signal& s, Predicate pred, Describe describe)
      : signal_(s), pred_(std::move(pred)), describe_(std::move(describe)) {}
  [[nodiscard]] bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h);
  void await_resume() const noexcept {}

 private:
  Signal& signal_;
  Predicate pred_;
  Describe describe_;
};

class Signal {
 public:
  /// `name` labels wake events in traces and is the default description of a wait.
  Signal(Kernel& kernel, std::string name) : kernel_(kernel), name_(std::move(name)) {}
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;

  /// Suspends the running process until `pred` holds. `describe` (optional) says what it
  /// waits for in a deadlock report; by default "signal <name>".
  [[nodiscard]] WaitUntilAwaiter wait_until(Predicate pred, Describe describe = {}) {
    return WaitUntilAwaiter(*this, std::move(pred), std::move(describe));
  }

  /// The building block under wait_until, for base::Suspend implementers: if `pred` holds,
  /// returns false (do not suspend); else parks the running process at `h` and returns true.
  bool park(std::coroutine_handle<> h, Predicate pred, Describe describe);

  /// Re-evaluates the waiters' predicates and wakes those that now hold (see the top).
  void notify();

  [[nodiscard]] std::size_t waiters() const noexcept { return waiters_.size(); }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

 private:
  struct Waiter {
    ProcessId pid;
    Predicate pred;
  };
  /// Wake event: resume if the predicate still holds, else rejoin the list.
  void recheck(ProcessId pid, Predicate pred);

  Kernel& kernel_;
  std::string name_;
  std::vector<Waiter> waiters_;
};

}  // namespace sbrdma::sim
