#include "collectives/lower.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "collectives/harness.h"
#include "collectives/phases.h"
#include "isa/assembler.h"
#include "isa/views.h"

namespace sbrdma::collectives {
namespace {

using testing::small_geometry;

Communicator first(unsigned ranks, const Geometry& g) {
  return *default_communicator(g, ranks);
}

/// One group of 64 chips' cores (Geometry::of(cayman, 64)): the four of chip 24's second
/// die, 196-199, then the first four of each chip below `chips`. Legs between the two sets
/// cannot be folded and go through relays. [CHOICE D30g]
Communicator relayed_group(CoreId chips) {
  Communicator c;
  c.groups.emplace_back(std::vector<CoreId>{196, 197, 198, 199});
  for (CoreId chip = 0; chip < chips; ++chip) {
    for (CoreId k = 0; k < 4; ++k) c.groups[0].push_back(chip * 8 + k);
  }
  return c;
}

LowerRequest req(Op op, std::uint64_t bytes, Algorithm a = Algorithm::kAuto,
                 DataType dt = DataType::kFp32) {
  LowerRequest r;
  r.op = op;
  r.bytes = bytes;
  r.algorithm = a;
  r.dtype = dt;
  return r;
}

// The ring's order is a snake: chips in order of first appearance, each chip's ranks by tpb,
// every other chip (the second, fourth, ...) reversed, so that the hop from one chip to the
// next leaves and enters on the same end. [CHOICE D30d]
TEST(Lower, RingOrderReversesEveryOtherChipStartingWithTheSecond) {
  const Geometry g = small_geometry(3);
  // Chip 2 appears first, then chip 0, then chip 1.
  EXPECT_EQ(snake_order(g, {17, 3, 9, 0, 16, 8}), (std::vector<CoreId>{16, 17, 3, 0, 8, 9}));
}

TEST(Lower, AutoPicksBySize) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  const Communicator c = first(8, g);
  EXPECT_EQ(*resolve_algorithm(g, c, req(Op::kAllReduce, 999'999)), Algorithm::kMesh);
  EXPECT_EQ(*resolve_algorithm(g, c, req(Op::kAllReduce, 1'000'000)), Algorithm::kRdh);
  EXPECT_EQ(*resolve_algorithm(g, c, req(Op::kAllGather, 8 << 20)), Algorithm::kRdh);
  // 16 MiB: RDH's scratch (half the buffer and more) does not fit next to the buffer.
  EXPECT_EQ(*resolve_algorithm(g, c, req(Op::kAllReduce, 16 << 20)), Algorithm::kRing);
  EXPECT_EQ(*resolve_algorithm(g, first(6, g), req(Op::kAllReduce, 4 << 20)), Algorithm::kRing);
  EXPECT_EQ(*resolve_algorithm(g, c, req(Op::kAllToAll, 4 << 20)), Algorithm::kMesh);
  EXPECT_EQ(*resolve_algorithm(g, c, req(Op::kPermute, 4 << 20)), Algorithm::kRing);
}

TEST(Lower, AutoKeepsRdhUpToAndIncluding56MB) {
  // hw-params CC-INTRA: RDH up to 56 x 10^6 bytes inclusive, ring above. Partitions large
  // enough for RDH's scratch at that size, so the threshold and not the fit decides.
  Geometry g = Geometry::of(soc::cayman_profile(), 1);
  g.partition_bytes = std::uint64_t{1} << 30;
  const Communicator c = first(8, g);
  EXPECT_EQ(*resolve_algorithm(g, c, req(Op::kAllReduce, 56'000'000)), Algorithm::kRdh);
  EXPECT_EQ(*resolve_algorithm(g, c, req(Op::kAllReduce, 56'000'004)), Algorithm::kRing);
}

TEST(Lower, AutoPassesOverAMeshWhoseScratchDoesNotFit) {
  // Small partitions: below 1 MB there are sizes mesh's scratch does not fit next to the
  // buffer; auto gives those the next algorithm (RDH for 8 ranks), not a mesh that fails.
  Geometry g = Geometry::of(soc::cayman_profile(), 1);
  g.partition_bytes = 8 << 10;
  const Communicator c = first(8, g);
  unsigned passed_over = 0;
  for (std::uint64_t bytes = 64 << 10; bytes < 1'000'000; bytes += 64 << 10) {
    if (check_request(g, c, req(Op::kAllReduce, bytes, Algorithm::kMesh))) continue;
    auto a = resolve_algorithm(g, c, req(Op::kAllReduce, bytes));
    ASSERT_TRUE(a.ok()) << bytes;
    EXPECT_NE(*a, Algorithm::kMesh) << bytes;
    if (check_request(g, c, req(Op::kAllReduce, bytes, Algorithm::kRdh))) {
      EXPECT_EQ(*a, Algorithm::kRdh) << bytes;
    }
    ++passed_over;
  }
  EXPECT_GT(passed_over, 0u);
}

TEST(Lower, AutoKeepsMeshInsideOneNode) {
  // [CHOICE D32] 16 chips (one node): mesh below 1 MB; 17 chips or more: RDH (2^k ranks) or ring
  // (an all-reduce's RDH across chips in its two-level form, D46).
  const Geometry g = Geometry::of(soc::cayman_profile(), 64);
  const unsigned per_chip = g.dies_per_chip * g.cores_per_die;
  EXPECT_EQ(*resolve_algorithm(g, first(16 * per_chip, g), req(Op::kAllReduce, 64 << 10)),
            Algorithm::kMesh);
  EXPECT_EQ(*resolve_algorithm(g, first(32 * per_chip, g), req(Op::kAllGather, 64 << 10)),
            Algorithm::kRdh);
  EXPECT_EQ(*resolve_algorithm(g, first(32 * per_chip, g), req(Op::kAllReduce, 64 << 10)),
            Algorithm::kHierarchical);
  EXPECT_EQ(*resolve_algorithm(g, first(17 * per_chip, g), req(Op::kAllGather, 64 << 10)),
            Algorithm::kRing);
  // A group's own span counts, not the machine's: 4 groups of 16 chips each stay on mesh.
  Communicator nodes;
  for (unsigned k = 0; k < 4; ++k) {
    nodes.groups.emplace_back();
    for (unsigned i = 0; i < 16 * per_chip; ++i)
      nodes.groups.back().push_back(k * 16 * per_chip + i);
  }
  EXPECT_EQ(*resolve_algorithm(g, nodes, req(Op::kAllReduce, 64 << 10)), Algorithm::kMesh);
}

TEST(Lower, AutoOnOneRankFollowsTheSizeRule) {
  // Nothing moves on one rank, but --show-algorithm names what auto picks: the same rule as
  // for any group (it said ring at every size until stop 52).
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  for (const Op op : {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter}) {
    EXPECT_EQ(*resolve_algorithm(g, first(1, g), req(op, 1 << 10)), Algorithm::kMesh);
    EXPECT_EQ(*resolve_algorithm(g, first(1, g), req(op, 2 << 20)), Algorithm::kRdh);
  }
}

TEST(Lower, AutoRunsTheTwoLevelRdhForAnAllReduceAcrossChips) {
  // [CHOICE D46] Neuron's RDH on Trn2 has an intra-chip stage: where auto runs RDH, an
  // all-reduce across chips runs hierarchical where it applies; flat RDH otherwise.
  const Geometry g = Geometry::of(soc::cayman_profile(), 64);
  const unsigned per_chip = g.dies_per_chip * g.cores_per_die;
  const Communicator eight_chips = first(8 * per_chip, g);
  EXPECT_EQ(*resolve_algorithm(g, eight_chips, req(Op::kAllReduce, 1 << 20)),
            Algorithm::kHierarchical);
  EXPECT_EQ(*resolve_algorithm(g, eight_chips, req(Op::kAllReduce, 8 << 20)),
            Algorithm::kHierarchical);
  EXPECT_EQ(*resolve_algorithm(g, eight_chips, req(Op::kAllReduce, 999996)),
            Algorithm::kMesh);  // below the band (10^6 B): as before
  EXPECT_EQ(*resolve_algorithm(g, eight_chips, req(Op::kAllGather, 4 << 20)), Algorithm::kRdh);
  EXPECT_EQ(*resolve_algorithm(g, eight_chips, req(Op::kReduceScatter, 4 << 20)), Algorithm::kRdh);
  EXPECT_EQ(*resolve_algorithm(g, first(per_chip, g), req(Op::kAllReduce, 4 << 20)),
            Algorithm::kRdh);  // one chip
  // Chips holding unlike numbers of ranks: hierarchical does not apply.
  Communicator uneven;
  uneven.groups.emplace_back();
  for (CoreId k = 0; k < 8; ++k) uneven.groups[0].push_back(k);
  for (CoreId k = 0; k < 4; ++k) uneven.groups[0].push_back(8 + k);
  for (CoreId k = 0; k < 4; ++k) uneven.groups[0].push_back(16 + k);
  EXPECT_EQ(*resolve_algorithm(g, uneven, req(Op::kAllReduce, 4 << 20)), Algorithm::kRdh);
  // One rank a chip: two-level is flat RDH by another name; auto says RDH.
  Communicator one_a_chip;
  one_a_chip.groups.emplace_back();
  for (CoreId chip = 0; chip < 8; ++chip) one_a_chip.groups[0].push_back(chip * per_chip);
  EXPECT_EQ(*resolve_algorithm(g, one_a_chip, req(Op::kAllReduce, 4 << 20)), Algorithm::kRdh);
  // Past one node auto runs RDH below 1 MB too (D32): there as well the two-level form, for
  // an all-reduce; all-gather keeps flat RDH.
  const Communicator four_nodes = first(64 * per_chip, g);
  EXPECT_EQ(*resolve_algorithm(g, four_nodes, req(Op::kAllReduce, 64 << 10)),
            Algorithm::kHierarchical);
  EXPECT_EQ(*resolve_algorithm(g, four_nodes, req(Op::kAllReduce, 1 << 20)),
            Algorithm::kHierarchical);
  EXPECT_EQ(*resolve_algorithm(g, four_nodes, req(Op::kAllGather, 64 << 10)), Algorithm::kRdh);
}

TEST(Lower, HierarchicalRunsRdhInsideEachChipWhereItFitsAndRingsWhereNot) {
  // [CHOICE D30d] 8 chips of 8 ranks: every phase is RDH at 1 MiB; at 16 MiB RDH's scratch
  // areas (one a step) do not fit a partition inside the chips, whose phases run rings then.
  const Geometry g = Geometry::of(soc::cayman_profile(), 8);
  const auto notes_of = [&](std::uint64_t bytes) {
    LowerRequest r = req(Op::kAllReduce, bytes, Algorithm::kHierarchical);
    r.notes = true;
    auto low = lower(g, first(64, g), r);
    EXPECT_TRUE(low.ok()) << low.error().message;
    std::pair<unsigned, unsigned> rdh_ring{0, 0};
    if (!low.ok()) return rdh_ring;
    for (const std::string& n : low->programs[0].notes) {
      if (n.starts_with("rdh ")) ++rdh_ring.first;
      if (n.starts_with("ring ")) ++rdh_ring.second;
    }
    return rdh_ring;
  };
  const auto small = notes_of(1 << 20);
  EXPECT_GT(small.first, 0U);
  EXPECT_EQ(small.second, 0U);
  const auto large = notes_of(16 << 20);
  EXPECT_GT(large.first, 0U);  // across the chips
  EXPECT_GT(large.second, 0U);
}

TEST(Lower, AlgorithmsThatDoNotApplyAreErrors) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 2);
  auto e1 = resolve_algorithm(g, first(6, g), req(Op::kAllReduce, 4096, Algorithm::kRdh));
  EXPECT_EQ(e1.error().message,
            "--algorithm rdh needs a power-of-2 number of ranks per group, got 6");
  auto e2 = resolve_algorithm(g, first(8, g), req(Op::kAllReduce, 4096, Algorithm::kHierarchical));
  EXPECT_EQ(e2.error().message,
            "--algorithm hierarchical needs groups on more than one chip (group 0 is on one)");
  // Chips of different sizes (8 + 4; 8 on each of 9 chips and 1 on a tenth) are no error.
  const Geometry g16 = Geometry::of(soc::cayman_profile(), 16);
  for (const Op op : {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter, Op::kAllToAll}) {
    EXPECT_TRUE(resolve_algorithm(g, first(12, g), req(op, 4096, Algorithm::kHierarchical)))
        << op_name(op);
    EXPECT_TRUE(resolve_algorithm(g16, first(73, g16), req(op, 4096, Algorithm::kHierarchical)))
        << op_name(op);
  }
  auto e4 = resolve_algorithm(g, first(6, g), req(Op::kAllToAll, 4096, Algorithm::kRdh));
  EXPECT_EQ(e4.error().message,
            "--algorithm rdh needs a power-of-2 number of ranks per group, got 6");
  auto e5 = resolve_algorithm(g, first(4, g), req(Op::kSendRecv, 4096, Algorithm::kMesh));
  EXPECT_EQ(e5.error().message, "--algorithm mesh does not apply to send/recv (use ring or auto)");
}

// Groups laid out differently (1 rank on each of 4 chips, 2 on each of 2) each get the
// phases of their own layout: no error, and as many legs as the two layouts lowered apart.
// (Correctness_test runs them.)
TEST(Lower, HierarchicalTakesGroupsLaidOutDifferently) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 4);
  const Communicator mixed{{{0, 8, 16, 24}, {1, 2, 9, 10}}};
  const Communicator wide{{{0, 8, 16, 24}}};
  const Communicator pairs{{{1, 2, 9, 10}}};
  for (const Op op : {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter, Op::kAllToAll}) {
    const LowerRequest r = req(op, 4096, Algorithm::kHierarchical);
    ASSERT_TRUE(resolve_algorithm(g, mixed, r).ok()) << op_name(op);
    const auto both = lower(g, mixed, r);
    ASSERT_TRUE(both.ok()) << op_name(op) << ": " << both.error().message;
    const auto a = lower(g, wide, r);
    const auto b = lower(g, pairs, r);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(both->stats.legs, a->stats.legs + b->stats.legs) << op_name(op);
  }
  // Chips of different sizes in a group are taken too (lanes, D30d).
  const Communicator lopsided{{{0, 1, 8, 16}, {2, 3, 9, 17}}};
  for (const Op op : {Op::kAllReduce, Op::kAllToAll}) {
    const auto l = lower(g, lopsided, req(op, 4096, Algorithm::kHierarchical));
    EXPECT_TRUE(l.ok()) << op_name(op) << ": " << l.error().message;
  }
}

