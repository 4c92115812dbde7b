// The assembler: exact diagnostics for bad input (tests/data/isa/bad_*.s -> bad_*.err),
// directive handlers, source lines, and the freedoms of the text syntax.

#include "isa/assembler.h"

#include <gtest/gtest.h>

#include "isa/printer.h"
#include "isa/text_values.h"
#include "test_util.h"

namespace sbrdma::isa {
namespace {

using testing::data_files;
using testing::read_text;

std::string formatted(const base::Errors& errors) {
  std::string out;
  for (const base::Error& e : errors) out += e.format() + '\n';
  return out;
}

TEST(Assembler, BadFilesGiveExactDiagnostics) {
  const auto files = data_files("bad_", ".s");
  EXPECT_GE(files.size(), 11u);
  for (const auto& s : files) {
    SCOPED_TRACE(s.filename().string());
    auto err = s;
    err.replace_extension(".err");
    const AsmResult r = assemble(read_text(s), s.filename().string());
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(formatted(r.errors), read_text(err));
  }
}

TEST(Assembler, GoodLinesAroundBadOnesStillAssemble) {
  const AsmResult r = assemble("rdma_desc_start\nfrob\nrdma_desc_start wait_idx=1\n", "x.s");
  ASSERT_EQ(r.errors.size(), 1u);
  ASSERT_EQ(r.words.size(), 2u);
  EXPECT_EQ(r.words[0].loc.line, 1);
  EXPECT_EQ(r.words[1].loc.line, 3);
  EXPECT_EQ(r.words[1].loc.file, "x.s");
}

TEST(Assembler, LineNumbersCountEveryKindOfLineBreak) {
  // LF, CRLF and a lone CR (classic Mac text) each end a line: the error is on line 4.
  const AsmResult r = assemble("rdma_desc_start\r\nrdma_desc_start\r\rfrob\n", "x.s");
  ASSERT_EQ(r.words.size(), 2u);
  EXPECT_EQ(r.words[1].loc.line, 2);
  EXPECT_EQ(formatted(r.errors), "x.s:4: error: unknown mnemonic 'frob'\n");
}

TEST(Assembler, KeyOrderExplicitDefaultsAndSpacingDoNotMatter) {
  const AsmResult canonical =
      assemble("rdma_desc_gen local_sem=3 dma_engine_mask=0xffff src_addr=0x1000\n", "a");
  const AsmResult loose = assemble(
      "  rdma_desc_gen\tsrc_addr=4096   dma_engine_mask=65535 local_sem=0x3 wait_mode=none "
      "inst_word_len=16 remote_sem=0 is_bidirectional=0  # comment\r\n",
      "b");
  ASSERT_TRUE(canonical.ok() && loose.ok()) << formatted(loose.errors);
  EXPECT_EQ(canonical.word_list(), loose.word_list());
}

// A '_' between two digits groups them, as on the command line; a stray one is no number.
TEST(Assembler, AnUnderscoreGroupsDigits) {
  const AsmResult plain = assemble(
      "rdma_desc_gen local_sem=3 dma_engine_mask=0xffff src_addr=0x10000 free_dim_bytes=4096 "
      "semaphore_value=-1000\n",
      "a");
  const AsmResult grouped = assemble(
      "rdma_desc_gen local_sem=3 dma_engine_mask=0xff_ff src_addr=0x1_0000 free_dim_bytes=4_096 "
      "semaphore_value=-1_000\n",
      "b");
  ASSERT_TRUE(plain.ok() && grouped.ok()) << formatted(grouped.errors);
  EXPECT_EQ(plain.word_list(), grouped.word_list());
  EXPECT_EQ(
      formatted(assemble("rdma_desc_gen dma_engine_mask=0xff__ff local_sem=_3\n", "c").errors),
      "c:1: error: bad number '0xff__ff' for dma_engine_mask\n"
      "c:1: error: bad number '_3' for local_sem\n");
}

// A semaphore value is signed 32-bit (D11): -1 is 0xffffffff; below -2^31 is out of range.
TEST(Assembler, SemaphoreValueMayBeNegative) {
  const AsmResult neg = assemble("event_semaphore semaphore_value=-1\n", "a");
  const AsmResult hex = assemble("event_semaphore semaphore_value=0xffffffff\n", "b");
  ASSERT_TRUE(neg.ok() && hex.ok()) << formatted(neg.errors);
  EXPECT_EQ(neg.word_list(), hex.word_list());
  EXPECT_EQ(assemble("event_semaphore semaphore_value=-2147483648\n", "c").word_list()[0][11],
            0x80);
  EXPECT_EQ(formatted(assemble("event_semaphore semaphore_value=-2147483649\n", "d").errors),
            "d:1: error: value -2147483649 out of range for semaphore_value "
            "(-2147483648..4294967295)\n");
  // Other unsigned fields stay unsigned.
  EXPECT_FALSE(assemble("event_semaphore wait_idx=-1\n", "e").ok());
}

// A well-formed number too large for 64 bits is out of the field's range, like one that fits
// 64 bits but not the field; only text that is no number is a bad number.
TEST(Assembler, NumberPast64BitsIsOutOfRange) {
  EXPECT_EQ(formatted(assemble("rdma_desc_gen local_sem=99999999999999999999999 "
                               "src_addr=0x1ffffffffffffffff remote_sem=-99999999999999999999 "
                               "dst_addr=1x\n",
                               "a.s")
                          .errors),
            "a.s:1: error: value 99999999999999999999999 out of range for local_sem (0..255)\n"
            "a.s:1: error: value 0x1ffffffffffffffff out of range for src_addr (0..0x1fffffff)\n"
            "a.s:1: error: value -99999999999999999999 out of range for remote_sem (0..255)\n"
            "a.s:1: error: bad number '1x' for dst_addr\n");
  EXPECT_FALSE(parse_number("99999999999999999999999"));
}

// A field without negative values takes no sign, not even on zero; a signed one takes "-0".
TEST(Assembler, MinusZeroOnlyForSignedFields) {
  EXPECT_EQ(formatted(assemble("rdma_desc_start wait_idx=-0\n", "m.s").errors),
            "m.s:1: error: value -0 for wait_idx takes no sign (0..255)\n");
  EXPECT_EQ(formatted(assemble("rdma_desc_start wait_idx=-1\n", "m.s").errors),
            "m.s:1: error: value -1 out of range for wait_idx (0..255)\n");
  EXPECT_TRUE(assemble("event_semaphore semaphore_value=-0\n", "m.s").ok());
}

TEST(Assembler, CommentsAndBlankLinesAreSkipped) {
  const AsmResult r = assemble("# header\n\n   \nrdma_desc_start # trailing\n# end", "c.s");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.words.size(), 1u);
  EXPECT_EQ(r.words[0].loc.line, 4);
}

TEST(Assembler, RawEmitsTheWordVerbatimEvenIfInvalid) {
  const std::string hex(128, '0');
  const AsmResult r =
      assemble(".raw 0x" + hex + "\n.raw " + hex.substr(0, 64) + " " + hex.substr(64), "r");
  ASSERT_TRUE(r.ok()) << formatted(r.errors);
  ASSERT_EQ(r.words.size(), 2u);
  EXPECT_EQ(r.words[0].word, Word{});
  EXPECT_EQ(r.words[1].word, Word{});
}

TEST(Assembler, DirectiveHandlerSeesDirectivesInOrderWithTheirLines) {
  std::vector<std::pair<std::string, int>> seen;
  DirectiveHandler handler = [&](std::string_view line,
                                 const base::SourceLoc& loc) -> base::Errors {
    seen.emplace_back(std::string(line), loc.line);
    if (line.rfind(".bad", 0) == 0) {
      return {base::make_error("handler says no"), base::make_error("and says why")};
    }
    return {};
  };
  const AsmResult r = assemble(
      ".core 1  # first core\nrdma_desc_start\n.core 2\n.bad\nrdma_desc_start\n", "p.s", handler);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], (std::pair<std::string, int>{".core 1", 1}));
  EXPECT_EQ(seen[1], (std::pair<std::string, int>{".core 2", 3}));
  ASSERT_EQ(r.errors.size(), 2u);  // every error of the line
  EXPECT_EQ(r.errors[0].format(), "p.s:4: error: handler says no");
  EXPECT_EQ(r.errors[1].format(), "p.s:4: error: and says why");
  ASSERT_EQ(r.words.size(), 2u);
  EXPECT_EQ(r.words[0].loc.line, 2);
  EXPECT_EQ(r.words[1].loc.line, 5);
}

