// Who sends to whom in send/recv and permute, and the checks on permute's custom pairs
// ([CHOICE D30j]). Their data is checked in correctness_test.cpp and reference_test.cpp.
#include "collectives/src_target_pairs.h"

#include <gtest/gtest.h>

#include "collectives/harness.h"
#include "collectives/lower.h"

namespace sbrdma::collectives {
namespace {

using testing::small_geometry;
using Pairs = std::vector<SrcTarget>;

/// find_pairs_problem's answer for one list on `ranks` positions: "where: message" or "ok".
std::string problem(const std::vector<SrcTarget>& list, unsigned ranks) {
  const std::vector<std::vector<SrcTarget>> lists{list};
  auto p = find_pairs_problem(lists, ranks);
  if (!p) return "ok";
  std::string where;
  for (std::size_t i : p->where) where += "/" + std::to_string(i);
  return where + ": " + p->message;
}

TEST(SrcTargetPairs, DestinationsOfSendRecvRingAndPairs) {
  EXPECT_EQ(p2p_dest(Op::kSendRecv, 3), (std::vector<unsigned>{1, 0, 2}));
  EXPECT_EQ(p2p_dest(Op::kPermute, 3), (std::vector<unsigned>{1, 2, 0}));
  EXPECT_EQ(p2p_dest(Op::kPermute, 1), (std::vector<unsigned>{0}));
  // nccom-test's documented example: two swaps and four positions that keep their buffer.
  const auto doc = Pairs{{0, 1}, {1, 0}, {2, 3}, {3, 2}, {4, 4}, {5, 5}, {6, 6}, {7, 7}};
  EXPECT_EQ(p2p_dest(Op::kPermute, 8, doc), (std::vector<unsigned>{1, 0, 3, 2, 4, 5, 6, 7}));
  // In any order.
  EXPECT_EQ(p2p_dest(Op::kPermute, 4, Pairs{{3, 0}, {0, 2}, {2, 3}, {1, 1}}),
            (std::vector<unsigned>{2, 1, 3, 0}));
}

TEST(SrcTargetPairs, APermutationIsRequiredAndProblemsNameTheirPlace) {
  EXPECT_EQ(problem(Pairs{{0, 1}, {1, 2}, {2, 0}}, 3), "ok");
  EXPECT_EQ(problem(Pairs{{0, 0}}, 1), "ok");
  EXPECT_EQ(problem(Pairs{{0, 1}, {1, 3}, {2, 0}}, 3),
            "/0/1/1: group 0: position 3 is not in the group (positions 0..2)");
  EXPECT_EQ(problem(Pairs{{5, 1}}, 3),
            "/0/0/0: group 0: position 5 is not in the group (positions 0..2)");
  EXPECT_EQ(problem(Pairs{{0, 1}, {1, 0}, {0, 2}}, 3),
            "/0/2/0: group 0: position 0 is the source of pairs 0 and 2");
  EXPECT_EQ(problem(Pairs{{0, 1}, {1, 0}, {2, 1}}, 3),
            "/0/2/1: group 0: position 1 is the target of pairs 0 and 2");
  EXPECT_EQ(problem(Pairs{{0, 1}, {1, 0}}, 3),
            "/0: group 0: position 2 is no pair's source (the pairs must be a permutation: each "
            "position the source of one and the target of one)");
  EXPECT_EQ(problem({}, 2),
            "/0: group 0: position 0 is no pair's source (the pairs must be a "
            "permutation: each position the source of one and the target of one)");
  // The second list's problem is named as the second list's.
  const std::vector<std::vector<SrcTarget>> two{Pairs{{0, 0}, {1, 1}}, Pairs{{0, 1}, {1, 1}}};
  auto p = find_pairs_problem(two, 2);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->where, (std::vector<std::size_t>{1, 1, 1}));
  EXPECT_EQ(p->message, "group 1: position 1 is the target of pairs 0 and 1");
}

TEST(SrcTargetPairs, AChainIsNoPermutationThoughNoPositionLacksBothEnds) {
  // 0 -> 1 -> 2: every position is a source or a target, none both missing; yet position 0
  // receives nothing and position 2 sends nothing (a lowering given it would stop on its
  // internal check that the pairs number the positions).
  EXPECT_EQ(problem(Pairs{{0, 1}, {1, 2}}, 3),
            "/0: group 0: position 0 is no pair's target (the pairs must be a permutation: each "
            "position the source of one and the target of one)");
  // The first position short of an end is named, not only one short of both (3 here).
  EXPECT_EQ(problem(Pairs{{2, 1}, {1, 0}}, 4),
            "/0: group 0: position 0 is no pair's source (the pairs must be a permutation: each "
            "position the source of one and the target of one)");
}

TEST(SrcTargetPairs, TheLoweringRefusesPairsThatDoNotApply) {
  const Geometry g = small_geometry(1);
  const Communicator two_groups{{{0, 1}, {2, 3}}};
  LowerRequest r;
  r.op = Op::kPermute;
  r.bytes = 64;
  r.pairs = {Pairs{{0, 1}, {1, 0}}};
  EXPECT_EQ(lower(g, two_groups, r).error().message,
            "1 list of source-target pairs for 2 replica groups (one list per group)");
  r.pairs.push_back(Pairs{{0, 1}, {1, 1}});
  EXPECT_EQ(check_request(g, two_groups, r).error().message,
            "group 1: position 1 is the target of pairs 0 and 1");
  r.pairs[1] = Pairs{{0, 0}, {1, 1}};
  EXPECT_TRUE(lower(g, two_groups, r).ok());
  r.op = Op::kSendRecv;
  EXPECT_EQ(lower(g, two_groups, r).error().message,
            "source-target pairs apply to permute only, not send/recv");
}

}  // namespace
}  // namespace sbrdma::collectives
