#pragma once
/// Simulation: one run of POOL programs on a topology — the sim::Kernel, the device::Machine,
/// and per programmed core a CoreEnv and a firmware::PoolFirmware, bound together. This is
/// the API `sbrdma run`, `sbrdma bench` and the collectives' tests drive:
///
///   auto sim = Simulation::create("trn2", {.timing_only = false});
///   sim->load_program(core, words);                 // per core, the POOL queue's words
///   sim->fill({core, offset, bytes}, pattern);      // SBUF inputs
///   RunReport r = sim->run().value();               // ring_init, spawn, run to the end
///   auto bytes = sim->read({core, offset, bytes});  // SBUF outputs
///
/// run(): every core with a program boots (firmware ring_init, MMIO only) and its sequencer
/// starts at t = 0, in core order. The run ends when no event is left; waiters left then are
/// the deadlock of the report. A Simulation runs once.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "device/machine.h"
#include "device/topology.h"
#include "firmware/config.h"
#include "firmware/pool_firmware.h"
#include "isa/word.h"
#include "platform/core_env.h"
#include "platform/run_report.h"
#include "platform/sbuf_region.h"
#include "sim/kernel.h"

namespace sbrdma::platform {

class ChromeTrace;

/// How a Simulation runs.
struct SimOptions {
  /// Skip byte copies and local-compute data (timing, semaphores, errors unchanged). [D27]
  bool timing_only = false;
  /// A ring-id mismatch stops its queue (else only latched and reported). [CHOICE D2]
  bool ring_id_abort = true;
  /// Non-zero: same-time events run in a reproducible shuffled order (sim::EventQueue).
  std::uint64_t seed = 0;
  /// The SBUFs will be filled whole (device::MachineOptions::dense_sbuf).
  bool dense_sbuf = false;
  /// With dense_sbuf: SBUFs backed ahead of use (device::MachineOptions).
  std::uint32_t prefault_sbufs = 0;
  /// Collect the firmware DEBUG lines into RunReport::debug.
  bool debug_log = false;
  /// Name the word each device error comes from (RunReport::device_error_origins): keeps,
  /// per ring, the writes that still show in it (for ring_writers and ring_slots_written
  /// too), and where each word began.
  bool locate_device_errors = false;
  /// Find accesses to the same bytes that nothing orders (RunReport::races); implies
  /// locate_device_errors and a landing event per pair. [CHOICE D49]
  bool check_races = false;
  /// Record a Chrome/Perfetto trace (trace_json() after the run).
  bool trace = false;
  /// With trace: the cores it may show (tracks, slices, counters); empty: every core it
  /// would (those with a program and the peers they name).
  std::vector<device::CoreId> trace_cores;
  /// In timing-only runs without a trace or a tie seed, data landings get no kernel event
  /// (device::MachineOptions). Performance only: reports are the same either way. [D35]
  bool elide_data_landings = true;
  /// The firmware's configuration; nullopt: default_firmware_config(topology).
  std::optional<firmware::FirmwareConfig> firmware;
};

/// The Q7 time a core's firmware has charged so far, by what for (firmware::Q7Work): the rest
/// of its time it waits (semaphores, its writes landing, the other Q7's handshake) or is done.
struct Q7Busy {
  base::Tick desc_gen;  ///< building descriptors (rdma_desc_gen, SB2SB's gen)
  base::Tick compute;   ///< local compute (TENSOR_TENSOR_ARITH)
};

/// The firmware configuration a topology implies: the D3 ring defaults, and from its timing
/// parameters the Q7 descriptor cost, the SBUF access latency and the GpSimd clock of local
/// compute.
firmware::FirmwareConfig default_firmware_config(const device::Topology& topology);

class Simulation {
 public:
  /// Errors: the topology's profile cannot run (no address map, decode-only), a bad
  /// firmware configuration.
  static base::Result<std::unique_ptr<Simulation>> create(device::Topology topology,
                                                          SimOptions options = {});
  /// A built-in topology by name, or a topology JSON file (platform/topology_json.h).
  static base::Result<std::unique_ptr<Simulation>> create(std::string_view topology,
                                                          SimOptions options = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  [[nodiscard]] const device::Topology& topology() const { return machine_->topology(); }
  [[nodiscard]] const soc::Profile& profile() const { return machine_->profile(); }
  [[nodiscard]] device::Machine& machine() { return *machine_; }
  [[nodiscard]] const device::Machine& machine() const { return *machine_; }
  [[nodiscard]] sim::Kernel& kernel() { return *kernel_; }
  [[nodiscard]] const SimOptions& options() const { return options_; }
  [[nodiscard]] const firmware::FirmwareConfig& firmware_config() const { return fw_config_; }

  /// Appends `words` to core `core`'s POOL program; `locs` (same length, or empty) are their
  /// source lines for reports. Errors: no such core, a run already happened, length mismatch.
  base::Status load_program(device::CoreId core, std::span<const isa::Word> words,
                            std::span<const base::SourceLoc> locs = {});
  /// load_program() of words the caller gives up: moved in, not copied, when the core has no
  /// words yet (a collective's programs: a gigabyte at a large -n). take_program() gives
  /// them back.
  base::Status load_program(device::CoreId core, std::vector<isa::Word>&& words);
  /// The words loaded on `core`, moved out (empty if none). Contract: run() has happened and
  /// nothing more reads them: the trace (trace_json()) of a traced run does.
  std::vector<isa::Word> take_program(device::CoreId core);

  /// Errors unless `r` names an existing core and lies inside its partitions' active bytes.
  [[nodiscard]] base::Status check_region(const SbufRegion& r) const;
  /// Fills a region with a pattern (untimed, before or after a run).
  base::Status fill(const SbufRegion& r, const FillPattern& p);
  /// Writes `bytes` (partition-major, r.total_bytes() of them) into a region.
  base::Status write(const SbufRegion& r, std::span<const std::uint8_t> bytes);
  /// Reads a region, partition-major.
  [[nodiscard]] base::Result<std::vector<std::uint8_t>> read(const SbufRegion& r) const;

  /// Boots the programmed cores, runs until nothing is left to happen and reports. Errors
  /// (kind 1): a second run, a firmware configuration its ring_init refuses. `observer`
  /// (not owned; may be null) sees every event of the run, after the trace's own record.
  base::Result<RunReport> run(sim::TraceSink* observer = nullptr);

  /// The Chrome trace of the run (empty unless options().trace and run() happened).
  [[nodiscard]] std::string trace_json() const;
  /// The trace itself (null unless options().trace): its word slices, for step boxes.
  [[nodiscard]] const ChromeTrace* trace() const noexcept { return trace_.get(); }

  // ---- views for the trace and tests ----------------------------------------------------
  /// Cores with a program, in ascending order.
  [[nodiscard]] std::vector<device::CoreId> program_cores() const;
  /// The firmware / env of a programmed core, or null.
  [[nodiscard]] const firmware::PoolFirmware* firmware(device::CoreId core) const;
  [[nodiscard]] const CoreEnv* env(device::CoreId core) const;
  /// The Q7 time core `core` has charged so far (zero for a core without a program); with
  /// `before`, without a delay that started at or after that time (a delay is charged whole
  /// as it starts).
  [[nodiscard]] Q7Busy q7_busy(device::CoreId core,
                               std::optional<base::Tick> before = std::nullopt) const;
  /// The state of a programmed core's sequencer process (kReady before the run).
  [[nodiscard]] sim::ProcessState process_state(device::CoreId core) const;
  /// A programmed core's sequencer process, once run() has spawned it.
  [[nodiscard]] std::optional<sim::ProcessId> process_of(device::CoreId core) const;
  /// The cores `core`'s program names as peers (rdma_desc_gen targets, SB2SB LNC2 partners)
  /// that exist in the topology, ascending, without `core` itself.
  [[nodiscard]] std::vector<device::CoreId> peers_of(device::CoreId core) const;
  /// What address `a` reaches from `core`: "core N partition P +0xB", "core N sem[i]", "core N
  /// <region> +0xB", else the address in hex.
  [[nodiscard]] std::string place_of(device::CoreId core, base::SocAddr a) const;
  /// With SimOptions::locate_device_errors: per slot of `role`'s ring of `engine` on `core`,
  /// the word whose write of it took effect last, if a word's did.
  [[nodiscard]] std::vector<std::optional<ErrorOrigin>> ring_writers(device::CoreId core,
                                                                     firmware::Role role,
                                                                     unsigned engine) const;
  /// With SimOptions::locate_device_errors: how many descriptors `role`'s words wrote into
  /// the ring of `engine` on `core` (over every lap of the ring).
  [[nodiscard]] std::uint64_t ring_slots_written(device::CoreId core, firmware::Role role,
                                                 unsigned engine) const;
  /// The mnemonic of word `pc` of core `core`'s program ("" if out of range).
  [[nodiscard]] std::string word_name(device::CoreId core, std::size_t pc) const;

 private:
  struct CoreSlot;
  class Observer;

  Simulation(SimOptions options, firmware::FirmwareConfig fw_config);
  CoreSlot& slot(device::CoreId core);
  void build_report(const sim::RunResult& rr, RunReport& report) const;
  /// The word `e`, the run's `index`-th error, comes from: the one that wrote the descriptor
  /// it stopped at, else the one that issued the MMIO access that flagged it; nullopt if
  /// neither is a program's word.
  [[nodiscard]] std::optional<ErrorOrigin> error_origin(const device::ModelledError& e,
                                                        std::size_t index) const;
  /// Word `pc` of `core`'s program as an error's origin (nullopt without a program).
  [[nodiscard]] std::optional<ErrorOrigin> origin_of_word(device::CoreId core, std::size_t pc,
                                                          bool descriptor) const;

  SimOptions options_;
  firmware::FirmwareConfig fw_config_;
  std::unique_ptr<sim::Kernel> kernel_;
  std::unique_ptr<device::Machine> machine_;
  std::unique_ptr<Observer> observer_;
  std::unique_ptr<ChromeTrace> trace_;
  std::vector<std::unique_ptr<CoreSlot>> slots_;  // by core id; null without a program
  std::vector<std::uint32_t> sems_before_;        // [core * semaphores + idx]
  bool ran_ = false;
};

}  // namespace sbrdma::platform
