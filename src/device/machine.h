#pragma once
/// Machine: the device model of a whole topology — per core an SBUF, a semaphore bank, DGE and
/// other memories and 16 UDMA engines; the fabric between cores; and one MMIO bus per core
/// through which firmware (and tests, acting as a driver) program it. DESIGN.md "Execution
/// model": a doorbell write only schedules engine work; the engine then prefetches descriptors
/// from memory, moves bytes (at the descriptor's landing tick), performs semaphore descriptors
/// as writes into the target core's EVT_SEM window and advances its pointers.
///
///   bus(core).write32(a, v) --mmio_write_latency (+ route latencies)--> register / memory
///        |                                                                  |
///        |  TDRTP_inc doorbell: tail += n; batch ready after dma_fixed_cost |
///        v                                                                  v
///   engine step (one descriptor pair per event, round robin over queues):
///     prefetch M2S + S2M descriptors at base + head*16, ring-id check [CHOICE D2],
///     resolve source and destination by SoC address, reserve the route's links (Fabric),
///     schedule the landing --> copy bytes / semaphore write, completion pointers advance
///
/// Every guest mistake is a ModelledError in errors(); nothing aborts on one.
/// Timing ([CHOICE D26]): with t_db the tick the M2S doorbell register takes the write,
///   descriptor start  = max(t_db + dma_fixed_cost, engine free, round-robin turn)
///   engine busy       = dma_desc_cost + transfer_time(len, dma_engine_rate)
///   data lands        = start + dma_desc_cost + Fabric::transfer(...)  (uncontended:
///                       + transfer_time(len, rate) + the route's link latencies)
///   semaphore lands   = max(its own arrival, earlier data of the queue) + semaphore_write_latency
/// Same-tick order survives a tie seed ([CHOICE D31], OrderedArrivals): one core's posted
/// writes that land at one tick apply in issue order, an engine's pairs that land at one tick
/// in the order it took them, and a write fence resumes after the writes it waits for took
/// effect.

#include <coroutine>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/units.h"
#include "device/deferred_copies.h"
#include "device/fabric.h"
#include "device/modelled_error.h"
#include "device/ordered_arrivals.h"
#include "device/paged_memory.h"
#include "device/race_checker.h"
#include "device/semaphore_bank.h"
#include "device/topology.h"
#include "device/udma_engine.h"
#include "sim/kernel.h"
#include "sim/signal.h"
#include "soc/address_map.h"
#include "soc/mmio_bus.h"

