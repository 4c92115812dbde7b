// ObjectPool: aligned, non-overlapping blocks; a freed block is reused for its size class;
// blocks beyond kMaxBlock still work.
#include "sim/object_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "support/vm_flags.h"

namespace sbrdma::sim {
namespace {

TEST(ObjectPool, BlocksAreAlignedDistinctAndRecycledBySize) {
  std::vector<std::pair<unsigned char*, std::size_t>> blocks;
  for (std::size_t i = 0; i < 2000; ++i) {
    const std::size_t n = 24 + (i * 37) % 900;
    auto* p = static_cast<unsigned char*>(ObjectPool::allocate(n));
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % ObjectPool::kAlign, 0U);
    std::memset(p, static_cast<int>(i % 251), n);
    blocks.emplace_back(p, n);
  }
  for (std::size_t i = 0; i < blocks.size(); ++i) {  // no block overwrote another
    const auto [p, n] = blocks[i];
    ASSERT_EQ(p[0], i % 251);
    ASSERT_EQ(p[n - 1], i % 251);
  }
  void* freed = blocks[7].first;
  const std::size_t size = blocks[7].second;
  ObjectPool::deallocate(freed, size);
  void* again = ObjectPool::allocate(size);
  if (ObjectPool::kPooled) {
    EXPECT_EQ(again, freed);  // the same class gets it back
    EXPECT_EQ(testing::advised_huge(again), std::optional<bool>(false));  // D33
  }
  blocks[7].first = static_cast<unsigned char*>(again);
  for (auto [p, n] : blocks) ObjectPool::deallocate(p, n);
  void* big = ObjectPool::allocate(ObjectPool::kMaxBlock + 1);
  std::memset(big, 1, ObjectPool::kMaxBlock + 1);
  ObjectPool::deallocate(big, ObjectPool::kMaxBlock + 1);
}

}  // namespace
}  // namespace sbrdma::sim
