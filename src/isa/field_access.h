#pragma once
/// Reading and writing the Parts of a Field in a word — the one place that knows how a part's
/// elements sit in the bytes (little-endian elements, optional bit field). Pure, no allocation.

#include <cstdint>
#include <span>
#include <string>

#include "base/bits.h"
#include "base/check.h"
#include "isa/layout.h"
#include "isa/word.h"

namespace sbrdma::isa {

/// Smallest and largest value an element of a part may hold.
struct ValueRange {
  std::int64_t min;
  std::int64_t max;
};
constexpr ValueRange value_range(const Part& part) {
  const unsigned bits = part.bits();
  if (part.type == PartType::kSigned) {
    const std::int64_t half = std::int64_t{1} << (bits - 1);
    return {-half, half - 1};
  }
  return {0, static_cast<std::int64_t>(base::low_mask(bits))};
}

/// Where one element of a part sits in a word, and the values it may hold: what read_value()
/// and write_value() work from. Made at compile time for a field known then (the typed views'
/// encoders: the lowering encodes millions of words at a large -n).
struct ElemSlot {
  std::uint8_t offset = 0;     ///< byte offset of the element in the word
  std::uint8_t elem_size = 1;  ///< 1, 2 or 4 bytes, little-endian
  std::uint8_t lsb = 0;        ///< the bit field inside the element
  std::uint8_t bits = 8;
  bool is_signed = false;
  ValueRange range{};
};

/// Element `i` of `part` of `field`. Contract: i < part.count; part is not kBytes.
constexpr ElemSlot elem_slot(const Field& field, const Part& part, unsigned i) {
  SBRDMA_CHECK(part.type != PartType::kBytes && i < part.count);
  const unsigned off = field.offset + part.offset + i * part.elem_size;
  SBRDMA_CHECK(off + part.elem_size <= kWordBytes);
  return ElemSlot{static_cast<std::uint8_t>(off),
                  part.elem_size,
                  part.lsb,
                  static_cast<std::uint8_t>(part.bits()),
                  part.type == PartType::kSigned,
                  value_range(part)};
}

namespace detail {

inline std::uint32_t load_elem(const std::uint8_t* p, unsigned size) {
  switch (size) {
    case 1:
      return p[0];
    case 2:
      return base::load_le<std::uint16_t>(p);
    default:
      return base::load_le<std::uint32_t>(p);
  }
}

inline void store_elem(std::uint8_t* p, unsigned size, std::uint32_t v) {
  switch (size) {
    case 1:
      p[0] = static_cast<std::uint8_t>(v);
      return;
    case 2:
      base::store_le<std::uint16_t>(p, static_cast<std::uint16_t>(v));
      return;
    default:
      base::store_le<std::uint32_t>(p, v);
      return;
  }
}

}  // namespace detail

/// The element at `s`: sign-extended when signed, the raw unsigned bits otherwise.
inline std::int64_t read_slot(const Word& word, const ElemSlot& s) {
  const std::uint32_t elem = detail::load_elem(word.data() + s.offset, s.elem_size);
  const base::BitField bf{s.lsb + s.bits - 1U, s.lsb};
  const auto raw = static_cast<std::int64_t>(bf.get(elem));
  if (s.is_signed && (raw >> (s.bits - 1)) != 0) return raw - (std::int64_t{1} << s.bits);
  return raw;
}

/// Writes the element at `s`. Contract: value lies in s.range.
inline void write_slot(Word& word, const ElemSlot& s, std::int64_t value) {
  SBRDMA_CHECK_MSG(value >= s.range.min && value <= s.range.max,
                   "write_value: value out of the part's range");
  std::uint8_t* p = word.data() + s.offset;
  const base::BitField bf{s.lsb + s.bits - 1U, s.lsb};
  const auto bits = static_cast<std::uint64_t>(value) & base::low_mask(s.bits);
  detail::store_elem(p, s.elem_size,
                     static_cast<std::uint32_t>(bf.set(detail::load_elem(p, s.elem_size), bits)));
}

/// Element `i` of `part` of `field` in `word`: sign-extended for kSigned parts, the raw
/// unsigned bits otherwise. Contract: i < part.count; part is not kBytes.
inline std::int64_t read_value(const Word& word, const Field& field, const Part& part,
                               unsigned i = 0) {
  return read_slot(word, elem_slot(field, part, i));
}

/// Writes element `i`. Contract: value lies in value_range(part); part is not kBytes.
inline void write_value(Word& word, const Field& field, const Part& part, unsigned i,
                        std::int64_t value) {
  write_slot(word, elem_slot(field, part, i), value);
}

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
