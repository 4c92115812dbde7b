#pragma once
/// `sbrdma bench`: a sweep of sizes of one collective in nccom-test's dialect, on a simulated
/// topology. The CLI parses flags into BenchOptions; run_bench runs every (algorithm, size)
/// point with platform::run_collective and returns the rows; the format_* functions print
/// them (table, JSON report, SVG plot).
///
///   size(B)  count(elems)  type  time(us)  algbw(GB/s)  busbw(GB/s)  [algorithm]  #wrong
///
/// Times are simulated device time; GB/s are decimal (1e9 bytes) per simulated second;
/// algbw = size / time, busbw = algbw x nccom-test's factor (collectives::busbw_factor).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/mapped_block.h"
#include "base/result.h"
#include "collectives/communicator.h"
#include "collectives/lower.h"
#include "collectives/reference.h"
#include "device/topology.h"
#include "platform/collective_runner.h"

namespace sbrdma::device {
class DenseBuffer;
}  // namespace sbrdma::device

namespace sbrdma::platform {

/// A time statistic column (`-t avg p50 p99`; any whole percentile pN, N in 1..100).
struct TimeStat {
  unsigned percentile = 0;  ///< 0: the average; else the nearest-rank percentile
  bool operator==(const TimeStat&) const = default;
  /// "avg" or "pN".
  [[nodiscard]] std::string name() const;
};
/// A `-t` word: avg or pN (N in 1..100, no leading zeros). Errors name the word.
base::Result<TimeStat> parse_time_stat(std::string_view text);

/// Everything a bench run needs, already validated by the parser.
struct BenchOptions {
  collectives::Op op = collectives::Op::kAllReduce;
  unsigned ranks = 0;
  std::vector<std::uint64_t> sizes;           ///< bytes, in order
  std::vector<std::uint64_t> sizes_left_out;  ///< the sweep's sizes below one element (not run)
  std::vector<collectives::Algorithm> algorithms;  ///< one sweep each (auto: by size)
  collectives::DataType dtype = collectives::DataType::kFp32;
  collectives::ReduceOp reduce = collectives::ReduceOp::kSum;
  unsigned iterations = 5;
  unsigned warmups = 1;
  std::optional<collectives::DataFill> check;
  std::uint64_t seed = 0;
  std::uint64_t tie_seed = 0;  ///< --tie-seed: shuffles same-tick events (CollectiveJob's)
  std::vector<TimeStat> stats{TimeStat{}};  ///< the average alone
  bool show_algorithm = false;
  bool show_io_sizes = false;  ///< --show-input-output-size
  bool breakdown = false;      ///< --breakdown: where each row's time goes (D45)
  bool check_races = false;    ///< --check-races: every run under the race checker (D49)
  bool timing_only = false;
  std::string topology_name = "trn2";
  /// The topology file read ("" for a built-in) and the parameters it sets: outputs name them
  /// where the topology could pass for another (topology_file_note). [CHOICE D47]
  std::string topology_file;
  std::vector<device::ParamOverrideSpec> file_params;
  /// --param: timing parameters set after the topology's, in order (header and JSON only:
  /// the topology passed to run_bench already has them). [CHOICE D47]
  std::vector<device::ParamOverrideSpec> params;
  std::optional<collectives::Communicator> groups;  ///< --custom-replica-groups
  collectives::SrcTargetPairs pairs;  ///< --custom-src-target-pairs, one list per group (D30j)
  bool trace = false;                 ///< trace the last point
  /// --trace-ranks: the ranks (positions in every group) the trace shows; empty: all.
  std::vector<unsigned> trace_ranks;
  bool keep_programs = false;  ///< --dump-programs
  /// A point that runs longer than this also reports its iterations as they finish, at most
  /// one line per this many wall seconds (0: after each iteration).
  double progress_every_s = 10;
  /// Events between two looks at the wall clock while an iteration runs (CollectiveJob's).
  std::uint64_t progress_beat_events = kProgressBeatEvents;
  /// Host memory the runs may take (CollectiveJob's); nullopt: not checked. [CHOICE D43]
  std::optional<std::uint64_t> host_memory;
  /// Address space the runs may map (CollectiveJob's); nullopt: no limit. [CHOICE D43]
  std::optional<std::uint64_t> address_space;
  /// --jobs: rows simulated at once, each on its own thread (1: one after another, each row's
  /// data work on two cores). [CHOICE D48]
  unsigned jobs = 1;
  /// Host memory the rows running at once may take together, by their estimates
  /// (MemoryNeed::at_most, or its simulator share); nullopt: no limit. [CHOICE D48]
  std::optional<std::uint64_t> memory_budget;
};

/// One measured point.
struct BenchRow {
  collectives::Algorithm requested = collectives::Algorithm::kAuto;
  collectives::Algorithm algorithm = collectives::Algorithm::kRing;  ///< as run
  std::uint64_t size = 0;        ///< bytes (count x element size)
  std::uint64_t count = 0;       ///< elements
  std::vector<double> times_us;  ///< each measured iteration's time, sorted
  double avg_us = 0;
  double algbw = 0;  ///< GB/s, from the average time
  double busbw = 0;
  std::optional<std::uint64_t> wrong;
  std::uint64_t descriptors = 0;
  std::uint64_t copied_bytes = 0;
  std::uint64_t race_checked_accesses = 0;  ///< with BenchOptions::check_races, all its runs
  double sim_seconds = 0;
  double wall_seconds = 0;                 ///< the whole point: lowering, runs, check
  std::optional<TimeBreakdown> breakdown;  ///< with BenchOptions::breakdown
};

/// A size as -b takes it: whole G, M or K where it is one ("16M"), bytes otherwise.
std::string size_name(std::uint64_t bytes);

/// What measure_memcpy measured.
struct MemcpyRate {
  double bytes_per_s = 0;
  /// Where its buffers were smaller than asked (no memory for them), their size: a span that
  /// fits the cache copies faster than memory does. 0: as asked.
  std::uint64_t reduced_span = 0;
  bool operator==(const MemcpyRate&) const = default;
};

/// The run's own cost, for the closing line.
struct BenchCost {
  double wall_seconds = 0;  ///< the whole sweep
  double sim_seconds = 0;   ///< inside Simulation::run
  /// CPU time the OS spent for the process over the sweep, all threads (getrusage's ru_stime):
  /// mostly backing fresh memory, which a VM can make slow after the machine sat idle.
  double system_seconds = 0;
  std::uint64_t descriptors = 0;            ///< descriptor pairs simulated
  std::uint64_t copied_bytes = 0;           ///< bytes the engines really copied
  std::uint64_t race_checked_accesses = 0;  ///< with BenchOptions::check_races
  /// memcpy of as many bytes (at most 1 GiB), in this run; nullopt: its buffers could not be
  /// mapped (measure_memcpy)
  std::optional<MemcpyRate> memcpy = MemcpyRate{};
  bool timing_only = false;  ///< --timing-only: no engine copies bytes
  unsigned jobs = 1;         ///< the most rows that ran at once (--jobs), D48
};

/// What run_bench produced.
struct BenchResult {
  std::vector<BenchRow> rows;
  BenchCost cost;
  std::string trace_json;                          ///< with options.trace
  std::vector<collectives::CoreProgram> programs;  ///< last point's, with keep_programs
  unsigned groups = 1;
  std::vector<collectives::CoreId> cores;  ///< every rank's core, all groups, ascending
  /// Some group has ranks on more than one chip: where a row ran RDH or hierarchical, the
  /// table says its times depend on the order of same-tick link bookings (D26f, D31d).
  bool several_chips = false;
};

/// A rank's input and output bytes for a collective of `count` elements on `ranks` ranks
/// (nccom-test's --show-input-output-size): rank 0's, whose block is the longest when the
/// count does not divide by the ranks. [CHOICE D30i]
struct IoSizes {
  std::uint64_t input = 0;
  std::uint64_t output = 0;
};
IoSizes io_sizes(collectives::Op op, std::uint64_t count, unsigned ranks, unsigned element_bytes);

/// The statistic `s` of `row`'s iteration times (microseconds).
double stat_value(const BenchRow& row, TimeStat s);
/// Nearest-rank percentile of `sorted`, p in (0, 100]; 0 for no values.
double percentile(const std::vector<double>& sorted, unsigned p);

/// A size with an optional binary unit, in any case: K, KB or KiB (1024), M.., G..
/// (nccom-test writes 1kb, 1MB). Errors name `what`.
base::Result<std::uint64_t> parse_size(std::string_view text, std::string_view what);
/// The error of a factor below 2 where no step is given (-f), if any: each size would be the
/// one before it.
std::optional<base::Error> factor_error(std::uint64_t factor, std::uint64_t step);
/// Every error of a sweep's bounds, in flag order: begin 0 (-b), end 0 (-e, only when
/// `end_given`: an -e that defaults to -b is -b's error), begin > end (both non-zero), factor < 2
/// with no step (-f). Empty: sweep_sizes() can run.
std::vector<base::Error> sweep_errors(std::uint64_t begin, std::uint64_t end, std::uint64_t factor,
                                      std::uint64_t step, bool end_given = true);

/// At most this many sizes in a sweep: each is a simulation (an `-i 1` sweep to 1G would never
/// end).
inline constexpr std::size_t kMaxSweepSizes = 1000;
/// The sizes of a sweep: begin, then x factor (or + step) while <= end, without those that
/// hold as many whole elements of `element_bytes` as the size kept before them (an `-i 2` sweep
/// of fp32 from 4 B asks for 4 and 6 B, both one element: one row); sizes below one element
/// are left out when a later size holds one (and put in `left_out`, if given), else kept
/// (they fail with their own message). Errors: sweep_errors()' first, more than
/// kMaxSweepSizes sizes kept. Contract: element_bytes > 0.
base::Result<std::vector<std::uint64_t>> sweep_sizes(
    std::uint64_t begin, std::uint64_t end, std::uint64_t factor, std::uint64_t step,
    std::uint64_t element_bytes = 1, std::vector<std::uint64_t>* left_out = nullptr);

/// Called after each point with one progress line (no newline), and during a long point as
/// its iterations finish (BenchOptions::progress_every_s).
using Progress = std::function<void(const std::string&)>;

/// The algorithms of `o` that apply to its collective and its groups on `topology` (all but
/// those whose rules rule them out whatever the size: RDH on 6 ranks, hierarchical on one
/// chip, mesh for send/recv), in order, and in `left_out` why each other one does not.
/// Errors: bad groups; none applies (every reason, joined by "; ").
base::Result<std::vector<collectives::Algorithm>> applicable_algorithms(
    const BenchOptions& o, const device::Topology& topology, std::vector<std::string>& left_out);

/// Runs the sweep. Errors: the first point that fails (lowering, run, bad groups), and an
/// algorithm asked for that does not apply (applicable_algorithms() leaves such out first).
base::Result<BenchResult> run_bench(const BenchOptions& o, const device::Topology& topology,
                                    const Progress& progress = {});

/// What fails a run whose data check found wrong elements: "N wrong element(s) in R row(s)";
/// nothing when every checked element is right (or nothing was checked).
std::optional<base::Error> wrong_data_error(const BenchResult& r);

/// A time in microseconds as the table and the progress lines show it: two decimals, or
/// more where a time above zero would show as 0.00 (zeroed costs, `--param`): two significant
/// digits, down to the model's picosecond (`0.0035`, `0.000001`; under half a picosecond,
/// a mean's, in e-notation: `4.0e-07`).
std::string time_us_text(double us);

/// The table, `Avg bus bandwidth` line(s) and the closing cost line, as `sbrdma bench`
/// prints them (deterministic except the closing line's wall-clock figures).
std::string format_table(const BenchOptions& o, const BenchResult& r);
/// The topology as the outputs name it: its name, then what sets it apart from the one of that
/// name (its file, what the file sets: topology_file_note), then --param's overrides
/// (`trn2 (topology file my.json) with c2c_latency=400`). [CHOICE D47]
std::string topology_label(const BenchOptions& o);
/// "R rank(s) x G group(s)", as the table's header and the plot's title say it.
std::string ranks_and_groups(const BenchOptions& o, unsigned groups);
/// The data the table's header line and the plot's title name: "fp32 sum", or "fp32" alone
/// for a collective that reduces nothing.
std::string dtype_and_reduction(const BenchOptions& o);
/// The --breakdown block the table ends with (before the closing line): `#` lines, one per row
/// (a row without a breakdown took no time). [CHOICE D45]
std::string format_breakdown(const BenchOptions& o, const BenchResult& r);
/// The algorithm a row ran, as the table's column names it: "mesh", or "auto:mesh" for auto's
/// choice where --algorithm lists auto with others (a row of its own, otherwise two rows
/// would read alike).
std::string algorithm_text(const BenchOptions& o, collectives::Algorithm requested,
                           collectives::Algorithm ran);
/// algorithm_text() of a row.
std::string row_algorithm_text(const BenchOptions& o, const BenchRow& row);
/// The closing line alone: wall seconds, descriptors, bytes copied per wall-second and that
/// as a percentage of memcpy.
std::string format_cost(const BenchCost& c);
/// The JSON report (`--report-to-json-file`).
std::string format_json(const BenchOptions& o, const BenchResult& r);
/// The SVG plot (`--plot`): busbw against size, log2 x axis, one line per algorithm.
/// Deterministic: the same rows give the same bytes.
std::string format_plot(const BenchOptions& o, const BenchResult& r);

/// The closing line's memcpy copies as many bytes as the run did, but at most this many.
inline constexpr std::uint64_t kMemcpySampleBytes = std::uint64_t{1} << 30;

/// Maps one of measure_memcpy's buffers of `bytes` bytes, or returns null: no memory for it.
using MapBuffer = std::function<std::unique_ptr<device::DenseBuffer>(std::uint64_t bytes)>;
/// The MapBuffer of a run: a device::DenseBuffer, null where it could not be mapped.
std::unique_ptr<device::DenseBuffer> map_dense_buffer(std::uint64_t bytes);

/// The span measure_memcpy falls back to, halving, before it gives up: a mapping block (each
/// buffer is mapped in whole blocks, so a smaller one needs as much room).
inline constexpr std::uint64_t kMemcpyMinSpan = base::kMapBlockBytes;

/// Bytes per second of memcpy over `bytes` bytes (in chunks of `chunk` bytes through two
/// huge-page-advised buffers of up to 64 MiB, warmed by one untimed pass), measured now; 0 for
/// no bytes. The run's own memory is still held then: where two buffers of that span cannot be
/// mapped (`map` returns null), half the span is tried, the chunk no larger, down to
/// kMemcpyMinSpan; nullopt if even that fails, rather than losing the run's results.
std::optional<MemcpyRate> measure_memcpy(std::uint64_t bytes, std::uint64_t chunk,
                                         const MapBuffer& map = map_dense_buffer);

}  // namespace sbrdma::platform