// Phases on disjoint cores take the same semaphores and scratch: three groups of 14 laid out
// differently (their own phases each, in-chip ones per chip size, cross-chip ones in rounds)
// ran out of the 253 usable semaphores when every phase took its own; now they take what
// the largest set takes, so all three together need as many as the largest alone.
TEST(Lower, HierarchicalSetsOnDisjointCoresShareSemaphores) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 16);
  const std::vector<std::vector<CoreId>> groups = {
      {4, 31, 2, 5, 34, 33, 38, 3, 0, 1, 7, 39, 35, 6},
      {45, 54, 14, 10, 8, 9, 12, 15, 11, 20, 21, 23, 32, 36},
      {40, 42, 43, 47, 63, 57, 62, 50, 52, 24, 27, 28, 19, 18}};
  const LowerRequest r = req(Op::kAllReduce, 64 << 10, Algorithm::kHierarchical);
  const auto all = lower(g, Communicator{groups}, r);
  ASSERT_TRUE(all.ok()) << all.error().message;
  unsigned most = 0;
  for (const auto& group : groups) {
    const auto alone = lower(g, Communicator{{group}}, r);
    ASSERT_TRUE(alone.ok()) << alone.error().message;
    most = std::max(most, alone->semaphores);
  }
  EXPECT_EQ(all->semaphores, most);
}

