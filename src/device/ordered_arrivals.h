#pragma once
/// OrderedArrivals<T>: things that take effect at a tick (posted MMIO writes, descriptor
/// landings), handed out earliest tick first and, within one tick, in the order they were
/// added — whatever order the kernel runs its same-tick events in.
///
/// Why [CHOICE D31]: the kernel may shuffle same-tick events (`--seed`, sim::EventQueue). Two posted writes
/// of one core issued at the same tick land at the same tick as two events; if each event
/// carried its own write, a shuffle would reorder them and break [CHOICE D26a] ("writes from
/// one core to one target keep their order"). Here the events carry no payload: each one
/// takes whatever is due first.
///
/// Use: per add(at, x), schedule exactly one kernel event at `at` whose action calls take().
/// Events at different ticks run in tick order, so when one runs at tick t every item due
/// before t has been taken and the earliest item left is due at t:
///
///   add(t, A); add(t, B); add(t, C)        events e1 e2 e3 at t, run e3 e1 e2 (shuffled)
///   e3: take() -> A    e1: take() -> B    e2: take() -> C          A, B, C: program order
///
/// Storage: a vector sorted by (tick, add order) with a consumed prefix, so the common case
/// (ticks non-decreasing in add order) appends and takes in O(1), and an empty instance owns
/// no memory.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "base/check.h"
#include "base/units.h"

namespace sbrdma::device {

template <typename T>
class OrderedArrivals {
 public:
  /// Adds `item`, due at `at`, after every item already due at `at` or earlier.
  void add(base::Tick at, T item) {
    if (head_ == items_.size() || items_.back().at <= at) {
      items_.push_back(Entry{at, std::move(item)});
      return;
    }
    const auto pos =
        std::upper_bound(items_.begin() + static_cast<std::ptrdiff_t>(head_), items_.end(), at,
                         [](base::Tick t, const Entry& e) { return t < e.at; });
    items_.insert(pos, Entry{at, std::move(item)});
  }

  /// True if nothing is pending.
  [[nodiscard]] bool empty() const noexcept { return head_ == items_.size(); }
  /// Items pending.
  [[nodiscard]] std::size_t size() const noexcept { return items_.size() - head_; }

  /// The tick the next take() returns an item for. Contract: !empty().
  [[nodiscard]] base::Tick earliest() const {
    SBRDMA_CHECK(!empty());
    return items_[head_].at;
  }

  /// Removes and returns the item due first (earliest tick, then add order).
  /// Contract: !empty().
  T take() {
    SBRDMA_CHECK(!empty());
    T out = std::move(items_[head_].item);
    ++head_;
    if (head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= kCompactAfter && 2 * head_ >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return out;
  }

 private:
  /// Consumed entries kept before the prefix is dropped (amortises the erase).
  static constexpr std::size_t kCompactAfter = 64;

  struct Entry {
    base::Tick at;
    T item;
  };
  std::vector<Entry> items_;
  std::size_t head_ = 0;  // items_[0, head_) are taken
};

}  // namespace sbrdma::device