namespace sbrdma::device {

/// Machine-wide options.
struct MachineOptions {
  /// Skip the engines' byte copies into memory (and the memory they would allocate); timing,
  /// events, pointers and semaphores are identical. [CHOICE D27]
  bool timing_only = false;
  /// A ring-id mismatch stops the queue (true) or is only latched and reported (false, as the
  /// public driver masks it on Trainium2 data engines). [CHOICE D2]
  bool ring_id_abort = true;
  /// The SBUFs' pages will be filled whole (large collective buffers): they may be backed ahead
  /// of their writes (prefault_sbufs). Otherwise only the pages written are backed
  /// (device::PageBacking).
  /// Performance only: contents and timing are the same either way.
  bool dense_sbuf = false;
  /// With dense_sbuf: how many SBUFs (the cores a collective fills) the OS backs ahead of their
  /// first writes, on a background thread (device::prefault_pages). Performance only.
  std::uint32_t prefault_sbufs = 0;
  /// With timing_only, on a kernel that does not shuffle ties: a data pair's landing gets no
  /// kernel event. Its only effects (completion heads, statistics) are applied before any
  /// access to its engine's registers, 64 at a time at the engine's steps, and by
  /// settle_landings(): every register read gives what a landing event would have given;
  /// stats() and queue_state() count them once applied. Performance only. [CHOICE D35]
  bool elide_data_landings = false;
};

/// Counters since the machine was built.
struct MachineStats {
  std::uint64_t descriptors = 0;       ///< descriptor pairs completed (data and semaphore)
  std::uint64_t data_bytes = 0;        ///< bytes moved by data descriptors (both modes)
  std::uint64_t semaphore_writes = 0;  ///< semaphore descriptors completed
  std::uint64_t mmio_writes = 0;       ///< write32 and write_block calls on the buses
  std::uint64_t mmio_reads = 0;
  /// The engines' busy time, all engines together: dma_desc_cost + streaming per pair taken.
  base::Tick engine_busy;
};

/// Told, as a run goes, of every MMIO block write as it takes effect and of every error as
/// it is flagged (Machine::watch): what a report that names an error's origin needs to see at
/// that moment.
class MachineWatcher {
 public:
  virtual ~MachineWatcher() = default;
  /// `issuer`'s block write of `bytes` at `a` has taken effect.
  virtual void on_block_landed(CoreId issuer, base::SocAddr a, std::size_t bytes) = 0;
  /// `e` has just been flagged: errors()[index].
  virtual void on_error(const ModelledError& e, std::size_t index) = 0;
};

/// A queue's pointers and state, for tests and reports.
struct QueueState {
  RingPos head;
  RingPos tail;
  RingPos current;
  RingPos completion;
  std::uint32_t posted = 0;
  std::uint32_t packets = 0;  ///< q_tx_pkt / q_rx_pkt (D41m)
  bool stopped = false;
  std::string stop_reason;  ///< the error that stopped the queue, empty if running
};

/// The device model of a topology (see the top of this file).
class Machine {
 public:
  /// Builds the machine for `topology` (its profile's SoC map and its timing parameters).
  /// Errors: the profile has no address map, or the topology's geometry differs from it.
  /// Contract: `kernel` outlives the machine.
  static base::Result<std::unique_ptr<Machine>> create(sim::Kernel& kernel, Topology topology,
                                                       MachineOptions options = {});
  ~Machine();
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  /// The MMIO view of core `core`: unrouted addresses resolve on its own chip (DIE picks the
  /// die), routed ones (neighbour or chip-id fold) on the target die or chip. Writes are posted:
  /// they take effect mmio_write_latency (plus the route's link latencies) later. Reads are
  /// immediate. Contract: core < topology().num_cores().
  [[nodiscard]] soc::MmioBus& bus(CoreId core);

  /// The kernel the machine schedules its events on.
  [[nodiscard]] sim::Kernel& kernel() noexcept { return *kernel_; }
  /// The topology (chips, cores, links) the machine was built for.
  [[nodiscard]] const Topology& topology() const noexcept { return topology_; }
  /// The timing parameters in use (the topology's profile with its overrides).
  [[nodiscard]] const TimingParams& params() const noexcept { return topology_.params(); }
  /// The generation profile (cayman, sunda, mariana).
  [[nodiscard]] const soc::Profile& profile() const noexcept { return map_.profile(); }
  /// Every chip's SoC address map (chip-relative; all chips share it).
  [[nodiscard]] const soc::AddressMap& address_map() const noexcept { return map_; }
  /// The options the machine was built with.
  [[nodiscard]] const MachineOptions& options() const noexcept { return options_; }

  // ---- direct (untimed) access for tests and platform initialisation --------------------
  /// Writes/reads SBUF bytes of one partition. Errors: core, partition or range outside the
  /// partition's active bytes.
  base::Status sbuf_write(CoreId core, unsigned partition, std::uint64_t offset,
                          std::span<const std::uint8_t> bytes);
  base::Status sbuf_read(CoreId core, unsigned partition, std::uint64_t offset,
                         std::span<std::uint8_t> out) const;
  /// The first `bytes` active bytes (all of them by default) of SBUF partition `partition` of
  /// `core` as one mutable span, for the core's own GPSIMD to compute on in place (untimed: the
  /// caller charges the time). The partition's page is allocated on the first call, and only the
  /// span's bytes count as written (a recycled page is zeroed that far). Contract: the span stays
  /// valid until the machine is destroyed; it is for functional runs (in timing-only runs no SBUF
  /// byte is to be read or written, [CHOICE D27, D28], and calling this would allocate the page all
  /// the same). Errors: no such core or partition.
  [[nodiscard]] base::Result<std::span<std::uint8_t>> sbuf_span(
      CoreId core, unsigned partition, std::uint64_t bytes = ~std::uint64_t{0});
  /// Writes/reads any memory region by SoC address as `issuer` sees it. Errors: the address
  /// does not decode to memory, or the range leaves it.
  base::Status mem_write(CoreId issuer, base::SocAddr a, std::span<const std::uint8_t> bytes);
  base::Status mem_read(CoreId issuer, base::SocAddr a, std::span<std::uint8_t> out) const;

