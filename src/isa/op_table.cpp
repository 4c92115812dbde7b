#include "isa/op_table.h"

#include <array>

#include "isa/op_fields.h"
#include "isa/rules.h"

namespace sbrdma::isa {
namespace {

constexpr std::int16_t sub(ExtendedOpcode op) {
  return static_cast<std::int16_t>(op);
}

// [HIGH] wiki-facts §1.1 (opcodes), §1.2 (sub-ops); mnemonics [CHOICE D15g]
constexpr std::array kOps{
    OpDesc{kOpcodeEventSemaphore, -1, "event_semaphore", "EVENT_SEMAPHORE (CTRL_ES)",
           fields::kEventSemaphore, nullptr},
    OpDesc{kOpcodeSb2sbCollective, -1, "sb2sb_collective", "S3D3_COLLECTIVE_STRUCT",
           fields::kSb2sbCollective, &check_sb2sb_collective},
    OpDesc{kOpcodeExtendedInst, sub(ExtendedOpcode::kEngineNop), "ext_engine_nop",
           "EXTENDED_ENOP_STRUCT", fields::kExtendedOpaque, nullptr},
    OpDesc{kOpcodeExtendedInst, sub(ExtendedOpcode::kCopy), "ext_copy", "EXTENDED_COPY_STRUCT",
           fields::kExtendedOpaque, nullptr},
    OpDesc{kOpcodeExtendedInst, sub(ExtendedOpcode::kTensorTensorArith), "ext_tensor_tensor_arith",
           "EXTENDED_TTA_STRUCT", fields::kExtendedTta, &check_ext_tensor_tensor_arith},
    OpDesc{kOpcodeExtendedInst, sub(ExtendedOpcode::kRandSetState), "ext_rand_set_state",
           "EXTENDED_RSS_STRUCT", fields::kExtendedOpaque, nullptr},
    OpDesc{kOpcodeExtendedInst, sub(ExtendedOpcode::kRandGetState), "ext_rand_get_state",
           "EXTENDED_RGS_STRUCT", fields::kExtendedOpaque, nullptr},
    OpDesc{kOpcodeExtendedInst, sub(ExtendedOpcode::kSbufToSbuf), "ext_sbuf_to_sbuf",
           "EXTENDED_SB2SB_STRUCT", fields::kExtendedOpaque, nullptr},
    OpDesc{kOpcodeExtendedInst, sub(ExtendedOpcode::kCptcDecode), "ext_cptc_decode",
           "EXTENDED_CPTCD_STRUCT", fields::kExtendedOpaque, nullptr},
    OpDesc{kOpcodeExtendedInst, sub(ExtendedOpcode::kRdmaDescGen), "rdma_desc_gen",
           "EXTENDED_RDMA_DESC_GEN_STRUCT", fields::kRdmaDescGen, &check_rdma_desc_gen},
    OpDesc{kOpcodeExtendedInst, sub(ExtendedOpcode::kRdmaDescStart), "rdma_desc_start",
           "EXTENDED_RDMA_DESC_START_STRUCT", fields::kRdmaDescStart, nullptr},
};

}  // namespace

std::span<const OpDesc> all_ops() {
  return kOps;
}

const OpDesc* find_op(std::uint8_t opcode, std::uint8_t sub_op) {
  for (const OpDesc& op : kOps) {
    if (op.opcode != opcode) continue;
    if (op.sub_op < 0 || op.sub_op == sub_op) return &op;
  }
  return nullptr;
}

const OpDesc* find_op(const Word& word) {
  return find_op(word[0], word[fields::at(fields::kExtendedOpaque, "extended_opcode").offset]);
}

const OpDesc* find_mnemonic(std::string_view mnemonic) {
  for (const OpDesc& op : kOps) {
    if (op.mnemonic == mnemonic) return &op;
  }
  return nullptr;
}

const Field* find_field(const OpDesc& op, std::string_view name) {
  for (const Field& f : op.fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string_view unmodelled_opcode_name(std::uint8_t opcode) {
  struct Named {
    std::uint8_t opcode;
    std::string_view name;
  };
  // [HIGH] wiki-facts §1.1 (cayman common.h): the outer opcodes besides 0xA0, 0xBF and 0xF0.
  static constexpr std::array<Named, 18> kNames{{
      {0xB3, "POLL_SEM"},
      {0xB8, "DMAMEMCPY"},
      {0xB9, "DMA_MEMCPY2"},
      {0xBA, "DMA_IMMEDIATE"},
      {0xBB, "DMA_INDIRECT"},
      {0xBD, "DMA_TRANSPOSE"},
      {0xC3, "DMABARRIER pseudo-op"},
      {0xC7, "TRIGGER_ALL_REDUCE pseudo-op"},
      {0xC8, "TRIGGER_COLLECTIVE pseudo-op"},
      {0xCB, "SEND_RECV pseudo-op"},
      {0xD4, "PSEUDO_DMA_DIRECT2D"},
      {0xD5, "SYNC_BARRIER pseudo-op"},
      {0xD8, "CORE_BARRIER pseudo-op"},
      {0xD9, "COLLECTIVE2 pseudo-op"},
      {0xDA, "EXTENSION pseudo-op"},
      {0xDB, "CUR_PROCESSING_RANK_ID pseudo-op"},
      {0xDC, "GID_LOAD pseudo-op"},
      {0xF1, "DMA_GATHER_TRANSPOSE"},
  }};
  for (const Named& n : kNames) {
    if (n.opcode == opcode) return n.name;
  }
  return {};
}

}  // namespace sbrdma::isa
