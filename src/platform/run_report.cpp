#include "platform/run_report.h"

#include <fmt/format.h>

#include "base/bits.h"
#include "sim/kernel.h"

namespace sbrdma::platform {

std::optional<std::uint32_t> RunReport::changed(device::CoreId core, unsigned idx) const {
  for (const CoreSemaphores& c : semaphores) {
    if (c.core != core) continue;
    for (const SemaphoreChange& s : c.changes) {
      if (s.idx == idx) return s.after;
    }
  }
  return std::nullopt;
}

std::string format_ns(base::Tick t) {
  return fmt::format("{}.{:03} ns", t.ps / 1000, t.ps % 1000);
}

std::vector<std::string> report_state_lines(const RunReport& r) {
  std::vector<std::string> out;
  out.push_back("simulated time: " + format_ns(r.end_time));
  for (const CoreSemaphores& c : r.semaphores) {
    std::string line = fmt::format("core {}:", c.core);
    for (const SemaphoreChange& s : c.changes) {
      line += fmt::format(" sem[{}]={}", s.idx, base::as_int32(s.after));
      if (s.before != 0) line += fmt::format(" (was {})", base::as_int32(s.before));
    }
    out.push_back(std::move(line));
  }
  out.push_back(fmt::format(
      "stats: {} descriptors, {} data bytes, {} semaphore writes, {} MMIO writes, {} events",
      r.stats.descriptors, r.stats.data_bytes, r.stats.semaphore_writes, r.stats.mmio_writes,
      r.stats.events));
  // Queues still holding descriptors: the first few (stopped queues repeat their error).
  constexpr std::size_t kShown = 4;
  for (std::size_t i = 0; i < r.pending_work.size() && i < kShown; ++i) {
    out.push_back("pending: " + r.pending_work[i]);
  }
  if (r.pending_work.size() > kShown) {
    out.push_back(fmt::format("pending: ... and {} more queues", r.pending_work.size() - kShown));
  }
  return out;
}

std::vector<base::Error> report_failures(const RunReport& r) {
  std::vector<base::Error> out;
  for (const FirmwareFailure& f : r.firmware_errors) {
    out.push_back(base::make_error(
        f.loc, fmt::format("core {} word {}: {}", f.core, f.error.pc, f.error.message)));
  }
  for (const device::ModelledError& e : r.device_errors) {
    out.push_back(base::make_error("device: " + e.format()));
  }
  for (const DeadlockWaiter& w : r.deadlock) {
    out.push_back(base::make_error(
        w.loc, fmt::format("deadlock: core {} word {} waits for {}", w.core, w.pc, w.description)));
  }
  if (r.past_time_limit) {
    out.push_back(base::make_error(fmt::format(
        "the run reached the simulated-time limit, {} (2^62 ps, about 53 days), with work "
        "left: it was stopped there",
        format_ns(sim::kTimeLimit))));
  }
  return out;
}

}  // namespace sbrdma::platform
