// settle_taken_prefix: when a vector FIFO's taken prefix is given back, and what stays.
#include "base/taken_prefix.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace sbrdma::base {
namespace {

std::vector<int> iota_vector(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

TEST(TakenPrefix, AllTakenClearsAndRewinds) {
  std::vector<int> v = iota_vector(5);
  std::size_t head = 5;
  settle_taken_prefix(v, head);
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(head, 0U);
}

TEST(TakenPrefix, ALongPrefixThatIsHalfTheVectorIsErasedKeepingTheRestInOrder) {
  const int n = 2 * static_cast<int>(kCompactTakenAfter);
  std::vector<int> v = iota_vector(n);
  std::size_t head = kCompactTakenAfter;
  settle_taken_prefix(v, head);
  EXPECT_EQ(head, 0U);
  ASSERT_EQ(v.size(), kCompactTakenAfter);
  EXPECT_EQ(v.front(), static_cast<int>(kCompactTakenAfter));
  EXPECT_EQ(v.back(), n - 1);
}

TEST(TakenPrefix, AShortOrMinorPrefixStays) {
  std::vector<int> v = iota_vector(2 * static_cast<int>(kCompactTakenAfter));
  std::size_t head = kCompactTakenAfter - 1;  // short
  settle_taken_prefix(v, head);
  EXPECT_EQ(head, kCompactTakenAfter - 1);
  EXPECT_EQ(v.size(), 2 * kCompactTakenAfter);
  v = iota_vector(4 * static_cast<int>(kCompactTakenAfter));
  head = kCompactTakenAfter;  // long, but a quarter of the vector
  settle_taken_prefix(v, head);
  EXPECT_EQ(head, kCompactTakenAfter);
  EXPECT_EQ(v.size(), 4 * kCompactTakenAfter);
}

}  // namespace
}  // namespace sbrdma::base
