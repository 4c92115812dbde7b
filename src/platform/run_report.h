#pragma once
/// What a Simulation run reports: the final time, the semaphores that changed, every firmware
/// and device error, the deadlock (every waiter with its core, semaphore, condition and
/// current value) and the counters. DESIGN.md "Errors": modelled errors (kind 2) and a
/// deadlock are outcomes of a run, reported here, never aborts.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/units.h"
#include "device/machine.h"
#include "device/modelled_error.h"
#include "firmware/config.h"

namespace sbrdma::platform {

/// One semaphore whose final value differs from its value before the run.
struct SemaphoreChange {
  unsigned idx = 0;
  std::uint32_t before = 0;
  std::uint32_t after = 0;
};

/// The changed semaphores of one core (only cores with a change are listed).
struct CoreSemaphores {
  device::CoreId core = 0;
  std::vector<SemaphoreChange> changes;
};

/// A core that stopped on a firmware error.
struct FirmwareFailure {
  device::CoreId core = 0;
  firmware::FirmwareError error;
  base::SourceLoc loc;  ///< the word's source line, when the program came from text
};

/// The program word a device error comes from: the one that wrote the descriptor its queue
/// stopped at, or the one that issued the MMIO access that flagged it.
struct ErrorOrigin {
  std::size_t pc = 0;
  base::SourceLoc loc;     ///< the word's source line, when the program came from text
  bool descriptor = true;  ///< it wrote the descriptor (else it issued the access)
};

/// A race (SimOptions::check_races) and the words of its two sides, when known.
struct RaceLine {
  device::Race race;
  std::optional<ErrorOrigin> first;
  std::optional<ErrorOrigin> second;
};

/// An unfenced wait (SimOptions::check_races, D49d), its word and its own updates' words.
struct UnfencedWaitLine {
  device::UnfencedWait wait;
  std::optional<ErrorOrigin> origin;            ///< the waiting word
  std::vector<std::optional<ErrorOrigin>> own;  ///< by wait.own
};

/// A core whose last rdma_desc_gen words no rdma_desc_start published: their descriptors sit
/// in the rings, unseen by the engines.
struct UnstartedGens {
  device::CoreId core = 0;
  std::size_t pc = 0;             ///< the first such gen's word
  base::SourceLoc loc;            ///< that word's source line, if known
  unsigned gens = 0;              ///< gens since the last start
  std::uint64_t descriptors = 0;  ///< M2S descriptors they wrote (as many S2M)
  unsigned engines = 0;           ///< engines whose rings hold them
  std::uint64_t dropped = 0;      ///< descriptors the gens meant for full rings (D6)
  unsigned first_full = 0;        ///< the first engine whose ring was full, if dropped > 0
};

/// A core whose sequencer was still waiting when nothing else could happen.
struct DeadlockWaiter {
  device::CoreId core = 0;
  std::optional<unsigned> semaphore;  ///< the semaphore waited on (else a Q7 FIFO pop)
  std::string condition;              ///< ">= 16"
  std::uint32_t current = 0;          ///< the semaphore's value at the end
  std::string description;            ///< "sem[4] >= 16, current 0" or the FIFO wait
  std::size_t pc = 0;                 ///< the word it waits in
  base::SourceLoc loc;                ///< that word's source line, if known
};

/// Counters of the run.
struct RunStats {
  std::uint64_t events = 0;            ///< kernel events processed
  std::uint64_t descriptors = 0;       ///< descriptor pairs completed
  std::uint64_t data_bytes = 0;        ///< bytes moved by data descriptors
  std::uint64_t semaphore_writes = 0;  ///< semaphore descriptors completed
  std::uint64_t mmio_writes = 0;
  std::uint64_t race_checked_accesses = 0;  ///< with SimOptions::check_races (RaceChecker)
};

/// A firmware DEBUG line and who wrote it when.
struct DebugLine {
  device::CoreId core = 0;
  base::Tick time;
  std::string text;
};

struct RunReport {
  base::Tick end_time;
  std::vector<CoreSemaphores> semaphores;
  std::vector<FirmwareFailure> firmware_errors;
  std::vector<device::ModelledError> device_errors;
  /// With SimOptions::locate_device_errors, one per device error (same order): the word it
  /// comes from, when a program word wrote the descriptor its queue stopped at or issued the
  /// MMIO access that flagged it; empty otherwise.
  std::vector<std::optional<ErrorOrigin>> device_error_origins;
  std::vector<DeadlockWaiter> deadlock;
  /// With SimOptions::check_races: the races found (each once, with its repeats; at most
  /// device::RaceChecker::kKept) and how many there were in all.
  std::vector<RaceLine> races;
  std::uint64_t races_total = 0;
  /// With SimOptions::check_races: the unfenced waits found (each waiting word once, with its
  /// repeats) and how many there were in all. They fail a run as races do.
  std::vector<UnfencedWaitLine> unfenced_waits;
  std::uint64_t unfenced_total = 0;
  /// True if the run was cut at the kernel's time limit (sim::kTimeLimit) with work left.
  bool past_time_limit = false;
  /// Queues still holding posted descriptors at the end (why each is stuck); informational.
  std::vector<std::string> pending_work;
  /// Cores (not stopped by an error) whose last gens were never started; informational.
  std::vector<UnstartedGens> unstarted;
  std::vector<DebugLine> debug;
  RunStats stats;

  /// True if nothing failed but, perhaps, races (or unfenced waits): no firmware or device
  /// error, no deadlock,
  /// and the run finished inside the time limit.
  [[nodiscard]] bool ok_but_races() const {
    return firmware_errors.empty() && device_errors.empty() && deadlock.empty() && !past_time_limit;
  }
  /// True if nothing failed: ok_but_races(), and no race or unfenced wait.
  [[nodiscard]] bool ok() const {
    return ok_but_races() && races_total == 0 && unfenced_total == 0;
  }
  /// The final value of a changed semaphore, if it changed.
  [[nodiscard]] std::optional<std::uint32_t> changed(device::CoreId core, unsigned idx) const;
};

/// `1872.174 ns` (exact, from integer picoseconds; trailing zeros kept to 3 decimals).
std::string format_ns(base::Tick t);

/// The state part of a report, one line each: time, per core the changed semaphores
/// (`core 1: sem[4]=16 (was 0)`), the counters.
std::vector<std::string> report_state_lines(const RunReport& r);

/// The most device-error lines report_failures gives before one that counts the rest (at
/// least two: a single one more is given as it is).
inline constexpr std::size_t kShownDeviceErrorLines = 50;

/// One line per failure, without the `error: ` prefix the CLI adds:
///   `prog.s:7: core 3: P1: ERROR: DescriptorStream wrote 3 descriptors, expected 5`
///   `device: t=1300.000ns core 3 engine 5 M2S queue 0: ...`
///   `deadlock: core 1 waits at prog.s:9 for sem[4] >= 16, current 0`
///   `prog.s:12: race: t=1300.000 ns core 1 word 7 reads core 1 SBUF partition 0 ...`
/// (a line that starts with `file:line:` is printed as is; others get `error: `).
std::vector<base::Error> report_failures(const RunReport& r);

}  // namespace sbrdma::platform
