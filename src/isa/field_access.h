#pragma once
/// Reading and writing the Parts of a Field in a word — the one place that knows how a part's
/// elements sit in the bytes (little-endian elements, optional bit field). Pure, no allocation.

#include <cstdint>
#include <span>
#include <string>

#include "isa/layout.h"
#include "isa/word.h"

namespace sbrdma::isa {

/// Smallest and largest value an element of a part may hold.
struct ValueRange {
  std::int64_t min;
  std::int64_t max;
};
ValueRange value_range(const Part& part);

/// Element `i` of `part` of `field` in `word`: sign-extended for kSigned parts, the raw
/// unsigned bits otherwise. Contract: i < part.count; part is not kBytes.
std::int64_t read_value(const Word& word, const Field& field, const Part& part, unsigned i = 0);

/// Writes element `i`. Contract: value lies in value_range(part); part is not kBytes.
void write_value(Word& word, const Field& field, const Part& part, unsigned i, std::int64_t value);

/// The value an omitted text key takes (Field::default_value for whole-field parts, else 0).
std::int64_t default_value(const Field& field, const Part& part);

/// The text key of a part: `field` or `field.part` (e.g. `src_mem_pattern.num_elem`).
std::string key_name(const Field& field, const Part& part);

/// The bytes of a field.
std::span<const std::uint8_t> field_bytes(const Word& word, const Field& field);
std::span<std::uint8_t> field_bytes(Word& word, const Field& field);

/// A word of `op` with every field at its default: opcode and extended_opcode set,
/// inst_word_len = 0x10 [CHOICE D10], everything else zero.
Word blank_word(const OpDesc& op);

}  // namespace sbrdma::isa
