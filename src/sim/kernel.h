#pragma once
/// Kernel: the deterministic discrete-event kernel (DESIGN.md "Execution model"). It knows
/// nothing about Trainium: it runs events and coroutine processes.
///
///  - Time is an integer base::Tick (picoseconds). Events are values {callback, label} ordered
///    by (time, sequence); see EventQueue for the seeded tie shuffle.
///  - A process is a base::Task<void> started by spawn() at now(). It suspends only through the
///    kernel: `co_await kernel.delay(d)`, a Signal wait, a Fifo pop, or a base::Suspend whose
///    implementer uses sleep()/block()/wake() below. Every resumption of a process is an event,
///    so nothing runs re-entrantly inside another process.
///  - A run that drains the queue while processes are still waiting is a deadlock; RunResult
///    lists each such process with a description produced at report time.
///
/// Process states:
///
///   spawn -> kReady --event--> kRunning --delay/sleep--> kSleeping --event--> kRunning
///                                  |    --block-------> kWaiting --wake/resume--> ...
///                                  +--body ends-----> kFinished (frame freed)

#include <coroutine>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/coro.h"
#include "base/units.h"
#include "sim/callback.h"
#include "sim/event_queue.h"
#include "sim/trace.h"

namespace sbrdma::sim {

/// Index of a process in its kernel, in spawn order from 0.
using ProcessId = std::uint32_t;
/// "No process" (e.g. current_process() while an event callback runs).
inline constexpr ProcessId kNoProcess = UINT32_MAX;

/// Describes, when asked at report time, what a waiting process waits for, e.g.
/// "sem[3] >= 16, current 12". Called only for reports, so it may read live state.
using Describe = std::function<std::string()>;

enum class ProcessState : std::uint8_t {
  kReady,     ///< spawned or woken; a resume event is pending
  kRunning,   ///< executing now
  kSleeping,  ///< in a delay; a resume event is pending
  kWaiting,   ///< blocked on a condition; only a wake/notify can resume it
  kFinished,  ///< body returned; its frame is freed
};

/// A process that was still waiting when the queue drained.
struct BlockedProcess {
  ProcessId id = kNoProcess;
  std::string name;
  std::string waiting_for;
};

/// The latest time run() reaches: 2^62 ps, about 53 simulated days. Events later than that do
/// not run; a run that has some is cut short (RunResult::past_time_limit). The limit keeps
/// now() + any delay the device computes (each far below 2^62 ps) inside 64 bits, where an
/// unlimited run would overflow Tick. [CHOICE D40]
inline constexpr base::Tick kTimeLimit{std::uint64_t{1} << 62};

/// What run()/run_until() report. Counters are totals since the kernel was built.
struct RunResult {
  base::Tick end_time;
  std::uint64_t events_processed = 0;
  std::uint64_t processes_finished = 0;
  /// Non-empty only if the queue drained while processes were waiting: a deadlock.
  std::vector<BlockedProcess> blocked;
  /// True if request_stop() ended the run early.
  bool stopped = false;
  /// True if run() ended at kTimeLimit with later events still queued.
  bool past_time_limit = false;

  [[nodiscard]] bool deadlocked() const noexcept { return !blocked.empty(); }
  /// Multi-line text: a header line, then one `  #id name: waiting for ...` per process.
  /// Empty if there is no deadlock.
  [[nodiscard]] std::string deadlock_report() const;
};

class Kernel;

/// `co_await kernel.delay(d)`: resumes the process at exactly now() + d. A zero delay yields
/// to the other events of the current tick.
class DelayAwaiter {
 public:
  DelayAwaiter(Kernel& k, base::Tick d) noexcept : kernel_(k), delay_(d) {}
  [[nodiscard]] bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) const;
  void await_resume() const noexcept {}

 private:
  Kernel& kernel_;
  base::Tick delay_;
};

class Kernel {
 public:
  /// `tie_seed` 0: same-time events run in insertion order; otherwise a reproducible shuffle.
  explicit Kernel(std::uint64_t tie_seed = 0);
  /// Destroys every process frame (suspended ones included) and every pending event.
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  /// Current simulated time.
  [[nodiscard]] base::Tick now() const noexcept { return now_; }

  /// Runs `fn` at now() + delay. Contract: `label` outlives the event (see Event::label).
  void schedule(base::Tick delay, Callback&& fn, std::string_view label);
  /// schedule() for a callable that is not yet a Callback: it is built in the queue's slot.
  template <EventAction F>
  void schedule(base::Tick delay, F&& fn, std::string_view label) {
    check_delay(delay);
    queue_.push(now_ + delay, std::forward<F>(fn), label);
  }

  /// Reserves the sequence number of an event to be scheduled later with schedule_at(): that
  /// event runs where one scheduled now for the same time would (same-time order included).
  [[nodiscard]] std::uint64_t reserve_seq() noexcept { return queue_.reserve_seq(); }
  /// The sequence number the next reservation or schedule takes (none is taken): a mark of
  /// when, in scheduling order, something happened.
  [[nodiscard]] std::uint64_t next_seq() const noexcept { return queue_.pushed(); }
  /// Runs `fn` at absolute time `when` under the reserved sequence number `seq`.
  /// Contract: when >= now(); `seq` came from reserve_seq() and is used once.
  void schedule_at(base::Tick when, std::uint64_t seq, Callback&& fn, std::string_view label);
  /// schedule_at() for a callable that is not yet a Callback: it is built in the queue's slot.
  template <EventAction F>
  void schedule_at(base::Tick when, std::uint64_t seq, F&& fn, std::string_view label) {
    check_when(when);
    queue_.push_reserved(when, seq, std::forward<F>(fn), label);
  }

