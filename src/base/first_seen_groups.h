#pragma once
/// Groups the indices 0..n-1 by a key, the groups in the order their keys first appear and
/// each group's indices ascending:
///
///   keys  [c2, c0, c2, c1, c0]   ->   [[0, 2], [1, 4], [3]]
///
/// A linear search over the keys seen so far: for the few distinct keys its callers have
/// (the chips of a group, the layouts of a communicator's groups).

#include <algorithm>
#include <cstddef>
#include <vector>

namespace sbrdma::base {

/// See the top of this file. `key_of(i)` gives index i's key, compared with ==.
template <typename KeyOf>
std::vector<std::vector<std::size_t>> first_seen_groups(std::size_t n, KeyOf key_of) {
  using Key = decltype(key_of(std::size_t{0}));
  std::vector<Key> keys;
  std::vector<std::vector<std::size_t>> out;
  for (std::size_t i = 0; i < n; ++i) {
    const Key k = key_of(i);
    auto it = std::find(keys.begin(), keys.end(), k);
    if (it == keys.end()) {
      keys.push_back(k);
      out.emplace_back();
      it = keys.end() - 1;
    }
    out[static_cast<std::size_t>(it - keys.begin())].push_back(i);
  }
  return out;
}

}  // namespace sbrdma::base