  /// Contract: core < num_cores, idx < profile().semaphores.
  [[nodiscard]] std::uint32_t semaphore(CoreId core, unsigned idx) const;
  /// Sets a semaphore directly (notifies its waiters). Same contract.
  void set_semaphore(CoreId core, unsigned idx, std::uint32_t v);
  /// Every later write or set of a semaphore's value appends {core, idx} to `log`, in the
  /// order they happen (nullptr stops): for a trace, which then reads only what changed.
  /// Contract: `log` outlives the watching.
  void watch_semaphores(std::vector<SemChange>* log);
  /// Every later MMIO block write and error is told to `w` as it happens, in order (nullptr
  /// stops). Contract: `w` outlives the watching.
  void watch(MachineWatcher* w) { watcher_ = w; }
  /// From now on, accesses that nothing orders are found and kept (races()); `origins` names
  /// their words. Contract: called before the run's first event; `origins` outlives the
  /// machine; not with elide_data_landings. [CHOICE D49]
  void check_races(const RaceOrigins& origins);
  /// The race checker, if check_races was called.
  [[nodiscard]] const RaceChecker* race_checker() const noexcept { return races_.get(); }
  /// Core `core`'s program reads (or writes) bytes [lo, hi) of each of `runs` (ascending,
  /// disjoint) of SBUF partitions [0, partitions) now (local compute), for the race checker;
  /// nothing without one.
  void note_core_access(CoreId core, unsigned partitions,
                        std::span<const std::pair<std::uint64_t, std::uint64_t>> runs, bool write);
  /// Core `core`'s wait on semaphore `idx`, whose condition is `holds(value)`, passes now, for
  /// the race checker (a template: a run without one builds no std::function).
  template <typename Holds>
  void note_acquire(CoreId core, unsigned idx, const Holds& holds) {
    if (races_) races_->on_acquire(core, idx, holds, kernel_->now());
  }
  /// Core `core` issues a wait on semaphore `idx` now, for the race checker.
  void note_wait(CoreId core, unsigned idx) {
    if (races_) races_->on_wait(core, idx);
  }
  /// The Signal notified on every change of `core`'s semaphores.
  [[nodiscard]] sim::Signal& semaphore_signal(CoreId core);
  /// `co_await machine.wait_semaphore(core, idx, cond)` in a sim process: resumes once
  /// cond.holds(sem[idx]). Contract: idx < profile().semaphores.
  [[nodiscard]] sim::WaitUntilAwaiter wait_semaphore(CoreId core, unsigned idx, SemCondition cond);
  /// The same wait for a base::Suspend implementer: returns false if the condition already
  /// holds, else parks the running process at `h` (see sim::Signal::park).
  bool park_on_semaphore(std::coroutine_handle<> h, CoreId core, unsigned idx, SemCondition cond);
  /// "core 3 sem[5] >= 16, current 12" for cond.text ">= 16" — what deadlock reports show.
  [[nodiscard]] std::string describe_semaphore_wait(CoreId core, unsigned idx,
                                                    std::string_view cond_text) const;
  /// The tick at which the last write issued so far through bus(issuer) takes effect (now or
  /// earlier if none is pending): a write fence waits until then.
  [[nodiscard]] base::Tick writes_landed_by(CoreId issuer) const;
  /// A write fence for a base::Suspend implementer: returns false if every write issued so far
  /// through bus(issuer) has taken effect, else parks the running process at `h` until they
  /// all have (at writes_landed_by(issuer), after the last of them, whatever the tie order of
  /// that tick's events). Contract: issuer < topology().num_cores().
  bool park_until_writes_landed(std::coroutine_handle<> h, CoreId issuer);

