#pragma once
/// The named one-byte enums of the TPB ISA, each as a C++ `enum class` (for typed code) and as
/// a name table (for the printer, the parser and `sbrdma info ops`). The text name of a value
/// is the spec's enumerator, lower-cased, with the common prefix dropped (see
/// docs/isa-syntax.md): WAIT_FOR_SEM_GE_IMM -> `ge_imm`, SEM_INC_COMPLETE -> `inc_complete`,
/// DTYPE_BFLOAT16 -> `bfloat16`, LNC2 -> `lnc2`, ALU_OP_MULT -> `mult`.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace sbrdma::isa {

/// One named value of an enum.
struct EnumValue {
  std::uint8_t value;
  std::string_view name;
};

/// A named enum: its spec type name and its values.
struct EnumDesc {
  std::string_view type_name;  ///< e.g. "WAIT_MODE"
  std::span<const EnumValue> values;
};

/// The value called `name`, if the enum has one.
std::optional<std::uint8_t> enum_value(const EnumDesc& e, std::string_view name);
/// The enum's names in value-table order, comma separated (for "unknown name" messages).
std::string enum_names(const EnumDesc& e);
/// The name of `value`, or an empty view if the enum does not define it.
std::string_view enum_name(const EnumDesc& e, std::uint8_t value);

/// NEURON_ISA_TPB_WAIT_MODE (1 byte). Waits happen before issue. GT is strict, GE is >=.
/// [HIGH] wiki-facts §1.4 (common.h L313-330), [CHOICE D11]
enum class WaitMode : std::uint8_t {
  kNone = 0x00,
  kEqImm = 0x01,
  kLtImm = 0x02,
  kLeImm = 0x03,
  kGtImm = 0x04,
  kGeImm = 0x05,
  kEvt06 = 0x06,  // the four WAIT_FOR_EVT_* modes: names not public, see D15
  kEvt07 = 0x07,
  kEvt0e = 0x0E,
  kEvt0f = 0x0F,
  kEqReg = 0x81,
  kLtReg = 0x82,
  kLeReg = 0x83,
  kGtReg = 0x84,
  kGeReg = 0x85,
};

/// NEURON_ISA_TPB_UPDATE_MODE (1 byte). `_read` fires when the instruction's reads are done,
/// `_complete` when it has completed. [HIGH] wiki-facts §1.4 (common.h L347-370)
enum class UpdateMode : std::uint8_t {
  kNone = 0x00,
  kIncRead = 0x03,
  kDecRead = 0x04,
  kAddImmRead = 0x05,
  kSubImmRead = 0x07,
  kWrImmRead = 0x09,
  kIncComplete = 0x13,
  kDecComplete = 0x14,
  kAddImmComplete = 0x15,
  kSubImmComplete = 0x17,
  kWrImmComplete = 0x19,
  kSubRegRead = 0x87,
  kWrRegComplete = 0x99,
};

/// NEURON_ISA_TPB_DTYPE, the 16 Cayman (NC-v3) codes. [HIGH] wiki-facts §1.10 (common.h:722)
enum class Dtype : std::uint8_t {
  kInvalid = 0x0,
  kUint64 = 0x1,
  kInt8 = 0x2,
  kUint8 = 0x3,
  kInt16 = 0x4,
  kUint16 = 0x5,
  kBfloat16 = 0x6,
  kFp16 = 0x7,
  kInt32 = 0x8,
  kUint32 = 0x9,
  kFp32 = 0xA,
  kFp32r = 0xB,
  kInt64 = 0xC,
  kFp8Exp3 = 0xD,
  kFp8Exp4 = 0xE,
  kFp8Exp5 = 0xF,
};

/// NEURON_ISA_TPB_LNC_SIZE_FMT: how many NeuronCores form one logical core.
/// [HIGH] wiki-facts §1.10 (common.h:815)
enum class LncSizeFmt : std::uint8_t { kLnc1 = 0, kLnc2 = 1, kLnc4 = 2, kLnc8 = 3 };

/// NEURON_ISA_TPB_EXAMPLE_EXTENDED_OPCODES1, the ExtendedInst sub-op at byte 12. 5 is absent.
/// [HIGH] wiki-facts §1.2
enum class ExtendedOpcode : std::uint8_t {
  kEngineNop = 0,
  kCopy = 1,
  kTensorTensorArith = 2,
  kRandSetState = 3,
  kRandGetState = 4,
  kSbufToSbuf = 6,
  kCptcDecode = 7,
  kRdmaDescGen = 8,
  kRdmaDescStart = 9,
};

/// NEURON_ISA_TPB_ALU_OP, the 60 Cayman codes (base band 0x00..0x1D, integer band 0xC4..0xE1).
/// Used by ExtendedInst TENSOR_TENSOR_ARITH, which accepts only ADD and MULT.
/// [HIGH] tensor-tensor.md §3 (common.h:939-1000)
enum class AluOp : std::uint8_t {
  kBypass = 0x00,
  kAdd = 0x04,
  kMult = 0x06,
  kMax = 0x08,
  kAddInt = 0xC4,
  kAminUint = 0xE1,
  // The other values have names in kAluOpEnum only; typed code uses the few above.
};

/// The ADDR4 marker byte (byte 3): immediate partition offset or a register form.
/// An immediate leaves bits 31:29 clear (TPB_PARTITION_ADDR_MASK = 0x1fffffff); each register
/// marker sets some of them. [HIGH] wiki-facts §1.7 (common.h:447-499), [CHOICE D15]
/// NUM_ADDR_REGISTERS: an ADDR_REG operand's register number is below it. [HIGH] wiki-facts §1.7
inline constexpr unsigned kNumAddrRegisters = 64;

enum class Addr4Marker : std::uint8_t {
  kImmediate = 0x00,
  kIndirectImm = 0x20,
  kShapeReg = 0x40,
  kAddrReg = 0x80,
  kIndirectReg = 0xA0,
  kAddrShapeReg = 0xC0,
};

extern const EnumDesc kWaitModeEnum;
extern const EnumDesc kUpdateModeEnum;
extern const EnumDesc kDtypeEnum;
extern const EnumDesc kLncSizeFmtEnum;
extern const EnumDesc kExtendedOpcodeEnum;
extern const EnumDesc kAluOpEnum;
/// Register markers only (the immediate form is written as a plain number in text).
extern const EnumDesc kAddr4MarkerEnum;

/// Every enum above, for tests and `sbrdma info ops`.
std::span<const EnumDesc* const> all_enums();

}  // namespace sbrdma::isa
