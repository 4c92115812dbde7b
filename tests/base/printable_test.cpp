#include "base/printable.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

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

/// What bash makes of `word`: the one argument it passes (printf %s prints it back).
std::string as_bash_reads(const std::string& word) {
  // popen's sh may be dash, which has no $'...': the line goes to bash as a quoted here-document
  // (shell_word's words hold no newline).
  const std::string cmd = "bash <<'SBRDMA_END'\nprintf %s " + word + "\nSBRDMA_END\n";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "(popen failed)";
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(ShellWord, QuotesOnlyWhatAShellWouldReadOtherwise) {
  EXPECT_EQ(shell_word("topo/trn2-x_1.json"), "topo/trn2-x_1.json");
  EXPECT_EQ(shell_word("a=b,c:d@e%f+g"), "a=b,c:d@e%f+g");
  EXPECT_EQ(shell_word(""), "''");
  EXPECT_EQ(shell_word("=x.json"), "'=x.json'");  // zsh expands a leading '='
  EXPECT_EQ(shell_word("a=b"), "a=b");
  EXPECT_EQ(shell_word("\x01"
                       "F"s),
            "$'\\x01F'");  // two digits: the F stays a letter
  EXPECT_EQ(shell_word("my topo.json"), "'my topo.json'");
  EXPECT_EQ(shell_word("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_word("a$(echo hi).json"), "'a$(echo hi).json'");
  EXPECT_EQ(shell_word("p\x1b.s"s), "$'p\\x1b.s'");
  EXPECT_EQ(shell_word("a\\b'\n"s), "$'a\\\\b\\'\\x0a'");
  // Long names come whole (a path is often past printable_brief's 40 characters) up to 4096.
  const std::string path = "/home/user/projects/cluster/topologies/" + std::string(100, 'x');
  EXPECT_EQ(shell_word(path), path);
  EXPECT_EQ(shell_word(std::string(5000, 'x')), printable_brief(std::string(5000, 'x')));
}

TEST(ShellWord, BashReadsBackTheSameBytes) {
  std::vector<std::string> words = {"plain.json",
                                    "my topo'x.json",
                                    "a$(echo hi).json",
                                    "`x` \"y\" \\ * ? ~ # ! & ; | < > ( ) { } [ ]",
                                    "",
                                    "p\x1b.s"s,
                                    "tab\there",
                                    "\xc3\xa9t\xc3\xa9\x01"
                                    "F"s,
                                    "=x.json",
                                    "-d"};
  std::string every;  // every byte but NUL, which no argument can hold
  for (int c = 1; c < 256; ++c) every += static_cast<char>(c);
  words.push_back(every);
  for (const std::string& w : words) {
    EXPECT_EQ(as_bash_reads(shell_word(w)), w) << printable(w) << " as " << shell_word(w);
  }
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
  // A UTF-8 character is kept whole or not at all: 'x' and 4 of the 2-byte characters (33
  // characters printed) leave 4 for a fifth's 8; it is cut before its first byte.
  std::string utf8 = "x";
  for (int i = 0; i < 12; ++i) utf8 += "\xc3\xa9";
  EXPECT_EQ(printable_brief(utf8), "x" + printable("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9") + "...");
  // Bytes that are no UTF-8 character are cut where they fall, none lost before the cut.
  EXPECT_EQ(printable_brief("ab" + std::string(20, '\xbf')),
            "ab" + printable(std::string(8, '\xbf')) + "...");
  EXPECT_EQ(printable_brief(std::string(20, '\x80')), printable(std::string(9, '\x80')) + "...");
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

TEST(Printable, XmlCodePointsDecodeWhatFirstNonXmlUtf8Accepts) {
  EXPECT_EQ(xml_code_points(""), std::vector<char32_t>{});
  EXPECT_EQ(xml_code_points("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\xc2\x9b"s),
            (std::vector<char32_t>{'c', 'a', 'f', 0xe9, ' ', 0x20ac, ' ', 0x1f600, 0x9b}));
  EXPECT_EQ(xml_code_points("\xf4\x8f\xbf\xbd"s), std::vector<char32_t>{0x10fffd});
}

TEST(Printable, FindsTheFirstByteThatIsNotXmlText) {
  constexpr auto npos = std::string_view::npos;
  EXPECT_EQ(first_non_xml_utf8("trn2 & co"), npos);
  EXPECT_EQ(first_non_xml_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"s), npos);
  EXPECT_EQ(first_non_xml_utf8("\xef\xbf\xbd"s), npos);      // U+FFFD is a character
  EXPECT_EQ(first_non_xml_utf8("\xf4\x8f\xbf\xbd"s), npos);  // U+10FFFD, the last allowed
  EXPECT_EQ(first_non_xml_utf8("n\xe9"s), 1U);               // Latin-1, not UTF-8
  EXPECT_EQ(first_non_xml_utf8("\xc0\xaf"s), 0U);            // overlong '/'
  EXPECT_EQ(first_non_xml_utf8("\xe0\x80\xaf"s), 0U);        // overlong, three bytes
  EXPECT_EQ(first_non_xml_utf8("ab\xed\xa0\x80"s), 2U);      // a surrogate
  EXPECT_EQ(first_non_xml_utf8("\xf4\x90\x80\x80"s), 0U);    // past U+10FFFF
  EXPECT_EQ(first_non_xml_utf8("a\xef\xbf\xbf"
                               "b"s),
            1U);                                               // U+FFFF
  EXPECT_EQ(first_non_xml_utf8("\xef\xbf\xbe"s), 0U);          // U+FFFE
  EXPECT_EQ(first_non_xml_utf8("a\xe2\x82"s), 1U);             // cut short
  EXPECT_EQ(first_non_xml_utf8("\xe2\x28\xa1"s), 0U);          // not a continuation
  EXPECT_EQ(first_non_xml_utf8("\x80"s), 0U);                  // a lone continuation
  EXPECT_EQ(first_non_xml_utf8("\xf8\x88\x80\x80\x80"s), 0U);  // five bytes
  EXPECT_EQ(first_non_xml_utf8(""), npos);
  // The faulty unit's bytes: a whole sequence that holds a disallowed character, else the lead
  // byte and the continuations it has.
  EXPECT_EQ(non_xml_utf8_length("a\xef\xbf\xbf"
                                "bcd"s,
                                1),
            3U);
  EXPECT_EQ(non_xml_utf8_length("\xf4\x90\x80\x80xyz"s, 0), 4U);
  EXPECT_EQ(non_xml_utf8_length("n\xe9xyz"s, 1), 1U);
  EXPECT_EQ(non_xml_utf8_length("\xe2\x28\xa1"s, 0), 1U);
  EXPECT_EQ(non_xml_utf8_length("a\xe2\x82"s, 1), 2U);
  EXPECT_EQ(non_xml_utf8_length("\x80\x80"s, 0), 1U);
  EXPECT_EQ(non_xml_utf8_length("\xf8\x88\x80\x80\x80"s, 0), 1U);
}

}  // namespace
}  // namespace sbrdma::base
