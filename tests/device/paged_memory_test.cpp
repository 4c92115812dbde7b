// PagedMemory: lazy pages, zero reads, valid ranges with holes, run-wise copies.
#include "device/paged_memory.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace sbrdma::device {
namespace {

TEST(PagedMemory, ReadsOfUntouchedMemoryAreZeroAndAllocateNothing) {
  PagedMemory m(1 << 20, 64 << 10, 64 << 10);
  std::vector<std::uint8_t> out(100, 0xAA);
  m.read(12345, out);
  EXPECT_EQ(out, std::vector<std::uint8_t>(100, 0));
  EXPECT_EQ(m.allocated_pages(), 0U);
  const std::vector<std::uint8_t> in{1, 2, 3};
  m.write((64 << 10) - 1, in);  // straddles pages 0 and 1
  EXPECT_EQ(m.allocated_pages(), 2U);
  std::vector<std::uint8_t> back(3);
  m.read((64 << 10) - 1, back);
  EXPECT_EQ(back, in);
}

TEST(PagedMemory, HolesAreOutsideEveryValidRange) {
  PagedMemory sbuf(4 * 256, 256, 224);  // 4 partitions, 224 of 256 bytes active
  EXPECT_TRUE(sbuf.valid_range(0, 224));
  EXPECT_FALSE(sbuf.valid_range(0, 225));
  EXPECT_FALSE(sbuf.valid_range(224, 1));
  EXPECT_TRUE(sbuf.valid_range(256 + 200, 24));
  EXPECT_FALSE(sbuf.valid_range(256 + 200, 60));  // would run into the hole and beyond
  EXPECT_FALSE(sbuf.valid_range(4 * 256, 1));
  EXPECT_TRUE(sbuf.valid_range(4 * 256, 0));
  EXPECT_FALSE(sbuf.valid_range(~std::uint64_t{0}, 2));
}

TEST(PagedMemory, CopyAcrossPagesAndOverlapping) {
  PagedMemory a(1 << 20, 4096, 4096);
  std::vector<std::uint8_t> src(10000);
  std::iota(src.begin(), src.end(), 0);
  a.write(100, src);
  PagedMemory b(1 << 20, 4096, 4096);
  copy_bytes(a, 100, b, 5000, src.size());
  std::vector<std::uint8_t> got(src.size());
  b.read(5000, got);
  EXPECT_EQ(got, src);
  copy_bytes(a, 100, a, 150, src.size());  // overlapping, forward: memmove semantics
  a.read(150, got);
  EXPECT_EQ(got, src);
}

}  // namespace
}  // namespace sbrdma::device
