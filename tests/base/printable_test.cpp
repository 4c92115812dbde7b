#include "base/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace sbrdma::base {
namespace {

using namespace std::string_literals;

TEST(Printable, EscapesEveryByteOutsidePrintableAscii) {
  EXPECT_EQ(printable("rdma_desc_gen x=1"), "rdma_desc_gen x=1");
  EXPECT_EQ(printable("\xf0\x10"s), "\\xf0\\x10");
  EXPECT_EQ(printable("a\0b"s), "a\\x00b");  // a NUL no longer cuts the message short
  EXPECT_EQ(printable("\t\n\x7f"s), "\\x09\\x0a\\x7f");
  EXPECT_EQ(printable(" ~"), " ~");
}

TEST(Printable, BriefCutsAtFortyCharactersAndSaysSo) {
  const std::string forty(40, 'x');
  EXPECT_EQ(printable_brief(forty), forty) << "40 characters fit";
  EXPECT_EQ(printable_brief(forty + "y"), std::string(37, 'x') + "...");
  EXPECT_EQ(printable_brief(std::string(20'000'000, 'x')), std::string(37, 'x') + "...");
  EXPECT_EQ(printable_brief("a\0b"s), "a\\x00b");
  // Ten escapes are 40 characters and fit; of eleven, nine (36) and the marker are kept: a
  // tenth would pass 37 characters, and half an escape would misread as other bytes.
  EXPECT_EQ(printable_brief(std::string(10, '\x01')), printable(std::string(10, '\x01')));
  EXPECT_EQ(printable_brief(std::string(11, '\x01')), printable(std::string(9, '\x01')) + "...");
}

// RFC 6901: '~' is "~0" and '/' is "~1" in a path segment; the key is cut before it is
// escaped, so no escape is split.
TEST(Printable, JsonChildEscapesTheKeyAfterCuttingIt) {
  EXPECT_EQ(json_child("", "chips"), "/chips");
  EXPECT_EQ(json_child("/params", "a/b~c"), "/params/a~1b~0c");
  EXPECT_EQ(json_child("/x", "\n"), "/x/\\x0a");
  EXPECT_EQ(json_child("/x", std::string(39, 'k') + "/k"), "/x/" + std::string(37, 'k') + "...");
  EXPECT_EQ(json_child("/x", std::string(36, 'k') + "/kkkk"),
            "/x/" + std::string(36, 'k') + "~1...");
}

TEST(Printable, FindsTheFirstControlByte) {
  EXPECT_EQ(first_control_byte("nop\r\n\tx = 1\n"), std::string_view::npos);
  EXPECT_EQ(first_control_byte("# 5 \xc2\xb5s\n"s), std::string_view::npos);  // UTF-8 is text
  EXPECT_EQ(first_control_byte("ab\0c"s), 2U);
  EXPECT_EQ(first_control_byte("abc\x7f"s), 3U);
  EXPECT_EQ(first_control_byte("\x1b[0m"s), 0U);
  EXPECT_EQ(first_control_byte(""), std::string_view::npos);
}

}  // namespace
}  // namespace sbrdma::base
