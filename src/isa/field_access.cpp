#include "isa/field_access.h"

#include "base/bits.h"
#include "base/check.h"

namespace sbrdma::isa {

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