TEST(Assembler, HandlerErrorWithItsOwnLocationKeepsIt) {
  DirectiveHandler handler = [](std::string_view, const base::SourceLoc&) -> base::Errors {
    return {base::make_error(base::SourceLoc{"other.json", 7}, "bad topology")};
  };
  const AsmResult r = assemble(".topology x\n", "p.s", handler);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].format(), "other.json:7: error: bad topology");
}

// A token is echoed cut to 40 characters, the last three "...", however long it is.
TEST(Assembler, LongTokensAreEchoedCut) {
  const std::string x(1'000'000, 'x');
  const std::string cut = std::string(37, 'x') + "...";
  const std::string zeros = "0x" + std::string(1'000'000, '0') + "1ff";
  const AsmResult r =
      assemble(x + "\nrdma_desc_start " + x + " " + x + "=1 wait_idx=" + x + " wait_mode=" + x +
                   "\nrdma_desc_start wait_idx=" + zeros + "\n." + x + "\n",
               "a.s");
  EXPECT_EQ(formatted(r.errors),
            "a.s:1: error: unknown mnemonic '" + cut + "'\n" +    //
                "a.s:2: error: missing '=' in '" + cut + "'\n" +  //
                "a.s:2: error: unknown field '" + cut + "' for rdma_desc_start\n" +
                "a.s:2: error: bad number '" + cut + "' for wait_idx\n" +  //
                "a.s:2: error: unknown WAIT_MODE '" + cut + "' for wait_mode (" +
                enum_names(kWaitModeEnum) + ")\n" +  //
                "a.s:3: error: value 0x" + std::string(35, '0') +
                "... out of range for wait_idx (0..255)\n" +  //
                "a.s:4: error: unknown directive '." + std::string(36, 'x') + "...'\n");
}