// Chips of different sizes (2 + 1 + 1): lanes 0 and 1, held by both ranks of chip 0 but by
// the one rank of chips 1 and 2, run the inter-chip phase in two rounds, so the lowering has
// the legs of an in-chip reduce-scatter and all-gather on chip 0 and two 3-rank rings across
// (each lane's part of the buffer), and `auto` keeps flat RDH for it (its two-level form only
// for chips of equal sizes, D46), while a 2 + 2 layout of the same 4 ranks gets it.
TEST(Lower, HierarchicalRunsLanesInRoundsOnChipsOfDifferentSizes) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 4);
  const Communicator lopsided{{{0, 1, 8, 16}}};
  LowerRequest r = req(Op::kAllReduce, 1 << 20, Algorithm::kHierarchical);
  const auto two = lower(g, lopsided, r);
  ASSERT_TRUE(two.ok()) << two.error().message;
  const auto inchip =
      lower(g, Communicator{{{0, 1}}}, req(Op::kAllReduce, 1 << 20, Algorithm::kRdh));
  const auto across =
      lower(g, Communicator{{{0, 8, 16}}}, req(Op::kAllReduce, 1 << 19, Algorithm::kRing));
  ASSERT_TRUE(inchip.ok() && across.ok());
  EXPECT_EQ(two->stats.legs, inchip->stats.legs + 2 * across->stats.legs);
  r.algorithm = Algorithm::kAuto;
  EXPECT_EQ(resolve_algorithm(g, lopsided, r).value(), Algorithm::kRdh);
  EXPECT_EQ(resolve_algorithm(g, Communicator{{{0, 1, 8, 9}}}, r).value(),
            Algorithm::kHierarchical);
}

TEST(Lower, SizesThatHoldNoElementAreErrors) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  EXPECT_EQ(lower(g, first(2, g), req(Op::kAllReduce, 0)).error().message,
            "size 0: a collective needs at least one element");
  EXPECT_EQ(lower(g, first(2, g), req(Op::kAllReduce, 3)).error().message,
            "size 3 B holds no fp32 element (4 B)");
}

