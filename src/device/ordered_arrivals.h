#pragma once
/// OrderedArrivals<T>: things that take effect at a tick (posted MMIO writes, descriptor
/// landings), handed out earliest tick first and, within one tick, in the order they were
/// added — whatever order the kernel runs its same-tick events in.
///
/// Why [CHOICE D31]: the kernel may shuffle same-tick events (`--seed`, sim::EventQueue). Two
/// posted writes of one core issued at the same tick land at the same tick as two events; if each
/// event carried its own write, a shuffle would reorder them and break [CHOICE D26a] ("writes from
/// one core to one target keep their order"). Here the events carry no payload: each one takes
/// whatever is due first.
///
/// Use: per add(at, x), schedule exactly one kernel event at `at` whose action calls take().
/// Events at different ticks run in tick order, so when one runs at tick t every item due
/// before t has been taken and the earliest item left is due at t:
///
///   add(t, A); add(t, B); add(t, C)        events e1 e2 e3 at t, run e3 e1 e2 (shuffled)
///   e3: take() -> A    e1: take() -> B    e2: take() -> C          A, B, C: program order
///
/// ChainedArrivals<T> (below) is the same hand-out with one pending kernel event per instance
/// instead of one per item; the machine's landings and posted writes use it.
///
/// Storage: a vector sorted by (tick, add order) with a consumed prefix, so the common case
/// (ticks non-decreasing in add order) appends and takes in O(1), and an empty instance owns
/// no memory.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "base/check.h"
#include "base/taken_prefix.h"
#include "base/units.h"

namespace sbrdma::device {

template <typename T>
class OrderedArrivals {
 public:
  /// Adds `item`, due at `at`, after every item already due at `at` or earlier.
  void add(base::Tick at, T item) { emplace(at) = std::move(item); }

  /// add(at, T{}), returning the new item for the caller to fill in place (a large item then
  /// costs no copy). The reference holds until the next add or take.
  T& emplace(base::Tick at) {
    if (empty() || latest_ <= at) {
      if (empty()) earliest_ = at;
      latest_ = at;
      Entry& e = items_.emplace_back();
      e.at = at;
      return e.item;
    }
    const auto pos =
        std::upper_bound(items_.begin() + static_cast<std::ptrdiff_t>(head_), items_.end(), at,
                         [](base::Tick t, const Entry& e) { return t < e.at; });
    const auto it = items_.insert(pos, Entry{at, T{}});
    if (at < earliest_) earliest_ = at;  // it went in first
    return it->item;
  }

  /// True if nothing is pending.
  [[nodiscard]] bool empty() const noexcept { return head_ == items_.size(); }
  /// Items pending.
  [[nodiscard]] std::size_t size() const noexcept { return items_.size() - head_; }

  /// The tick the next take() returns an item for. Contract: !empty().
  [[nodiscard]] base::Tick earliest() const {
    SBRDMA_CHECK(!empty());
    return earliest_;
  }

  /// The item the next take() returns. Contract: !empty().
  [[nodiscard]] T& front() {
    SBRDMA_CHECK(!empty());
    return items_[head_].item;
  }

  /// Where the item the next take() returns is stored now (for a cache hint: the address
  /// changes as items come and go). Contract: !empty().
  [[nodiscard]] const void* front_address() const noexcept { return &items_[head_]; }

  /// Where an add() after every pending item stores it while the buffer has room (a cache
  /// hint for the writer: the address changes as items come and go).
  [[nodiscard]] const void* next_slot_address() const noexcept {
    return items_.data() + items_.size();
  }

  /// Removes and returns the item due first (earliest tick, then add order).
  /// Contract: !empty().
  T take() {
    SBRDMA_CHECK(!empty());
    T out = std::move(items_[head_].item);
    ++head_;
    base::settle_taken_prefix(items_, head_);
    if (!empty()) earliest_ = items_[head_].at;
    return out;
  }