  /// The stored value of a UDMA register (hardware view: no access check, no side effect).
  /// `queue` nullopt: the engine-global bank. Errors: no register at `offset`, bad ids.
  [[nodiscard]] base::Result<std::uint32_t> peek_reg(CoreId core, unsigned engine,
                                                     soc::Direction dir,
                                                     std::optional<unsigned> queue,
                                                     std::uint32_t offset) const;
  /// The stored value of an engine's MISC register.
  [[nodiscard]] base::Result<std::uint32_t> peek_misc(CoreId core, unsigned engine,
                                                      std::uint32_t offset) const;
  /// Contract: valid core, engine, queue. With elide_data_landings, the completion heads and
  /// packet counts (here and in peek_reg) are those of the last settle; a Simulation settles
  /// at its end.
  [[nodiscard]] QueueState queue_state(CoreId core, unsigned engine, soc::Direction dir,
                                       unsigned queue) const;

  /// With elide_data_landings: applies every data landing not applied yet, as the events the
  /// run would have had after its last one (call once the kernel's run is over). Returns the
  /// latest of their ticks, the run's end if it is later than the kernel's last event, and
  /// adds their number to elided_landings(). Nothing to do otherwise.
  std::optional<base::Tick> settle_landings();
  /// Runs the held SBUF-to-SBUF landing copies (D44). Any SBUF access does so first; a caller
  /// that reads SBUFs from several threads (base::split_work) must call this before.
  void settle_copies() { copies_.run(); }
  /// SBUF-to-SBUF landing copies that were held back and run in batches so far (D44).
  [[nodiscard]] std::uint64_t held_copies() const noexcept { return copies_.copies_run(); }
  /// Data landings applied without a kernel event so far (elide_data_landings).
  [[nodiscard]] std::uint64_t elided_landings() const noexcept { return elided_; }

  /// Every modelled error so far, in order.
  [[nodiscard]] const std::vector<ModelledError>& errors() const noexcept { return errors_.all(); }
  /// errors() one per line.
  [[nodiscard]] std::string error_report() const { return errors_.report(); }
  /// Counters since the machine was built.
  [[nodiscard]] const MachineStats& stats() const noexcept { return stats_; }
  /// The part of stats().engine_busy that `core`'s engines are busy from `t` on, with pairs
  /// taken already (reports that count from `t`). Contract: core exists.
  [[nodiscard]] base::Tick engine_busy_from(CoreId core, base::Tick t) const;
  /// The links' timing state (reports: how long each link direction was booked).
  [[nodiscard]] const Fabric& fabric() const noexcept { return fabric_; }
  /// Queues that still hold posted descriptors, one line each with why they are stuck.
  [[nodiscard]] std::vector<std::string> pending_work() const;
  /// Bytes of SBUF and other memory pages allocated so far (untouched memory costs none).
  [[nodiscard]] std::uint64_t allocated_bytes() const;

 private:
  class CoreBus;
  struct CoreState;
  struct Resolved;
  struct MemRef;
  struct DmaDest;
  struct Landing;
  struct ElidedLanding;
  struct PostedWrite;
  struct AddrWindow;
  struct AddrCache;
  struct EngineCache;
  struct RouteEntry;
  struct SemCache;
  struct BusCache;
  struct StepAction;
  struct LandAction;

  Machine(sim::Kernel& kernel, Topology topology, soc::AddressMap map, MachineOptions options);

