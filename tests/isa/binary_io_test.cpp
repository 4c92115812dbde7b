// Words <-> raw bytes and hex text.

#include "isa/binary_io.h"

#include <gtest/gtest.h>

#include <cctype>

namespace sbrdma::isa {
namespace {

using namespace std::string_literals;

Word counting_word(std::uint8_t start) {
  Word w{};
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::uint8_t>(start + i);
  return w;
}

TEST(BinaryIo, BytesRoundTrip) {
  const std::vector<Word> words{counting_word(0), counting_word(100)};
  const std::vector<std::uint8_t> bytes = words_to_bytes(words);
  ASSERT_EQ(bytes.size(), 128u);
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[64], 100);
  EXPECT_EQ(words_from_bytes(bytes).value(), words);
  EXPECT_TRUE(words_from_bytes({}).value().empty());
}

TEST(BinaryIo, TruncatedBytes) {
  const std::vector<std::uint8_t> bytes(100, 0);
  auto r = words_from_bytes(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "truncated: 100 bytes is not a multiple of 64");
  EXPECT_FALSE(words_from_bytes(std::vector<std::uint8_t>(63)).ok());
  // Bytes that are all text are likely hex words or assembly given to the binary reader.
  const std::vector<std::uint8_t> text(100, 'a');
  EXPECT_EQ(words_from_bytes(text).error().message,
            "truncated: 100 bytes is not a multiple of 64 (the input is text: hex words need "
            "--hex, assembly 'sbrdma asm')");
  // A whole number of words is words, whatever the bytes: no control byte at all (0xff, or
  // ASCII '0' written by `asm` from a .raw line) is no error.
  const std::vector<std::uint8_t> all_ff(64, 0xff);
  ASSERT_TRUE(words_from_bytes(all_ff).ok());
  EXPECT_EQ(words_from_bytes(all_ff)->size(), 1u);
  EXPECT_EQ(words_from_bytes(std::vector<std::uint8_t>(129 * 64, 'a'))->size(), 129u);
  EXPECT_FALSE(words_from_bytes(std::vector<std::uint8_t>(65)).ok());
  // Lines of printable ASCII are text even as a whole number of words (an assembled word's
  // byte 1 is 0x10): two lines of 63 characters.
  std::vector<std::uint8_t> lines(128, 'x');
  lines[63] = '\n';
  lines[127] = '\n';
  lines[5] = '\t';
  EXPECT_EQ(words_from_bytes(lines).error().message,
            "128 bytes of text lines, not binary words: hex words need --hex, assembly 'sbrdma "
            "asm'");
  lines[10] = 0x10;  // a control byte: words
  EXPECT_EQ(words_from_bytes(lines)->size(), 2u);
}

TEST(BinaryIo, ADelByteIsNotPrintableText) {
  // DEL (0x7f) is no printable ASCII: a whole word of line breaks and DEL bytes is a word,
  // not "text lines".
  std::vector<std::uint8_t> bytes(64, 0x7f);
  bytes[20] = '\n';
  ASSERT_TRUE(words_from_bytes(bytes).ok());
  EXPECT_EQ(words_from_bytes(bytes)->size(), 1u);
  // One DEL among printable lines is enough to make them words.
  std::vector<std::uint8_t> lines(64, 'x');
  lines[63] = '\n';
  lines[7] = 0x7f;
  ASSERT_TRUE(words_from_bytes(lines).ok());
  EXPECT_EQ(words_from_bytes(lines)->size(), 1u);
}

TEST(BinaryIo, HexWord) {
  const Word w = counting_word(0xf0);
  const std::string hex = word_to_hex(w);
  ASSERT_EQ(hex.size(), 128u);
  EXPECT_EQ(hex.substr(0, 6), "f0f1f2");
  EXPECT_EQ(parse_hex_word(hex).value(), w);
  EXPECT_EQ(parse_hex_word("  0x" + hex + "\t").value(), w);
  std::string spaced;
  for (std::size_t i = 0; i < hex.size(); i += 8) spaced += hex.substr(i, 8) + " ";
  EXPECT_EQ(parse_hex_word(spaced).value(), w);
  std::string upper = hex;
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  EXPECT_EQ(parse_hex_word(upper).value(), w);
}

TEST(BinaryIo, HexWordErrors) {
  EXPECT_EQ(parse_hex_word("12").error().message, "expected 128 hex digits, got 2");
  EXPECT_EQ(parse_hex_word("").error().message, "expected 128 hex digits, got 0");
  EXPECT_EQ(parse_hex_word(std::string(130, 'a')).error().message,
            "expected 128 hex digits, got 130");
  EXPECT_EQ(parse_hex_word(std::string(127, 'a') + "g").error().message, "bad hex digit 'g'");
  EXPECT_EQ(parse_hex_word("0x0x" + std::string(126, '0')).error().message, "bad hex digit 'x'");
  EXPECT_EQ(parse_hex_word(std::string(127, 'a') + "\xf0").error().message,
            "bad hex digit '\\xf0'");
}

TEST(BinaryIo, BinaryDataGivenAsTextIsOneError) {
  std::string bytes = "# words\n" + std::string(10, 'a');
  bytes += '\0';
  bytes += "\nmore\x01\n";
  const WordsResult r = words_from_hex(bytes, "w.bin");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].format(),
            "w.bin:2: error: byte 0x00 at column 11 is not text (binary input? raw 64-byte words "
            "are read without --hex)");
  EXPECT_FALSE(binary_input_error(split_lines("a\tb\r\n\xc2\xb5\n"), "t", "x").has_value());
  EXPECT_EQ(binary_input_error(split_lines("\x7f"), "t", "why")->format(),
            "t:1: error: byte 0x7f at column 1 is not text (binary input? why)");
  // A comment may hold any byte; the code before it may not.
  EXPECT_FALSE(
      binary_input_error(split_lines("nop # page\f\x1a\x00\nnop\n"s), "t", "x").has_value());
  EXPECT_EQ(binary_input_error(split_lines("# ok\x01\nno\fp # x\n"), "t", "why")->format(),
            "t:2: error: byte 0x0c at column 3 is not text (binary input? why)");
}

