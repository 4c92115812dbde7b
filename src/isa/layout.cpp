#include "isa/layout.h"

#include <array>

namespace sbrdma::isa {
namespace {

constexpr Part whole(PartType type, std::uint8_t bytes) {
  return Part{"", type, 0, bytes, 1, 0, 0, nullptr};
}

constexpr std::array kU8Parts{whole(PartType::kUnsigned, 1)};
constexpr std::array kU16Parts{whole(PartType::kUnsigned, 2)};
constexpr std::array kU32Parts{whole(PartType::kUnsigned, 4)};
constexpr std::array kEnum8Parts{whole(PartType::kEnum, 1)};
constexpr std::array kAddr4Parts{whole(PartType::kAddr4, kAddr4Bytes)};
constexpr std::array kOpaqueParts{whole(PartType::kBytes, 1)};

// NEURON_ISA_TPB_EXT_COMPLETION_INFO, one byte, LSB first:
//   bit  7   6   5   4   3   2          1          0
//       [ rsvd1 ][ num_active_ports ][has_write][ rsvd0 ][has_read]
// [HIGH] wiki-facts §1.5 (extended.h:22-28)
constexpr std::array kCompletionInfoParts{
    Part{"has_read", PartType::kUnsigned, 0, 1, 1, 0, 1, nullptr},
    Part{"has_write", PartType::kUnsigned, 0, 1, 1, 2, 1, nullptr},
    Part{"num_active_ports", PartType::kUnsigned, 0, 1, 1, 3, 3, nullptr},
};

// NEURON_ISA_TPB_DTYPE_PAIR: dtype_lo (src0) in bits 3:0, dtype_hi (src1) in bits 7:4.
// [HIGH] tensor-tensor.md §2 (common.h)
constexpr std::array kDtypePairParts{
    Part{"dtype_lo", PartType::kEnum, 0, 1, 1, 0, 4, &kDtypeEnum},
    Part{"dtype_hi", PartType::kEnum, 0, 1, 1, 4, 4, &kDtypeEnum},
};

// NEURON_ISA_TPB_TENSOR3D (16 B):
//   +0        +4                  +10                 +16
//   [start_addr][step_elem[3] int16][num_elem[3] uint16]
// [HIGH] wiki-facts §1.10 (common.h:649)
constexpr std::array kTensor3dParts{
    Part{"start_addr", PartType::kAddr4, 0, kAddr4Bytes, 1, 0, 0, nullptr},
    Part{"step_elem", PartType::kSigned, 4, 2, 3, 0, 0, nullptr},
    Part{"num_elem", PartType::kUnsigned, 10, 2, 3, 0, 0, nullptr},
};
static_assert(kTensor3dParts[2].offset + 2 * kTensor3dParts[2].count == kTensor3dBytes);

// NEURON_ISA_TPB_TENSOR2D (12 B):
//   +0        +4                  +8                  +12
//   [start_addr][step_elem[2] int16][num_elem[2] uint16]
// [HIGH] ext-tensor-tensor-arith.md §2.1 (common.h:643)
constexpr std::array kTensor2dParts{
    Part{"start_addr", PartType::kAddr4, 0, kAddr4Bytes, 1, 0, 0, nullptr},
    Part{"step_elem", PartType::kSigned, 4, 2, 2, 0, 0, nullptr},
    Part{"num_elem", PartType::kUnsigned, 8, 2, 2, 0, 0, nullptr},
};
static_assert(kTensor2dParts[2].offset + 2 * kTensor2dParts[2].count == kTensor2dBytes);

}  // namespace

std::span<const Part> parts_of(Kind kind) {
  switch (kind) {
    case Kind::kU8:
      return kU8Parts;
    case Kind::kU16:
      return kU16Parts;
    case Kind::kU32:
    case Kind::kImmVal:
      return kU32Parts;
    case Kind::kEnum8:
      return kEnum8Parts;
    case Kind::kCompletionInfo:
      return kCompletionInfoParts;
    case Kind::kDtypePair:
      return kDtypePairParts;
    case Kind::kAddr4:
      return kAddr4Parts;
    case Kind::kTensor2d:
      return kTensor2dParts;
    case Kind::kTensor3d:
      return kTensor3dParts;
    case Kind::kOpaque:
      return kOpaqueParts;
    case Kind::kOpcode:
    case Kind::kSubOpcode:
    case Kind::kReserved:
      return {};
  }
  return {};
}

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::kOpcode:
      return "OPCODE";
    case Kind::kSubOpcode:
      return "EXTENDED_OPCODES1";
    case Kind::kU8:
      return "u8";
    case Kind::kU16:
      return "u16";
    case Kind::kU32:
      return "u32";
    case Kind::kEnum8:
      return "enum";
    case Kind::kCompletionInfo:
      return "EXT_COMPLETION_INFO";
    case Kind::kDtypePair:
      return "DTYPE_PAIR";
    case Kind::kImmVal:
      return "IMM_VAL_INST_FIELD";
    case Kind::kAddr4:
      return "ADDR4";
    case Kind::kTensor2d:
      return "TENSOR2D";
    case Kind::kTensor3d:
      return "TENSOR3D";
    case Kind::kReserved:
      return "reserved";
    case Kind::kOpaque:
      return "opaque";
  }
  return "?";
}

std::string_view fault_name(Fault fault) {
  switch (fault) {
    case Fault::kIllegalOpcode:
      return "illegal opcode";
    case Fault::kIllegalSubOp:
      return "illegal sub-op";
    case Fault::kReservedBits:
      return "reserved bits set";
    case Fault::kBadValue:
      return "bad value";
    case Fault::kUnsupported:
      return "not supported";
    case Fault::kRuleViolated:
      return "rule violated";
  }
  return "?";
}

}  // namespace sbrdma::isa