TEST(Lower, ASizeThatDoesNotFitSaysHowMuchDoes) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  auto r = lower(g, first(8, g), req(Op::kAllReduce, 32 << 20, Algorithm::kRing));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("all-reduce of 33554432 B (fp32, 8 ranks, ring) needs "),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("; 224 KiB fit: at most "), std::string::npos);
  const std::uint64_t most =
      max_fitting_bytes(g, first(8, g), req(Op::kAllReduce, 1, Algorithm::kRing));
  EXPECT_GT(most, 16u << 20);  // 16 MiB fits (the ./dev run sweep's top)
  EXPECT_LT(most, 28u << 20);
  EXPECT_TRUE(lower(g, first(8, g), req(Op::kAllReduce, most, Algorithm::kRing)).ok());
  EXPECT_FALSE(
      lower(g, first(8, g), req(Op::kAllReduce, most + 128 * 4 * 8, Algorithm::kRing)).ok());
}

TEST(Lower, EverySizeUpToTheHierarchicalMostFits) {
  // The intra-chip ring used to take as many scratch slots as the room left held, leaving
  // the inter-chip phase too little at some sizes (108-112 KiB per partition on 16 ranks)
  // that a larger size, whose ring could not be greedy, did fit: "at most N" was not true
  // of every size below N. Sizes step by 1/128 of the most (about 110 KB here).
  const Geometry g = Geometry::of(soc::cayman_profile(), 16);
  for (unsigned ranks : {16U, 24U}) {
    const Communicator c = first(ranks, g);
    for (Op op : {Op::kAllReduce, Op::kReduceScatter}) {
      const std::uint64_t most = max_fitting_bytes(g, c, req(op, 1, Algorithm::kHierarchical));
      ASSERT_GT(most, 8u << 20) << op_name(op) << " on " << ranks;
      const std::uint64_t unit = std::uint64_t{128} * 4 * ranks;  // a column of every block
      for (std::uint64_t b = most / 2 / unit * unit; b <= most; b += most / 128 / unit * unit) {
        EXPECT_TRUE(check_request(g, c, req(op, b, Algorithm::kHierarchical)).ok())
            << op_name(op) << " of " << b << " B on " << ranks << " ranks (most " << most << ")";
      }
      EXPECT_TRUE(check_request(g, c, req(op, most, Algorithm::kHierarchical)).ok());
      EXPECT_FALSE(check_request(g, c, req(op, most + unit, Algorithm::kHierarchical)).ok());
    }
  }
}

TEST(Lower, UnderAutoASizeThatDoesNotFitSaysHowMuchAutoRuns) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  // 60 MB on 2 ranks: auto gives ring above 56 MB, whose scratch holds less than RDH's.
  auto r = lower(g, first(2, g), req(Op::kAllReduce, 60'000'000, Algorithm::kAuto));
  ASSERT_FALSE(r.ok());
  const std::uint64_t ring =
      max_fitting_bytes(g, first(2, g), req(Op::kAllReduce, 1, Algorithm::kRing));
  const std::uint64_t rdh =
      max_fitting_bytes(g, first(2, g), req(Op::kAllReduce, 1, Algorithm::kRdh));
  ASSERT_GT(rdh, ring);
  EXPECT_NE(
      r.error().message.find(fmt::format(
          "; 224 KiB fit: at most {} B with ring; auto runs up to {} B (with rdh)", ring, rdh)),
      std::string::npos)
      << r.error().message;
  // ... and it does.
  auto at = lower(g, first(2, g), req(Op::kAllReduce, rdh, Algorithm::kAuto));
  ASSERT_TRUE(at.ok()) << at.error().message;
  EXPECT_EQ(at->algorithm, Algorithm::kRdh);
  // Where ring holds the most (8 ranks), or the algorithm was named, no second figure.
  EXPECT_EQ(lower(g, first(8, g), req(Op::kAllReduce, 60'000'000, Algorithm::kAuto))
                .error()
                .message.find("auto runs"),
            std::string::npos);
  EXPECT_EQ(lower(g, first(2, g), req(Op::kAllReduce, 60'000'000, Algorithm::kRing))
                .error()
                .message.find("auto runs"),
            std::string::npos);
  // All-to-all's auto is mesh at every size: RDH's larger fit is not auto's.
  EXPECT_EQ(lower(g, first(2, g), req(Op::kAllToAll, 60'000'000, Algorithm::kAuto))
                .error()
                .message.find("auto runs"),
            std::string::npos);
}

TEST(Lower, IterationsPastTheWordLimitAreRefusedBeforeTheyAreEmitted) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  LowerRequest r = req(Op::kAllReduce, 1024, Algorithm::kMesh);
  r.iterations = 4'294'967'295U;  // would emit words until memory runs out
  auto low = lower(g, first(2, g), r);
  ASSERT_FALSE(low.ok());
  // Counted by the largest iteration (20 words once both windows are full; the first takes
  // 14), as check_request() counts them: the refusal is the same either way.
  EXPECT_EQ(low.error().message,
            "4294967295 iterations (-n plus -w): their programs would pass 33554432 words in "
            "all at iteration 1677724, up to 20 words an iteration (at most 1677723 iterations "
            "at this size)");
  const auto st = check_request(g, first(2, g), r);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, low.error().message);
}

/// The words of each of the `iterations` iterations of `low`, all cores together; empty (a
/// failure added) if a program marks another number of iterations.
std::vector<std::uint64_t> words_by_iteration(const Lowered& low, unsigned iterations) {
  std::vector<std::uint64_t> words(iterations, 0);
  for (const CoreProgram& p : low.programs) {
    if (p.iteration_end.size() != iterations) {
      ADD_FAILURE() << "core " << p.core << " marks " << p.iteration_end.size() << " iterations";
      return {};
    }
    for (unsigned k = 0; k < iterations; ++k) {
      words[k] += p.iteration_end[k] - (k == 0 ? 0 : p.iteration_end[k - 1]);
    }
  }
  return words;
}