TEST(BinaryIo, HexTextWithCommentsAndErrorsPerLine) {
  const std::string good = word_to_hex(counting_word(1));
  const std::string text = "# words\n" + good + "  # first\n\n" + std::string(10, 'f') + "\n" +
                           good + "\n" + std::string(127, '0') + "q\n";
  const WordsResult r = words_from_hex(text, "in.hex");
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].format(), "in.hex:4: error: expected 128 hex digits, got 10");
  EXPECT_EQ(r.errors[1].format(), "in.hex:6: error: bad hex digit 'q'");
  EXPECT_EQ(r.words.size(), 2u);
  const std::vector<Word> words{counting_word(1), counting_word(2)};
  const WordsResult back = words_from_hex(words_to_hex(words), "x");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.words, words);
  EXPECT_EQ(words_to_hex(words).back(), '\n');
}

TEST(BinaryIo, LinesAndComments) {
  EXPECT_EQ(split_lines("a\r\nb\n\nc"), (std::vector<std::string_view>{"a", "b", "", "c"}));
  EXPECT_EQ(split_lines("a\n"), (std::vector<std::string_view>{"a"}));
  // A lone CR ends a line too (classic Mac text), so line numbers count it; CRLF is one break.
  EXPECT_EQ(split_lines("a\rb\r\rc\r\nd\r"),
            (std::vector<std::string_view>{"a", "b", "", "c", "d"}));
  EXPECT_EQ(split_lines("\r\n\n\r"), (std::vector<std::string_view>{"", "", ""}));
  EXPECT_TRUE(split_lines("").empty());
  EXPECT_EQ(strip_comment("  x y  # z"), "x y");
  EXPECT_EQ(strip_comment("# all"), "");
}

}  // namespace
}  // namespace sbrdma::isa
