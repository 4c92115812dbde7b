#pragma once
/// `--custom-src-target-pairs FILE.json`: permute's source-target pairs, nccom-test's format
/// ([CHOICE D30j]): one list of pairs [s, t] per replica group, positions in the group (rank
/// at position s sends its buffer to position t), or a single list that every group uses:
///   {"src_target_pairs": [[[0, 1], [1, 0], [2, 3], [3, 2], [4, 4], [5, 5], [6, 6], [7, 7]]]}
/// The bare list `[[[0, 1], ...]]` is read the same way, as replica groups read theirs.

#include <cstddef>
#include <string>
#include <string_view>

#include "base/result.h"
#include "collectives/src_target_pairs.h"

namespace sbrdma::platform {

/// Parses the text of a pairs file for `groups` replica groups of `ranks` ranks each and
/// returns one list per group (a single list repeated). Errors carry `file` (and a line for
/// malformed JSON) and name the offending list, pair or position by its JSON path
/// (`/src_target_pairs/0/3/1: group 0: position 9 is not in the group (positions 0..7)`);
/// the shape of the whole file is checked before the pairs are.
base::Result<collectives::SrcTargetPairs> parse_src_target_pairs(std::string_view text,
                                                                 const std::string& file,
                                                                 std::size_t groups,
                                                                 unsigned ranks);

/// Reads the file at `path` and parses it as above.
base::Result<collectives::SrcTargetPairs> load_src_target_pairs(const std::string& path,
                                                                std::size_t groups, unsigned ranks);

}  // namespace sbrdma::platform
