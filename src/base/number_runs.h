#pragma once
/// Sorted distinct numbers as runs of consecutive ones: {1, 3, 5, 6, 7} -> [1,1] [3,3] [5,7].
/// What a report names engines or partitions by ("1, 3, 5-7").

#include <cstddef>
#include <utility>
#include <vector>

namespace sbrdma::base {

/// The runs of `sorted` (ascending, distinct), each [first, last], in order.
template <typename Int>
[[nodiscard]] std::vector<std::pair<Int, Int>> consecutive_runs(const std::vector<Int>& sorted) {
  std::vector<std::pair<Int, Int>> runs;
  for (const Int n : sorted) {
    if (!runs.empty() && runs.back().second + 1 == n) {
      runs.back().second = n;
    } else {
      runs.emplace_back(n, n);
    }
  }
  return runs;
}

}  // namespace sbrdma::base
