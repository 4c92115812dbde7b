#include "sim/kernel.h"

#include <fmt/format.h>

#include <limits>

namespace sbrdma::sim {

std::string RunResult::deadlock_report() const {
  if (blocked.empty()) return {};
  std::string out = fmt::format("deadlock at t={} ps: {} process{} blocked\n", end_time.ps,
                                blocked.size(), blocked.size() == 1 ? "" : "es");
  for (const BlockedProcess& b : blocked) {
    out += fmt::format("  #{} {}: waiting for {}\n", b.id, b.name, b.waiting_for);
  }
  return out;
}

void DelayAwaiter::await_suspend(std::coroutine_handle<> h) const {
  kernel_.sleep(h, delay_);
}

Kernel::Kernel(std::uint64_t tie_seed) : queue_(tie_seed) {}

Kernel::~Kernel() {
  // Frames first: their destructors may still reach the queue; events hold no frames.
  for (Process& p : procs_) p.body.reset();
  queue_.clear();
}

void Kernel::check_delay(base::Tick delay) const {
  SBRDMA_CHECK_MSG(delay.ps <= std::numeric_limits<std::uint64_t>::max() - now_.ps,
                   "event time overflows Tick");
}

void Kernel::check_when(base::Tick when) const {
  SBRDMA_CHECK_MSG(when >= now_, "an event scheduled in the past");
}

void Kernel::schedule(base::Tick delay, Callback&& fn, std::string_view label) {
  check_delay(delay);
  queue_.push(now_ + delay, std::move(fn), label);
}

void Kernel::schedule_at(base::Tick when, std::uint64_t seq, Callback&& fn,
                         std::string_view label) {
  check_when(when);
  queue_.push_reserved(when, seq, std::move(fn), label);
}

ProcessId Kernel::spawn(std::string name, base::Task<void> body) {
  SBRDMA_CHECK_MSG(body.valid() && !body.done(), "spawn needs a fresh Task");
  SBRDMA_CHECK(procs_.size() < kNoProcess);
  const auto pid = static_cast<ProcessId>(procs_.size());
  Process& p = procs_.emplace_back();
  p.name = std::move(name);
  p.resume_point = body.handle();
  p.body = std::move(body);
  p.state = ProcessState::kReady;
  schedule_run(pid, base::Tick{});
  return pid;
}

void Kernel::schedule_run(ProcessId pid, base::Tick delay) {
  schedule(
      delay, [this, pid] { run_process(pid); }, procs_[pid].name);
}

bool Kernel::run_next_inline(base::Tick at, std::uint64_t seq, std::string_view label) {
  SBRDMA_CHECK_MSG(in_event_, "run_next_inline outside an event");
  check_when(at);
  if (stop_ || at > limit_ || !queue_.comes_first(at, seq)) return false;
  begin_event(at, seq, label);
  return true;
}

void Kernel::begin_event(base::Tick at, std::uint64_t seq, std::string_view label) {
  now_ = at;
  ++events_processed_;
  if (trace_ != nullptr) trace_->record(TraceRecord{at, seq, label});
  current_seq_ = seq;
}

RunResult Kernel::run() {
  RunResult r = drain(kTimeLimit);
  r.past_time_limit = !r.stopped && !queue_.empty();
  return r;
}

RunResult Kernel::run_until(base::Tick limit) {
  RunResult r = drain(limit);
  if (!r.stopped && now_ < limit) now_ = limit;
  r.end_time = now_;
  return r;
}

RunResult Kernel::drain(base::Tick limit) {
  SBRDMA_CHECK_MSG(current_ == kNoProcess, "run() called from inside a process");
  stop_ = false;
  limit_ = limit;
  while (!queue_.empty() && !stop_ && queue_.next_time() <= limit) {
    Event ev = queue_.pop();
    begin_event(ev.time, ev.seq, ev.label);
    in_event_ = true;
    ev.fn();
    in_event_ = false;
  }
  RunResult r;
  r.end_time = now_;
  r.events_processed = events_processed_;
  r.processes_finished = finished_;
  r.stopped = stop_;
  stop_ = false;
  if (queue_.empty()) {
    for (ProcessId pid = 0; pid < procs_.size(); ++pid) {
      if (procs_[pid].state == ProcessState::kWaiting) {
        r.blocked.push_back(BlockedProcess{pid, procs_[pid].name, waiting_for(pid)});
      }
    }
  }
  return r;
}

ProcessState Kernel::state(ProcessId pid) const {
  SBRDMA_CHECK(pid < procs_.size());
  return procs_[pid].state;
}

const std::string& Kernel::name(ProcessId pid) const {
  SBRDMA_CHECK(pid < procs_.size());
  return procs_[pid].name;
}

std::string Kernel::waiting_for(ProcessId pid) const {
  SBRDMA_CHECK(pid < procs_.size());
  const Process& p = procs_[pid];
  if (p.state != ProcessState::kWaiting) return {};
  if (!p.waiting_for) return "(no description)";
  return p.waiting_for();
}

Kernel::Process& Kernel::park(std::coroutine_handle<> h, ProcessState st) {
  SBRDMA_CHECK_MSG(current_ != kNoProcess, "a process wait used outside a process");
  Process& p = procs_[current_];
  SBRDMA_CHECK(p.state == ProcessState::kRunning);
  p.resume_point = h;
  p.state = st;
  return p;
}

void Kernel::sleep(std::coroutine_handle<> h, base::Tick d) {
  park(h, ProcessState::kSleeping);
  schedule_run(current_, d);
}

void Kernel::block(std::coroutine_handle<> h, Describe what) {
  park(h, ProcessState::kWaiting).waiting_for = std::move(what);
}

void Kernel::wake(ProcessId pid) {
  SBRDMA_CHECK(pid < procs_.size());
  Process& p = procs_[pid];
  SBRDMA_CHECK_MSG(p.state == ProcessState::kWaiting, "wake of a process that is not waiting");
  p.state = ProcessState::kReady;
  p.waiting_for = nullptr;
  schedule_run(pid, base::Tick{});
}

void Kernel::resume(ProcessId pid) {
  SBRDMA_CHECK(pid < procs_.size());
  SBRDMA_CHECK_MSG(procs_[pid].state == ProcessState::kWaiting,
                   "resume of a process that is not waiting");
  run_process(pid);
}

void Kernel::run_process(ProcessId pid) {
  SBRDMA_CHECK_MSG(current_ == kNoProcess, "a process resumed from inside another process");
  Process& p = procs_[pid];
  SBRDMA_CHECK(p.state != ProcessState::kRunning && p.state != ProcessState::kFinished);
  p.state = ProcessState::kRunning;
  p.waiting_for = nullptr;
  const std::coroutine_handle<> h = std::exchange(p.resume_point, {});
  if (trace_ != nullptr) trace_->resumed(pid);
  current_ = pid;
  base::resume(h);
  current_ = kNoProcess;
  if (p.body.done()) {
    p.state = ProcessState::kFinished;
    p.body.reset();
    ++finished_;
    return;
  }
  SBRDMA_CHECK_MSG(p.state != ProcessState::kRunning,
                   "a process suspended on something that did not park it in the kernel");
}

}  // namespace sbrdma::sim
