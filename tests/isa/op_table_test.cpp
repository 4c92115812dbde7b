// The op table itself: rows never collide, fields tile the 64-byte word, parts stay inside
// their fields, and the enums are well formed.

#include "isa/op_table.h"

#include <gtest/gtest.h>

#include <bitset>
#include <set>
#include <utility>

#include "isa/field_access.h"
#include "isa/op_fields.h"

namespace sbrdma::isa {
namespace {

TEST(OpTable, NoTwoRowsCollide) {
  std::set<std::pair<int, int>> keys;
  std::set<std::string_view> names;
  for (const OpDesc& op : all_ops()) {
    EXPECT_TRUE(keys.insert({op.opcode, op.sub_op}).second) << op.mnemonic;
    EXPECT_TRUE(names.insert(op.mnemonic).second) << op.mnemonic;
    // A row without a sub-op must be the only row of its opcode.
    if (op.sub_op < 0) {
      for (const OpDesc& other : all_ops()) {
        if (&other != &op) {
          EXPECT_NE(other.opcode, op.opcode) << op.mnemonic << " vs " << other.mnemonic;
        }
      }
    }
  }
}

TEST(OpTable, EveryExtendedSubOpHasARowAndFiveHasNone) {
  for (const EnumValue& v : kExtendedOpcodeEnum.values) {
    const OpDesc* op = find_op(kOpcodeExtendedInst, v.value);
    ASSERT_NE(op, nullptr) << v.name;
    EXPECT_EQ(op->sub_op, v.value);
  }
  EXPECT_EQ(kExtendedOpcodeEnum.values.size(), 9u);
  EXPECT_EQ(find_op(kOpcodeExtendedInst, 5), nullptr);
  EXPECT_EQ(find_op(kOpcodeExtendedInst, 10), nullptr);
  EXPECT_EQ(find_op(kOpcodeExtendedInst, 255), nullptr);
  EXPECT_NE(find_op(kOpcodeSb2sbCollective, 77), nullptr);  // byte 12 is in_dtype there
  EXPECT_EQ(find_op(0x00, 0), nullptr);
}

TEST(OpTable, FieldsTileTheWordWithoutOverlap) {
  for (const OpDesc& op : all_ops()) {
    SCOPED_TRACE(op.mnemonic);
    std::bitset<kWordBytes> covered;
    for (const Field& f : op.fields) {
      ASSERT_GT(f.size, 0);
      ASSERT_LE(f.offset + f.size, kWordBytes) << f.name;
      if (kind_size(f.kind) != 0) {
        EXPECT_EQ(f.size, kind_size(f.kind)) << f.name;
      }
      for (unsigned b = f.offset; b < f.offset + f.size; ++b) {
        EXPECT_FALSE(covered[b]) << f.name << " overlaps at byte " << b;
        covered[b] = true;
      }
    }
    EXPECT_TRUE(covered.all());
  }
}

TEST(OpTable, PartsLieInsideTheirFieldWithoutOverlap) {
  for (const Kind kind :
       {Kind::kU8, Kind::kU16, Kind::kU32, Kind::kEnum8, Kind::kCompletionInfo, Kind::kDtypePair,
        Kind::kImmVal, Kind::kAddr4, Kind::kTensor2d, Kind::kTensor3d}) {
    SCOPED_TRACE(std::string(kind_name(kind)));
    std::bitset<8 * 16> bits;
    for (const Part& p : parts_of(kind)) {
      ASSERT_LE(p.count, kMaxPartCount);
      for (unsigned i = 0; i < p.count; ++i) {
        for (unsigned b = 0; b < p.bits(); ++b) {
          const unsigned bit = 8 * (p.offset + i * p.elem_size) + p.lsb + b;
          ASSERT_LT(bit, 8u * kind_size(kind)) << p.name;
          EXPECT_FALSE(bits[bit]) << p.name;
          bits[bit] = true;
        }
      }
    }
  }
  // EXT_COMPLETION_INFO leaves exactly the reserved bits 1, 6, 7 to nobody.
  std::bitset<8> used;
  for (const Part& p : parts_of(Kind::kCompletionInfo)) {
    for (unsigned b = 0; b < p.bits(); ++b) used[p.lsb + b] = true;
  }
  EXPECT_EQ(used.to_ulong(), 0x3Du);
}

TEST(OpTable, KeysAreUniqueWithinAnOp) {
  for (const OpDesc& op : all_ops()) {
    std::set<std::string> keys;
    for (const Field& f : op.fields) {
      for (const Part& p : parts_of(f.kind)) EXPECT_TRUE(keys.insert(key_name(f, p)).second);
    }
  }
}

TEST(OpTable, LookupsAgree) {
  for (const OpDesc& op : all_ops()) {
    EXPECT_EQ(find_mnemonic(op.mnemonic), &op);
    const Word w = blank_word(op);
    EXPECT_EQ(find_op(w), &op);
    EXPECT_EQ(w[1], kInstWordLen);
    EXPECT_NE(find_field(op, "semaphore_value"), nullptr);
    EXPECT_EQ(find_field(op, "no_such_field"), nullptr);
  }
  EXPECT_EQ(find_mnemonic("frob"), nullptr);
}

// [HIGH] wiki-facts §1.1: every outer opcode the ISA defines besides the three sbrdma decodes,
// each value paired with its name as the digest's table gives it; a swapped or mistyped row
// fails here. Values the table does not list have no name.
TEST(OpTable, UnmodelledOpcodesHaveTheirSpecNames) {
  const std::vector<std::pair<std::uint8_t, std::string_view>> spec{
      {0xB3, "POLL_SEM"},
      {0xB8, "DMAMEMCPY"},
      {0xB9, "DMA_MEMCPY2"},
      {0xBA, "DMA_IMMEDIATE"},
      {0xBB, "DMA_INDIRECT"},
      {0xBD, "DMA_TRANSPOSE"},
      {0xF1, "DMA_GATHER_TRANSPOSE"},
      {0xC3, "DMABARRIER pseudo-op"},
      {0xC7, "TRIGGER_ALL_REDUCE pseudo-op"},
      {0xC8, "TRIGGER_COLLECTIVE pseudo-op"},
      {0xCB, "SEND_RECV pseudo-op"},
      {0xD5, "SYNC_BARRIER pseudo-op"},
      {0xD8, "CORE_BARRIER pseudo-op"},
      {0xD9, "COLLECTIVE2 pseudo-op"},
      {0xDA, "EXTENSION pseudo-op"},
      {0xDB, "CUR_PROCESSING_RANK_ID pseudo-op"},
      {0xDC, "GID_LOAD pseudo-op"},
      {0xD4, "PSEUDO_DMA_DIRECT2D"},
  };
  for (unsigned v = 0; v < 256; ++v) {
    const auto opcode = static_cast<std::uint8_t>(v);
    std::string_view want;
    for (const auto& [value, name] : spec) {
      if (value == opcode) want = name;
    }
    EXPECT_EQ(unmodelled_opcode_name(opcode), want) << "opcode 0x" << std::hex << v;
  }
}

TEST(Enums, NamesAndValuesAreUnique) {
  for (const EnumDesc* e : all_enums()) {
    std::set<std::string_view> names;
    std::set<int> values;
    for (const EnumValue& v : e->values) {
      EXPECT_TRUE(names.insert(v.name).second) << e->type_name << " " << v.name;
      EXPECT_TRUE(values.insert(v.value).second) << e->type_name << " " << v.name;
      EXPECT_EQ(enum_value(*e, v.name), v.value);
      EXPECT_EQ(enum_name(*e, v.value), v.name);
    }
  }
  EXPECT_FALSE(enum_value(kWaitModeEnum, "GE_IMM"));
  EXPECT_EQ(enum_name(kWaitModeEnum, 0xFF), "");  // INVALID has no name: never legal
}

// The typed enums and the name tables say the same thing. [HIGH] wiki-facts §1.4, §1.10
TEST(Enums, TypedValuesHaveTheSpecNames) {
  auto wait = [](WaitMode m) { return enum_name(kWaitModeEnum, static_cast<std::uint8_t>(m)); };
  auto upd = [](UpdateMode m) { return enum_name(kUpdateModeEnum, static_cast<std::uint8_t>(m)); };
  EXPECT_EQ(wait(WaitMode::kGeImm), "ge_imm");
  EXPECT_EQ(static_cast<int>(WaitMode::kGeImm), 0x05);
  EXPECT_EQ(static_cast<int>(WaitMode::kGtImm), 0x04);
  EXPECT_EQ(wait(WaitMode::kGeReg), "ge_reg");
  EXPECT_EQ(static_cast<int>(WaitMode::kGeReg), 0x85);
  EXPECT_EQ(upd(UpdateMode::kIncComplete), "inc_complete");
  EXPECT_EQ(static_cast<int>(UpdateMode::kIncComplete), 0x13);
  EXPECT_EQ(upd(UpdateMode::kWrImmRead), "wr_imm_read");
  EXPECT_EQ(static_cast<int>(UpdateMode::kWrRegComplete), 0x99);
  EXPECT_EQ(static_cast<int>(UpdateMode::kSubRegRead), 0x87);
  EXPECT_EQ(kWaitModeEnum.values.size(), 15u);
  EXPECT_EQ(kUpdateModeEnum.values.size(), 13u);
  EXPECT_EQ(kDtypeEnum.values.size(), 16u);
  EXPECT_EQ(enum_name(kDtypeEnum, static_cast<std::uint8_t>(Dtype::kFp32)), "fp32");
  EXPECT_EQ(static_cast<int>(Dtype::kFp32), 0xA);
  EXPECT_EQ(enum_name(kLncSizeFmtEnum, static_cast<std::uint8_t>(LncSizeFmt::kLnc2)), "lnc2");
  EXPECT_EQ(enum_name(kAluOpEnum, static_cast<std::uint8_t>(AluOp::kMult)), "mult");
  EXPECT_EQ(enum_name(kAluOpEnum, static_cast<std::uint8_t>(AluOp::kAminUint)), "amin_uint");
  EXPECT_EQ(enum_name(kAddr4MarkerEnum, static_cast<std::uint8_t>(Addr4Marker::kAddrReg)),
            "addr_reg");
  EXPECT_EQ(enum_name(kAddr4MarkerEnum, 0x00), "");  // the immediate form is a plain number
}

}  // namespace
}  // namespace sbrdma::isa