/// The words of each of 32 iterations of `r` on `c`, all cores together (by the 18th every
/// core's window of legs is full, D30c, in the layouts tested, and later ones are alike).
std::vector<std::uint64_t> iteration_words(const Geometry& g, const Communicator& c,
                                           LowerRequest r) {
  r.iterations = 32;
  auto low = lower(g, c, r);
  EXPECT_TRUE(low.ok()) << low.error().message;
  if (!low.ok()) return std::vector<std::uint64_t>(r.iterations, 0);
  return words_by_iteration(*low, r.iterations);
}

/// Checks that check_request() refuses `r` on `c` exactly from the iteration whose words pass
/// the limit, as the lowering would: the first 32 iterations' words as lowered, the later
/// ones as the last of those.
void expect_word_limit_exact(const Geometry& g, const Communicator& c, LowerRequest r) {
  const std::vector<std::uint64_t> words = iteration_words(g, c, r);
  ASSERT_FALSE(words.empty());
  const std::uint64_t largest = *std::max_element(words.begin(), words.end());
  ASSERT_EQ(words.back(), largest) << "the last iterations are the largest";
  ASSERT_GT(largest, words.front());
  const std::uint64_t limit = std::uint64_t{1} << 25;
  std::uint64_t sum = 0;
  for (const std::uint64_t w : words) sum += w;
  const auto most = static_cast<unsigned>(words.size() + (limit - sum) / largest);
  r.iterations = most + 1;
  const auto st = check_request(g, c, r);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            fmt::format("{} iterations (-n plus -w): their programs would pass {} words in all at "
                        "iteration {}, up to {} words an iteration (at most {} iterations at this "
                        "size)",
                        most + 1, limit, most + 1, largest, most));
  // lower() refuses it as soon (before the other iterations are emitted), with the same words:
  // a single-size bench, which is not checked apart, goes straight to it.
  const auto low = lower(g, c, r);
  ASSERT_FALSE(low.ok());
  EXPECT_EQ(low.error().message, st.error().message);
  r.iterations = most;
  EXPECT_TRUE(check_request(g, c, r).ok());
}

TEST(Lower, CheckRequestRefusesTheWordLimitWithoutLowering) {
  // A sweep is checked size by size before any runs: the word limit, which only the emitted
  // words show, is part of that check (it was not: a sweep ran its small sizes for minutes
  // and failed at the first size with more words per iteration).
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  LowerRequest small = req(Op::kAllReduce, 1024, Algorithm::kMesh);
  LowerRequest big = req(Op::kAllReduce, 64 << 10, Algorithm::kMesh);
  small.iterations = big.iterations = 90'000;  // 362 words each fit, 416 do not
  const std::vector<std::uint64_t> small_words = iteration_words(g, first(8, g), small);
  const std::vector<std::uint64_t> big_words = iteration_words(g, first(8, g), big);
  ASSERT_EQ(small_words.back(), 362U);
  ASSERT_EQ(big_words.back(), 416U);
  ASSERT_EQ(big_words[0], 296U);  // the first iterations take fewer
  EXPECT_TRUE(check_request(g, first(8, g), small).ok());
  const auto st = check_request(g, first(8, g), big);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "90000 iterations (-n plus -w): their programs would pass 33554432 words in all at "
            "iteration 80661, up to 416 words an iteration (at most 80660 iterations at this "
            "size)");
  big.iterations = 80'660;  // the most it names: they fit
  EXPECT_TRUE(check_request(g, first(8, g), big).ok());
  big.iterations = 80'661;
  EXPECT_FALSE(check_request(g, first(8, g), big).ok());
  // The lowering refuses what the check refuses, as early (it counted the first iteration's
  // 248 words alone, let 100000 iterations of 1K through and failed 2 GB of words later).
  small.iterations = 100'000;
  const auto low = lower(g, first(8, g), small);
  ASSERT_FALSE(low.ok());
  EXPECT_EQ(low.error().message,
            "100000 iterations (-n plus -w): their programs would pass 33554432 words in all at "
            "iteration 92693, up to 362 words an iteration (at most 92692 iterations at this "
            "size)");
  EXPECT_EQ(check_request(g, first(8, g), small).error().message, low.error().message);
}

TEST(Lower, CheckRequestCountsTheLargestRelayedIterationAgainstTheWordLimit) {
  // A relayed pair's later iterations carry credits (D30g), so they are larger than the
  // first: the word limit is checked against the largest one check_request emits.
  const Geometry g = Geometry::of(soc::cayman_profile(), 64);
  const Communicator c{{{139, 197}}};  // 139 -> 197 goes through a relay on chip 24
  ASSERT_TRUE(has_relayed_pair(g, c.groups.front()));
  expect_word_limit_exact(g, c, req(Op::kSendRecv, 1024, Algorithm::kAuto));
}

TEST(Lower, CheckRequestCountsAFencedIterationAgainstTheWordLimit) {
  // A forwarding all-gather's later iterations begin with a fence (D49b).
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  expect_word_limit_exact(g, first(4, g), req(Op::kAllGather, 4096, Algorithm::kRing));
}

TEST(Lower, ALongRunsProgramsHoldLittleMoreRoomThanTheirWords) {
  // lower() reserves each program's room for the iterations left once the word limit is
  // checked (Emitter::reserve_iterations), at the mean of its iterations after the first:
  // the room stays within what the limit counted (the largest iteration, times the
  // iterations), and close to the words, where growth by doubling could leave twice them.
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  const Geometry g64 = Geometry::of(soc::cayman_profile(), 64);
  struct Case {
    const Geometry& g;
    Communicator c;
    LowerRequest r;
  };
  const std::vector<Case> cases = {
      {g, first(8, g), req(Op::kAllReduce, 1024, Algorithm::kMesh)},
      {g, first(8, g), req(Op::kAllReduce, 64 << 10, Algorithm::kRing)},
      {g, first(8, g), req(Op::kReduceScatter, 4096, Algorithm::kRdh)},
      {g, first(4, g), req(Op::kAllGather, 4096, Algorithm::kRing)},                  // fenced
      {g64, Communicator{{{139, 197}}}, req(Op::kSendRecv, 1024, Algorithm::kAuto)},  // relayed
  };
  for (Case k : cases) {
    k.r.iterations = 300;
    const auto fp = check_request(k.g, k.c, k.r);
    ASSERT_TRUE(fp.ok()) << fp.error().message;
    const auto low = lower(k.g, k.c, k.r);
    ASSERT_TRUE(low.ok()) << low.error().message;
    std::uint64_t words = 0;
    std::uint64_t room = 0;
    for (const CoreProgram& p : low->programs) {
      words += p.words.size();
      room += p.words.capacity();
    }
    const std::string what = fmt::format("{} {} B", op_name(k.r.op), k.r.bytes);
    EXPECT_LE(room, fp->words * k.r.iterations) << what;
    EXPECT_LE(room, words + words / 20) << what << ": " << words << " words, room for " << room;
  }
}

