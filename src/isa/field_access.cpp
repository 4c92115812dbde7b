#include "isa/field_access.h"

#include "base/bits.h"
#include "base/check.h"

namespace sbrdma::isa {
namespace {

std::uint32_t load_elem(const std::uint8_t* p, unsigned size) {
  switch (size) {
    case 1:
      return p[0];
    case 2:
      return base::load_le<std::uint16_t>(p);
    default:
      return base::load_le<std::uint32_t>(p);
  }
}

void store_elem(std::uint8_t* p, unsigned size, std::uint32_t v) {
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

unsigned elem_offset(const Field& field, const Part& part, unsigned i) {
  SBRDMA_CHECK(part.type != PartType::kBytes && i < part.count);
  const unsigned off = field.offset + part.offset + i * part.elem_size;
  SBRDMA_CHECK(off + part.elem_size <= kWordBytes);
  return off;
}

}  // namespace

ValueRange value_range(const Part& part) {
  const unsigned bits = part.bits();
  if (part.type == PartType::kSigned) {
    const std::int64_t half = std::int64_t{1} << (bits - 1);
    return {-half, half - 1};
  }
  return {0, static_cast<std::int64_t>(base::low_mask(bits))};
}

std::int64_t read_value(const Word& word, const Field& field, const Part& part, unsigned i) {
  const std::uint32_t elem = load_elem(word.data() + elem_offset(field, part, i), part.elem_size);
  const base::BitField bf{part.lsb + part.bits() - 1, part.lsb};
  const auto raw = static_cast<std::int64_t>(bf.get(elem));
  if (part.type == PartType::kSigned && (raw >> (part.bits() - 1)) != 0) {
    return raw - (std::int64_t{1} << part.bits());
  }
  return raw;
}

void write_value(Word& word, const Field& field, const Part& part, unsigned i, std::int64_t value) {
  const ValueRange r = value_range(part);
  SBRDMA_CHECK_MSG(value >= r.min && value <= r.max, "write_value: value out of the part's range");
  std::uint8_t* p = word.data() + elem_offset(field, part, i);
  const base::BitField bf{part.lsb + part.bits() - 1, part.lsb};
  const auto bits = static_cast<std::uint64_t>(value) & base::low_mask(part.bits());
  store_elem(p, part.elem_size,
             static_cast<std::uint32_t>(bf.set(load_elem(p, part.elem_size), bits)));
}

std::int64_t default_value(const Field& field, const Part& part) {
  return part.name.empty() ? field.default_value : 0;
}

std::string key_name(const Field& field, const Part& part) {
  std::string key(field.name);
  if (!part.name.empty()) {
    key += '.';
    key += part.name;
  }
  return key;
}

std::span<const std::uint8_t> field_bytes(const Word& word, const Field& field) {
  SBRDMA_CHECK(field.offset + field.size <= kWordBytes);
  return {word.data() + field.offset, field.size};
}

std::span<std::uint8_t> field_bytes(Word& word, const Field& field) {
  SBRDMA_CHECK(field.offset + field.size <= kWordBytes);
  return {word.data() + field.offset, field.size};
}

Word blank_word(const OpDesc& op) {
  Word w{};
  for (const Field& f : op.fields) {
    if (f.kind == Kind::kOpcode) w[f.offset] = op.opcode;
    if (f.kind == Kind::kSubOpcode) w[f.offset] = static_cast<std::uint8_t>(op.sub_op);
    for (const Part& p : parts_of(f.kind)) {
      if (p.type == PartType::kBytes) continue;
      const std::int64_t d = default_value(f, p);
      for (unsigned i = 0; i < p.count; ++i) {
        if (d != 0) write_value(w, f, p, i, d);
      }
    }
  }
  return w;
}

}  // namespace sbrdma::isa
