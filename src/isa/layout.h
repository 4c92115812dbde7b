#pragma once
/// The vocabulary of the op table: a word is a list of Fields (name, byte offset, size, kind);
/// a Field's kind says how its bytes split into Parts (the scalars a text key names). The
/// encoder, decoder, validator, printer, parser and `sbrdma info ops` all walk these tables.

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "isa/enums.h"
#include "isa/problem.h"
#include "isa/word.h"

namespace sbrdma::isa {

/// How a field's bytes are interpreted.
enum class Kind : std::uint8_t {
  kOpcode,          ///< header.opcode: fixed by the op, not written in text
  kSubOpcode,       ///< extended_opcode (EXTENDED_OPCODES1): fixed by the op
  kU8,              ///< uint8_t
  kU16,             ///< uint16_t, little-endian
  kU32,             ///< uint32_t, little-endian
  kEnum8,           ///< one byte holding a value of Field::enums
  kCompletionInfo,  ///< NEURON_ISA_TPB_EXT_COMPLETION_INFO (1 byte of bit fields)
  kDtypePair,       ///< NEURON_ISA_TPB_DTYPE_PAIR (dtype_lo:4, dtype_hi:4)
  kImmVal,          ///< NEURON_ISA_TPB_IMM_VAL_INST_FIELD (4 bytes), an immediate [CHOICE D15f]
  kAddr4,           ///< NEURON_ISA_TPB_ADDR4 (4 bytes): immediate or marked register
  kTensor2d,        ///< NEURON_ISA_TPB_TENSOR2D (12 bytes)
  kTensor3d,        ///< NEURON_ISA_TPB_TENSOR3D (16 bytes)
  kReserved,        ///< reserved bytes: must be zero, not written in text
  kOpaque,          ///< bytes whose layout is not public (D12, D15): kept verbatim
};

/// Fixed sizes of the composite kinds. [HIGH] wiki-facts §1.3-1.10, ext-tensor-tensor-arith §2
inline constexpr std::uint8_t kHeaderBytes = 4;          // NEURON_ISA_TPB_HEADER
inline constexpr std::uint8_t kEventsBytes = 8;          // NEURON_ISA_TPB_EVENTS
inline constexpr std::uint8_t kAddr4Bytes = 4;           // NEURON_ISA_TPB_ADDR4
inline constexpr std::uint8_t kImmValBytes = 4;          // NEURON_ISA_TPB_IMM_VAL_INST_FIELD
inline constexpr std::uint8_t kTensor2dBytes = 12;       // NEURON_ISA_TPB_TENSOR2D
inline constexpr std::uint8_t kTensor3dBytes = 16;       // NEURON_ISA_TPB_TENSOR3D
inline constexpr std::uint8_t kCompletionInfoBytes = 1;  // NEURON_ISA_TPB_EXT_COMPLETION_INFO

/// Size in bytes of a field of `kind`; 0 for the variable-size kinds (reserved, opaque).
constexpr std::uint8_t kind_size(Kind kind) {
  switch (kind) {
    case Kind::kOpcode:
    case Kind::kSubOpcode:
    case Kind::kU8:
    case Kind::kEnum8:
    case Kind::kDtypePair:
      return 1;
    case Kind::kCompletionInfo:
      return kCompletionInfoBytes;
    case Kind::kU16:
      return 2;
    case Kind::kU32:
      return 4;
    case Kind::kImmVal:
      return kImmValBytes;
    case Kind::kAddr4:
      return kAddr4Bytes;
    case Kind::kTensor2d:
      return kTensor2dBytes;
    case Kind::kTensor3d:
      return kTensor3dBytes;
    case Kind::kReserved:
    case Kind::kOpaque:
      return 0;
  }
  return 0;
}

/// The kind's name as `sbrdma info ops` prints it (the spec's type name where it has one).
std::string_view kind_name(Kind kind);

/// How numbers of a field are printed.
enum class Radix : std::uint8_t { kDec, kHex };

/// One field of a word, as the spec's struct names it.
struct Field {
  std::string_view name;    ///< the struct member, exactly (`local_sem`, `src_mem_pattern`)
  std::uint8_t offset = 0;  ///< byte offset in the word
  std::uint8_t size = 0;    ///< bytes
  Kind kind = Kind::kU8;
  const EnumDesc* enums = nullptr;  ///< for kEnum8 and kSubOpcode
  Radix radix = Radix::kDec;
  std::uint32_t default_value = 0;  ///< value of an omitted key (only inst_word_len is not 0)
};

/// What a Part's elements are.
enum class PartType : std::uint8_t {
  kUnsigned,
  kSigned,
  kEnum,   ///< named by Part::enums, or Field::enums when that is null
  kAddr4,  ///< a raw ADDR4 (immediate or marker:register in text)
  kBytes,  ///< the field's bytes, verbatim (opaque payloads)
};

/// One scalar (or small array) inside a field: what a text key `field` or `field.part` names.
struct Part {
  std::string_view name;  ///< "" when the key is the field itself
  PartType type = PartType::kUnsigned;
  std::uint8_t offset = 0;     ///< byte offset of element 0 inside the field
  std::uint8_t elem_size = 1;  ///< bytes per element (1, 2 or 4); ignored for kBytes
  std::uint8_t count = 1;      ///< elements (array parts: step_elem, num_elem)
  std::uint8_t lsb = 0;        ///< bit field inside the element ...
  std::uint8_t width = 0;      ///< ... of this many bits (0: the whole element)
  const EnumDesc* enums = nullptr;

