#pragma once
/// UdmaQueue: one M2S or S2M queue of a UDMA engine — its register bank (from the soc table)
/// and the little runtime state the registers do not hold.
///
/// The ring pointers ARE the registers (head TDRHP/RDRHP, tail TDRTP/RDRTP, current TDCP/RDCP,
/// completion head TCRHP/RCRHP), each `ring_id[31:30] | descriptor_offset[23:0]`, reset
/// ring id 1. [HIGH] wiki-facts §3.3/§3.4, udma-facts §1.4
///
///   ring (TDRL = 8)   slot: 0   1   2   3   4   5   6   7
///                               ^head         ^tail            posted = tail - head = 3
///   A pointer moving past slot TDRL-1 wraps to 0 and its ring id becomes (id + 1) mod 4, so
///   (ring_id, offset) is a position modulo 4*TDRL and posted = (tail - head) mod 4*TDRL.
///
/// In this model the head is the next descriptor the engine takes (prefetch and scheduling
/// are one step: [CHOICE D25]); current follows head; the completion head counts descriptors
/// whose data (or semaphore write) has landed.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/taken_prefix.h"
#include "base/units.h"
#include "device/reg_file.h"
#include "sim/object_pool.h"
#include "soc/address_map.h"

namespace sbrdma::device {

/// A ring position as the pointer registers hold it.
struct RingPos {
  std::uint32_t offset = 0;
  unsigned ring_id = 1;
  bool operator==(const RingPos&) const = default;
};
/// The position a pointer register holds.
inline RingPos ring_pos(std::uint32_t reg) {
  return RingPos{static_cast<std::uint32_t>(soc::kPtrOffset.get(reg)),
                 static_cast<unsigned>(soc::kPtrRingId.get(reg))};
}
/// The register value of a position (ring_id [31:30], offset [23:0]).
inline std::uint32_t ring_pos_reg(RingPos p) {
  return static_cast<std::uint32_t>(
      soc::kPtrRingId.set(soc::kPtrOffset.set(0, p.offset), p.ring_id));
}

/// The descriptors one doorbell posted: M2S ones, which may start once the transfer's fixed
/// cost has passed at `ready` [CHOICE D26]; S2M ones (kept under the race checker only), whose
/// `ready` is unused.
struct Batch {
  std::uint32_t remaining = 0;
  base::Tick ready;
  std::uint32_t race_clock = 0;  ///< what its doorbell released (RaceChecker), 0 if unchecked
};

/// The doorbell batches of a queue, oldest first: a FIFO on a vector with a taken prefix, so
/// that a queue that never got a doorbell (most of a large machine's) owns no memory.
class BatchFifo {
 public:
  [[nodiscard]] bool empty() const noexcept { return head_ == items_.size(); }
  [[nodiscard]] std::size_t size() const noexcept { return items_.size() - head_; }
  /// Contract for front/back/pop_front/pop_back: !empty().
  [[nodiscard]] Batch& front() { return items_[head_]; }
  [[nodiscard]] const Batch& front() const { return items_[head_]; }
  [[nodiscard]] Batch& back() { return items_.back(); }
  void push_back(Batch b) { items_.push_back(b); }
  /// One descriptor of the oldest batch is taken: the batch goes once it has none left.
  void take_one() {
    if (--front().remaining == 0) pop_front();
  }
  void pop_front() {
    ++head_;
    base::settle_taken_prefix(items_, head_);  // the buffer is kept for the next doorbells
  }
  void pop_back() {
    items_.pop_back();
    if (head_ == items_.size()) clear();
  }
  void clear() noexcept {
    items_.clear();
    head_ = 0;
  }
  [[nodiscard]] auto begin() const { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  [[nodiscard]] auto end() const { return items_.end(); }

 private:
  std::vector<Batch> items_;
  std::size_t head_ = 0;  // items_[0, head_) are taken
};

/// One M2S or S2M queue (see the top of this file).
class UdmaQueue {
 public:
  /// Ring ids: 2 bits; each wrap of a pointer advances its id by one, modulo this.
  static constexpr unsigned kRingIds = 1U << soc::kPtrRingId.width();

  explicit UdmaQueue(soc::Direction dir);

