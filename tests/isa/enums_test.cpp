// The numeric codes of the ISA enums, written out by hand from the spec digest: a swapped or
// renumbered enumerator in isa/enums.h fails here, whatever its own name tables say.

#include "isa/enums.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sbrdma::isa {
namespace {

/// One enumerator: the typed value, its text name, and the code the spec gives it.
template <typename E>
struct Code {
  E typed;
  std::string_view name;
  int spec;
};

/// Every enumerator of `desc` has its spec code, typed and by name, and `desc` has no others.
template <typename E, std::size_t N>
void expect_codes(const EnumDesc& desc, const std::array<Code<E>, N>& want) {
  for (const Code<E>& c : want) {
    EXPECT_EQ(static_cast<int>(c.typed), c.spec) << desc.type_name << " " << c.name;
    const auto by_name = enum_value(desc, c.name);
    ASSERT_TRUE(by_name.has_value()) << desc.type_name << " " << c.name;
    EXPECT_EQ(static_cast<int>(*by_name), c.spec) << desc.type_name << " " << c.name;
  }
  EXPECT_EQ(desc.values.size(), want.size()) << desc.type_name;
}

// [HIGH] wiki-facts §1.4, WAIT_MODE (common.h L313-330): WAIT_FOR_SEM_*_IMM 0x0..0x5,
// the same compares with a register threshold 0x81..0x85, WAIT_FOR_EVT_* 0x6/0x7/0xE/0xF.
TEST(EnumCodes, WaitMode) {
  constexpr auto kWant = std::to_array<Code<WaitMode>>({
      {WaitMode::kNone, "none", 0x00},
      {WaitMode::kEqImm, "eq_imm", 0x01},
      {WaitMode::kLtImm, "lt_imm", 0x02},
      {WaitMode::kLeImm, "le_imm", 0x03},
      {WaitMode::kGtImm, "gt_imm", 0x04},  // strict >
      {WaitMode::kGeImm, "ge_imm", 0x05},
      {WaitMode::kEvt06, "evt_06", 0x06},
      {WaitMode::kEvt07, "evt_07", 0x07},
      {WaitMode::kEvt0e, "evt_0e", 0x0E},
      {WaitMode::kEvt0f, "evt_0f", 0x0F},
      {WaitMode::kEqReg, "eq_reg", 0x81},
      {WaitMode::kLtReg, "lt_reg", 0x82},
      {WaitMode::kLeReg, "le_reg", 0x83},
      {WaitMode::kGtReg, "gt_reg", 0x84},
      {WaitMode::kGeReg, "ge_reg", 0x85},
  });
  expect_codes(kWaitModeEnum, kWant);
  EXPECT_EQ(enum_name(kWaitModeEnum, 0xFF), "");  // INVALID: never legal
}

// [HIGH] wiki-facts §1.4, UPDATE_MODE (common.h L347-370): _READ 0x03/0x04/0x05/0x07/0x09,
// _COMPLETE the same + 0x10, and the two register forms 0x87, 0x99.
TEST(EnumCodes, UpdateMode) {
  constexpr auto kWant = std::to_array<Code<UpdateMode>>({
      {UpdateMode::kNone, "none", 0x00},
      {UpdateMode::kIncRead, "inc_read", 0x03},
      {UpdateMode::kDecRead, "dec_read", 0x04},
      {UpdateMode::kAddImmRead, "add_imm_read", 0x05},
      {UpdateMode::kSubImmRead, "sub_imm_read", 0x07},
      {UpdateMode::kWrImmRead, "wr_imm_read", 0x09},
      {UpdateMode::kIncComplete, "inc_complete", 0x13},
      {UpdateMode::kDecComplete, "dec_complete", 0x14},
      {UpdateMode::kAddImmComplete, "add_imm_complete", 0x15},
      {UpdateMode::kSubImmComplete, "sub_imm_complete", 0x17},
      {UpdateMode::kWrImmComplete, "wr_imm_complete", 0x19},
      {UpdateMode::kSubRegRead, "sub_reg_read", 0x87},
      {UpdateMode::kWrRegComplete, "wr_reg_complete", 0x99},
  });
  expect_codes(kUpdateModeEnum, kWant);
  EXPECT_EQ(enum_name(kUpdateModeEnum, 0xFF), "");  // INVALID: never legal
}

// [HIGH] wiki-facts §1.10, DTYPE (1 B): the 16 codes 0x0..0xF (the v4/v5 additions are not
// Cayman codes).
TEST(EnumCodes, Dtype) {
  constexpr auto kWant = std::to_array<Code<Dtype>>({
      {Dtype::kInvalid, "invalid", 0x0},
      {Dtype::kUint64, "uint64", 0x1},
      {Dtype::kInt8, "int8", 0x2},
      {Dtype::kUint8, "uint8", 0x3},
      {Dtype::kInt16, "int16", 0x4},
      {Dtype::kUint16, "uint16", 0x5},
      {Dtype::kBfloat16, "bfloat16", 0x6},
      {Dtype::kFp16, "fp16", 0x7},
      {Dtype::kInt32, "int32", 0x8},
      {Dtype::kUint32, "uint32", 0x9},
      {Dtype::kFp32, "fp32", 0xA},
      {Dtype::kFp32r, "fp32r", 0xB},
      {Dtype::kInt64, "int64", 0xC},
      {Dtype::kFp8Exp3, "fp8_exp3", 0xD},  // FP8_E3
      {Dtype::kFp8Exp4, "fp8_exp4", 0xE},  // FP8_E4
      {Dtype::kFp8Exp5, "fp8_exp5", 0xF},  // FP8_E5
  });
  expect_codes(kDtypeEnum, kWant);
}

// [HIGH] wiki-facts §1.10, LNC_SIZE_FMT (common.h:815).
TEST(EnumCodes, LncSizeFmt) {
  constexpr auto kWant = std::to_array<Code<LncSizeFmt>>({
      {LncSizeFmt::kLnc1, "lnc1", 0},
      {LncSizeFmt::kLnc2, "lnc2", 1},
      {LncSizeFmt::kLnc4, "lnc4", 2},
      {LncSizeFmt::kLnc8, "lnc8", 3},
  });
  expect_codes(kLncSizeFmtEnum, kWant);
}

// [HIGH] wiki-facts §1.2, EXAMPLE_EXTENDED_OPCODES1 (byte 12); 5 is absent.
TEST(EnumCodes, ExtendedOpcode) {
  constexpr auto kWant = std::to_array<Code<ExtendedOpcode>>({
      {ExtendedOpcode::kEngineNop, "engine_nop", 0},
      {ExtendedOpcode::kCopy, "copy", 1},
      {ExtendedOpcode::kTensorTensorArith, "tensor_tensor_arith", 2},
      {ExtendedOpcode::kRandSetState, "rand_set_state", 3},
      {ExtendedOpcode::kRandGetState, "rand_get_state", 4},
      {ExtendedOpcode::kSbufToSbuf, "sbuf_to_sbuf", 6},
      {ExtendedOpcode::kCptcDecode, "cptc_decode", 7},
      {ExtendedOpcode::kRdmaDescGen, "rdma_desc_gen", 8},
      {ExtendedOpcode::kRdmaDescStart, "rdma_desc_start", 9},
  });
  expect_codes(kExtendedOpcodeEnum, kWant);
  EXPECT_EQ(enum_name(kExtendedOpcodeEnum, 5), "");
}

}  // namespace
}  // namespace sbrdma::isa
