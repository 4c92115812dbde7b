// Communicators built from -r and --data-parallel-dimension (collectives/communicator.h).
#include "collectives/communicator.h"

#include <gtest/gtest.h>

#include <vector>

#include "collectives/harness.h"

namespace sbrdma::collectives {
namespace {

using testing::small_geometry;
using Groups = std::vector<std::vector<CoreId>>;

TEST(Communicator, DefaultIsTheFirstRanksInChipMajorOrder) {
  const Geometry g = small_geometry(2);
  const auto c = default_communicator(g, 5);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->groups, (Groups{{0, 1, 2, 3, 4}}));
  EXPECT_EQ(default_communicator(g, 0).error().message,
            "-r: the number of ranks must be at least 1");
  EXPECT_FALSE(default_communicator(g, g.num_cores() + 1).ok());
}

// nccom-test's data-parallel dimension takes one rank from each slice: group k holds ranks k,
// k + G, k + 2G ... of the G groups, not a run of consecutive ranks.
TEST(Communicator, DataParallelGroupsTakeOneRankFromEachSlice) {
  const Geometry g = small_geometry(2);
  const auto two = data_parallel_communicator(g, 8, 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->groups, (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  const auto four = data_parallel_communicator(g, 12, 4);
  ASSERT_TRUE(four.ok());
  EXPECT_EQ(four->groups, (Groups{{0, 3, 6, 9}, {1, 4, 7, 10}, {2, 5, 8, 11}}));
  // One group of all ranks, and groups of one rank each, are the two ends.
  EXPECT_EQ(data_parallel_communicator(g, 3, 3)->groups, (Groups{{0, 1, 2}}));
  EXPECT_EQ(data_parallel_communicator(g, 3, 1)->groups, (Groups{{0}, {1}, {2}}));
  EXPECT_TRUE(check_communicator(g, *four).ok());  // disjoint, equal, on the topology
  EXPECT_FALSE(data_parallel_communicator(g, g.num_cores() + 2, 2).ok());
}

}  // namespace
}  // namespace sbrdma::collectives
