// Seeded round-trip sweeps over the whole op table: random legal words survive
// print -> parse and encode -> decode exactly; arbitrary bytes survive disasm -> asm.

#include <gtest/gtest.h>

#include "isa/assembler.h"
#include "isa/binary_io.h"
#include "isa/printer.h"
#include "isa/validate.h"
#include "sweep_util.h"

namespace sbrdma::isa {
namespace {

constexpr std::uint32_t kSeed = 20260101;
constexpr int kWordsPerOp = 200;

/// encode(decode(w)) == w for the ops with a typed view; false if `w` has none.
bool typed_round_trip(const Word& w) {
  const std::string_view m = find_op(w)->mnemonic;
  if (m == "rdma_desc_gen") return encode(decode_rdma_desc_gen(w).value()) == w;
  if (m == "rdma_desc_start") return encode(decode_rdma_desc_start(w).value()) == w;
  if (m == "sb2sb_collective") return encode(decode_sb2sb_collective(w).value()) == w;
  if (m == "ext_tensor_tensor_arith") return encode(decode_ext_tensor_tensor_arith(w).value()) == w;
  if (m == "event_semaphore") return encode(decode_event_semaphore(w).value()) == w;
  return true;  // opaque ops: no typed view
}

TEST(RoundTrip, RandomLegalWordsOfEveryOp) {
  testing::RandomWords rnd(kSeed);
  std::vector<Word> all;
  for (const OpDesc& op : all_ops()) {
    SCOPED_TRACE(op.mnemonic);
    for (int i = 0; i < kWordsPerOp; ++i) {
      const Word w = rnd.word(op);
      const Problems problems = validate(w);
      ASSERT_TRUE(problems.empty()) << problems.front().message;
      ASSERT_EQ(find_op(w), &op);
      const std::string text = print_word(w);
      base::Errors errors;
      const auto parsed = parse_instruction(text, base::SourceLoc{"sweep", i + 1}, errors);
      ASSERT_TRUE(parsed.has_value()) << text << "\n" << errors.front().format();
      ASSERT_EQ(*parsed, w) << text;
      ASSERT_EQ(print_word(*parsed), text);
      ASSERT_TRUE(typed_round_trip(w)) << text;
      all.push_back(w);
    }
  }
  // The whole batch through the file-level paths: disassemble, assemble; bytes; hex.
  const AsmResult r = assemble(disassemble(all), "sweep.s");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.word_list(), all);
  EXPECT_EQ(words_from_bytes(words_to_bytes(all)).value(), all);
  const WordsResult hex = words_from_hex(words_to_hex(all), "sweep.hex");
  ASSERT_TRUE(hex.ok());
  EXPECT_EQ(hex.words, all);
}

TEST(RoundTrip, ArbitraryBytesSurviveDisasmAsm) {
  testing::RandomWords rnd(kSeed + 1);
  std::vector<Word> words;
  for (int i = 0; i < 500; ++i) {
    Word w{};
    for (std::uint8_t& b : w) b = static_cast<std::uint8_t>(rnd.below(256));
    if (rnd.one_in(2))
      w[0] = all_ops()[rnd.below(static_cast<std::uint32_t>(all_ops().size()))].opcode;
    words.push_back(w);
  }
  // Valid words with one byte changed: sometimes still valid, often not.
  for (const OpDesc& op : all_ops()) {
    for (int i = 0; i < 20; ++i) {
      Word w = rnd.word(op);
      w[rnd.below(kWordBytes)] ^= static_cast<std::uint8_t>(1u << rnd.below(8));
      words.push_back(w);
    }
  }
  const std::string text = disassemble(words);
  const AsmResult r = assemble(text, "any.s");
  ASSERT_TRUE(r.ok()) << r.errors.front().format();
  EXPECT_EQ(r.word_list(), words);
  EXPECT_EQ(disassemble(r.word_list()), text);
}

}  // namespace
}  // namespace sbrdma::isa
