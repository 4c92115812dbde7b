#pragma once
/// Running a program file (`sbrdma run`): load it into a Simulation, fill the `.init`
/// regions, run, check the `.expect`s, and say what happened.
///
///   stdout (outcome_lines)       the DEBUG lines (`[core N] <line>`) when asked, then
///                                `simulated time: ...`, per core the changed semaphores,
///                                the counters, each expect with ok / FAILED / skipped and
///                                each dump with what it shows (in report order), and
///                                `result: ok` or `result: FAILED (...)`
///   stderr (outcome_failures)    one error per failure: firmware and device errors,
///                                deadlocked cores, failed expects (what differed; the
///                                directive cut as base::printable_brief cuts a token)
///
/// In timing-only mode no data moves, so `.expect sbuf` lines are skipped (not failed).

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "platform/host_memory.h"
#include "platform/program_file.h"
#include "platform/run_report.h"
#include "platform/simulation.h"

namespace sbrdma::platform {

/// The verdict on one `.expect`.
struct ExpectResult {
  base::SourceLoc loc;
  std::string text;  ///< the directive as written
  bool passed = false;
  bool skipped = false;  ///< sbuf expects in timing-only mode
  std::string detail;    ///< what differed (failed) or why skipped
};

/// What one `.dump sbuf` or `.dump ring` printed.
struct DumpResult {
  base::SourceLoc loc;
  std::string text;                ///< the directive as written
  bool skipped = false;            ///< timing-only: no data moved
  std::vector<std::string> lines;  ///< the bytes (dump_lines), or why skipped
};

/// Everything a run of a program file produced.
struct ProgramOutcome {
  RunReport report;
  std::vector<ExpectResult> expects;  ///< in report order: file by file, each by line
  std::vector<DumpResult> dumps;      ///< in report order
  std::string trace_json;             ///< with SimOptions::trace
  std::vector<std::string> files;     ///< the program's files, in order (ProgramFile::files)

  /// True if the run reported nothing wrong and no expect failed.
  [[nodiscard]] bool ok() const;
};

/// The host memory `program`'s `.init` regions certainly take on a machine of `profile` [CHOICE
/// D43e]: at_least, the 4 KiB pages of each partition's bytes they write (overlaps once);
/// mapped_at_least, a whole partition (its active bytes) for each partition they write. What
/// the program's legs write is not known before the run: at_most and mapped_at_most are 0.
MemoryNeed init_memory_need(const ProgramFile& program, const soc::Profile& profile);

/// Runs `program` on `topology`. Errors (kind 1): what Simulation::create/run refuse.
base::Result<ProgramOutcome> run_program(const ProgramFile& program, device::Topology topology,
                                         const SimOptions& options);

/// A region's bytes as hex, 16 a line in two groups of 8, each line headed by its partition and
/// offset (`  p3 +0x2010: 00 01 ...`). Lines equal to the one before in the same partition are
/// one `  *` (the partition's last line is always shown), and partitions equal to the one
/// before are one line (`  p1-127: as p0`). Contract: bytes.size() == r.total_bytes().
std::vector<std::string> dump_lines(const SbufRegion& r, std::span<const std::uint8_t> bytes);

/// The report for stdout, one line each (see the header comment).
std::vector<std::string> outcome_lines(const ProgramOutcome& o, bool with_debug);

/// The failures for stderr, one Error each (format() gives `file:line: error: ...`).
std::vector<base::Error> outcome_failures(const ProgramOutcome& o);

/// Compares two regions' bytes (same shape); nullopt if equal, else a sentence naming the
/// first differing partition and byte of each, their values and how many bytes differ.
std::optional<std::string> compare_regions(const SbufRegion& actual,
                                           const std::vector<std::uint8_t>& actual_bytes,
                                           const SbufRegion& expected,
                                           const std::vector<std::uint8_t>& expected_bytes);
/// The same against the bytes of a pattern named `pattern` (`pattern iota`) over the region.
std::optional<std::string> compare_regions(const SbufRegion& actual,
                                           const std::vector<std::uint8_t>& actual_bytes,
                                           const std::string& pattern,
                                           const std::vector<std::uint8_t>& pattern_bytes);

}  // namespace sbrdma::platform
