#pragma once
/// Words to and from raw bytes and hex text. Pure: the caller (cli/) reads and writes files.
///
/// Hex text: one word per line, 128 hex digits in memory order (byte 0 first). Blank lines and
/// `#` comments are allowed; spaces inside a line and a leading `0x` are tolerated.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "isa/word.h"

namespace sbrdma::isa {

/// Words and every error found while reading them.
struct WordsResult {
  std::vector<Word> words;
  base::Errors errors;
  [[nodiscard]] bool ok() const { return errors.empty(); }
};

/// Splits raw bytes into words: any whole number of words, whatever their bytes. Error (no
/// location): `truncated: N bytes is not a multiple of 64`, with a hint to --hex and `sbrdma asm`
/// when the input has no control byte at all (it is likely text: hex words or assembly).
base::Result<std::vector<Word>> words_from_bytes(std::span<const std::uint8_t> bytes);

/// The words' bytes, back to back.
std::vector<std::uint8_t> words_to_bytes(std::span<const Word> words);

/// One word as 128 lower-case hex digits.
std::string word_to_hex(const Word& word);

/// One word from 128 hex digits (spaces and a leading 0x tolerated). Errors: `bad hex digit
/// 'g'`, `expected 128 hex digits, got N`.
base::Result<Word> parse_hex_word(std::string_view text);

/// Hex text to words; errors carry `file:line`.
WordsResult words_from_hex(std::string_view text, std::string_view file);

/// Words to hex text, one per line, each line ending in '\n'.
std::string words_to_hex(std::span<const Word> words);

/// The value of a hex digit, or -1 if `c` is not one.
int hex_digit_value(char c);

/// For the text readers, given the input's lines (split_lines): if a line holds a control
/// byte (base::first_control_byte) outside its comment, the one error that says where and asks
/// whether the input is binary, ending in `hint` (what reads such data instead). Binary input
/// gives this one error, not one per "line"; comments may hold any byte.
std::optional<base::Error> binary_input_error(std::span<const std::string_view> lines,
                                              std::string_view file, std::string_view hint);

/// The lines of `text`, for the text readers: LF, CRLF and a lone CR each end a line.
std::vector<std::string_view> split_lines(std::string_view text);

/// `line` without its `#` comment and surrounding blanks.
std::string_view strip_comment(std::string_view line);

}  // namespace sbrdma::isa
