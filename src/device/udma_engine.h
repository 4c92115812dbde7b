#pragma once
/// UdmaEngine: one DMA engine ("SDMA channel") of a core — its M2S and S2M engine-global
/// registers, 16 + 16 queues, the MISC wrapper registers, its state (change_state) and the
/// round-robin choice of the next queue to serve. It holds state only; the machine moves the
/// bytes (machine_dma.cpp).
///
///   channel slot (1 MiB)                      [HIGH] wiki-facts §3.1
///   +0x00000 UDMA_M2S: engine regs (state, change_state, err_log_mask, pref_queue_en, ...)
///            +0x1000 + q*0x1000: M2S_Q[q]
///   +0x20000 UDMA_S2M: the same shape, S2M_Q[q]
///   +0x40000 MISC (BROADCAST_CFG_GROUP +0x100, ...)
/// Register offsets and fields come from soc/udma_regs.h (engine_offsets(), queue_offsets(),
/// misc::, reg_field::), the one description of the registers.
///
/// Queue service: round robin over the queues, one descriptor per turn, in order within a
/// queue. [HIGH] hw-params (DMA-OV "round robin across queues; in-order within a queue")

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/check.h"
#include "base/units.h"
#include "device/reg_file.h"
#include "device/topology.h"
#include "device/udma_queue.h"
#include "sim/object_pool.h"

namespace sbrdma::device {

/// An engine block's state as change_state sets it. [DRV] udma-facts §3.5
enum class EngineState : std::uint8_t { kDisabled, kNormal, kAbort };

/// One DMA engine of a core (see the top of this file).
class UdmaEngine {
 public:
  /// Most queues per direction (pref_queue_en has 16 bits). [DRV] udma-facts §2.2
  static constexpr unsigned kMaxQueues = 16;

  /// Engine `index` of global core `core`, with `queues` queues per direction.
  /// Contract: queues <= kMaxQueues.
  UdmaEngine(CoreId core, unsigned index, unsigned queues);

  /// Engines live in the object pool (a machine has thousands, touched at random).
  static void* operator new(std::size_t n) { return sim::ObjectPool::allocate(n); }
  static void operator delete(void* p, std::size_t n) noexcept {
    sim::ObjectPool::deallocate(p, n);
  }

  /// The global core the engine belongs to.
  [[nodiscard]] CoreId core() const noexcept { return core_; }
  /// Its index among the core's engines (0..15).
  [[nodiscard]] unsigned index() const noexcept { return index_; }
  /// Queues per direction.
  [[nodiscard]] unsigned queues() const noexcept { return queues_; }

  /// The engine-global M2S or S2M registers (state, change_state, err_log_mask, ...).
  [[nodiscard]] RegFile& engine_regs(soc::Direction d) {
    return d == soc::Direction::kM2S ? m2s_ : s2m_;
  }
  [[nodiscard]] const RegFile& engine_regs(soc::Direction d) const {
    return d == soc::Direction::kM2S ? m2s_ : s2m_;
  }
  /// The SDMA wrapper (MISC) registers.
  [[nodiscard]] RegFile& misc() noexcept { return misc_; }
  [[nodiscard]] const RegFile& misc() const noexcept { return misc_; }
  /// Queue `q` of direction `d`. Contract: q < queues(). Queues come to life on first
  /// mutable access (a driver usually opens one ring per engine); the const view of one never
  /// touched is a queue in its reset state.
  [[nodiscard]] UdmaQueue& queue(soc::Direction d, unsigned q) {
    SBRDMA_CHECK(q < queues_);
    UdmaQueue* p = queues_by_dir_[slot(d)][q].get();
    if (p == nullptr) [[unlikely]]
      return create_queue(d, q);
    return *p;  // inline: a step asks for its queues about ten times
  }
  [[nodiscard]] const UdmaQueue& queue(soc::Direction d, unsigned q) const;
  /// Queue `q` of direction `d` if it was ever used (else it is in its reset state).
  /// Contract: q < queues().
  [[nodiscard]] const UdmaQueue* find_queue(soc::Direction d, unsigned q) const;

  /// The state of the M2S or S2M block.
  [[nodiscard]] EngineState state(soc::Direction d) const { return state_[slot(d)]; }
  /// A change_state command (abort wins over dis, dis over normal); stores it in the RO state
  /// register's last_change_state_cmd (M2S).
  void change_state(soc::Direction d, std::uint32_t cmd);
  /// An error whose abort mask is clear puts the engine into ABORT ([DRV] udma-facts §1.4,
  /// §3.6); here the side, M2S or S2M, whose error group raised it [CHOICE D2], as a
  /// change_state.abort would (last_change_state_cmd is left as software wrote it).
  void abort(soc::Direction d) { state_[slot(d)] = EngineState::kAbort; }
  /// The RO `state` register as software reads it: every sub-state field 2 when aborted, 1
  /// when normal and moving data (a queue that can run has posted descriptors not yet
  /// completed), else 0 (IDLE: what the HAL's state_set_wait polls for after NORMAL),
  /// udma-facts 3.5 [CHOICE D25h]; last_change_state_cmd as stored.
  [[nodiscard]] std::uint32_t state_register(soc::Direction d) const;
  /// pref_queue_en bit q.
  [[nodiscard]] bool pref_queue_enabled(soc::Direction d, unsigned q) const {
    const std::uint64_t en =
        soc::reg_field::kPrefQueueEn.get(engine_regs(d).get_at(pref_rows()[slot(d)]));
    return base::bit(q).get(en) != 0;
  }
  /// Sets bits of err_log_mask (the error log of [CHOICE D2]).
  void latch_error(soc::Direction d, base::BitField bit);

