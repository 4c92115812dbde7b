#include "collectives/src_target_pairs.h"

#include <fmt/format.h>

#include "base/check.h"

namespace sbrdma::collectives {

std::span<const SrcTarget> pairs_of(const SrcTargetPairs& pairs, std::size_t group) {
  if (pairs.empty()) return {};
  SBRDMA_CHECK(group < pairs.size());
  return pairs[group];
}

std::vector<unsigned> p2p_dest(Op op, unsigned ranks, std::span<const SrcTarget> pairs) {
  std::vector<unsigned> dest(ranks);
  for (unsigned i = 0; i < ranks; ++i) {
    if (op == Op::kSendRecv) {  // pairs (2k, 2k+1); an odd last position sends to itself
      dest[i] = (i ^ 1U) < ranks ? (i ^ 1U) : i;
    } else {
      SBRDMA_CHECK(op == Op::kPermute);
      dest[i] = (i + 1) % ranks;  // the ring, unless the pairs say otherwise [CHOICE D30e]
    }
  }
  if (op == Op::kPermute && !pairs.empty()) {
    SBRDMA_CHECK(pairs.size() == ranks);
    for (const SrcTarget& p : pairs) dest[p.src] = p.target;  // [CHOICE D30j]
  }
  return dest;
}

std::optional<PairsProblem> find_pairs_problem(std::span<const std::vector<SrcTarget>> lists,
                                               unsigned ranks) {
  constexpr std::size_t kNone = ~std::size_t{0};
  for (std::size_t k = 0; k < lists.size(); ++k) {
    // The pair each position is the source / target of so far.
    std::vector<std::size_t> sends(ranks, kNone);
    std::vector<std::size_t> receives(ranks, kNone);
    for (std::size_t i = 0; i < lists[k].size(); ++i) {
      const SrcTarget& p = lists[k][i];
      for (std::size_t end = 0; end < 2; ++end) {
        const unsigned pos = end == 0 ? p.src : p.target;
        if (pos >= ranks) {
          return PairsProblem{{k, i, end},
                              fmt::format("group {}: position {} is not in the group "
                                          "(positions 0..{})",
                                          k, pos, ranks - 1)};
        }
        std::size_t& seen = (end == 0 ? sends : receives)[pos];
        if (seen != kNone) {
          return PairsProblem{{k, i, end},
                              fmt::format("group {}: position {} is the {} of pairs "
                                          "{} and {}",
                                          k, pos, end == 0 ? "source" : "target", seen, i)};
        }
        seen = i;
      }
    }
    for (unsigned pos = 0; pos < ranks; ++pos) {
      if (sends[pos] == kNone || receives[pos] == kNone) {
        return PairsProblem{{k},
                            fmt::format("group {}: position {} is no pair's {} (the pairs must be "
                                        "a permutation: each position the source of one and "
                                        "the target of one)",
                                        k, pos, sends[pos] == kNone ? "source" : "target")};
      }
    }
  }
  return std::nullopt;
}

base::Status check_src_target_pairs(const Communicator& c, Op op, const SrcTargetPairs& pairs) {
  if (pairs.empty()) return base::ok_status();
  if (op != Op::kPermute) {
    return base::make_error(
        fmt::format("source-target pairs apply to permute only, not {}", op_long_name(op)));
  }
  if (pairs.size() != c.groups.size()) {
    return base::make_error(
        fmt::format("{} list{} of source-target pairs for {} replica group{} (one list per group)",
                    pairs.size(), pairs.size() == 1 ? "" : "s", c.groups.size(),
                    c.groups.size() == 1 ? "" : "s"));
  }
  if (auto problem = find_pairs_problem(pairs, c.ranks())) {
    return base::make_error(std::move(problem->message));
  }
  return base::ok_status();
}

}  // namespace sbrdma::collectives