TEST(Assembler, ParseInstructionValidates) {
  base::Errors errors;
  EXPECT_FALSE(parse_instruction("rdma_desc_gen dma_engine_mask=0x3 is_bidirectional=2",
                                 base::SourceLoc{"l", 9}, errors));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].format(), "l:9: error: rdma_desc_gen: is_bidirectional=2 is not supported");
  errors.clear();
  auto w = parse_instruction("rdma_desc_gen dma_engine_mask=0x3", base::SourceLoc{"l", 1}, errors);
  ASSERT_TRUE(w.has_value());
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(print_word(*w), "rdma_desc_gen dma_engine_mask=0x3");
}

TEST(ParseNumber, DecimalHexNegativeAndLimits) {
  EXPECT_EQ(parse_number("0"), 0);
  EXPECT_EQ(parse_number("4096"), 4096);
  EXPECT_EQ(parse_number("0x1F"), 31);
  EXPECT_EQ(parse_number("0Xff"), 255);
  EXPECT_EQ(parse_number("-32768"), -32768);
  EXPECT_EQ(parse_number("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parse_number("-9223372036854775808"), INT64_MIN);
  EXPECT_FALSE(parse_number("9223372036854775808"));
  EXPECT_FALSE(parse_number(""));
  EXPECT_FALSE(parse_number("-"));
  EXPECT_FALSE(parse_number("0x"));
  EXPECT_FALSE(parse_number("-0x1"));
  EXPECT_FALSE(parse_number("+1"));
  EXPECT_FALSE(parse_number("1e3"));
  EXPECT_FALSE(parse_number(" 1"));
}

}  // namespace
}  // namespace sbrdma::isa
