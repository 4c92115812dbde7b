#include "isa/layout.h"

namespace sbrdma::isa {

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
