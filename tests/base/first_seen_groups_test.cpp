// first_seen_groups: indices grouped by key, groups in the order keys first appear.
#include "base/first_seen_groups.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace sbrdma::base {
namespace {

using Groups = std::vector<std::vector<std::size_t>>;

TEST(FirstSeenGroups, GroupsInTheOrderKeysFirstAppear) {
  const std::vector<int> keys{2, 0, 2, 1, 0};
  EXPECT_EQ(first_seen_groups(keys.size(), [&](std::size_t i) { return keys[i]; }),
            (Groups{{0, 2}, {1, 4}, {3}}));
}

TEST(FirstSeenGroups, PairKeysAndEdgeCases) {
  const std::vector<std::pair<unsigned, unsigned>> layouts{{4, 1}, {2, 2}, {4, 1}};
  EXPECT_EQ(first_seen_groups(layouts.size(), [&](std::size_t i) { return layouts[i]; }),
            (Groups{{0, 2}, {1}}));
  EXPECT_EQ(first_seen_groups(0, [](std::size_t) { return 0; }), Groups{});
  EXPECT_EQ(first_seen_groups(3, [](std::size_t) { return std::string("same"); }),
            (Groups{{0, 1, 2}}));
  EXPECT_EQ(first_seen_groups(3, [](std::size_t i) { return i; }), (Groups{{0}, {1}, {2}}));
}

}  // namespace
}  // namespace sbrdma::base