  /// Why the queue `q` of direction `d` cannot move data now, or "" if it can (engine normal,
  /// pref_queue_en, cfg enables, not stopped). Posted descriptors are not considered.
  [[nodiscard]] std::string blocked_reason(soc::Direction d, unsigned q) const;
  /// blocked_reason(d, q).empty(), without building the text (the scheduler's hot path).
  [[nodiscard]] bool can_run(soc::Direction d, unsigned q) const {
    return can_run(d, q, queue(d, q));
  }

  /// Adds a doorbell's batch to M2S queue `q` (the scheduler looks only at queues that got
  /// one). Contract: q < queues(); every batch reaches a queue of an engine through here.
  void post_batch(unsigned q, Batch b);

  /// The next M2S queue to serve at `now`: round robin from the last served queue over the
  /// queues that can run, hold posted descriptors and whose oldest batch is ready. If none is
  /// ready, `next` is the earliest time one becomes ready (nullopt: no work at all).
  struct Pick {
    std::optional<unsigned> queue;   ///< the queue to serve now
    std::optional<base::Tick> next;  ///< else: when one becomes ready
  };
  [[nodiscard]] Pick pick(base::Tick now);
  /// pick(infinity).queue.has_value(): some queue can run and holds posted descriptors and a
  /// batch, whenever it becomes ready.
  [[nodiscard]] bool has_work();
  /// Marks `q` as served (the round robin continues after it).
  void served(unsigned q) { rr_ = (q + 1) % queues_; }

  /// A CPU cache hint: starts loading what a step reads first (the scheduling state, the
  /// queue pointers of the first queues). No effect on the model.
  void hint() const noexcept {
    const auto* p = reinterpret_cast<const char*>(this);
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
    __builtin_prefetch(p + 128);
    // Further on, what every step reads too: both directions' pref_queue_en (pick) and the
    // step label (the kick that schedules the next step).
    const auto& rows = pref_rows();
    __builtin_prefetch(m2s_.address_at(rows[0]));
    __builtin_prefetch(s2m_.address_at(rows[1]));
    __builtin_prefetch(&step_label);
  }

  // Members are laid out hot first (declaration order is memory order): a step reads the
  // scheduling state, the round-robin state and the queue pointers, which share the first
  // cache lines; the label strings and register banks come after.

  // ---- scheduling state, owned by the machine's DMA logic -------------------------------
  /// When the engine's streaming resource is free again.
  base::Tick free_at;
  /// Generation of the pending kick event; stale kicks compare unequal and do nothing.
  std::uint64_t kick_gen = 0;
  /// Time of the pending kick, if any.
  std::optional<base::Tick> kick_at;

  /// CPU cache hints for the next step (no effect on the model): remembers the queues a step
  /// served and where the next descriptor of a direction is likely stored (a wrong guess only
  /// wastes a prefetch); prefetch_step_hints() starts loading them.
  void hint_queues(const UdmaQueue& m2s, const UdmaQueue& s2m) noexcept {
    hint_queues_ = {&m2s, &s2m};
  }
  void hint_descriptor(soc::Direction d, const void* host) noexcept { hint_descs_[slot(d)] = host; }
  void prefetch_step_hints() const noexcept {
    for (const UdmaQueue* q : hint_queues_) {
      if (q != nullptr) q->hint();
    }
    for (const void* p : hint_descs_) __builtin_prefetch(p);
  }
  /// The descriptor addresses hint_descriptor() remembered (M2S, S2M).
  [[nodiscard]] std::array<const void*, 2> hinted_descriptors() const noexcept {
    return hint_descs_;
  }

 private:
  static unsigned slot(soc::Direction d) { return d == soc::Direction::kM2S ? 0 : 1; }
  /// Table rows of pref_queue_en in the M2S and S2M engine banks (the same for every engine).
  static const std::array<std::size_t, 2>& pref_rows() {
    static const std::array<std::size_t, 2> rows{row_of_pref(soc::Direction::kM2S),
                                                 row_of_pref(soc::Direction::kS2M)};
    return rows;
  }
  static std::size_t row_of_pref(soc::Direction d) {
    return RegFile(soc::engine_bank(d)).index(soc::engine_offsets(d).pref_queue_en);
  }
  /// Creates queue `q` of direction `d` on its first use.
  UdmaQueue& create_queue(soc::Direction d, unsigned q);
  /// can_run(d, q) for the queue `uq` the caller already holds.
  [[nodiscard]] bool can_run(soc::Direction d, unsigned q, const UdmaQueue& uq) const {
    // The same tests as blocked_reason, in the same order.
    return !uq.stopped() && state(d) == EngineState::kNormal && pref_queue_enabled(d, q) &&
           uq.enabled();
  }
  /// The M2S queue `q` holds a batch and posted descriptors and can run. Clears q's bit in
  /// with_batches_ once its batches are gone.
  bool runnable(unsigned q);

  std::array<const UdmaQueue*, 2> hint_queues_{};
  std::array<const void*, 2> hint_descs_{};
  CoreId core_;
  unsigned index_;
  unsigned queues_;
  std::array<EngineState, 2> state_{EngineState::kDisabled, EngineState::kDisabled};
  unsigned rr_ = 0;
  /// Bit q set: M2S queue q may hold batches (set by post_batch, cleared lazily by pick once
  /// they are gone); every queue holding one has its bit set.
  std::uint32_t with_batches_ = 0;
  /// Per direction (slot()), queue q at [q]; null until first used.
  std::array<std::array<std::unique_ptr<UdmaQueue>, kMaxQueues>, 2> queues_by_dir_;

 public:
  /// Event labels ("core3.dma5.step", "core3.dma5.land"); they outlive the events.
  std::string step_label;
  std::string land_label;

 private:
  RegFile m2s_;
  RegFile s2m_;
  RegFile misc_;
};

}  // namespace sbrdma::device
