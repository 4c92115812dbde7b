#include "base/nearest_name.h"

#include <algorithm>
#include <cctype>
#include <set>
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

bool is_consonant(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 && c != 'a' && c != 'e' && c != 'i' &&
         c != 'o' && c != 'u';
}

/// True if word `w` stands for `word`: the word itself; its beginning, three letters or more
/// (lat for latency, sem for semaphore); or, all consonants, its first letter and others of
/// its consonants in order (clk for clock, bw for bandwidth). A word that is itself a word of
/// a known name (in `vocabulary`) stands for nothing else: in, is, op are no abbreviations.
bool stands_for(std::string_view w, std::string_view word,
                const std::set<std::string_view>& vocabulary) {
  if (w == word) return true;
  if (w.size() >= word.size() || vocabulary.contains(w)) return false;
  if (w.size() >= 3 && word.starts_with(w)) return true;
  if (w.size() < 2 || w[0] != word[0]) return false;
  if (!std::all_of(w.begin(), w.end(), is_consonant)) return false;
  std::size_t at = 1;
  for (std::size_t i = 1; i < w.size(); ++i) {  // the first letter matched above
    at = word.find(w[i], at);
    if (at == std::string_view::npos) return false;
    ++at;
  }
  return true;
}

/// True if `typed` (two words or more) is `name` shortened: its words stand, in order, for
/// words of the name, which has others too or longer ones (q7_desc_gen for q7_desc_gen_cost,
/// dma_rate for dma_engine_rate, c2c_lat for c2c_latency).
bool shortened(std::string_view typed, std::string_view name,
               const std::set<std::string_view>& vocabulary) {
  const std::vector<std::string_view> mine = words_of(typed);
  if (mine.size() < 2 || typed.size() >= name.size()) return false;
  const std::vector<std::string_view> theirs = words_of(name);
  std::size_t j = 0;
  for (const std::string_view w : mine) {
    while (j < theirs.size() && !stands_for(w, theirs[j], vocabulary)) ++j;
    if (j == theirs.size()) return false;
    ++j;
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
  if (best) return best;
  // No slip close enough: a name the typed one shortens, if only one.
  std::vector<std::string> names;
  for (const std::string_view name : known) names.push_back(lower(name));
  std::set<std::string_view> vocabulary;
  for (const std::string& n : names) {
    for (const std::string_view w : words_of(n)) vocabulary.insert(w);
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!shortened(t, names[i], vocabulary)) continue;
    if (best && known[i] != *best) return std::nullopt;
    best = known[i];
  }
  return best;
}

}  // namespace sbrdma::base
