#pragma once
/// The text form of one Part's value, both ways (docs/isa-syntax.md). The printer and the
/// parser both go through here, so `parse(format(x)) == x` holds part by part.
///
///   unsigned / signed  decimal, or 0x-hex (fields with Radix::kHex print in hex); negative
///                      decimals only for signed parts; arrays as `a,b,c` (exactly `count`)
///   enum               the value's name (`ge_imm`, `fp32`, `lnc2`)
///   ADDR4              `0x1000` (immediate partition offset) or `marker:reg` (`addr_reg:5`)
///   opaque bytes       hex digits in memory order, trailing zero bytes omitted

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "isa/layout.h"
#include "isa/word.h"

namespace sbrdma::isa {

/// The field's kind as `sbrdma info ops` prints it: kind_name(), but `i32` for the semaphore
/// value, a u32 in the word that text reads as a signed 32-bit operand. [CHOICE D11]
std::string_view field_kind_name(const Field& field);

/// A decimal (optionally negative) or 0x-hex integer; nullopt if malformed or too large.
std::optional<std::int64_t> parse_number(std::string_view text);

/// True if every element of the part holds its default (so the printer omits the key).
bool is_default(const Word& word, const Field& field, const Part& part);

/// The canonical text of the part's value. Contract: the value is valid for its type
/// (validate() passed), so enum values have names.
std::string format_part(const Word& word, const Field& field, const Part& part);

/// Parses `text` as the part's value and writes it into `word`. Returns an error message
/// (without location) if the text is not a value of the part; `word` is then unchanged.
std::optional<std::string> parse_part(std::string_view text, const Field& field, const Part& part,
                                      Word& word);

}  // namespace sbrdma::isa