  /// Bits one element carries.
  [[nodiscard]] constexpr unsigned bits() const {
    return width != 0 ? width : static_cast<unsigned>(elem_size) * 8;
  }
};

/// Most elements any Part has (TENSOR3D's step_elem[3] / num_elem[3]).
inline constexpr std::uint8_t kMaxPartCount = 3;

/// The part tables parts_of() returns (in the header, so that a lookup of a field known at
/// compile time folds away: encoding a word is on the lowering's hot path).
namespace detail {

constexpr Part whole(PartType type, std::uint8_t bytes) {
  return Part{"", type, 0, bytes, 1, 0, 0, nullptr};
}

inline constexpr std::array kU8Parts{whole(PartType::kUnsigned, 1)};
inline constexpr std::array kU16Parts{whole(PartType::kUnsigned, 2)};
inline constexpr std::array kU32Parts{whole(PartType::kUnsigned, 4)};
inline constexpr std::array kEnum8Parts{whole(PartType::kEnum, 1)};
inline constexpr std::array kAddr4Parts{whole(PartType::kAddr4, kAddr4Bytes)};
inline constexpr std::array kOpaqueParts{whole(PartType::kBytes, 1)};

// NEURON_ISA_TPB_EXT_COMPLETION_INFO, one byte, LSB first:
//   bit  7   6   5   4   3   2          1          0
//       [ rsvd1 ][ num_active_ports ][has_write][ rsvd0 ][has_read]
// [HIGH] wiki-facts §1.5 (extended.h:22-28)
inline constexpr std::array kCompletionInfoParts{
    Part{"has_read", PartType::kUnsigned, 0, 1, 1, 0, 1, nullptr},
    Part{"has_write", PartType::kUnsigned, 0, 1, 1, 2, 1, nullptr},
    Part{"num_active_ports", PartType::kUnsigned, 0, 1, 1, 3, 3, nullptr},
};

// NEURON_ISA_TPB_DTYPE_PAIR: dtype_lo (src0) in bits 3:0, dtype_hi (src1) in bits 7:4.
// [HIGH] tensor-tensor.md §2 (common.h)
inline constexpr std::array kDtypePairParts{
    Part{"dtype_lo", PartType::kEnum, 0, 1, 1, 0, 4, &kDtypeEnum},
    Part{"dtype_hi", PartType::kEnum, 0, 1, 1, 4, 4, &kDtypeEnum},
};

// NEURON_ISA_TPB_TENSOR3D (16 B):
//   +0        +4                  +10                 +16
//   [start_addr][step_elem[3] int16][num_elem[3] uint16]
// [HIGH] wiki-facts §1.10 (common.h:649)
inline constexpr std::array kTensor3dParts{
    Part{"start_addr", PartType::kAddr4, 0, kAddr4Bytes, 1, 0, 0, nullptr},
    Part{"step_elem", PartType::kSigned, 4, 2, 3, 0, 0, nullptr},
    Part{"num_elem", PartType::kUnsigned, 10, 2, 3, 0, 0, nullptr},
};
static_assert(kTensor3dParts[2].offset + 2 * kTensor3dParts[2].count == kTensor3dBytes);

// NEURON_ISA_TPB_TENSOR2D (12 B):
//   +0        +4                  +8                  +12
//   [start_addr][step_elem[2] int16][num_elem[2] uint16]
// [HIGH] ext-tensor-tensor-arith.md §2.1 (common.h:643)
inline constexpr std::array kTensor2dParts{
    Part{"start_addr", PartType::kAddr4, 0, kAddr4Bytes, 1, 0, 0, nullptr},
    Part{"step_elem", PartType::kSigned, 4, 2, 2, 0, 0, nullptr},
    Part{"num_elem", PartType::kUnsigned, 8, 2, 2, 0, 0, nullptr},
};
static_assert(kTensor2dParts[2].offset + 2 * kTensor2dParts[2].count == kTensor2dBytes);

}  // namespace detail

/// The Parts of a field of `kind`, in text order. Empty for kOpcode, kSubOpcode, kReserved.
constexpr std::span<const Part> parts_of(Kind kind) {
  switch (kind) {
    case Kind::kU8:
      return detail::kU8Parts;
    case Kind::kU16:
      return detail::kU16Parts;
    case Kind::kU32:
    case Kind::kImmVal:
      return detail::kU32Parts;
    case Kind::kEnum8:
      return detail::kEnum8Parts;
    case Kind::kCompletionInfo:
      return detail::kCompletionInfoParts;
    case Kind::kDtypePair:
      return detail::kDtypePairParts;
    case Kind::kAddr4:
      return detail::kAddr4Parts;
    case Kind::kTensor2d:
      return detail::kTensor2dParts;
    case Kind::kTensor3d:
      return detail::kTensor3dParts;
    case Kind::kOpaque:
      return detail::kOpaqueParts;
    case Kind::kOpcode:
    case Kind::kSubOpcode:
    case Kind::kReserved:
      return {};
  }
  return {};
}

/// An op-specific validity rule: appends a Problem per broken rule. Only called on words
/// that decode (op known, reserved bits clear).
using RuleFn = void (*)(const Word& word, Problems& out);

/// One row of the op table.
struct OpDesc {
  std::uint8_t opcode = 0;        ///< header.opcode
  std::int16_t sub_op = -1;       ///< extended_opcode for 0xF0 rows, -1 otherwise
  std::string_view mnemonic;      ///< text name [CHOICE D15g]
  std::string_view struct_name;   ///< the spec's struct
  std::span<const Field> fields;  ///< tile bytes 0..63 in offset order
  RuleFn rules = nullptr;         ///< op-specific validity rules (validate.h)
};

}  // namespace sbrdma::isa
