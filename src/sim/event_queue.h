#pragma once
/// The pending-event set of the kernel: events ordered by (time, sequence number).
///
/// Every push gets the next sequence number, or one reserved for it earlier (reserve_seq(),
/// push_reserved()): an event can then take its place in the order when it is decided and enter the
/// heap later. Events at the same time pop in sequence order, so a run is deterministic. With a
/// non-zero tie seed, same-time events pop in an order shuffled by the seed instead (to hunt
/// ordering bugs); the shuffle is a fixed function of (seed, sequence), so a seed reproduces its
/// run, and it never reorders different times.
///
/// Layout, chosen for the hot path (no allocation per event once warm):
///
///   keys_  : 4-ary min-heap of 16-byte keys {time, tie}; a node's four children fill one
///            aligned 64-byte line, so a sift level compares within one cache line
///   slot_at_: beside each key, the slot of its event (moved with it, off the compare path)
///   slots_ : pool of {Callback, label, seq}, recycled through free_
///
/// `tie` is the sequence number, or with a seed a bijective mix of it (distinct sequence
/// numbers give distinct ties, so the order is total).

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/units.h"
#include "sim/callback.h"
#include "sim/huge_page_allocator.h"

namespace sbrdma::sim {

/// One executed (or executable) event, as popped.
struct Event {
  base::Tick time;
  std::uint64_t seq = 0;
  /// Short static-ish text for traces. Contract: points to storage that outlives the event
  /// (a string literal or a name owned by a long-lived object).
  std::string_view label;
  Callback fn;
};

class EventQueue {
 public:
  /// `tie_seed` 0 keeps same-time events in insertion order; any other value shuffles them.
  explicit EventQueue(std::uint64_t tie_seed = 0)
      : seed_(tie_seed), keys_(kPad), slot_at_(kPad) {}

  /// Adds an event at absolute time `when`; returns its sequence number. The callables here
  /// and in push_reserved() are taken by reference and moved into the queue's slot once (a
  /// by-value hop costs an indirect relocation each).
  std::uint64_t push(base::Tick when, Callback&& fn, std::string_view label);
  /// push() for a callable that is not yet a Callback: it is built in the queue's slot.
  template <EventAction F>
  std::uint64_t push(base::Tick when, F&& fn, std::string_view label) {
    const std::uint64_t seq = next_seq_++;
    push_reserved(when, seq, std::forward<F>(fn), label);
    return seq;
  }

  /// Hands out the next sequence number without pushing an event: push_reserved() adds the
  /// event later, and it pops exactly where a push() made now at the same time would have.
  std::uint64_t reserve_seq() noexcept { return next_seq_++; }
  /// Adds an event at `when` under the sequence number `seq`.
  /// Contract: `seq` came from reserve_seq() and has not been pushed yet.
  void push_reserved(base::Tick when, std::uint64_t seq, Callback&& fn,
                     std::string_view label);
  /// push_reserved() for a callable that is not yet a Callback: it is built in the slot.
  template <EventAction F>
  void push_reserved(base::Tick when, std::uint64_t seq, F&& fn, std::string_view label) {
    const std::uint32_t slot = take_slot(seq, label);
    slots_[slot].fn.emplace(std::forward<F>(fn));
    enter(when, seq, slot);
  }

  [[nodiscard]] bool empty() const noexcept { return keys_.size() == kPad; }
  [[nodiscard]] std::size_t size() const noexcept { return keys_.size() - kPad; }
  /// Sequence numbers handed out so far (events pushed plus numbers reserved).
  [[nodiscard]] std::uint64_t pushed() const noexcept { return next_seq_; }

  /// Time of the earliest event. Contract: !empty().
  [[nodiscard]] base::Tick next_time() const;

  /// Removes and returns the earliest event. Contract: !empty().
  Event pop();

  /// Drops every pending event (their callables are destroyed, not called).
  void clear();

 private:
  struct Key {
    std::uint64_t time;
    std::uint64_t tie;
  };
  /// Heap node i is keys_[i + kPad]: node i's children 4i+1..4i+4 then sit at 4(i+1)..,
  /// one aligned group of four 16-byte keys (64 bytes).
  static constexpr std::size_t kPad = 3;
  [[nodiscard]] Key& key(std::size_t i) { return keys_[i + kPad]; }
  [[nodiscard]] const Key& key(std::size_t i) const { return keys_[i + kPad]; }
  [[nodiscard]] std::uint32_t& slot_at(std::size_t i) { return slot_at_[i + kPad]; }
  struct Slot {
    Callback fn;
    std::string_view label;
    std::uint64_t seq = 0;
  };

  /// A free slot for the event `seq` (label and seq stored, callable empty).
  /// Contract: `seq` was handed out.
  std::uint32_t take_slot(std::uint64_t seq, std::string_view label);
  /// Puts the event of `slot` (filled) into the heap at `when`.
  void enter(base::Tick when, std::uint64_t seq, std::uint32_t slot);
  std::uint64_t tie_of(std::uint64_t seq) const noexcept;
  /// Pop order: time, then tie.
  static bool earlier(const Key& a, const Key& b) noexcept;
  /// Moves `k` (of the event in `slot`) from position i towards the root to its place.
  void sift_up(std::size_t i, Key k, std::uint32_t slot);
  /// Of the children first.. of a node (heap size n), the earliest. Contract: first < n.
  [[nodiscard]] std::size_t earliest_child(std::size_t first, std::size_t n) const noexcept;
  /// Places `k` (of the event in `slot`) at the root's position and moves it down to its place.
  void sift_down(Key k, std::uint32_t slot);
  /// CPU cache hints (no effect on the order): start loading slot `slot`, or the slot the
  /// next push takes.
  void prefetch_slot(std::uint32_t slot) const noexcept;
  void prefetch_free_slot() const noexcept;

  std::uint64_t seed_;
  std::uint64_t next_seq_ = 0;
  std::vector<Key, HugePageAllocator<Key, 64>> keys_;                     // kPad unused first
  std::vector<std::uint32_t, HugePageAllocator<std::uint32_t>> slot_at_;  // beside keys_
  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  std::vector<std::uint32_t> free_;
};

}  // namespace sbrdma::sim