  // machine.cpp: state, resolution, memory
  [[nodiscard]] CoreState& core_state(CoreId core);
  [[nodiscard]] const CoreState& core_state(CoreId core) const;
  [[nodiscard]] UdmaEngine& engine(CoreId core, unsigned index);
  [[nodiscard]] const UdmaEngine* find_engine(CoreId core, unsigned index) const;
  /// Errors unless core, engine and (if given) queue exist.
  [[nodiscard]] base::Status check_engine_ids(CoreId core, unsigned engine,
                                              std::optional<unsigned> queue) const;
  [[nodiscard]] base::Result<Resolved> resolve(CoreId issuer, base::SocAddr a) const;
  [[nodiscard]] base::Result<MemRef> memory_ref(const Resolved& r, std::uint64_t len) const;
  /// resolve + memory_ref through `cache`: a hit skips the decode; a miss resolves and, on
  /// success, remembers the region's window. Same results and errors as without the cache.
  [[nodiscard]] base::Result<MemRef> cached_ref(AddrCache& cache, CoreId issuer, base::SocAddr a,
                                                std::uint64_t len) const;
  /// cached_ref() once no window of `cache` holds the range.
  [[nodiscard]] base::Result<MemRef> cached_ref_miss(AddrCache& cache, CoreId issuer,
                                                     base::SocAddr a, std::uint64_t len) const;
  /// The memory ref of `a` if a window of `cache` holds it and the range is valid there.
  [[nodiscard]] static std::optional<MemRef> window_ref(const AddrCache& cache, base::SocAddr a,
                                                        std::uint64_t len);
  /// Remembers the window of the memory region `r` (resolved for address `a`) in `cache`.
  void remember(AddrCache& cache, base::SocAddr a, const Resolved& r, const MemRef& m) const;
  /// resolve through the issuer's BusCache (the MMIO bus path): the same results and errors.
  [[nodiscard]] base::Result<Resolved> bus_resolve(CoreId issuer, base::SocAddr a);
  /// resolve + memory_ref for the direct accessors (issuer checked).
  [[nodiscard]] base::Result<MemRef> direct_ref(CoreId issuer, base::SocAddr a,
                                                std::uint64_t len) const;
  [[nodiscard]] PagedMemory& memory(const MemRef& m);
  [[nodiscard]] const PagedMemory& memory(const MemRef& m) const;
  void record(const ErrorSite& site, std::string message);
  /// Writes `v` to semaphore window `w`, slot `idx`, of `core` (an MMIO write's or a
  /// semaphore descriptor's), telling the race checker the value before and after.
  base::Status write_semaphore(CoreId core, soc::SemWindow w, unsigned idx, std::uint32_t v);
  /// record() for an MMIO access `issuer` is issuing now that fails at once.
  void record_at_issue(CoreId issuer, std::string message);

  // machine_mmio.cpp: the buses
  void bus_write32(CoreId issuer, base::SocAddr a, std::uint32_t v);
  void bus_write_block(CoreId issuer, base::SocAddr a, std::span<const std::uint8_t> bytes);
  std::uint32_t bus_read32(CoreId issuer, base::SocAddr a);
  [[nodiscard]] base::Tick mmio_delay(CoreId issuer, CoreId target) const;
  /// Queues `w` to take effect `delay` from now, in issue order among the issuer's writes
  /// that land at the same tick. [CHOICE D26a]
  void post(CoreId issuer, base::Tick delay, PostedWrite w);
  /// Queues the event that delivers the issuer's earliest posted write (see ChainedArrivals).
  void schedule_delivery(CoreId issuer, ChainedArrivals<PostedWrite>::Due due);
  /// The landing event (sequence number `seq`) of the issuer's earliest posted write: applies
  /// it, then wakes the issuer's fences that are done.
  void deliver_write(CoreId issuer, std::uint64_t seq);
  /// deliver_write's work for one write: takes it (sequence number `seq`) and applies it.
  void apply_posted(CoreId issuer, std::uint64_t seq);
  /// True once no write of `issuer` due by `until` is pending.
  [[nodiscard]] bool writes_done(CoreId issuer, base::Tick until) const;
  void apply_write32(CoreId issuer, base::SocAddr a, std::uint32_t v);
  /// apply_write32 with the address already resolved (as its issuer sees it).
  void apply_resolved32(const Resolved& r, std::uint32_t v);
  void apply_block(CoreId issuer, base::SocAddr a, const Resolved& r,
                   const std::vector<std::uint8_t>& bytes);
  void write_udma(const Resolved& r, std::uint32_t v);
  void write_engine_reg(CoreId core, unsigned engine, soc::Direction dir,
                        std::optional<unsigned> queue, std::uint32_t offset, std::uint32_t v);
  void write_broadcast(const Resolved& r, std::uint32_t v);
  /// Flags an M2S cfg_len value the engines do not obey. [CHOICE D37]
  void check_cfg_len(const ErrorSite& site, std::uint32_t v);
  void doorbell(UdmaEngine& eng, soc::Direction dir, unsigned queue, std::uint32_t n);

