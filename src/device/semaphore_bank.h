#pragma once
/// SemaphoreBank: one core's EVT_SEM counters. [HIGH] wiki-facts §5
///
///   EVT_SEM (per TPB)       256 x 32-bit semaphores, 256 events, 4-byte slots
///   +0x0000 EVENTS  RW  (1 bit each)          [CHOICE D18c] udma-facts §4.4
///   +0x1000 READ    RO  value
///   +0x1400 SET     WO  value  = data
///   +0x1800 INC     WO  value += data (atomic)
///   +0x1C00 DEC     WO  value -= data (atomic)
///
/// Every change notifies the bank's sim::Signal, so a process waiting for a condition such as
/// `sem[3] >= 16` wakes when it becomes true. Arithmetic wraps modulo 2^32.
/// Firmware writes the value 1 to INC from its semaphore descriptors ([CHOICE D21]).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/result.h"
#include "sim/signal.h"
#include "soc/address_map.h"

namespace sbrdma::device {

/// A condition on one semaphore's value, with its text for reports (e.g. ">= 16"). The
/// caller defines the compare (firmware's wait modes live above the device layer).
struct SemCondition {
  std::function<bool(std::uint32_t)> holds;  ///< true when the value satisfies it
  std::string text;                          ///< e.g. ">= 16"
};

/// A semaphore's value changed: which bank (its tag: the machine's core id) and index. What
/// a watcher (a trace) reads instead of scanning every bank after every event.
struct SemChange {
  std::uint32_t tag = 0;
  unsigned idx = 0;
};

/// One core's semaphores and events (see the top of this file).
class SemaphoreBank {
 public:
  /// `name` names the Signal (e.g. "core3.sem"); `count` semaphores and `events` events.
  SemaphoreBank(sim::Kernel& kernel, std::string name, unsigned count, unsigned events);

  /// Number of semaphores.
  [[nodiscard]] unsigned count() const noexcept { return static_cast<unsigned>(values_.size()); }
  /// Number of events.
  [[nodiscard]] unsigned events() const noexcept { return static_cast<unsigned>(events_.size()); }
  /// Contract: idx < count().
  [[nodiscard]] std::uint32_t value(unsigned idx) const;
  /// Contract: idx < events().
  [[nodiscard]] std::uint32_t event(unsigned idx) const;

  /// Whether a write to window `w` changes a value: SET, INC and DEC.
  [[nodiscard]] static constexpr bool value_window(soc::SemWindow w) {
    return w == soc::SemWindow::kSet || w == soc::SemWindow::kInc || w == soc::SemWindow::kDec;
  }
  /// The value a write of `data` to window `w` leaves on a semaphore holding `cur`: SET gives
  /// `data`, INC adds it, DEC subtracts it (modulo 2^32). Contract: value_window(w).
  [[nodiscard]] static std::uint32_t value_after(soc::SemWindow w, std::uint32_t cur,
                                                 std::uint32_t data);
  /// A software or DMA write of `data` to slot `idx` of window `w`. Errors (the caller records
  /// them as modelled errors): the READ window (read-only), an index out of range.
  base::Status write(soc::SemWindow w, unsigned idx, std::uint32_t data);
  /// A read of slot `idx` of `w`: READ gives the value, EVENTS the event bit. Errors: the
  /// write-only SET/INC/DEC windows, an index out of range.
  [[nodiscard]] base::Result<std::uint32_t> read(soc::SemWindow w, unsigned idx) const;

  /// Direct set (tests, platform initialisation); notifies. Contract: idx < count().
  void set(unsigned idx, std::uint32_t v);

  /// Notified after every change.
  [[nodiscard]] sim::Signal& signal() noexcept { return signal_; }
  /// From now on, appends a SemChange{tag, idx} to `log` on every write or set of a
  /// semaphore's value (events are not reported); nullptr stops. Contract: `log` outlives the
  /// watching.
  void report_changes(std::vector<SemChange>* log, std::uint32_t tag) noexcept {
    log_ = log;
    tag_ = tag;
  }

  /// Writes applied so far (any window).
  [[nodiscard]] std::uint64_t writes() const noexcept { return writes_; }

 private:
  sim::Signal signal_;
  std::vector<std::uint32_t> values_;
  std::vector<std::uint32_t> events_;
  std::uint64_t writes_ = 0;
  std::vector<SemChange>* log_ = nullptr;
  std::uint32_t tag_ = 0;
};

}  // namespace sbrdma::device
