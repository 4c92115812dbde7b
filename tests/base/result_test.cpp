#include "base/result.h"

#include <gtest/gtest.h>

#include "base/bits.h"
#include "base/units.h"

namespace sbrdma::base {
namespace {

Result<int> parse_small(int v) {
  if (v > 10) return make_error(SourceLoc{"in.s", 3}, "value too large");
  return v;
}

Status chain(int v) {
  SBRDMA_TRY(parse_small(v));
  return ok_status();
}

TEST(Result, CarriesValueOrError) {
  auto a = parse_small(4);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, 4);
  auto b = parse_small(11);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().format(), "in.s:3: error: value too large");
}

TEST(Result, TryPropagates) {
  EXPECT_TRUE(chain(1).ok());
  EXPECT_EQ(chain(12).error().message, "value too large");
}

TEST(Error, FormatsWithoutLineOrFile) {
  EXPECT_EQ(make_error(SourceLoc{"f.bin", 0}, "truncated").format(), "f.bin: error: truncated");
  EXPECT_EQ(make_error("bad flag").format(), "error: bad flag");
  // A file name is user text: its control bytes are echoed as \xNN, never sent to a terminal.
  EXPECT_EQ(make_error(SourceLoc{"a\x1b[31m.s", 2}, "bad").format(), "a\\x1b[31m.s:2: error: bad");
  // The message quotes user text too: escaped the same way, a NUL included (it would cut the
  // printed line short), and text escaped before stays as it was.
  EXPECT_EQ(make_error(std::string("unknown profile '") + '\0' + "tail\x1b[31m'").format(),
            "error: unknown profile '\\x00tail\\x1b[31m'");
  EXPECT_EQ(make_error("bad hex digit '\\xf0'").format(), "error: bad hex digit '\\xf0'");
}

// where() is format()'s location alone, for a line that heads the error otherwise (the
// demo's internal error): the line number kept, the file name escaped as format() escapes it.
TEST(Error, WhereIsTheLocationFormatPrints) {
  EXPECT_EQ(make_error(SourceLoc{"in.s", 3}, "x").where(), "in.s:3: ");
  EXPECT_EQ(make_error(SourceLoc{"f.bin", 0}, "x").where(), "f.bin: ");
  EXPECT_EQ(make_error("x").where(), "");
  EXPECT_EQ(make_error(SourceLoc{"a\x1b.s", 2}, "x").where(), "a\\x1b.s:2: ");
  EXPECT_EQ(make_error(SourceLoc{"a\x1b[31m.s", 2}, "bad").where() + "error: bad",
            make_error(SourceLoc{"a\x1b[31m.s", 2}, "bad").format());
}

TEST(Bits, FieldGetSet) {
  constexpr BitField f{25, 24};
  static_assert(f.width() == 2);
  static_assert(f.mask() == 0x03000000);
  EXPECT_EQ(f.get(0x02000000), 2u);
  EXPECT_EQ(f.set(0xFFFFFFFF, 1), 0xFDFFFFFFu);
  EXPECT_TRUE(f.fits(3));
  EXPECT_FALSE(f.fits(4));
  EXPECT_EQ(bit(47).set(0, 1), 0x800000000000u);
}

TEST(Bits, LittleEndian) {
  std::uint8_t buf[4];
  store_le<std::uint32_t>(buf, 0x01020304);
  EXPECT_EQ(buf[0], 4);
  EXPECT_EQ(buf[3], 1);
  EXPECT_EQ(load_le<std::uint32_t>(buf), 0x01020304u);
}

TEST(Units, Arithmetic) {
  EXPECT_EQ((nanoseconds(2) + picoseconds(5)).ps, 2005u);
  EXPECT_LT(nanoseconds(1), microseconds(1));
  EXPECT_EQ(kib(224).n, 229376u);
  EXPECT_EQ((SocAddr{0x2000000000} + 0x1800).v, 0x2000001800u);
}

}  // namespace
}  // namespace sbrdma::base
