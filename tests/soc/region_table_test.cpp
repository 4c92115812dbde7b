#include "soc/region_table.h"

#include <gtest/gtest.h>

namespace sbrdma::soc {
namespace {

Region make(const char* name, std::uint64_t base, std::uint64_t size) {
  Region r;
  r.name = name;
  r.base = base::SocAddr{base};
  r.size = size;
  return r;
}

TEST(RegionTable, FindsByAddressAndEdges) {
  RegionTable t;
  ASSERT_TRUE(t.insert(make("B", 0x2000, 0x1000)).ok());
  ASSERT_TRUE(t.insert(make("A", 0x1000, 0x1000)).ok());  // adjacent below: allowed
  ASSERT_TRUE(t.insert(make("C", 0x8000, 0x10)).ok());
  EXPECT_EQ(t.regions()[0].name, "A");  // sorted by base
  EXPECT_EQ(t.find(base::SocAddr{0x0FFF}), nullptr);
  EXPECT_EQ(t.find(base::SocAddr{0x1000})->name, "A");
  EXPECT_EQ(t.find(base::SocAddr{0x1FFF})->name, "A");
  EXPECT_EQ(t.find(base::SocAddr{0x2000})->name, "B");
  EXPECT_EQ(t.find(base::SocAddr{0x3000}), nullptr);
  EXPECT_EQ(t.find(base::SocAddr{0x800F})->name, "C");
  EXPECT_EQ(t.find(base::SocAddr{0x8010}), nullptr);
}

TEST(RegionTable, RefusesOverlap) {
  RegionTable t;
  ASSERT_TRUE(t.insert(make("A", 0x1000, 0x1000)).ok());
  auto below = t.insert(make("X", 0x0800, 0x0801));  // last byte inside A
  ASSERT_FALSE(below.ok());
  EXPECT_NE(below.error().message.find("overlaps A"), std::string::npos);
  EXPECT_FALSE(t.insert(make("Y", 0x1FFF, 0x10)).ok());     // first byte inside A
  EXPECT_FALSE(t.insert(make("Z", 0x1100, 0x10)).ok());     // inside A
  EXPECT_FALSE(t.insert(make("W", 0x0000, 0x10000)).ok());  // covers A
  EXPECT_FALSE(t.insert(make("A2", 0x1000, 0x1000)).ok());  // same range
  EXPECT_EQ(t.regions().size(), 1U);  // nothing was added by the refused inserts
}

TEST(RegionTable, RefusesEmptyAndWrapping) {
  RegionTable t;
  EXPECT_FALSE(t.insert(make("E", 0x1000, 0)).ok());
  EXPECT_FALSE(t.insert(make("W", ~0ULL - 0xF, 0x10)).ok());
  EXPECT_TRUE(t.insert(make("T", ~0ULL - 0xF, 0xF)).ok());
}

}  // namespace
}  // namespace sbrdma::soc
