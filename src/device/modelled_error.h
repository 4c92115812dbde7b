#pragma once
/// Modelled hardware-programming errors (DESIGN.md "Errors", kind 2): a guest mistake such as
/// a write to a read-only register, a stale ring id or an address that decodes to nothing.
/// The model behaves as hardware would (latches an error bit, stops the queue), records the
/// error here and keeps running; nothing aborts. The list is reported at the end of a run.

#include <optional>
#include <string>
#include <vector>

#include "base/units.h"
#include "device/topology.h"
#include "soc/address_map.h"

namespace sbrdma::device {

/// The MMIO access that flagged an error: by which core it was issued, and under which
/// kernel sequence number (a posted write's own, reserved as it was issued; else
/// sim::Kernel::next_seq() then): a mark of when, in scheduling order, so that the word that
/// issued it can be found.
struct IssuedAccess {
  CoreId issuer = 0;
  std::uint64_t seq = 0;
  bool at_issue = false;  ///< it failed as it was issued (else as its write took effect)
};

/// One recorded error: when, on which core's hardware, and (when known) which engine, block
/// and queue flagged it.
struct ModelledError {
  base::Tick time;
  CoreId core = 0;  ///< global core id
  std::optional<unsigned> engine;
  std::optional<soc::Direction> dir;
  std::optional<unsigned> queue;
  std::string message;
  /// The ring slot of the descriptor the engine read, for an error about a descriptor (its
  /// writer can then be found: RunReport::device_error_origins).
  std::optional<unsigned> slot;
  /// The MMIO access that flagged it, for an error flagged by one (as it was issued or as it
  /// took effect).
  std::optional<IssuedAccess> access{};

  /// One line: `t=1300.000ns core 3 engine 5 M2S queue 0: message`.
  [[nodiscard]] std::string format() const;
};

/// Where an error was flagged, short of its time and message.
struct ErrorSite {
  explicit ErrorSite(CoreId c, std::optional<unsigned> e = std::nullopt,
                     std::optional<soc::Direction> d = std::nullopt,
                     std::optional<unsigned> q = std::nullopt,
                     std::optional<unsigned> s = std::nullopt)
      : core(c), engine(e), dir(d), queue(q), slot(s) {}
  CoreId core = 0;
  std::optional<unsigned> engine;
  std::optional<soc::Direction> dir;
  std::optional<unsigned> queue;
  std::optional<unsigned> slot;  ///< the descriptor's ring slot, for an error about one
};

/// The errors of one machine, in the order they were flagged.
class ErrorLog {
 public:
  /// Appends one error, flagged at `time` (by the MMIO access `access`, if one).
  void record(base::Tick time, const ErrorSite& site, std::string message,
              std::optional<IssuedAccess> access = std::nullopt);
  /// Every error, in the order flagged.
  [[nodiscard]] const std::vector<ModelledError>& all() const noexcept { return errors_; }
  /// True if none was flagged.
  [[nodiscard]] bool empty() const noexcept { return errors_.empty(); }
  /// Number of errors.
  [[nodiscard]] std::size_t size() const noexcept { return errors_.size(); }
  /// Every error's format(), one per line; empty if there are none.
  [[nodiscard]] std::string report() const;

 private:
  std::vector<ModelledError> errors_;
};

/// `t=<ns with 3 decimals>ns`, exact from the integer picoseconds.
std::string format_time(base::Tick t);

}  // namespace sbrdma::device
