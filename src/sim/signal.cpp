#include "sim/signal.h"

namespace sbrdma::sim {

bool WaitUntilAwaiter::await_suspend(std::coroutine_handle<> h) {
  return signal_.park(h, std::move(pred_), std::move(describe_));
}

bool Signal::park(std::coroutine_handle<> h, Predicate pred, Describe describe) {
  SBRDMA_CHECK_MSG(static_cast<bool>(pred), "wait_until needs a predicate");
  if (pred()) return false;
  if (!describe) describe = [this] { return "signal " + name_; };
  kernel_.block(h, std::move(describe));  // checks that a process is running
  waiters_.push_back(Waiter{kernel_.current_process(), std::move(pred)});
  return true;
}

void Signal::notify() {
  std::size_t keep = 0;
  for (std::size_t i = 0; i < waiters_.size(); ++i) {
    Waiter& w = waiters_[i];
    if (w.pred()) {
      kernel_.schedule(
          base::Tick{},
          [this, pid = w.pid, pred = std::move(w.pred)]() mutable {
            recheck(pid, std::move(pred));
          },
          name_);
    } else {
      if (keep != i) waiters_[keep] = std::move(w);
      ++keep;
    }
  }
  waiters_.erase(waiters_.begin() + static_cast<std::ptrdiff_t>(keep), waiters_.end());
}

void Signal::recheck(ProcessId pid, Predicate pred) {
  if (pred()) {
    kernel_.resume(pid);
  } else {
    waiters_.push_back(Waiter{pid, std::move(pred)});
  }
}

}  // namespace sbrdma::sim
