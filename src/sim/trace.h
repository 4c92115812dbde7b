#pragma once
/// Event trace: an optional observer of every executed event, so that two runs can be compared
/// byte for byte (DESIGN.md "Execution model": same inputs, same output, traces included).

#include <cstdint>
#include <string>
#include <string_view>

#include "base/units.h"

namespace sbrdma::sim {

/// One executed event: when it ran, its sequence number and its label.
struct TraceRecord {
  base::Tick time;
  std::uint64_t seq = 0;
  std::string_view label;
};

/// Receives every executed event, in execution order, just before its action runs.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  /// Contract: `r.label` is only valid during the call; copy it to keep it.
  virtual void record(const TraceRecord& r) = 0;
  /// Process `pid` is about to run (resume) inside the event last recorded. What a process
  /// does (its pc, what it waits for, finishing) changes only while it runs; wake() only
  /// turns a waiting process ready. So a sink that watches processes polls just these.
  virtual void resumed(std::uint32_t pid) { static_cast<void>(pid); }
};

/// A sink that keeps the trace as text, one line per event: `<time_ps> <seq> <label>\n`.
class StringTrace final : public TraceSink {
 public:
  void record(const TraceRecord& r) override;
  /// The text so far.
  [[nodiscard]] const std::string& text() const noexcept { return text_; }
  /// Number of recorded events.
  [[nodiscard]] std::uint64_t lines() const noexcept { return lines_; }

 private:
  std::string text_;
  std::uint64_t lines_ = 0;
};

}  // namespace sbrdma::sim
