#include "isa/validate.h"

#include <fmt/format.h>

#include <algorithm>

#include "isa/field_access.h"
#include "isa/op_table.h"
#include "isa/views.h"

namespace sbrdma::isa {
namespace {

/// "a" or "an" before an enum's type name as it is read aloud: words and letters with a vowel
/// sound first (UPDATE_MODE, ALU_OP, EXTENDED_OPCODES1, LNC_SIZE_FMT: "el") take "an".
std::string_view article(std::string_view type_name) {
  return !type_name.empty() &&
                 std::string_view("AEIOUL").find(type_name[0]) != std::string_view::npos
             ? "an"
             : "a";
}

// EXT_COMPLETION_INFO bits reserved0 (1) and reserved1 (7:6) must be 0. [HIGH] wiki-facts §1.5
constexpr std::uint8_t kCompletionInfoReserved = 0xC2;
// ADDR4 register form {regnum; reserved0[2]; marker}: bytes 1-2 reserved. [HIGH] wiki-facts §1.7
constexpr std::uint32_t kAddr4RegReserved = 0x00ffff00;

/// Reserved bytes and bits (decoding level).
void reserved_problems(const Field& field, const Word& w, Problems& out) {
  if (field.kind == Kind::kReserved) {
    const auto bytes = field_bytes(w, field);
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] != 0) {
        out.push_back(
            {Fault::kReservedBits, fmt::format("reserved bits set in {} (byte {} = 0x{:02x})",
                                               field.name, field.offset + i, bytes[i])});
        return;
      }
    }
    return;
  }
  if (field.kind == Kind::kCompletionInfo && (w[field.offset] & kCompletionInfoReserved) != 0) {
    out.push_back({Fault::kReservedBits,
                   fmt::format("reserved bits set in completion_info (0x{:02x}; bits 1, 6 and 7 "
                               "must be 0)",
                               w[field.offset])});
  }
  for (const Part& part : parts_of(field.kind)) {
    if (part.type != PartType::kAddr4) continue;
    const auto raw = static_cast<std::uint32_t>(read_value(w, field, part));
    if (!Addr4::from_raw(raw).is_immediate() && (raw & kAddr4RegReserved) != 0) {
      out.push_back({Fault::kReservedBits,
                     fmt::format("reserved bits set in {} (register form, bytes 1-2 = 0x{:04x})",
                                 key_name(field, part), (raw & kAddr4RegReserved) >> 8)});
    }
  }
}

/// Values their types do not define (validation level).
void value_problems(const Field& field, const Word& w, Problems& out) {
  for (const Part& part : parts_of(field.kind)) {
    if (part.type == PartType::kEnum) {
      const EnumDesc& e = part.enums != nullptr ? *part.enums : *field.enums;
      const auto v = static_cast<std::uint8_t>(read_value(w, field, part));
      if (enum_name(e, v).empty()) {
        out.push_back(
            {Fault::kBadValue, fmt::format("{} 0x{:02x} is not {} {}", key_name(field, part), v,
                                           article(e.type_name), e.type_name)});
      }
    } else if (part.type == PartType::kAddr4) {
      const Addr4 a = Addr4::from_raw(static_cast<std::uint32_t>(read_value(w, field, part)));
      if (!a.is_immediate() &&
          enum_name(kAddr4MarkerEnum, static_cast<std::uint8_t>(a.marker)).empty()) {
        out.push_back({Fault::kBadValue,
                       fmt::format("{} has unknown ADDR4 marker 0x{:02x}", key_name(field, part),
                                   static_cast<unsigned>(a.marker))});
      } else if (a.marker == Addr4Marker::kAddrReg && a.value >= kNumAddrRegisters) {
        out.push_back(
            {Fault::kBadValue, fmt::format("{} names address register {} (there are {})",
                                           key_name(field, part), a.value, kNumAddrRegisters)});
      }
    }
  }
}

std::optional<Problem> unknown_op(const Word& w) {
  if (find_op(w) != nullptr) return std::nullopt;
  if (w[0] == kOpcodeExtendedInst) {
    return Problem{Fault::kIllegalSubOp,
                   fmt::format("illegal extended_opcode {} (not in EXTENDED_OPCODES1)", w[12])};
  }
  if (const std::string_view name = unmodelled_opcode_name(w[0]); !name.empty()) {
    return Problem{Fault::kIllegalOpcode,
                   fmt::format("opcode 0x{:02x} ({}) is not modelled (sbrdma decodes 0xa0, 0xbf "
                               "and 0xf0)",
                               w[0], name)};
  }
  return Problem{Fault::kIllegalOpcode, fmt::format("illegal opcode 0x{:02x}", w[0])};
}

void name_op(const OpDesc& op, Problems& ps, std::size_t from) {
  for (std::size_t i = from; i < ps.size(); ++i) {
    ps[i].message = fmt::format("{}: {}", op.mnemonic, ps[i].message);
  }
}

/// Reserved bits and undefined values, field by field: the word's problems before its op's
/// own rules.
void field_problems(const OpDesc& op, const Word& w, Problems& out) {
  for (const Field& field : op.fields) {
    reserved_problems(field, w, out);
    value_problems(field, w, out);
  }
}

}  // namespace

std::optional<Problem> decode_problem(const Word& w) {
  if (auto p = unknown_op(w)) return p;
  const OpDesc& op = *find_op(w);
  Problems ps;
  for (const Field& field : op.fields) reserved_problems(field, w, ps);
  if (ps.empty()) return std::nullopt;
  name_op(op, ps, 0);
  return ps.front();
}

Problems validate(const Word& w) {
  Problems out;
  if (auto p = unknown_op(w)) {
    out.push_back(*p);
    return out;
  }
  const OpDesc& op = *find_op(w);
  field_problems(op, w, out);
  const bool decodes = std::none_of(
      out.begin(), out.end(), [](const Problem& p) { return p.fault == Fault::kReservedBits; });
  if (decodes && op.rules != nullptr) op.rules(w, out);
  name_op(op, out, 0);
  return out;
}

std::optional<Problem> field_problem(const Word& w) {
  const OpDesc* op = find_op(w);
  if (op == nullptr) return std::nullopt;
  Problems out;
  field_problems(*op, w, out);
  if (out.empty()) return std::nullopt;
  name_op(*op, out, 0);
  return out.front();
}

}  // namespace sbrdma::isa
