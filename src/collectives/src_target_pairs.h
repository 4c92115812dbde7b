#pragma once
/// Who sends to whom in the point-to-point ops, by position in a group (0..ranks-1): send/recv's
/// pairs, permute's ring, and permute's custom source-target pairs (nccom-test's
/// `--custom-src-target-pairs`). The lowering and the reference both read it. [CHOICE D30e, D30j]
///
///   pairs {{0,1}, {1,0}, {2,2}}   position 0 -> 1, 1 -> 0, 2 keeps its own buffer
///   p2p_dest(kPermute, 3, pairs)  == {1, 0, 2}

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "collectives/communicator.h"
#include "collectives/types.h"

namespace sbrdma::collectives {

/// One pair of a custom permute: the rank at position `src` of its group sends its buffer to
/// the rank at position `target` of the same group.
struct SrcTarget {
  unsigned src = 0;
  unsigned target = 0;
  bool operator==(const SrcTarget&) const = default;
};

/// A permute's pairs, one list per replica group in group order; none: the ring.
using SrcTargetPairs = std::vector<std::vector<SrcTarget>>;

/// The pairs of group `group`, or none when `pairs` is empty (the ring).
std::span<const SrcTarget> pairs_of(const SrcTargetPairs& pairs, std::size_t group);

/// The position each position of a group of `ranks` sends to under `op` (send/recv or permute):
/// send/recv pairs 2k and 2k+1 (an odd last position sends to itself); permute sends along
/// `pairs`, or to position + 1 mod ranks when there are none. Contract: `pairs` is empty or
/// passes find_pairs_problem.
std::vector<unsigned> p2p_dest(Op op, unsigned ranks, std::span<const SrcTarget> pairs = {});

/// The first problem of `lists` (one list of pairs per group, groups of `ranks`), and where:
/// {k} for list k, {k, i} for its pair i, {k, i, 0} / {k, i, 1} for that pair's source /
/// target. A list must be a permutation: every position once a source and once a target.
struct PairsProblem {
  std::vector<std::size_t> where;
  std::string message;
};
std::optional<PairsProblem> find_pairs_problem(std::span<const std::vector<SrcTarget>> lists,
                                               unsigned ranks);

/// Checks a request's `pairs` on `c`: none, or `op` is permute, one list per group and each
/// a permutation (find_pairs_problem's message).
base::Status check_src_target_pairs(const Communicator& c, Op op, const SrcTargetPairs& pairs);

}  // namespace sbrdma::collectives
