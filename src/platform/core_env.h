#pragma once
/// CoreEnv: the firmware::Q7Env of one NeuronCore on the device model and the sim kernel —
/// what the firmware's abstract waits become in a real run:
///
///   bus()                 -> Machine::bus(core)                 (posted MMIO writes)
///   delay(d)              -> Kernel::sleep(d)
///   wait_semaphore        -> Machine::park_on_semaphore          (a sim::Signal wait)
///   write_fence(prid)     -> Machine::park_until_writes_landed(core) (resumes at
///                            writes_landed_by(core), after the last write took effect)
///   right_push / left_pop -> one sim::Fifo<uint32_t> per PRID: FIFO p carries PRID p-1 -> p
///   sbuf_read/sbuf_write  -> Machine::sbuf_read/sbuf_write(core, ...)  (the GPSIMD wiring)
///   sbuf_partition        -> Machine::sbuf_span(core, ...)  (in place; empty in timing-only)
///   debug_log             -> the observer (collected by the Simulation, in order)
///   ring_written          -> the observer (which word posted which ring slots)
///   word_started          -> the observer (where each word began, to name an access's word)
///
/// It also remembers what its process blocked on last, so that a deadlock report can name the
/// core, the semaphore, the condition and the current value.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/machine.h"
#include "firmware/env.h"
#include "sim/fifo.h"
#include "sim/kernel.h"

namespace sbrdma::platform {

/// What a core's process blocked on (the latest blocking wait it entered).
struct CoreWait {
  std::uint64_t seq = 0;  ///< increments with every blocking wait
  base::Tick since;
  /// A semaphore wait: index, compare and immediate; else a FIFO pop of `prid`.
  std::optional<unsigned> semaphore;
  firmware::SemCompare compare = firmware::SemCompare::kGe;
  std::uint32_t value = 0;
  unsigned prid = 0;
};

/// Receives what the environments of a run do, for DEBUG output and traces. Every method has
/// an empty default.
class EnvObserver {
 public:
  virtual ~EnvObserver() = default;
  /// Contract: a firmware DEBUG line of `core` at `t` (only when debug is on).
  virtual void on_debug(device::CoreId core, base::Tick t, std::string_view line) {
    (void)core, (void)t, (void)line;
  }
  /// Contract: the Q7 time [t, t + d) charged by delay() for `what` (desc gen, local compute).
  virtual void on_busy(device::CoreId core, firmware::Q7Work what, base::Tick t, base::Tick d) {
    (void)core, (void)what, (void)t, (void)d;
  }
  /// Contract: Q7 `prid` waits for its writes to land, from `t` to `until`.
  virtual void on_fence(device::CoreId core, unsigned prid, base::Tick t, base::Tick until) {
    (void)core, (void)prid, (void)t, (void)until;
  }
  /// Contract: Q7 `prid` pushed `value` to its right neighbour at `t`.
  virtual void on_push(device::CoreId core, unsigned prid, base::Tick t, std::uint32_t value) {
    (void)core, (void)prid, (void)t, (void)value;
  }
  /// Contract: true if on_ring_write and on_word_start want to be told.
  [[nodiscard]] virtual bool wants_origins() const { return false; }
  /// Contract: `core`'s sequencer starts word `pc` when the kernel's next sequence number is
  /// `seq` (sim::Kernel::next_seq()).
  virtual void on_word_start(device::CoreId core, std::size_t pc, std::uint64_t seq) {
    (void)core, (void)pc, (void)seq;
  }
  /// Contract: word `pc` of `core` posts a block write of `count` descriptors into `role`'s
  /// ring of `engine`, slots from `first_slot` on, at `at` (Q7Env::ring_written).
  virtual void on_ring_write(device::CoreId core, firmware::Role role, unsigned engine,
                             unsigned first_slot, unsigned count, base::SocAddr at,
                             std::size_t pc) {
    (void)core, (void)role, (void)engine, (void)first_slot, (void)count, (void)at, (void)pc;
  }
};

class CoreEnv final : public firmware::Q7Env {
 public:
  /// Contract: kernel and machine outlive the env; `observer` may be null, else outlives it.
  CoreEnv(sim::Kernel& kernel, device::Machine& machine, device::CoreId core, bool debug,
          EnvObserver* observer);

  soc::MmioBus& bus() override { return machine_.bus(core_); }
  base::Suspend delay(firmware::Q7Work what, base::Tick d) override;
  base::Suspend wait_semaphore(unsigned idx, firmware::SemCompare cmp,
                               std::uint32_t value) override;
  base::Suspend write_fence(unsigned prid) override;
  void right_push(unsigned prid, std::uint32_t value) override;
  base::Task<std::uint32_t> left_pop(unsigned prid) override;
  [[nodiscard]] bool debug_enabled() const override { return debug_; }
  void debug_log(std::string_view line) override;
  void word_started(std::size_t pc) override {
    if (observer_ != nullptr && observer_->wants_origins()) {
      observer_->on_word_start(core_, pc, kernel_.next_seq());
    }
  }
  [[nodiscard]] bool wants_origins() const override {
    return observer_ != nullptr && observer_->wants_origins();
  }
  void ring_written(firmware::Role role, unsigned engine, unsigned first_slot, unsigned count,
                    base::SocAddr at, std::size_t pc) override {
    observer_->on_ring_write(core_, role, engine, first_slot, count, at, pc);
  }

  [[nodiscard]] bool timing_only() const override { return machine_.options().timing_only; }
  base::Status sbuf_read(unsigned partition, std::uint64_t offset,
                         std::span<std::uint8_t> out) override;
  base::Status sbuf_write(unsigned partition, std::uint64_t offset,
                          std::span<const std::uint8_t> in) override;
  std::span<std::uint8_t> sbuf_partition(unsigned partition, std::uint64_t bytes) override;
  [[nodiscard]] bool wants_accesses() const override { return machine_.race_checker() != nullptr; }
  void sbuf_accessed(unsigned partitions,
                     std::span<const std::pair<std::uint64_t, std::uint64_t>> runs,
                     bool write) override {
    machine_.note_core_access(core_, partitions, runs, write);
  }

  [[nodiscard]] device::CoreId core() const { return core_; }
  /// The latest blocking wait (meaningful while the core's process is waiting); none once a
  /// write fence parks the process after it.
  [[nodiscard]] const std::optional<CoreWait>& last_wait() const { return wait_; }
  /// "sem[5] >= 16, current 12" or "left_pop on Q7 P1 (FIFO empty)".
  [[nodiscard]] std::string describe_wait() const;

 private:
  void note_wait(CoreWait w);

  sim::Kernel& kernel_;
  device::Machine& machine_;
  device::CoreId core_;
  bool debug_;
  EnvObserver* observer_;
  std::vector<std::unique_ptr<sim::Fifo<std::uint32_t>>> fifos_;  // [p]: from PRID p-1 to p
  std::optional<CoreWait> wait_;
  std::uint64_t wait_seq_ = 0;
};

}  // namespace sbrdma::platform
