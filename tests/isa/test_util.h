#pragma once
// Helpers shared by the isa tests: reading the golden data of tests/data/isa.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "isa/word.h"

namespace sbrdma::isa::testing {

inline std::filesystem::path data_dir() {
  return std::filesystem::path(SBRDMA_TEST_DATA) / "isa";
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The words of a hand-written `.bytes` file: hex byte pairs anywhere, `#` comments skipped.
/// Sets `ok` false if a token is not a byte or the count is not a multiple of 64.
inline std::vector<Word> read_bytes_file(const std::filesystem::path& p, bool& ok) {
  std::vector<std::uint8_t> bytes;
  ok = true;
  std::istringstream in(read_text(p));
  std::string line;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find('#'));
    std::istringstream toks(line);
    std::string tok;
    while (toks >> tok) {
      if (tok.size() != 2 || tok.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
        ok = false;
        continue;
      }
      bytes.push_back(static_cast<std::uint8_t>(std::stoul(tok, nullptr, 16)));
    }
  }
  if (bytes.size() % kWordBytes != 0) ok = false;
  std::vector<Word> words(bytes.size() / kWordBytes);
  for (std::size_t i = 0; i < words.size() * kWordBytes; ++i)
    words[i / kWordBytes][i % kWordBytes] = bytes[i];
  return words;
}

/// The lines of a `.s` file that are not blank and not full-line `#` comments, each with '\n'.
inline std::string instruction_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::string out;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    out += line + '\n';
  }
  return out;
}

/// Files in data_dir() named prefix*suffix, sorted.
inline std::vector<std::filesystem::path> data_files(const std::string& prefix,
                                                     const std::string& suffix) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(data_dir())) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace sbrdma::isa::testing
