// Golden files: text -> exact bytes and bytes -> exact text for every op, with the bytes
// written by hand from the spec's offset tables (tests/data/isa/golden_*.bytes).

#include <gtest/gtest.h>

#include <set>

#include "isa/assembler.h"
#include "isa/op_table.h"
#include "isa/printer.h"
#include "test_util.h"

namespace sbrdma::isa {
namespace {

using testing::data_files;
using testing::instruction_lines;
using testing::read_bytes_file;
using testing::read_text;

std::vector<std::filesystem::path> golden_texts() {
  return data_files("golden_", ".s");
}

/// The hand-written words next to a golden `.s` file.
std::vector<Word> golden_words(std::filesystem::path s) {
  s.replace_extension(".bytes");
  bool ok = false;
  std::vector<Word> words = read_bytes_file(s, ok);
  EXPECT_TRUE(ok) << "malformed " << s;
  return words;
}

TEST(Golden, FilesExist) {
  EXPECT_GE(golden_texts().size(), 7u);
}

TEST(Golden, TextAssemblesToHandWrittenBytes) {
  for (const auto& s : golden_texts()) {
    SCOPED_TRACE(s.filename().string());
    const std::vector<Word> expected = golden_words(s);
    const AsmResult r = assemble(read_text(s), s.filename().string());
    ASSERT_TRUE(r.ok()) << r.errors.front().format();
    const std::vector<Word> got = r.word_list();
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], expected[i]) << "word " << i + 1;
    }
  }
}

TEST(Golden, BytesDisassembleToExactText) {
  for (const auto& s : golden_texts()) {
    SCOPED_TRACE(s.filename().string());
    EXPECT_EQ(disassemble(golden_words(s)), instruction_lines(read_text(s)));
  }
}

TEST(Golden, EveryOpHasAGoldenWord) {
  std::set<std::string> seen;
  for (const auto& s : golden_texts()) {
    const AsmResult r = assemble(read_text(s), "x");
    for (const AsmWord& w : r.words) {
      if (const OpDesc* op = find_op(w.word)) seen.insert(std::string(op->mnemonic));
    }
  }
  for (const OpDesc& op : all_ops())
    EXPECT_TRUE(seen.count(std::string(op.mnemonic))) << op.mnemonic;
}

}  // namespace
}  // namespace sbrdma::isa
