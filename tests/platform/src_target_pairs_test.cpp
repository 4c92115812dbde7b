// `--custom-src-target-pairs FILE.json` (D30j): nccom-test's file and the bare list read the
// same; every refusal names the offending JSON path; a bench permute runs along the pairs.
#include "platform/src_target_pairs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "platform/bench.h"
#include "platform/topology_json.h"

namespace sbrdma::platform {
namespace {

using collectives::SrcTarget;
using collectives::SrcTargetPairs;
using Pairs = std::vector<SrcTarget>;

/// The error of `text` read for `groups` groups of `ranks`, or "ok".
std::string pairs_error(const std::string& text, std::size_t groups = 1, unsigned ranks = 8) {
  auto p = parse_src_target_pairs(text, "p.json", groups, ranks);
  return p.ok() ? "ok" : p.error().format();
}

// nccom-test's documented example (tools/neuron-sys-tools/nccom-test.rst), verbatim.
constexpr const char* kDocumented =
    R"({ "src_target_pairs": [ [ [0, 1], [1, 0], [2, 3], [3, 2], [4, 4], [5, 5], [6, 6], [7, 7] ] ] })";

TEST(SrcTargetPairsFile, TheDocumentedFileAndTheBareListReadTheSame) {
  const Pairs want{{0, 1}, {1, 0}, {2, 3}, {3, 2}, {4, 4}, {5, 5}, {6, 6}, {7, 7}};
  auto doc = parse_src_target_pairs(kDocumented, "p.json", 1, 8);
  ASSERT_TRUE(doc.ok()) << doc.error().format();
  EXPECT_EQ(*doc, SrcTargetPairs{want});
  auto bare = parse_src_target_pairs(
      "[[[0, 1], [1, 0], [2, 3], [3, 2], [4, 4], [5, 5], [6, 6], [7, 7]]]", "p.json", 1, 8);
  ASSERT_TRUE(bare.ok()) << bare.error().format();
  EXPECT_EQ(*bare, *doc);
}

TEST(SrcTargetPairsFile, OneListPerGroupOrOneForEvery) {
  auto each = parse_src_target_pairs("[[[0, 1], [1, 0]], [[1, 1], [0, 0]]]", "p.json", 2, 2);
  ASSERT_TRUE(each.ok()) << each.error().format();
  EXPECT_EQ(*each, (SrcTargetPairs{Pairs{{0, 1}, {1, 0}}, Pairs{{1, 1}, {0, 0}}}));
  auto one = parse_src_target_pairs("[[[0, 1], [1, 0]]]", "p.json", 3, 2);
  ASSERT_TRUE(one.ok()) << one.error().format();
  EXPECT_EQ(*one, SrcTargetPairs(3, Pairs{{0, 1}, {1, 0}}));
  EXPECT_EQ(pairs_error("[[[0, 0]], [[0, 0]], [[0, 0]]]", 2, 1),
            "p.json: error: /: 3 pair lists for 2 replica groups: give one list per group, or "
            "one for every group");
  EXPECT_EQ(pairs_error(R"({"src_target_pairs": [[[0, 0]], [[0, 0]]]})", 1, 1),
            "p.json: error: /src_target_pairs: 2 pair lists for 1 replica group: give one list "
            "per group, or one for every group");
}

TEST(SrcTargetPairsFile, PairsThatAreNoPermutationAreRefusedAtTheirPath) {
  EXPECT_EQ(pairs_error(R"({"src_target_pairs": [[[0, 1], [1, 2], [2, 0], [3, 9]]]})", 1, 4),
            "p.json: error: /src_target_pairs/0/3/1: group 0: position 9 is not in the group "
            "(positions 0..3)");
  EXPECT_EQ(pairs_error("[[[0, 1], [1, 0], [2, 1], [3, 3]]]", 1, 4),
            "p.json: error: /0/2/1: group 0: position 1 is the target of pairs 0 and 2");
  EXPECT_EQ(pairs_error("[[[0, 1], [1, 0], [0, 2], [3, 3]]]", 1, 4),
            "p.json: error: /0/2/0: group 0: position 0 is the source of pairs 0 and 2");
  EXPECT_EQ(pairs_error("[[[0, 1], [1, 0], [3, 3]]]", 1, 4),
            "p.json: error: /0: group 0: position 2 is no pair's source (the pairs must be a "
            "permutation: each position the source of one and the target of one)");
  // The second group's list is checked as the second group's.
  EXPECT_EQ(pairs_error("[[[0, 1], [1, 0]], [[0, 1], [1, 1]]]", 2, 2),
            "p.json: error: /1/1/1: group 1: position 1 is the target of pairs 0 and 1");
}

TEST(SrcTargetPairsFile, TheShapeIsCheckedFirstAndNamedByItsPath) {
  EXPECT_EQ(pairs_error("[[[0, 1, 2]]]"),
            "p.json: error: /0/0: expected a pair [source, target] of positions in the group");
  // Pairs in the outer list itself, one level short: told as such.
  EXPECT_EQ(pairs_error("[[0, 1], [1, 0]]"),
            "p.json: error: /0: expected a list of pairs [source, target], got a pair: the outer "
            "list holds one list of pairs per replica group (one group: [[[0,1],[1,0]]])");
  EXPECT_EQ(pairs_error("[[0, [1, 0]]]"),
            "p.json: error: /0/0: expected a pair [source, target] of positions in the group");
  EXPECT_EQ(pairs_error("[[[0, -1]]]"),
            "p.json: error: /0/0/1: expected a position in the group (0 or more), got -1");
  // What stands there is quoted, cut short when long.
  EXPECT_EQ(pairs_error("[[[0, 1.0]]]"),
            "p.json: error: /0/0/1: expected a position in the group (0 or more), got 1.0, written "
            "with a fraction or an exponent");
  EXPECT_EQ(pairs_error(R"([[[0, "a string much longer than forty characters"]]])"),
            "p.json: error: /0/0/1: expected a position in the group (0 or more), got "
            "\"a string much longer than forty char...");
  EXPECT_EQ(pairs_error(R"([[[0, {"name": 1}]]])"),
            "p.json: error: /0/0/1: expected a position in the group (0 or more), got an object");
  EXPECT_EQ(pairs_error("[[[0, 4294967297]]]"),
            "p.json: error: /0/0/1: position 4294967297 is too large");
  EXPECT_EQ(pairs_error(R"({"src_target_pairs": [7]})"),
            "p.json: error: /src_target_pairs/0: expected a list of pairs [source, target]");
  EXPECT_EQ(pairs_error("[]"), "p.json: error: /: expected a non-empty list of pair lists");
  // An empty list of pairs is no pair: its group's positions are no pair's sources.
  EXPECT_EQ(pairs_error("[[]]", 1, 2),
            "p.json: error: /0: group 0: position 0 is no pair's source (the pairs must be a "
            "permutation: each position the source of one and the target of one)");
  EXPECT_EQ(
      pairs_error(R"({"pairs": []})"),
      R"(p.json: error: /: expected a list of pair lists or an object with "src_target_pairs")");
  EXPECT_EQ(pairs_error(R"({"src_target_pairs": [[[0, 0]]], "ranks": 1})", 1, 1),
            "p.json: error: /ranks: unknown field");
  // A later list's shape comes before an earlier list's positions.
  EXPECT_EQ(pairs_error(R"([[[0, 9]], [[0, "1"]]])", 2, 2),
            "p.json: error: /1/0/1: expected a position in the group (0 or more), got \"1\"");
}

TEST(SrcTargetPairsFile, ARepeatedKeyAndMalformedJsonAreRefused) {
  EXPECT_EQ(
      pairs_error(R"({"src_target_pairs": [[[0, 0]]], "src_target_pairs": [[[0, 0]]]})", 1, 1),
      R"(p.json: error: /src_target_pairs: duplicate key "src_target_pairs")");
  const std::string bad = pairs_error("{\"src_target_pairs\": [[[0, 1],\n  [1 0]]]}");
  EXPECT_TRUE(bad.starts_with("p.json:2: error: malformed JSON: ")) << bad;
}

TEST(SrcTargetPairsFile, ABenchPermuteRunsAlongThePairs) {
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  BenchOptions o;
  o.op = collectives::Op::kPermute;
  o.ranks = 8;
  o.sizes = {1000};
  o.algorithms = {collectives::Algorithm::kAuto};
  o.iterations = 2;
  o.check = collectives::DataFill::kRandom;
  o.keep_programs = true;
  auto pairs = parse_src_target_pairs(kDocumented, "p.json", 1, 8);
  ASSERT_TRUE(pairs.ok());
  o.pairs = *pairs;
  auto r = run_bench(o, *topo);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->rows.size(), 1U);
  EXPECT_EQ(r->rows[0].wrong, 0U);
  // Rank 1 sends to rank 0 (the ring would send to rank 2), rank 5 to itself.
  const auto sends_to = [&](collectives::CoreId core, const std::string& note) {
    for (const collectives::CoreProgram& p : r->programs) {
      if (p.core == core) return std::find(p.notes.begin(), p.notes.end(), note) != p.notes.end();
    }
    return false;
  };
  EXPECT_TRUE(sends_to(1, "p2p: to position 0"));
  EXPECT_TRUE(sends_to(5, "p2p: to position 5"));
  EXPECT_FALSE(sends_to(1, "p2p: to position 2"));
  // Two groups of 4, one list for both: a 3-cycle and a fixed point in each.
  o.groups = collectives::Communicator{{{0, 2, 4, 6}, {1, 3, 5, 7}}};
  o.ranks = 4;
  pairs = parse_src_target_pairs("[[[0, 2], [2, 3], [3, 0], [1, 1]]]", "p.json", 2, 4);
  ASSERT_TRUE(pairs.ok());
  o.pairs = *pairs;
  r = run_bench(o, *topo);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->rows[0].wrong, 0U);
  EXPECT_TRUE(sends_to(7, "p2p: to position 0"));  // position 3 of group 1
}

}  // namespace
}  // namespace sbrdma::platform
