// Lanes of hierarchical collectives over chips of different sizes (collectives/lanes.h).
#include "collectives/lanes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

namespace sbrdma::collectives {
namespace {

std::vector<unsigned> owners(const Lanes& l, unsigned c) {
  std::vector<unsigned> out;
  for (unsigned p = 0; p < l.count(); ++p) out.push_back(l.owner(c, p));
  return out;
}

TEST(Lanes, EqualChipsGiveEachRankItsOwnLaneInOneRound) {
  const Lanes l({4, 4, 4});
  EXPECT_EQ(l.count(), 4U);
  EXPECT_EQ(l.rounds(), 1U);
  for (unsigned c = 0; c < 3; ++c) {
    EXPECT_EQ(owners(l, c), (std::vector<unsigned>{0, 1, 2, 3}));
    for (unsigned j = 0; j < 4; ++j) EXPECT_EQ(l.lane_of_block(c, j), j);
  }
}

TEST(Lanes, ASmallerChipGivesEachRankARunOfLanes) {
  const Lanes l({8, 4});
  EXPECT_EQ(owners(l, 0), (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(owners(l, 1), (std::vector<unsigned>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(l.lane_of_block(1, 3), 6U);
  EXPECT_EQ(l.rounds(), 2U);
  // 3 ranks under 5 lanes: runs of 2, 2 and 1; each block with the first lane of its rank.
  const Lanes odd({5, 3, 2});
  EXPECT_EQ(owners(odd, 1), (std::vector<unsigned>{0, 0, 1, 1, 2}));
  EXPECT_EQ(owners(odd, 2), (std::vector<unsigned>{0, 0, 0, 1, 1}));
  EXPECT_EQ(odd.lane_of_block(1, 1), 2U);
  EXPECT_EQ(odd.lane_of_block(1, 2), 4U);
  EXPECT_EQ(odd.lane_of_block(2, 1), 3U);
  EXPECT_EQ(odd.rounds(), 3U);  // the chip of 2 holds 3 lanes on one rank
}

// Every rank's block goes with a lane that rank holds, and no two lanes of a round share a
// rank, for every layout of up to 4 chips of 1..8 ranks; rounds are as few as the most
// lanes one rank holds.
TEST(Lanes, BlocksGoWithALaneTheirRankHoldsAndRoundsShareNoRank) {
  std::vector<std::vector<unsigned>> layouts;
  for (unsigned a = 1; a <= 8; ++a) {
    for (unsigned b = 1; b <= 8; ++b) {
      layouts.push_back({a, b});
      for (unsigned c = 1; c <= 8; c += 3) layouts.push_back({a, b, c});
      layouts.push_back({a, b, 8, 1});
    }
  }
  for (const auto& sizes : layouts) {
    const Lanes l(sizes);
    unsigned most = 0;
    for (unsigned c = 0; c < l.chips(); ++c) {
      std::vector<unsigned> held(sizes[c], 0);
      for (unsigned p = 0; p < l.count(); ++p) ++held[l.owner(c, p)];
      for (unsigned j = 0; j < sizes[c]; ++j) {
        ASSERT_GT(held[j], 0U);
        EXPECT_EQ(l.owner(c, l.lane_of_block(c, j)), j);
        most = std::max(most, held[j]);
      }
    }
    for (unsigned r = 0; r < l.rounds(); ++r) {
      for (unsigned c = 0; c < l.chips(); ++c) {
        std::set<unsigned> busy;
        for (unsigned p = 0; p < l.count(); ++p) {
          if (l.round(p) == r) {
            EXPECT_TRUE(busy.insert(l.owner(c, p)).second);
          }
        }
      }
    }
    EXPECT_EQ(l.rounds(), most);
  }
}

}  // namespace
}  // namespace sbrdma::collectives
