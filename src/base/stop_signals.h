#pragma once
/// The signals that ask a process to stop (SIGINT, SIGTERM, SIGHUP), held back while a
/// program writes its output files, so that an interrupt cannot leave a temporary file or a
/// half-replaced set of outputs behind: it takes effect (by its default action) once the
/// writes are done.
///
///   std::thread t = base::worker_thread(f);  // a worker: blocks them from its first instruction
///   { base::StopSignalsHeld held; write(); } // the main thread: pending until here
///
/// A signal sent to the process goes to a thread that does not block it, so worker threads
/// block these for good: while the main thread holds them, nothing else may take them.

#include <signal.h>

#include <system_error>
#include <thread>
#include <utility>

namespace sbrdma::base {

/// The calling thread's mask with the stop signals blocked or unblocked while it lives; its
/// destructor restores the earlier mask. Made through the two names below.
class StopSignalsMask {
 public:
  ~StopSignalsMask();
  StopSignalsMask(const StopSignalsMask&) = delete;
  StopSignalsMask& operator=(const StopSignalsMask&) = delete;

 protected:
  explicit StopSignalsMask(int how);  ///< SIG_BLOCK or SIG_UNBLOCK

 private:
  sigset_t old_{};
};

/// While it lives, the stop signals stay pending for the calling thread; when it ends, a
/// signal that arrived meanwhile takes effect.
class StopSignalsHeld : public StopSignalsMask {
 public:
  StopSignalsHeld() : StopSignalsMask(SIG_BLOCK) {}
};

/// While it lives, the stop signals act at once for the calling thread again (inside a
/// StopSignalsHeld, around a write that may wait without end: a pipe with no reader).
class StopSignalsReleased : public StopSignalsMask {
 public:
  StopSignalsReleased() : StopSignalsMask(SIG_UNBLOCK) {}
};

/// A thread running `f` with the stop signals blocked for its whole life: it is created while
/// the calling thread holds them, and a new thread starts with its creator's mask, so none can
/// reach it before its first instruction (a thread that blocked them itself, first thing, could
/// still take one sent in between, while the main thread held them). The caller's mask is
/// restored on return.
/// Workers only speed the simulator up, so one the system cannot create (a process limit, or
/// an address-space limit its stack does not fit) is not an error: an empty std::thread (not
/// joinable) comes back and `f` does not run; the caller does without it.
template <typename F>
std::thread worker_thread(F&& f) {
  const StopSignalsHeld held;
  try {
    return std::thread(std::forward<F>(f));
  } catch (const std::system_error&) {
    return std::thread();
  }
}

}  // namespace sbrdma::base