 private:
  struct Entry {
    base::Tick at;
    T item;
  };
  std::vector<Entry> items_;
  std::size_t head_ = 0;  // items_[0, head_) are taken
  // The first and last pending items' ticks (valid while !empty()), kept here so that an add()
  // in tick order reads no entry: the entries were written long ago and are rarely cached.
  base::Tick earliest_;
  base::Tick latest_;
};

/// ChainedArrivals<T>: OrderedArrivals whose items each own a kernel sequence number reserved
/// when they were added (sim::Kernel::reserve_seq), with only the earliest item's event in the
/// kernel's queue at a time. When that event runs, the caller takes the item and schedules the
/// next one's event at its own (tick, seq), so a queue of thousands of items in flight costs the
/// kernel's heap one entry, and events run exactly as if every item had its own.
///
///   add(t1, s1, A) -> Due{t1, s1}   schedule_at(t1, s1)          heap: A
///   add(t2, s2, B) -> nothing       (t2 >= t1: A's event comes first)
///   add(t0, s3, C) -> Due{t0, s3}   (t0 < t1: C is first now)    heap: C, A
///   event(t0, s3): take(s3) -> C; next_due() -> nothing (A has its event)
///   event(t1, s1): take(s1) -> A; next_due() -> Due{t2, s2}      heap: B
///
/// Why the order is today's: an item's key (tick, seq) is larger than the earliest item's, whose
/// event is in the heap, so an item waiting outside the heap could never have been popped
/// before it. With a tie seed the same holds across ticks; within a tick the events still take
/// the items in add order (the D31 guarantee), as at most one item per tick has its event
/// pending at a time (a later add at the same tick never becomes the earliest).
template <typename T>
class ChainedArrivals {
 public:
  /// An event to schedule: at `at`, under the reserved sequence number `seq`.
  struct Due {
    base::Tick at;
    std::uint64_t seq = 0;
  };

  /// Adds `item`, due at `at`, whose event will run under sequence number `seq`. Returns the
  /// event to schedule if the item is now the earliest (it is then marked scheduled).
  /// Contract: `seq` is larger than every seq added before.
  [[nodiscard]] std::optional<Due> add(base::Tick at, std::uint64_t seq, T item) {
    const Emplaced e = emplace(at, seq);
    *e.item = std::move(item);
    return e.due;
  }

  /// What emplace() returns: the new item, default-constructed, for the caller to fill before
  /// anything else uses this instance, and the event to schedule as add() would return it.
  struct Emplaced {
    T* item;
    std::optional<Due> due;
  };
  /// add(at, seq, T{}) with the item built in place by the caller (a large item then costs no
  /// copy). Contract: as add().
  [[nodiscard]] Emplaced emplace(base::Tick at, std::uint64_t seq) {
    const bool first = items_.empty() || at < items_.earliest();
    Keyed& k = items_.emplace(at);
    k.seq = seq;
    k.scheduled = first;
    if (!first) return Emplaced{&k.item, std::nullopt};
    return Emplaced{&k.item, Due{at, seq}};
  }

  /// True if nothing is pending.
  [[nodiscard]] bool empty() const noexcept { return items_.empty(); }
  /// Items pending.
  [[nodiscard]] std::size_t size() const noexcept { return items_.size(); }
  /// The tick the next take() returns an item for. Contract: !empty().
  [[nodiscard]] base::Tick earliest() const { return items_.earliest(); }

  /// Removes and returns the item due first, whose event (`seq`, from the Due) runs now.
  /// Contract: !empty() and that item's seq is `seq`.
  T take(std::uint64_t seq) {
    SBRDMA_CHECK_MSG(!empty() && items_.front().seq == seq, "an event took another's item");
    return std::move(items_.take().item);
  }

  /// The item the next take() returns. Contract: !empty().
  [[nodiscard]] const T& front() { return items_.front().item; }

  /// Where the earliest item is stored now (a cache hint). Contract: !empty().
  [[nodiscard]] const void* front_address() const noexcept { return items_.front_address(); }
  /// Where the next add() in tick order stores its item (a cache hint).
  [[nodiscard]] const void* next_slot_address() const noexcept {
    return items_.next_slot_address();
  }

  /// The event to schedule for the earliest item if it has none yet (it is then marked
  /// scheduled); call after each take().
  [[nodiscard]] std::optional<Due> next_due() {
    if (items_.empty()) return std::nullopt;
    Keyed& k = items_.front();
    if (k.scheduled) return std::nullopt;
    k.scheduled = true;
    return Due{items_.earliest(), k.seq};
  }

 private:
  struct Keyed {
    std::uint64_t seq = 0;
    bool scheduled = false;  ///< its event is in the kernel's queue
    T item;
  };
  OrderedArrivals<Keyed> items_;
};

}  // namespace sbrdma::device
