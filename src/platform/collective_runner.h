#pragma once
/// Runs a lowered collective on a Simulation: loads the per-core programs, fills the ranks'
/// inputs, times every iteration and counts wrong output elements against the CPU reference
/// (the data side is platform/collective_data.h). A Simulation dies as soon as it is no
/// longer needed, so that the next one reuses its SBUF pages (device/paged_memory.h).
///
///   CollectiveJob job{.topology = &topo, .comm = comm, .request = req, .warmups = 1, ...};
///   auto r = run_collective(job);   // r->iterations: simulated time of each measured one
///
/// Timing ([CHOICE D30h]): one simulation runs warmups + iterations back to back (the
/// programs hold them all). Iteration i ends when the last core has finished its words of
/// iteration i; its time is that end minus the previous iteration's end (the first from
/// t = 0). A data check of an in-place sum (all-reduce, reduce-scatter) runs a second,
/// one-iteration simulation, because repeating an in-place sum changes its input; the other
/// collectives are checked on the timed run's outputs.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/units.h"
#include "collectives/geometry.h"
#include "collectives/lower.h"
#include "collectives/reference.h"
#include "device/topology.h"
#include "platform/host_memory.h"
#include "platform/run_report.h"

namespace sbrdma::platform {

/// The lowering geometry of `topology` with the firmware's ring depth.
collectives::Geometry geometry_of(const device::Topology& topology);

/// Events between two "still running" progress calls: a few milliseconds of wall time.
inline constexpr std::uint64_t kProgressBeatEvents = std::uint64_t{1} << 16;

/// Which of a job's simulations a progress call is about: the timed run (warmups and
/// measured iterations), the data check's own run of an in-place sum, or the trace's run.
enum class RunPart { kTimed, kCheck, kTrace };

/// The error of a run of a lowered collective whose accesses raced: its first race, and how
/// many there were. Contract: `r.races_total > 0`.
base::Error races_error(const RunReport& r);

/// One collective to run.
struct CollectiveJob {
  const device::Topology* topology = nullptr;
  collectives::Communicator comm;
  collectives::LowerRequest request;           ///< iterations = the measured ones
  unsigned warmups = 0;                        ///< iterations run first and not measured
  bool timing_only = false;                    ///< no data moves (D27); no check possible
  std::optional<collectives::DataFill> check;  ///< fill inputs and check outputs
  std::uint64_t seed = 0;                      ///< data seed (`--seed`)
  /// Non-zero: every simulation of the job runs same-tick events in an order shuffled by this
  /// seed (SimOptions::seed; `--tie-seed`). [CHOICE D31e]
  std::uint64_t tie_seed = 0;
  bool trace = false;                       ///< also run one traced iteration
  std::vector<device::CoreId> trace_cores;  ///< the cores the trace shows (empty: all)
  /// Work out where the measured iterations' time went (CollectiveResult::breakdown).
  bool breakdown = false;
  /// Timing-only runs apply data landings without events (SimOptions). Performance only.
  bool elide_data_landings = true;
  /// Every run of the job under the race checker (SimOptions::check_races): a race fails
  /// the job (races_error()). [CHOICE D49]
  bool check_races = false;
  /// Called each time every core has passed the end of one more iteration (warmups
  /// included), and every `progress_beat_events` events while one runs, with the run it is
  /// about, the algorithm that runs (auto resolved), the iterations done and their total:
  /// progress for long runs. The check's and the trace's own runs (one iteration each) call
  /// it too, so a long one is not silent.
  std::function<void(RunPart, collectives::Algorithm, std::size_t done, std::size_t total)>
      on_iteration;
  std::uint64_t progress_beat_events = kProgressBeatEvents;
  /// Host memory the run may take (host_memory_available()); nullopt: not checked. A data run
  /// whose buffers need more is refused before it starts. [CHOICE D43]
  std::optional<std::uint64_t> host_memory;
  /// Address space the run may map (address_space_available()); nullopt: no limit. A data run
  /// whose buffers map more is refused before it starts. [CHOICE D43]
  std::optional<std::uint64_t> address_space;
  /// The address space left when this run starts, for the warning of (D43): a sweep's page
  /// pool keeps what its earlier sizes mapped. nullopt: address_space.
  std::optional<std::uint64_t> address_space_left;
  /// Called with a warning before a run that may need more than host_memory.
  std::function<void(const std::string&)> on_warning;
};

/// Where the measured iterations' simulated time went, as shares of it (0 to 1): the window
/// runs from the end of the warmups to the end of the last iteration, and each figure counts
/// what started in it. [CHOICE D45]
struct TimeBreakdown {
  /// Of the programmed cores' Q7 time (the mean over them): building descriptors, local
  /// compute, and the rest, waiting (semaphores, writes landing, the handshake) or done.
  double desc_gen = 0;
  double compute = 0;
  double waiting = 0;
  /// The mean busy share of the programmed cores' 16 RDMA engines (descriptor cost and
  /// streaming of each pair taken).
  double engines = 0;
  /// The busy share of the busiest link direction, and its name ("c2c.x.chip0-chip1
  /// chip0.die1->chip1.die0"; empty when no link carried a byte).
  double link = 0;
  std::string link_name;
};

/// What a run gave.
struct CollectiveResult {
  collectives::Algorithm algorithm = collectives::Algorithm::kRing;
  std::uint64_t count = 0;             ///< elements
  std::vector<base::Tick> iterations;  ///< the measured iterations' times
  base::Tick end_time;                 ///< of the timed run
  base::Tick check_end_time;           ///< of the data check's own run (check_run)
  std::optional<std::uint64_t> wrong;  ///< wrong output elements, with a check
  std::uint64_t checked = 0;           ///< output elements checked
  RunStats stats;                      ///< of the timed run
  std::uint64_t copied_bytes = 0;      ///< bytes the engines really copied (functional runs)
  double sim_seconds = 0;              ///< wall seconds inside Simulation::run (all runs)
  /// When each run was inside Simulation::run (steady clock), for a sweep whose rows overlap.
  std::vector<
      std::pair<std::chrono::steady_clock::time_point, std::chrono::steady_clock::time_point>>
      sim_spans;
  std::uint64_t descriptors = 0;  ///< descriptor pairs simulated (all runs)
  /// Accesses the race checker checked (all runs; CollectiveJob::check_races).
  std::uint64_t race_checked_accesses = 0;
  bool check_run = false;  ///< the data check ran its own one-iteration run
  bool trace_run = false;  ///< the trace's one-iteration run ran
  collectives::EmitStats emit;
  std::uint64_t sbuf_bytes = 0;            ///< per partition
  std::string trace_json;                  ///< with job.trace: one iteration, step boxes added
  std::optional<TimeBreakdown> breakdown;  ///< with job.breakdown, unless no time passed
  std::vector<collectives::CoreProgram> programs;  ///< of the timed run (notes if asked)
};

/// The checks run_collective() makes before it runs anything (a check with timing_only,
/// collectives::check_request on the request it lowers, and the host memory its buffers need),
/// with the same errors: for a caller that refuses a whole sweep before running any of it.
/// Returns the memory need of the first iteration's plan.
base::Result<MemoryNeed> check_collective(const CollectiveJob& job);

/// What the simulator itself takes beyond the SBUF pages, as memory_need() estimates it: per
/// participating core (rings, queues, engines) and per program word (the word and what its
/// run schedules: 330 bytes a word measured on `bench allr -r 8 -b 1K -n 16000 --timing-only`,
/// 429 MB peak RSS for 1.28 M words). A 4 MiB all-reduce on 512 ranks of trn2u peaked at
/// 4.25 GiB resident for 4.00 GiB of SBUF pages. [CHOICE D43]
inline constexpr std::uint64_t kSimulatorBytesPerCore = 512 << 10;
inline constexpr std::uint64_t kSimulatorBytesPerWord = 384;
/// Address space the simulator maps beyond the SBUFs' partitions and its own share: page-pool
/// arenas mapped 64 MiB at a time, event arrays, worker threads' stacks and malloc arenas.
/// Peak virtual size less those measured 43-268 MiB from 2 to 64 ranks (stop 39). [D43]
inline constexpr std::uint64_t kSimulatorAddressSpace = 256ULL << 20;

/// The host memory `job` takes with a plan's `buffers` ([group][rank]), `sbuf_bytes` (buffers
/// and scratch, of each partition) and `words` (program words of all cores and iterations):
/// whole partitions of every participating core when they are backed whole (D33); else, with
/// a data check, at least the 4 KiB pages of each rank's input and output buffers in every
/// partition they use (without one nothing is certain: 0), at most those of the first
/// sbuf_bytes of every partition; the simulator's own share is added to the most (and given
/// alone as `simulator`). Nothing but that share for a timing-only run (no data pages, D27). An
/// estimate: the bench's in-run memcpy buffers and pages kept from an earlier size are not
/// counted. [CHOICE D43]
MemoryNeed memory_need(const CollectiveJob& job,
                       const std::vector<std::vector<collectives::RankBuffers>>& buffers,
                       std::uint64_t sbuf_bytes, std::uint64_t words);

/// Whether `job`'s simulations back each SBUF whole, ahead of its writes (device::PageBacking
/// kDense), rather than 4 KiB at a time where written: when the lowering uses `sbuf_bytes` >=
/// 64 KiB of each partition, and backing the participating cores' SBUFs whole adds at most
/// kMaxWholeBackingExtra beyond the bytes their input and output buffers span
/// (`buffer_bytes` per partition; scratch does not count, since a large group reserves relay
/// slots it barely writes). Never for timing-only runs. Performance only. [CHOICE D33]
bool backs_sbufs_whole(const CollectiveJob& job, std::uint64_t sbuf_bytes,
                       std::uint64_t buffer_bytes);
/// What whole backing may add beyond the buffers, all cores together (see above). On trn2u, a
/// 64 KiB-per-partition all-gather on 256 ranks backed whole took 7.6 GB and 13.9 s (2.3 GB and
/// 4.3 s sparse), and a 64K all-to-all on 512 ranks 15.4 GB and 104 s (1.1 GB and 65 s).
inline constexpr std::uint64_t kMaxWholeBackingExtra = std::uint64_t{1} << 30;

/// The bytes of each partition that the ranks' input and output `buffers` ([group][rank], as
/// Lowered's) span, the largest of any rank (from the lowest offset to the end of the last
/// block).
std::uint64_t buffer_span(const std::vector<std::vector<collectives::RankBuffers>>& buffers);

/// Refuses a data check asked of a run without data (--timing-only). run_collective() checks
/// it too; bench checks it with its other flags.
base::Status check_data_mode(bool check, bool timing_only);

/// Refuses warmups plus iterations past what one count holds (an unsigned): the message
/// names both flags. run_collective() checks it too; bench checks it with its other flags.
base::Status check_iteration_total(unsigned iterations, unsigned warmups);

/// Lowers and runs `job`. Errors: lowering errors (bad size, algorithm, SBUF), a check with
/// timing_only, and a run that failed (firmware or device error, deadlock: the report's lines).
base::Result<CollectiveResult> run_collective(const CollectiveJob& job);

}  // namespace sbrdma::platform
