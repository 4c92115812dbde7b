// MappedAllocator: small blocks from operator new, blocks of 2 MiB or more mapped 2 MiB-
// aligned; a vector growing across the threshold keeps its contents.
#include "sim/mapped_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "support/vm_flags.h"

namespace sbrdma::sim {
namespace {

TEST(MappedAllocator, LargeBlocksAre2MiBAlignedAndGrowthKeepsContents) {
  std::vector<std::uint64_t, MappedAllocator<std::uint64_t>> v;
  constexpr std::size_t kN = 3 * base::kMapBlockBytes / sizeof(std::uint64_t);  // 6 MiB
  for (std::size_t i = 0; i < kN; ++i) v.push_back(i * 2654435761U);
  if (base::kCanMap) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % base::kMapBlockBytes, 0U);
  }
  for (std::size_t i = 0; i < kN; i += 4099) ASSERT_EQ(v[i], i * 2654435761U);
  v.resize(10);
  v.shrink_to_fit();  // back below the threshold: an operator new block
  EXPECT_EQ(v[9], std::uint64_t{9} * 2654435761U);
  MappedAllocator<int> a;
  int* big = a.allocate(base::kMapBlockBytes / sizeof(int) + 1);
  big[0] = 1;
  big[base::kMapBlockBytes / sizeof(int)] = 2;
  EXPECT_EQ(big[0] + big[base::kMapBlockBytes / sizeof(int)], 3);
  if (base::kCanMap) {  // not advised for huge pages (D33)
    EXPECT_EQ(testing::advised_huge(big), std::optional<bool>(false));
  }
  a.deallocate(big, base::kMapBlockBytes / sizeof(int) + 1);
}

TEST(MappedAllocator, SmallBlocksTakeTheAlignmentAsked) {
  // 16-byte elements in 64-byte-aligned blocks, at every size a growing vector goes through.
  struct Pair {
    std::uint64_t a;
    std::uint64_t b;
  };
  std::vector<Pair, MappedAllocator<Pair, 64>> v;
  for (std::uint64_t i = 0; i < 5000; ++i) {
    v.push_back(Pair{i, ~i});
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(v.data()) % 64, 0U) << "size " << v.size();
  }
  EXPECT_EQ(v[4321].b, ~std::uint64_t{4321});
}

}  // namespace
}  // namespace sbrdma::sim
