#include "base/nearest_name.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace sbrdma::base {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: d[i][j] = edits from a[0, i) to b[0, j).
  std::vector<std::size_t> before(b.size() + 1);
  std::vector<std::size_t> prev(b.size() + 1);
  std::vector<std::size_t> cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t replace = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, replace});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);  // two adjacent characters swapped
      }
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string_view> nearest_name(std::string_view typed,
                                             std::span<const std::string_view> known) {
  if (typed.empty()) return std::nullopt;
  const std::size_t limit = std::max<std::size_t>(2, typed.size() / 3);
  std::optional<std::string_view> best;
  std::size_t best_d = limit + 1;
  bool tie = false;
  // Case does not count: RDMA_DESC_GEN means rdma_desc_gen.
  const auto lower = [](std::string_view v) {
    std::string out(v);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string t = lower(typed);
  for (const std::string_view name : known) {
    const std::size_t d = edit_distance(t, lower(name));
    if (d < best_d) {
      best = name;
      best_d = d;
      tie = false;
    } else if (d == best_d && best && name != *best) {
      tie = true;
    }
  }
  if (tie) return std::nullopt;
  return best;
}

}  // namespace sbrdma::base