  /// Starts `body` as a process at now() (as an event labelled `name`). Returns its id.
  /// Contract: body.valid() and not started.
  ProcessId spawn(std::string name, base::Task<void> body);

  /// Runs events until none remain (or request_stop(), or the next is past kTimeLimit). now()
  /// ends at the last event's time.
  RunResult run();
  /// Runs every event with time <= limit (unless stopped); then now() = max(now(), limit).
  RunResult run_until(base::Tick limit);
  /// Ends the current run after the event now executing. Contract: called during a run.
  void request_stop() noexcept { stop_ = true; }

  /// True if an event at `at` under sequence number `seq` (pushed or only reserved) would
  /// have run already: it pops before the event now running; between runs, `at` <= now().
  [[nodiscard]] bool ran_before_now(base::Tick at, std::uint64_t seq) const noexcept {
    if (!in_event_) return at <= now_;
    return queue_.pops_before(at, seq, now_, current_seq_);
  }
  /// From inside an event's callback: if an event at `at` under the reserved sequence number
  /// `seq` would run next, makes it the running event (now(), the event count, the trace
  /// sink's record) and returns true; the caller then runs its action in place, exactly
  /// where the kernel would have. Otherwise (something runs first, the run is stopping or
  /// `at` is past its limit) returns false and changes nothing: schedule it as usual.
  /// Contract: at >= now(); `seq` came from reserve_seq() and is used once.
  bool run_next_inline(base::Tick at, std::uint64_t seq, std::string_view label);
  /// True if same-time events run in a shuffled order (a non-zero tie seed).
  [[nodiscard]] bool shuffles_ties() const noexcept { return queue_.shuffled(); }

  /// Installs (or with nullptr removes) the trace sink. Not owned; must outlive its use.
  void set_trace(TraceSink* sink) noexcept { trace_ = sink; }

  [[nodiscard]] std::uint64_t events_processed() const noexcept { return events_processed_; }
  [[nodiscard]] std::size_t pending_events() const noexcept { return queue_.size(); }
  [[nodiscard]] std::size_t processes_spawned() const noexcept { return procs_.size(); }
  [[nodiscard]] std::uint64_t processes_finished() const noexcept { return finished_; }

  /// Contract for the three below: `pid` was returned by spawn().
  [[nodiscard]] ProcessState state(ProcessId pid) const;
  [[nodiscard]] const std::string& name(ProcessId pid) const;
  /// What a kWaiting process waits for (evaluated now); empty for other states.
  [[nodiscard]] std::string waiting_for(ProcessId pid) const;

  /// The running process, or kNoProcess while an event callback (not a process) runs.
  [[nodiscard]] ProcessId current_process() const noexcept { return current_; }

  /// `co_await kernel.delay(d)`.
  [[nodiscard]] DelayAwaiter delay(base::Tick d) noexcept { return DelayAwaiter(*this, d); }

  // ---- Low-level suspension API, for authors of awaitables (Signal, Fifo, base::Suspend
  // implementers in platform/). Each park call is made from await_suspend of the running
  // process with the handle it received.

  /// Parks the running process at `h` and resumes it at now() + d.
  void sleep(std::coroutine_handle<> h, base::Tick d);
  /// Parks the running process at `h` as kWaiting, until wake() or resume().
  void block(std::coroutine_handle<> h, Describe what);
  /// Schedules a kWaiting process to resume at now() (it becomes kReady).
  void wake(ProcessId pid);
  /// Resumes a kWaiting process immediately. Contract: called from an event callback, never
  /// from inside a process (use wake() there).
  void resume(ProcessId pid);

 private:
  struct Process {
    std::string name;
    base::Task<void> body;
    std::coroutine_handle<> resume_point;
    Describe waiting_for;
    ProcessState state = ProcessState::kReady;
  };

  /// The contracts of schedule() and schedule_at() on the event's time.
  void check_delay(base::Tick delay) const;
  void check_when(base::Tick when) const;
  /// Parks the running process at `h` with the given state; returns its record.
  Process& park(std::coroutine_handle<> h, ProcessState st);
  /// Queues an event that runs `pid` (label = its name).
  void schedule_run(ProcessId pid, base::Tick delay);
  /// Runs the process until it suspends or ends.
  void run_process(ProcessId pid);
  /// Makes the event at `at` under `seq` the running one: the clock, the count and the trace
  /// sink's record, as between any two events (drain() and run_next_inline()).
  void begin_event(base::Tick at, std::uint64_t seq, std::string_view label);
  /// Executes events up to `limit`; fills the result.
  RunResult drain(base::Tick limit);

  EventQueue queue_;
  base::Tick now_;
  std::uint64_t events_processed_ = 0;
  std::uint64_t finished_ = 0;
  ProcessId current_ = kNoProcess;
  bool stop_ = false;
  base::Tick limit_;               ///< drain()'s limit while it runs
  bool in_event_ = false;          ///< an event's callback is running
  std::uint64_t current_seq_ = 0;  ///< its sequence number
  TraceSink* trace_ = nullptr;
  std::deque<Process> procs_;  // deque: records keep their address as processes are added
};

}  // namespace sbrdma::sim
