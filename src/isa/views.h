#pragma once
/// Typed views of the words the firmware executes: plain structs with `encode(const T&) ->
/// Word` and `decode_*(const Word&) -> Result<T>`. They read and write through the op table's
/// fields (op_fields.h), so they cannot disagree with the printer or the parser.
///
/// decode_* checks that the word is that op and that it decodes (no reserved bits set); it does
/// not apply the op's validity rules — call validate() for that. encode() writes the op's own
/// opcode and extended_opcode (header.opcode in the struct is ignored) and needs every value to
/// fit its field (Contract; violations are our bugs and abort).

#include <array>
#include <cstdint>

#include "base/result.h"
#include "isa/enums.h"
#include "isa/word.h"

namespace sbrdma::isa {

/// NEURON_ISA_TPB_HEADER. [HIGH] wiki-facts §1.3
struct Header {
  std::uint8_t opcode = 0;
  std::uint8_t inst_word_len = kInstWordLen;  // [CHOICE D10]
  std::uint8_t debug_cmd = 0;
  std::uint8_t debug_hint = 0;
  bool operator==(const Header&) const = default;
};

/// NEURON_ISA_TPB_EVENTS: wait before issue, update after reads / on completion.
/// [HIGH] wiki-facts §1.4
struct Events {
  WaitMode wait_mode = WaitMode::kNone;
  std::uint8_t wait_idx = 0;
  UpdateMode update_mode = UpdateMode::kNone;
  std::uint8_t update_idx = 0;
  std::uint32_t semaphore_value = 0;
  bool operator==(const Events&) const = default;
};

/// NEURON_ISA_TPB_EXT_COMPLETION_INFO. num_active_ports 0 means all 8 ports (128 partitions).
/// [HIGH] wiki-facts §1.5
struct CompletionInfo {
  bool has_read = false;
  bool has_write = false;
  std::uint8_t num_active_ports = 0;  // 3 bits
  bool operator==(const CompletionInfo&) const = default;
};

/// NEURON_ISA_TPB_ADDR4: a partition offset immediate, or a register named by a marker.
/// [HIGH] wiki-facts §1.7, [CHOICE D15b]
struct Addr4 {
  Addr4Marker marker = Addr4Marker::kImmediate;
  std::uint32_t value = 0;  ///< the offset (29 bits) for kImmediate, else the register number

  static constexpr std::uint32_t kImmediateMask = 0x1fffffff;  // TPB_PARTITION_ADDR_MASK [HIGH]
  /// PSUM iff the immediate offset is >= this (magnitude test). [HIGH] sbuf-psum-banks
  static constexpr std::uint32_t kPsumBase = 0x2000000;

