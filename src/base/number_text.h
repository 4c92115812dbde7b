#pragma once
/// The one reader of number text under every parser of the project (assembly fields, program
/// directives, SBUF regions, command-line flags): an unsigned 64-bit integer, decimal or hex
/// after 0x / 0X, no sign, no blanks, no separators ('_' separators: read_grouped_unsigned_text).
/// Callers add what their grammar allows on top (a leading '-') and word their own errors, but
/// agree on what a number is and when it is merely too large: "99999999999999999999" is a number
/// past 64 bits, "99999999999999999999x" is no number.

#include <cstdint>
#include <string_view>

namespace sbrdma::base {

/// What a text is as an unsigned number.
enum class NumberForm : std::uint8_t {
  kValue,      ///< a number that fits in 64 bits
  kMalformed,  ///< not a number at all (empty, a sign, a stray character, a bare "0x")
  kTooLarge,   ///< well formed, past 2^64 - 1
};

/// A read number: `value` is meaningful for kValue only (0 otherwise).
struct UnsignedText {
  NumberForm form = NumberForm::kMalformed;
  std::uint64_t value = 0;
};

/// Reads `text` whole as described at the top of this file.
[[nodiscard]] UnsignedText read_unsigned_text(std::string_view text) noexcept;

/// read_unsigned_text with '_' grouping digits: each '_' that stands alone between two hex
/// digits ("0x0052_8000", "1_000") is dropped first; any other is kept, so the text reads as
/// malformed ("_8", "8_", "0x_10", "1__0"). What the flags, the assembler's fields and the
/// program directives read.
[[nodiscard]] UnsignedText read_grouped_unsigned_text(std::string_view text);

}  // namespace sbrdma::base
