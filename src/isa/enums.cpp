#include "isa/enums.h"

#include <array>

namespace sbrdma::isa {
namespace {

template <typename E>
constexpr std::uint8_t v(E e) {
  return static_cast<std::uint8_t>(e);
}

// [HIGH] wiki-facts §1.4; evt_* names [CHOICE D15]
constexpr std::array kWaitModes{
    EnumValue{v(WaitMode::kNone), "none"},    EnumValue{v(WaitMode::kEqImm), "eq_imm"},
    EnumValue{v(WaitMode::kLtImm), "lt_imm"}, EnumValue{v(WaitMode::kLeImm), "le_imm"},
    EnumValue{v(WaitMode::kGtImm), "gt_imm"}, EnumValue{v(WaitMode::kGeImm), "ge_imm"},
    EnumValue{v(WaitMode::kEvt06), "evt_06"}, EnumValue{v(WaitMode::kEvt07), "evt_07"},
    EnumValue{v(WaitMode::kEvt0e), "evt_0e"}, EnumValue{v(WaitMode::kEvt0f), "evt_0f"},
    EnumValue{v(WaitMode::kEqReg), "eq_reg"}, EnumValue{v(WaitMode::kLtReg), "lt_reg"},
    EnumValue{v(WaitMode::kLeReg), "le_reg"}, EnumValue{v(WaitMode::kGtReg), "gt_reg"},
    EnumValue{v(WaitMode::kGeReg), "ge_reg"},
};

// [HIGH] wiki-facts §1.4
constexpr std::array kUpdateModes{
    EnumValue{v(UpdateMode::kNone), "none"},
    EnumValue{v(UpdateMode::kIncRead), "inc_read"},
    EnumValue{v(UpdateMode::kDecRead), "dec_read"},
    EnumValue{v(UpdateMode::kAddImmRead), "add_imm_read"},
    EnumValue{v(UpdateMode::kSubImmRead), "sub_imm_read"},
    EnumValue{v(UpdateMode::kWrImmRead), "wr_imm_read"},
    EnumValue{v(UpdateMode::kIncComplete), "inc_complete"},
    EnumValue{v(UpdateMode::kDecComplete), "dec_complete"},
    EnumValue{v(UpdateMode::kAddImmComplete), "add_imm_complete"},
    EnumValue{v(UpdateMode::kSubImmComplete), "sub_imm_complete"},
    EnumValue{v(UpdateMode::kWrImmComplete), "wr_imm_complete"},
    EnumValue{v(UpdateMode::kSubRegRead), "sub_reg_read"},
    EnumValue{v(UpdateMode::kWrRegComplete), "wr_reg_complete"},
};

// [HIGH] wiki-facts §1.10, tensor-tensor.md §2.1 (common.h:722)
constexpr std::array kDtypes{
    EnumValue{v(Dtype::kInvalid), "invalid"},   EnumValue{v(Dtype::kUint64), "uint64"},
    EnumValue{v(Dtype::kInt8), "int8"},         EnumValue{v(Dtype::kUint8), "uint8"},
    EnumValue{v(Dtype::kInt16), "int16"},       EnumValue{v(Dtype::kUint16), "uint16"},
    EnumValue{v(Dtype::kBfloat16), "bfloat16"}, EnumValue{v(Dtype::kFp16), "fp16"},
    EnumValue{v(Dtype::kInt32), "int32"},       EnumValue{v(Dtype::kUint32), "uint32"},
    EnumValue{v(Dtype::kFp32), "fp32"},         EnumValue{v(Dtype::kFp32r), "fp32r"},
    EnumValue{v(Dtype::kInt64), "int64"},       EnumValue{v(Dtype::kFp8Exp3), "fp8_exp3"},
    EnumValue{v(Dtype::kFp8Exp4), "fp8_exp4"},  EnumValue{v(Dtype::kFp8Exp5), "fp8_exp5"},
};

// [HIGH] wiki-facts §1.10
constexpr std::array kLncSizeFmts{
    EnumValue{v(LncSizeFmt::kLnc1), "lnc1"},
    EnumValue{v(LncSizeFmt::kLnc2), "lnc2"},
    EnumValue{v(LncSizeFmt::kLnc4), "lnc4"},
    EnumValue{v(LncSizeFmt::kLnc8), "lnc8"},
};

// [HIGH] wiki-facts §1.2
constexpr std::array kExtendedOpcodes{
    EnumValue{v(ExtendedOpcode::kEngineNop), "engine_nop"},
    EnumValue{v(ExtendedOpcode::kCopy), "copy"},
    EnumValue{v(ExtendedOpcode::kTensorTensorArith), "tensor_tensor_arith"},
    EnumValue{v(ExtendedOpcode::kRandSetState), "rand_set_state"},
    EnumValue{v(ExtendedOpcode::kRandGetState), "rand_get_state"},
    EnumValue{v(ExtendedOpcode::kSbufToSbuf), "sbuf_to_sbuf"},
    EnumValue{v(ExtendedOpcode::kCptcDecode), "cptc_decode"},
    EnumValue{v(ExtendedOpcode::kRdmaDescGen), "rdma_desc_gen"},
    EnumValue{v(ExtendedOpcode::kRdmaDescStart), "rdma_desc_start"},
};

// [HIGH] tensor-tensor.md §3.1/§3.2 (common.h:939-1000): 30 base + 30 integer-engine codes.
constexpr std::array kAluOps{
    EnumValue{0x00, "bypass"},
    EnumValue{0x01, "bitwise_not"},
    EnumValue{0x02, "arith_shift_left"},
    EnumValue{0x03, "arith_shift_right"},
    EnumValue{0x04, "add"},
    EnumValue{0x05, "subtract"},
    EnumValue{0x06, "mult"},
    EnumValue{0x07, "divide"},
    EnumValue{0x08, "max"},
    EnumValue{0x09, "min"},
    EnumValue{0x0A, "bitwise_and"},
    EnumValue{0x0B, "bitwise_or"},
    EnumValue{0x0C, "bitwise_xor"},
    EnumValue{0x0D, "logical_and"},
    EnumValue{0x0E, "logical_or"},
    EnumValue{0x0F, "logical_xor"},
    EnumValue{0x10, "logical_shift_left"},
    EnumValue{0x11, "logical_shift_right"},
    EnumValue{0x12, "is_eq"},
    EnumValue{0x13, "is_gt"},
    EnumValue{0x14, "is_ge"},
    EnumValue{0x15, "is_le"},
    EnumValue{0x16, "is_lt"},
    EnumValue{0x17, "absolute_diff"},
    EnumValue{0x18, "is_ne"},
    EnumValue{0x19, "absolute_value"},
    EnumValue{0x1A, "pow"},
    EnumValue{0x1B, "mod"},
    EnumValue{0x1C, "crc32"},
    EnumValue{0x1D, "rsqrt"},
    EnumValue{0xC4, "add_int"},
    EnumValue{0xC5, "mult_int"},
    EnumValue{0xC6, "subtract_int"},
    EnumValue{0xC7, "divide_int"},
    EnumValue{0xC8, "mod_int"},
    EnumValue{0xC9, "is_equal_int"},
    EnumValue{0xCA, "is_ne_int"},
    EnumValue{0xCB, "abs_max_int"},
    EnumValue{0xCC, "abs_min_int"},
    EnumValue{0xCD, "abs_diff_int"},
    EnumValue{0xCE, "abs_value_int"},
    EnumValue{0xCF, "max_int"},
    EnumValue{0xD0, "min_int"},
    EnumValue{0xD1, "is_gt_int"},
    EnumValue{0xD2, "is_ge_int"},
    EnumValue{0xD3, "is_le_int"},
    EnumValue{0xD4, "is_lt_int"},
    EnumValue{0xD5, "max_uint"},
    EnumValue{0xD6, "min_uint"},
    EnumValue{0xD7, "is_gt_uint"},
    EnumValue{0xD8, "is_ge_uint"},
    EnumValue{0xD9, "is_le_uint"},
    EnumValue{0xDA, "is_lt_uint"},
    EnumValue{0xDB, "mult_uint"},
    EnumValue{0xDC, "divide_uint"},
    EnumValue{0xDD, "mod_uint"},
    EnumValue{0xDE, "amax_int"},
    EnumValue{0xDF, "amin_int"},
    EnumValue{0xE0, "amax_uint"},
    EnumValue{0xE1, "amin_uint"},
};
static_assert(kAluOps.size() == 60, "[HIGH] Cayman ALU_OP has 60 codes");

// [HIGH] wiki-facts §1.7
constexpr std::array kAddr4Markers{
    EnumValue{v(Addr4Marker::kIndirectImm), "indirect_imm"},
    EnumValue{v(Addr4Marker::kShapeReg), "shape_reg"},
    EnumValue{v(Addr4Marker::kAddrReg), "addr_reg"},
    EnumValue{v(Addr4Marker::kIndirectReg), "indirect_reg"},
    EnumValue{v(Addr4Marker::kAddrShapeReg), "addr_shape_reg"},
};

}  // namespace

const EnumDesc kWaitModeEnum{"WAIT_MODE", kWaitModes};
const EnumDesc kUpdateModeEnum{"UPDATE_MODE", kUpdateModes};
const EnumDesc kDtypeEnum{"DTYPE", kDtypes};
const EnumDesc kLncSizeFmtEnum{"LNC_SIZE_FMT", kLncSizeFmts};
const EnumDesc kExtendedOpcodeEnum{"EXTENDED_OPCODES1", kExtendedOpcodes};
const EnumDesc kAluOpEnum{"ALU_OP", kAluOps};
const EnumDesc kAddr4MarkerEnum{"ADDR4_MARKER", kAddr4Markers};

std::optional<std::uint8_t> enum_value(const EnumDesc& e, std::string_view name) {
  for (const EnumValue& ev : e.values) {
    if (ev.name == name) return ev.value;
  }
  return std::nullopt;
}

std::string enum_names(const EnumDesc& e) {
  std::string out;
  for (const EnumValue& ev : e.values) {
    if (!out.empty()) out += ", ";
    out += ev.name;
  }
  return out;
}

std::string_view enum_name(const EnumDesc& e, std::uint8_t value) {
  for (const EnumValue& ev : e.values) {
    if (ev.value == value) return ev.name;
  }
  return {};
}

std::span<const EnumDesc* const> all_enums() {
  static constexpr std::array<const EnumDesc*, 7> kAll{
      &kWaitModeEnum,       &kUpdateModeEnum, &kDtypeEnum,      &kLncSizeFmtEnum,
      &kExtendedOpcodeEnum, &kAluOpEnum,      &kAddr4MarkerEnum};
  return kAll;
}

}  // namespace sbrdma::isa
