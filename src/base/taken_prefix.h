#pragma once
/// A FIFO on a std::vector keeps the index `head` of its first live entry; entries before it
/// are taken. settle_taken_prefix() gives that prefix back: all of it when nothing is left
/// (keeping the buffer for what comes next), else in one erase once it is both long and at
/// least half the vector, so that each entry is moved O(1) times on average.
///
///   v:  | taken ... taken | live ... live |        head = first live
///       0                 head            v.size()

#include <cstddef>
#include <iterator>

namespace sbrdma::base {

/// Taken entries kept before the prefix is erased (a FIFO that never drains).
inline constexpr std::size_t kCompactTakenAfter = 64;

/// Drops `v`'s taken prefix [0, head) when it is due (see the top of this file); `head` is
/// updated. Contract: head <= v.size().
template <typename Vector>
void settle_taken_prefix(Vector& v, std::size_t& head) {
  if (head == v.size()) {
    v.clear();
    head = 0;
  } else if (head >= kCompactTakenAfter && 2 * head >= v.size()) {
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(head));
    head = 0;
  }
}

}  // namespace sbrdma::base