TEST(Lower, CheckRequestCountsIterationsWithFullWindowsAgainstTheWordLimit) {
  // A core's first legs wait for no earlier leg (its window of legs in flight fills first,
  // D30c): a 2-rank mesh all-gather's iterations take 6 words until the 16th, then 8. The
  // check counted the first iteration's and let through requests the lowering refused.
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  expect_word_limit_exact(g, first(2, g), req(Op::kAllGather, 4, Algorithm::kMesh));
  expect_word_limit_exact(g, first(3, g), req(Op::kAllReduce, 4, Algorithm::kRing));
}

TEST(Lower, CheckRequestCountsRelaysThatSendTheirFirstLegForAFence) {
  // Chip 24's die-1 ranks take their pieces from die-1 ranks and forward them to die-0 ones:
  // the relays (192-194) carry only the fences' credits, their first legs in iteration 1, and
  // their windows fill at iteration 17 (a review's case: the check stopped at the relays'
  // 16th iteration, counted 846 words an iteration where the lowering has 849, and let
  // through a request the lowering refused).
  const Geometry g = Geometry::of(soc::cayman_profile(), 64);
  const Communicator c{{{0, 1, 2, 20, 21, 22, 196, 197, 198, 24, 25, 26, 8, 9, 10}}};
  expect_word_limit_exact(g, c, req(Op::kAllGather, 16 << 20, Algorithm::kHierarchical));
}

TEST(Lower, ForwardingAllGathersAreFencedBetweenIterations) {
  // Before each iteration after the first, a core that forwarded another's pieces credits it
  // with a semaphore-only leg (D49b): a ring core forwards its predecessor's, an RDH core
  // those of every partner but the last step's. Nothing to fence in one iteration, between
  // two ranks or in a mesh (no one forwards), or in other operations (their own semaphores
  // order their iterations).
  const Geometry g = Geometry::of(soc::cayman_profile(), 16);
  struct Case {
    Op op;
    Algorithm alg;
    unsigned ranks;
    unsigned iterations;
    std::uint64_t credits;
  };
  const std::vector<Case> cases = {
      {Op::kAllGather, Algorithm::kRing, 4, 3, 2 * 4},
      {Op::kAllGather, Algorithm::kRing, 40, 2, 1 * 40},  // with the ring's own credits
      {Op::kAllGather, Algorithm::kRing, 3, 2, 1 * 3},
      {Op::kAllGather, Algorithm::kRdh, 8, 3, 2 * 8 * 2},
      {Op::kAllGather, Algorithm::kRdh, 4, 2, 1 * 4 * 1},
      {Op::kAllGather, Algorithm::kRing, 4, 1, 0},
      {Op::kAllGather, Algorithm::kRing, 2, 3, 0},
      {Op::kAllGather, Algorithm::kRdh, 2, 3, 0},
      {Op::kAllGather, Algorithm::kMesh, 8, 3, 0},
      {Op::kReduceScatter, Algorithm::kRing, 4, 3, 0},
      {Op::kAllReduce, Algorithm::kRdh, 8, 3, 0},
  };
  for (const Case& c : cases) {
    LowerRequest r = req(c.op, 64 << 10, c.alg);
    r.iterations = c.iterations;
    r.notes = true;
    auto low = lower(g, first(c.ranks, g), r);
    ASSERT_TRUE(low.ok()) << low.error().message;
    std::uint64_t credits = 0;
    for (const CoreProgram& p : low->programs) {
      for (const std::string& n : p.notes) credits += n.starts_with("fence: core ") ? 1 : 0;
    }
    EXPECT_EQ(credits, c.credits) << op_name(c.op) << " " << algorithm_name(c.alg) << " " << c.ranks
                                  << " ranks, " << c.iterations << " iterations";
  }
}

TEST(Lower, CheckRequestGivesTheFootprintLowerUses) {
  // The footprint of the one iteration check_request emits is the lowering's: the same
  // buffers for every rank and the same bytes of each partition.
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  for (const Op op : {Op::kAllReduce, Op::kAllGather, Op::kAllToAll}) {
    const LowerRequest r =
        req(op, 96 << 10, op == Op::kAllToAll ? Algorithm::kMesh : Algorithm::kRing);
    auto fp = check_request(g, first(8, g), r);
    auto low = lower(g, first(8, g), r);
    ASSERT_TRUE(fp.ok() && low.ok());
    EXPECT_EQ(fp->sbuf_bytes, low->sbuf_bytes);
    EXPECT_GT(fp->sbuf_bytes, 0U);
    ASSERT_EQ(fp->buffers.size(), low->buffers.size());
    for (std::size_t k = 0; k < low->buffers.size(); ++k) {
      ASSERT_EQ(fp->buffers[k].size(), low->buffers[k].size());
      for (std::size_t i = 0; i < low->buffers[k].size(); ++i) {
        EXPECT_EQ(fp->buffers[k][i].in.base, low->buffers[k][i].in.base);
        EXPECT_EQ(fp->buffers[k][i].out.base, low->buffers[k][i].out.base);
        EXPECT_EQ(fp->buffers[k][i].in.counts, low->buffers[k][i].in.counts);
        EXPECT_EQ(fp->buffers[k][i].out.counts, low->buffers[k][i].out.counts);
      }
    }
  }
}