  /// Queues live in the object pool (a machine has thousands, touched at random).
  static void* operator new(std::size_t n) { return sim::ObjectPool::allocate(n); }
  static void operator delete(void* p, std::size_t n) noexcept {
    sim::ObjectPool::deallocate(p, n);
  }

  /// M2S or S2M.
  [[nodiscard]] soc::Direction dir() const noexcept { return dir_; }
  /// The queue's register bank (M2S_Q or S2M_Q table).
  [[nodiscard]] const RegFile& regs() const noexcept { return regs_; }
  /// A software write to the bank (RegFile::write); posted() and the status register follow a
  /// new DRL. The caller runs the register's hook (doorbell, q_sw_ctrl) afterwards.
  base::Result<const soc::RegDesc*> write_reg(std::uint32_t offset, std::uint32_t v);

  // Inline, as is enabled(): the engines read them on every descriptor.
  /// Ring base (DRBP_high:DRBP_low, 64-byte aligned: the low 6 bits are not stored).
  [[nodiscard]] base::SocAddr ring_base() const {
    const std::uint64_t lo =
        regs_.get_at(rows().base_low) & soc::reg_mask(soc::reg_field::kRingBaseLowAddr);
    return base::SocAddr{(std::uint64_t{regs_.get_at(rows().base_high)} << 32) | lo};
  }
  /// Ring length in descriptors (DRL[23:0]).
  [[nodiscard]] std::uint32_t ring_len() const {
    return static_cast<std::uint32_t>(soc::reg_field::kRingLength.get(regs_.get_at(rows().len)));
  }
  /// Next descriptor the engine takes (DRHP).
  [[nodiscard]] RingPos head() const { return ring_pos(regs_.get_at(rows().head)); }
  /// One past the last posted descriptor (DRTP).
  [[nodiscard]] RingPos tail() const;
  /// Next descriptor the scheduler reads (DCP); follows head in this model.
  [[nodiscard]] RingPos current() const;
  /// Next descriptor to complete (CRHP).
  [[nodiscard]] RingPos completion() const;
  /// Descriptors completed (q_tx_pkt / q_rx_pkt: one packet each), wrapping at 2^32.
  [[nodiscard]] std::uint32_t packets() const { return regs_.get_at(rows().packets); }
  /// Descriptors posted by doorbells and not yet taken: (tail - head) mod 4*DRL, kept up to
  /// date whenever head, tail or DRL change (the engines ask on every step).
  [[nodiscard]] std::uint32_t posted() const noexcept { return posted_; }
  /// cfg.en_pref and cfg.en_scheduling (M2S) / cfg.en_stream (S2M).
  [[nodiscard]] bool enabled() const {
    const std::uint32_t cfg = regs_.get_at(rows().cfg);
    return soc::reg_field::kQCfgEnPref.get(cfg) != 0 && soc::queue_run_enable(dir_).get(cfg) != 0;
  }

  /// The doorbell hook: tail += n (ring id advancing on wrap). Errors (nothing changes): ring
  /// length 0, n == 0, or more descriptors posted than the ring holds ("tail beyond ring").
  base::Status add_tail(std::uint32_t n);
  // Inline, with advance() and update_status(): the engines call them twice per pair.
  /// Takes the descriptor at head: head and current advance by one.
  void advance_head() {
    const Rows& r = rows();
    advance(r.head, 1);
    // current follows head: set_pos(current, head()) without the decode (the head register
    // holds only its offset and ring id, which is what set_pos would store).
    regs_.set_at(r.current, regs_.get_at(r.head));
    update_status();
  }
  /// One taken descriptor has completed: the completion head advances by one, the head
  /// before the coalescing FIFO (CRHP_internal) with it, and the packet count (q_tx_pkt /
  /// q_rx_pkt, wrapping at 2^32) by one: every descriptor is its own packet. [CHOICE D41m]
  void advance_completion() {
    const Rows& r = rows();
    advance(r.completion, 1);
    regs_.set_at(r.completion_internal, regs_.get_at(r.completion));
    regs_.set_at(r.packets, regs_.get_at(r.packets) + 1);
  }
  /// A q_sw_ctrl command: rst_tail_ptr / rst_head_ptr / rst_current_ptr reset that pointer to
  /// offset 0, ring id 1; rst_q resets every pointer and clears a stopped queue.
  void sw_ctrl(std::uint32_t v);
  /// Stops the queue after a modelled error; it takes nothing until rst_q.
  void stop(std::string reason);