  // machine_dma.cpp: the engines' work
  void kick(UdmaEngine& eng, base::Tick at);
  void engine_step(UdmaEngine& eng, std::uint64_t gen);
  void process_pair(UdmaEngine& eng, unsigned queue);
  /// The descriptor at a queue's head and its address. Errors: the ring slot is not memory.
  using HeadRead = base::Result<std::pair<soc::UdmaDescriptor, base::SocAddr>>;
  [[nodiscard]] HeadRead read_head(UdmaEngine& eng, soc::Direction dir, unsigned queue);
  /// Checks the descriptor `got` read at the queue's head (ring id); stops the queue on error.
  std::optional<soc::UdmaDescriptor> prefetch(UdmaEngine& eng, soc::Direction dir, unsigned queue,
                                              const HeadRead& got);
  /// prefetch() once `got` is an error or has another ring id: the error's records. [CHOICE D2]
  std::optional<soc::UdmaDescriptor> prefetch_failed(UdmaEngine& eng, soc::Direction dir,
                                                     unsigned queue, const HeadRead& got);
  [[nodiscard]] base::Result<DmaDest> resolve_dest(EngineCache& cache, CoreId issuer,
                                                   base::SocAddr a, std::uint32_t len) const;
  /// data_route(src, engine's core, dst), remembered per engine.
  [[nodiscard]] const Route& engine_route(EngineCache& cache, const UdmaEngine& eng, CoreId src,
                                          CoreId dst) const;
  /// data_route(src, engine, dst), computed once per machine (routes_).
  [[nodiscard]] const Route& shared_route(CoreId src, CoreId engine, CoreId dst) const;
  void land(const Landing& l);
  /// Applies the engine's elided data landings that ran before the current event. [D35]
  void settle(UdmaEngine& eng);
  /// One elided landing's effects, as land() has them for a data pair in timing-only mode.
  void apply_elided(const ElidedLanding& l);
  /// Queues the event that lands `in_flight`'s earliest pair (see ChainedArrivals).
  void schedule_landing(ChainedArrivals<Landing>& in_flight, ChainedArrivals<Landing>::Due due,
                        const UdmaEngine& eng);

  sim::Kernel* kernel_;
  Topology topology_;
  soc::AddressMap map_;
  MachineOptions options_;
  Fabric fabric_;
  std::vector<std::unique_ptr<CoreState>> cores_;
  std::vector<std::unique_ptr<CoreBus>> buses_;
  ErrorLog errors_;
  MachineStats stats_;
  std::uint64_t elided_ = 0;            ///< data landings applied without an event [D35]
  std::vector<base::Tick> last_write_;  // per issuing core: when its latest MMIO write lands
  MachineWatcher* watcher_ = nullptr;
  std::unique_ptr<RaceChecker> races_;  ///< with check_races [CHOICE D49]
  /// The MMIO access whose errors are being recorded (a posted write taking effect, or one
  /// failing as it is issued: record_at_issue), if any.
  std::optional<IssuedAccess> applying_;
  std::vector<ChainedArrivals<PostedWrite>> posted_;  // per issuing core: writes in flight
  struct Fence {
    CoreId issuer;
    sim::ProcessId pid;
    base::Tick until;  // the writes due by then must have taken effect
  };
  std::vector<Fence> fences_;           // processes parked in park_until_writes_landed
  std::vector<soc::ChipDie> chip_die_;  // per core: how it issues addresses (routing id, die)
  /// Data routes by (src, engine, dst) core ids, computed on first use (shared_route). Nodes
  /// keep their address, so the engines' caches point into it.
  mutable std::unordered_map<std::uint64_t, Route> routes_;
  /// The route latency of an MMIO write from one core to another, by (issuer, target) ids,
  /// computed on first use (mmio_delay).
  mutable std::unordered_map<std::uint64_t, base::Tick> mmio_latencies_;
  /// Data landings' SBUF-to-SBUF copies not run yet: memory() runs them before any other use
  /// of an SBUF's bytes. Performance only. [CHOICE D44]
  mutable DeferredCopies copies_;
  /// Byte buffers of delivered block writes, reused by the next ones.
  std::vector<std::vector<std::uint8_t>> spare_blocks_;
};

}  // namespace sbrdma::device
