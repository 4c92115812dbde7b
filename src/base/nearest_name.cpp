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

namespace {

/// The words of a name: its parts between '_' and '.'.
std::vector<std::string_view> words_of(std::string_view name) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    if (i == name.size() || name[i] == '_' || name[i] == '.') {
      if (i > from) out.push_back(name.substr(from, i - from));
      from = i + 1;
    }
  }
  return out;
}

/// True if every word of `typed` is a word of `name` or a slip for one (at most max(1, n / 2)
/// edits): so remote_core may mean remote_core_id, but remote_tpb does not mean remote_sem.
bool same_words(std::string_view typed, std::string_view name) {
  const std::vector<std::string_view> theirs = words_of(name);
  for (const std::string_view w : words_of(typed)) {
    const std::size_t limit = std::max<std::size_t>(1, w.size() / 2);
    if (std::none_of(theirs.begin(), theirs.end(),
                     [&](std::string_view t) { return edit_distance(w, t) <= limit; })) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string_view> nearest_name(std::string_view typed,
                                             std::span<const std::string_view> known) {
  // Past kMaxTyped characters a token is no slip for a name (and its distances would cost
  // time for nothing).
  constexpr std::size_t kMaxTyped = 64;
  if (typed.empty() || typed.size() > kMaxTyped) return std::nullopt;
  // A few edits, never all of the name: "ab" is no slip for "cd".
  const std::size_t limit = std::min(std::max<std::size_t>(2, typed.size() / 3), typed.size() - 1);
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
    // The distance is at least the difference in length.
    if (name.size() > t.size() + limit || t.size() > name.size() + limit) continue;
    const std::string n = lower(name);
    const std::size_t d = edit_distance(t, n);
    if (d > limit || !same_words(t, n)) continue;
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