  /// A CPU cache hint: starts loading the queue's hot part (its pointer registers are read
  /// next; see the layout below). No effect on the model.
  void hint() const noexcept {
    const auto* p = reinterpret_cast<const char*>(this);
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
    __builtin_prefetch(p + 128);
  }

  /// True after a modelled error stopped the queue.
  [[nodiscard]] bool stopped() const noexcept { return stopped_; }
  /// The error that stopped it.
  [[nodiscard]] const std::string& stop_reason() const noexcept { return stop_reason_; }

  // Members are laid out for the engine's hot path (declaration order is memory order, and a
  // queue starts on a cache line): the batches, the two ticks, the direction, the stop flag and
  // the posted count (in the 8 bytes before the register file: Direction is one byte), then the
  // register values, of which the ones the engine reads on every descriptor (cfg to the
  // completion head) fall in the second cache line (the M2S completion head in the third).

  /// The doorbell batches still holding descriptors, oldest first: M2S always (they pace
  /// the engine), S2M only under the race checker (their clocks).
  BatchFifo batches;
  /// Latest landing time of data taken from this queue (semaphore writes land after it).
  base::Tick last_data_land;
  /// M2S only: no descriptor is taken before this tick (a DMB descriptor waiting for the
  /// queue's earlier data to land).
  base::Tick not_before;

 private:
  [[nodiscard]] std::uint64_t abs_pos(RingPos p) const;
  /// Moves the pointer at `row` by `n` slots (the ring id advancing on each wrap), and
  /// posted() with it if it is the tail or the head.
  void advance(std::size_t row, std::uint32_t n) {
    const std::uint32_t len = ring_len();
    RingPos p = ring_pos(regs_.get_at(row));
    std::uint64_t off = std::uint64_t{p.offset} + n;
    while (len != 0 && off >= len) {  // wrap: the ring id advances (id + 1) mod 4 [CHOICE D2]
      off -= len;
      p.ring_id = (p.ring_id + 1) % kRingIds;
    }
    p.offset = static_cast<std::uint32_t>(off);
    regs_.set_at(row, ring_pos_reg(p));
    // posted() = (tail - head) mod 4*DRL: moving tail or head by n moves it by +n or -n.
    const std::uint64_t span = kRingIds * std::uint64_t{len};
    if (span == 0 || (row != rows().tail && row != rows().head)) return;
    const std::uint64_t k = n < span ? n : n % span;
    std::uint64_t v = row == rows().tail ? posted_ + k : posted_ + span - k;
    if (v >= span) v -= span;
    posted_ = static_cast<std::uint32_t>(v);
  }
  void set_pos(std::size_t row, RingPos p);
  /// Keeps the batches' total equal to posted() (after a pointer reset).
  void trim_batches();
  /// The status register's used count follows posted().
  void update_status() {
    regs_.set_at(rows().status, static_cast<std::uint32_t>(soc::reg_field::kQStatusUsed.set(
                                    regs_.get_at(rows().status), posted())));
  }
  /// Recomputes posted_ from the head, tail and DRL registers.
  void recount();

  /// Table rows of the registers the engine touches on every descriptor; the same for every
  /// queue of a direction.
  struct Rows {
    std::size_t base_low, base_high, len, head, tail, current, completion, cfg, status;
    std::size_t completion_internal, packets;
  };
  /// By direction (M2S, S2M). Built from the soc tables, which are constants.
  static const std::array<Rows, 2> kRows;

  [[nodiscard]] const Rows& rows() const { return kRows[dir_ == soc::Direction::kM2S ? 0 : 1]; }

  soc::Direction dir_;
  bool stopped_ = false;
  std::uint32_t posted_ = 0;  ///< posted(); recount() after any change to head, tail or DRL
  RegFile regs_;
  std::string stop_reason_;
};

}  // namespace sbrdma::device