  [[nodiscard]] bool is_immediate() const { return marker == Addr4Marker::kImmediate; }
  /// The four bytes as a little-endian u32.
  [[nodiscard]] std::uint32_t raw() const;
  /// Splits raw bytes; register forms drop the reserved bytes 1-2 (decoding rejects them).
  static Addr4 from_raw(std::uint32_t raw);
  bool operator==(const Addr4&) const = default;
};

/// NEURON_ISA_TPB_IMM_VAL_INST_FIELD, read as an immediate. [CHOICE D9, D15f]
struct ImmVal {
  std::uint32_t imm = 0;
  bool operator==(const ImmVal&) const = default;
};

/// NEURON_ISA_TPB_TENSOR3D: start, signed steps and counts in elements. [HIGH] wiki-facts §1.10
struct Tensor3d {
  Addr4 start_addr;
  std::array<std::int16_t, 3> step_elem{};
  std::array<std::uint16_t, 3> num_elem{};
  bool operator==(const Tensor3d&) const = default;
};

/// NEURON_ISA_TPB_TENSOR2D. [HIGH] ext-tensor-tensor-arith.md §2.1
struct Tensor2d {
  Addr4 start_addr;
  std::array<std::int16_t, 2> step_elem{};
  std::array<std::uint16_t, 2> num_elem{};
  bool operator==(const Tensor2d&) const = default;
};

/// NEURON_ISA_TPB_DTYPE_PAIR: src0 in the low nibble, src1 in the high one.
struct DtypePair {
  Dtype dtype_lo = Dtype::kInvalid;
  Dtype dtype_hi = Dtype::kInvalid;
  bool operator==(const DtypePair&) const = default;
};

/// ExtendedInst 8: build the descriptor rings of a peer-to-peer transfer. [HIGH] wiki-facts §1.8
struct RdmaDescGen {
  Header header{kOpcodeExtendedInst};
  Events events;
  CompletionInfo completion_info;
  std::uint8_t local_sem = 0;
  std::uint8_t remote_sem = 0;
  ImmVal remote_core_id;
  ImmVal remote_routing_id;
  ImmVal dma_engine_mask;
  Addr4 src_addr;
  Addr4 dst_addr;
  std::uint32_t free_dim_bytes = 0;
  std::uint8_t is_bidirectional = 0;
  std::uint8_t remote_sem_prev = 0;
  bool operator==(const RdmaDescGen&) const = default;
};

/// ExtendedInst 9: launch what gen built; no operands. [HIGH] wiki-facts §1.9
struct RdmaDescStart {
  Header header{kOpcodeExtendedInst};
  Events events;
  CompletionInfo completion_info;
  bool operator==(const RdmaDescStart&) const = default;
};

/// 0xBF S3D3_COLLECTIVE: the SB2SB collective leg. [HIGH] wiki-facts §1.10
struct Sb2sbCollective {
  Header header{kOpcodeSb2sbCollective};
  Events events;
  Dtype in_dtype = Dtype::kInvalid;
  Dtype out_dtype = Dtype::kInvalid;
  Tensor3d src_mem_pattern;
  LncSizeFmt lnc_size_fmt = LncSizeFmt::kLnc1;
  std::uint8_t num_active_channels = 0;
  Tensor3d dst_mem_pattern;
  bool operator==(const Sb2sbCollective&) const = default;
};

/// ExtendedInst 2: dst = src0 op src1 over 2-D patterns (op: add or mult).
/// [HIGH] ext-tensor-tensor-arith.md §2
struct ExtTensorTensorArith {
  Header header{kOpcodeExtendedInst};
  Events events;
  CompletionInfo completion_info;
  DtypePair in0_in1_dtype;
  Dtype out_dtype = Dtype::kInvalid;
  AluOp op = AluOp::kBypass;
  Tensor2d src0_mem_pattern;
  Tensor2d src1_mem_pattern;
  Tensor2d dst_mem_pattern;
  bool operator==(const ExtTensorTensorArith&) const = default;
};

/// 0xA0 EVENT_SEMAPHORE: its events; the rest of the word is not public. [CHOICE D15d]
struct EventSemaphore {
  Header header{kOpcodeEventSemaphore};
  Events events;
  std::array<std::uint8_t, 52> payload{};
  bool operator==(const EventSemaphore&) const = default;
};

/// The header and events of any word (every TPB word starts with them).
Header decode_header(const Word& word);
Events decode_events(const Word& word);

Word encode(const RdmaDescGen& v);
Word encode(const RdmaDescStart& v);
Word encode(const Sb2sbCollective& v);
Word encode(const ExtTensorTensorArith& v);
Word encode(const EventSemaphore& v);

base::Result<RdmaDescGen> decode_rdma_desc_gen(const Word& word);
base::Result<RdmaDescStart> decode_rdma_desc_start(const Word& word);
base::Result<Sb2sbCollective> decode_sb2sb_collective(const Word& word);
base::Result<ExtTensorTensorArith> decode_ext_tensor_tensor_arith(const Word& word);
base::Result<EventSemaphore> decode_event_semaphore(const Word& word);

}  // namespace sbrdma::isa