TEST(Lower, TheCountingChecksSeeTheWordsAndBytesTheLoweringWrites) {
  // check_request (and the "at most" search) plan with an emitter that only counts: its
  // words, bytes and semaphores must be the lowering's, for every operation and algorithm,
  // with and without relays (ranks of chips 0-6 and chip 24's second die, D30g), where a
  // wait folds into a start, a window slot is reused and reduces are split.
  const Geometry g = Geometry::of(soc::cayman_profile(), 64);
  const Communicator relayed = relayed_group(4);
  unsigned compared = 0;
  std::uint64_t relayed_legs = 0;
  for (const Communicator& c : {first(16, g), relayed}) {
    // check_request emits one iteration, two for a fenced all-gather (D49b), and with relays
    // min(n, ranks + 1): 3 of 3 here; its words are the largest iteration's.
    for (const Op op : {Op::kAllReduce, Op::kAllGather, Op::kReduceScatter, Op::kAllToAll,
                        Op::kSendRecv, Op::kPermute}) {
      for (const Algorithm a :
           {Algorithm::kRing, Algorithm::kMesh, Algorithm::kRdh, Algorithm::kHierarchical}) {
        for (const std::uint64_t bytes : {4ULL, 4 * 1009ULL, 1ULL << 20}) {
          LowerRequest r = req(op, bytes, a);
          r.iterations = 3;
          auto low = lower(g, c, r);
          auto fp = check_request(g, c, r);
          ASSERT_EQ(low.ok(), fp.ok())
              << fmt::format("{} {} {}", op_name(op), algorithm_name(a), bytes);
          if (!low.ok()) continue;
          const std::vector<std::uint64_t> words = words_by_iteration(*low, r.iterations);
          ASSERT_EQ(words.size(), r.iterations);
          EXPECT_EQ(fp->words, *std::max_element(words.begin(), words.end()))
              << fmt::format("{} {} {}", op_name(op), algorithm_name(a), bytes);
          EXPECT_EQ(fp->sbuf_bytes, low->sbuf_bytes);
          relayed_legs += low->stats.relayed_legs;
          ++compared;
        }
      }
    }
  }
  EXPECT_GE(compared, 40U);
  EXPECT_GT(relayed_legs, 0U);
}

TEST(Lower, ARingOfSixtyFourWithTightScratchLowers) {
  // 64 ranks, 16 to 27 MiB: the semaphore slots (32 of a chain of 128) and the scratch slots
  // (8) both need credits. The first all-gather legs need a semaphore slot's credit older
  // than the scratch credit the last reduce-scatter legs waited for; lowering stopped there
  // ("credit not emitted before it is needed") instead of seeing it was already waited for.
  const Geometry g = Geometry::of(soc::cayman_profile(), 8);
  for (const std::uint64_t mib : {16, 27}) {
    LowerRequest r = req(Op::kAllReduce, mib << 20, Algorithm::kRing);
    r.iterations = 2;
    auto low = lower(g, first(64, g), r);
    ASSERT_TRUE(low.ok()) << low.error().message;
    EXPECT_EQ(low->algorithm, Algorithm::kRing);
  }
}

TEST(Lower, ARingWhoseChainFitsTheSemaphoreSlotsSendsNoCredits) {
  // 16 ranks in halves: a chain of 32 legs, within the 32 semaphore slots per parity, with
  // room for 32 scratch slots. Every slot's reuse is then ordered by the chain itself, so the
  // ring sends no credit legs (each one is a round trip on the critical path); fewer slots
  // than the chain would make it credit every reuse.
  const Geometry g = small_geometry(2);
  LowerRequest r = req(Op::kAllReduce, 16 * 16 * 128 * 4, Algorithm::kRing, DataType::kInt32);
  r.ring_halves_from = 32;  // 16 columns a piece: two halves of 32 bytes a partition
  r.iterations = 2;
  auto low = lower(g, first(16, g), r);
  ASSERT_TRUE(low.ok()) << low.error().message;
  EXPECT_EQ(low->stats.legs - low->stats.semaphore_legs, 16u * 2 * 15 * 2 * 2) << "two halves";
  EXPECT_EQ(low->stats.semaphore_legs, 0u) << "no credits";
}

TEST(Lower, RelaySlotsCountForAutoAndForEveryIteration) {
  // Chip 24's second die with 28 ranks of chips 0-6: legs to 196-199 go through relays.
  const Geometry g = Geometry::of(soc::cayman_profile(), 64);
  const Communicator c = relayed_group(7);
  // RDH's plan fits but its relay slots do not: auto must pass on, as it does for scratch (it
  // picked RDH, and the lowering then failed). A 4 MiB all-reduce to the two-level form, which
  // fits with its relays [D46]; a 5 MiB reduce-scatter (RDH's relays need 263680 B a
  // partition) to ring.
  EXPECT_FALSE(lower(g, c, req(Op::kAllReduce, 4 << 20, Algorithm::kRdh)).ok());
  auto low = lower(g, c, req(Op::kAllReduce, 4 << 20));
  ASSERT_TRUE(low.ok()) << low.error().message;
  EXPECT_EQ(low->algorithm, Algorithm::kHierarchical);
  EXPECT_GT(low->stats.relayed_legs, 0U);
  LowerRequest rs = req(Op::kReduceScatter, 5 << 20, Algorithm::kRdh);
  rs.iterations = 2;
  EXPECT_FALSE(lower(g, c, rs).ok());
  rs.algorithm = Algorithm::kAuto;
  auto ring = lower(g, c, rs);
  ASSERT_TRUE(ring.ok()) << ring.error().message;
  EXPECT_EQ(ring->algorithm, Algorithm::kRing);
  EXPECT_GT(ring->stats.relayed_legs, 0U);
  // A ring's rotating scratch slots add relay slots in later iterations: the most that fits
  // two iterations must lower with two (one iteration's answer, 9846784 B, did not).
  LowerRequest r = req(Op::kReduceScatter, 1, Algorithm::kRing);
  r.iterations = 2;
  const std::uint64_t most = max_fitting_bytes(g, c, r);
  ASSERT_GT(most, 0U);
  r.bytes = most;
  EXPECT_TRUE(lower(g, c, r).ok()) << most;
  EXPECT_TRUE(check_request(g, c, r).ok()) << most;
  r.bytes = 9846784;
  EXPECT_FALSE(lower(g, c, r).ok());
  EXPECT_FALSE(check_request(g, c, r).ok());  // a sweep's check agrees with the lowering
  // Seeing the relay slots of every iteration must not emit iterations past the word limit:
  // the request is refused for its words, at once.
  LowerRequest many = req(Op::kAllReduce, 1024);
  many.iterations = 4294967295U;
  const auto st = check_request(g, c, many);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("words in all"), std::string::npos) << st.error().message;
}

