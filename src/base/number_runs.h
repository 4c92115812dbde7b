#pragma once
/// Sorted distinct numbers as runs of consecutive ones: {1, 3, 5, 6, 7} -> [1,1] [3,3] [5,7],
/// and the text a report names them by: engines "1, 3, 5-7", partitions "0-3 and 8-11", words
/// "2-3, 5-6 and 8".

#include <fmt/format.h>

#include <cstddef>
#include <string>
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

/// "7" or "4-10": one run of consecutive_runs().
template <typename Int>
[[nodiscard]] std::string run_text(const std::pair<Int, Int>& run) {
  return run.first == run.second ? fmt::format("{}", run.first)
                                 : fmt::format("{}-{}", run.first, run.second);
}

/// "a", "a and b", "a, b and c".
[[nodiscard]] inline std::string listed(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace sbrdma::base