TEST(Lower, WhenRelaysDoNotFitTheSizeGivenAsFittingDoes) {
  // 512 ranks on 64 chips: a permute's legs to unroutable addresses go through relay slots,
  // which only emission shows. The "at most" of the error must be a size that lowers (it
  // was the plan's, 14680064 B, while 9781252 B already failed).
  const Geometry g = Geometry::of(soc::cayman_profile(), 64);
  LowerRequest r = req(Op::kPermute, 12 << 20, Algorithm::kRing);
  auto low = lower(g, first(512, g), r);
  ASSERT_FALSE(low.ok());
  const std::string& m = low.error().message;
  EXPECT_NE(m.find("permute of 12582912 B (fp32, 512 ranks, ring): the relays around unroutable "
                   "addresses need"),
            std::string::npos)
      << m;
  const std::size_t at = m.find("at most ");
  ASSERT_NE(at, std::string::npos) << m;
  const std::uint64_t most = std::stoull(m.substr(at + 8));
  EXPECT_EQ(most, max_fitting_bytes(g, first(512, g), r));
  r.bytes = most;
  EXPECT_TRUE(check_request(g, first(512, g), r).ok());
  r.bytes = most + 4;
  EXPECT_FALSE(check_request(g, first(512, g), r).ok());
}

TEST(Lower, ProgramsAssembleBackToTheSameWords) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  LowerRequest r = req(Op::kAllReduce, 64 << 10, Algorithm::kRing);
  r.notes = true;
  r.iterations = 2;
  auto low = lower(g, first(4, g), r);
  ASSERT_TRUE(low.ok()) << low.error().message;
  ASSERT_EQ(low->programs.size(), 4u);
  for (const CoreProgram& p : low->programs) {
    ASSERT_EQ(p.iteration_end.size(), 2u);
    const std::string text = program_text(p, "test program");
    EXPECT_EQ(text.rfind("# test program\n", 0), 0u);
    EXPECT_NE(text.find("# -- iteration 0 ends"), std::string::npos);
    const isa::AsmResult back = isa::assemble(text, "dump.s");
    ASSERT_TRUE(back.ok()) << back.errors.front().format();
    EXPECT_EQ(back.word_list(), p.words);
  }
}

TEST(Lower, OneRankMovesNothing) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  auto low = lower(g, first(1, g), req(Op::kAllReduce, 4096));
  ASSERT_TRUE(low.ok());
  EXPECT_TRUE(low->programs.empty());
}

TEST(Lower, TheSameRequestLowersToTheSameWords) {
  const Geometry g = small_geometry(2);
  const Communicator c = first(16, g);
  auto a = lower(g, c, req(Op::kAllReduce, 40000, Algorithm::kHierarchical));
  auto b = lower(g, c, req(Op::kAllReduce, 40000, Algorithm::kHierarchical));
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->programs.size(), b->programs.size());
  for (std::size_t i = 0; i < a->programs.size(); ++i) {
    EXPECT_EQ(a->programs[i].words, b->programs[i].words);
  }
}

}  // namespace
}  // namespace sbrdma::collectives

namespace sbrdma::collectives {
namespace {

/// Every gen of `low` names a peer its issuer can fold an address for.
bool all_foldable(const Geometry& g, const Lowered& low) {
  for (const CoreProgram& p : low.programs) {
    for (const isa::Word& w : p.words) {
      auto gen = isa::decode_rdma_desc_gen(w);
      if (!gen.ok()) continue;
      const CoreId peer = g.core_of(Place{gen->remote_routing_id.imm, 0, gen->remote_core_id.imm});
      if (!foldable(g, p.core, peer)) return false;
    }
  }
  return true;
}

TEST(Lower, FiveHundredTwelveRanksOnTrn2uAvoidTheUnfoldableAddress) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 64);
  const Communicator c = *default_communicator(g, 512);
  // The ring over 512 ranks lowers 10^6 legs (seconds in a debug build): its snake order is
  // checked on the eight chips around chip 24 instead.
  Communicator around;
  around.groups.emplace_back();
  for (CoreId k = 20 * 8; k < 28 * 8; ++k) around.groups[0].push_back(k);
  for (Algorithm a : {Algorithm::kRing, Algorithm::kRdh, Algorithm::kHierarchical}) {
    LowerRequest r;
    r.bytes = 1 << 20;
    r.algorithm = a;
    const Communicator& on = a == Algorithm::kRing ? around : c;
    auto low = lower(g, on, r);
    ASSERT_TRUE(low.ok()) << algorithm_name(a) << ": " << low.error().message;
    EXPECT_EQ(low->programs.size(), on.groups[0].size());
    EXPECT_TRUE(all_foldable(g, *low)) << algorithm_name(a);
    EXPECT_EQ(low->stats.relayed_legs, 0u)
        << algorithm_name(a) << ": the order avoids chip 24's fold";
  }
  // A group that enters chip 24 from the other die needs relays, and gets them.
  const Communicator cross{{{23 * 8 + 1, 24 * 8 + 6, 3}}};
  LowerRequest r;
  r.bytes = 4096;
  r.algorithm = Algorithm::kMesh;
  auto low = lower(g, cross, r);
  ASSERT_TRUE(low.ok());
  EXPECT_GT(low->stats.relayed_legs, 0u);
  EXPECT_TRUE(all_foldable(g, *low));
}

}  // namespace
}  // namespace sbrdma::collectives
