#pragma once
/// The field lists of every op: one constexpr description per word format, from which the op
/// table (op_table.h), the typed views (views.h) and the tests are built. Every offset the spec
/// gives is asserted below at compile time.

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <string_view>

#include "isa/layout.h"

namespace sbrdma::isa::fields {

// ---- builders -------------------------------------------------------------------------------

constexpr Field typed(std::string_view name, std::uint8_t offset, Kind kind,
                      Radix radix = Radix::kDec) {
  return Field{name, offset, kind_size(kind), kind, nullptr, radix, 0};
}
constexpr Field enum8(std::string_view name, std::uint8_t offset, const EnumDesc* e) {
  return Field{name, offset, 1, Kind::kEnum8, e, Radix::kDec, 0};
}
constexpr Field reserved(std::string_view name, std::uint8_t offset, std::uint8_t size) {
  return Field{name, offset, size, Kind::kReserved, nullptr, Radix::kDec, 0};
}
constexpr Field opaque(std::string_view name, std::uint8_t offset, std::uint8_t size) {
  return Field{name, offset, size, Kind::kOpaque, nullptr, Radix::kHex, 0};
}

template <std::size_t... N>
constexpr auto concat(const std::array<Field, N>&... parts) {
  std::array<Field, (N + ...)> out{};
  std::size_t i = 0;
  ((std::copy_n(parts.begin(), N, out.begin() + static_cast<std::ptrdiff_t>(i)), i += N), ...);
  return out;
}

/// The field called `name` (compile-time lookup; a missing name fails to compile).
consteval const Field& at(std::span<const Field> fs, std::string_view name) {
  for (const Field& f : fs) {
    if (f.name == name) return f;
  }
  throw "no such field";  // not a constant expression: compile error
}

/// True if the fields lie in offset order, each starting where the last ended, ending at 64.
consteval bool tiles_word(std::span<const Field> fs) {
  std::size_t end = 0;
  for (const Field& f : fs) {
    if (f.offset != end || f.size == 0) return false;
    end += f.size;
  }
  return end == kWordBytes;
}

// ---- shared prefixes ------------------------------------------------------------------------

// NEURON_ISA_TPB_HEADER (4 B) + NEURON_ISA_TPB_EVENTS (8 B), the first 12 bytes of every word:
//   0        1              2          3           4         5        6           7
//   [opcode][inst_word_len][debug_cmd][debug_hint][wait_mode][wait_idx][update_mode][update_idx]
//   8..11: [semaphore_value u32]
// [HIGH] wiki-facts §1.3 (common.h:411-416), §1.4 (common.h:418-424)
inline constexpr std::array kHeader{
    typed("opcode", 0, Kind::kOpcode),
    Field{"inst_word_len", 1, 1, Kind::kU8, nullptr, Radix::kHex, kInstWordLen},
    typed("debug_cmd", 2, Kind::kU8),
    typed("debug_hint", 3, Kind::kU8),
};
inline constexpr std::array kEvents{
    enum8("wait_mode", 4, &kWaitModeEnum),     typed("wait_idx", 5, Kind::kU8),
    enum8("update_mode", 6, &kUpdateModeEnum), typed("update_idx", 7, Kind::kU8),
    typed("semaphore_value", 8, Kind::kU32),
};
static_assert(kHeader.size() == 4 && kHeaderBytes == 4 && kEventsBytes == 8);

// NEURON_ISA_TPB_EXTENDED_STRUCT envelope (extended.h:41-48):
//   12: extended_opcode  13: completion_info  14..31: inst_specific0[18]  32..63:
//   inst_specific1[32]
// [HIGH] wiki-facts §1.2
inline constexpr std::array kEnvelope{
    Field{"extended_opcode", 12, 1, Kind::kSubOpcode, &kExtendedOpcodeEnum, Radix::kDec, 0},
    typed("completion_info", 13, Kind::kCompletionInfo),
};

// ---- 0xF0 ExtendedInst, sub-ops without a public layout (0, 1, 3, 4, 6, 7) ------------------
// [HIGH] envelope; [CHOICE D12, D15e] payload kept verbatim
inline constexpr auto kExtendedOpaque =
    concat(kHeader, kEvents, kEnvelope,
           std::array{opaque("inst_specific0", 14, 18), opaque("inst_specific1", 32, 32)});

// ---- 0xF0/8 NEURON_ISA_TPB_EXTENDED_RDMA_DESC_GEN_STRUCT ------------------------------------
//   12 extended_opcode=8  13 completion_info  14 local_sem  15 remote_sem
//   16 remote_core_id  20 remote_routing_id  24 dma_engine_mask    (IMM_VAL_INST_FIELD, 4 B)
//   28 src_addr  32 dst_addr  (ADDR4)   36 free_dim_bytes (u32)
//   40 is_bidirectional  41 remote_sem_prev  42 reserved0[2]  44 reserved1[20]
// [HIGH] wiki-facts §1.8 (offsets compile-verified on four generations)
inline constexpr auto kRdmaDescGen = concat(
    kHeader, kEvents, kEnvelope,
    std::array{typed("local_sem", 14, Kind::kU8), typed("remote_sem", 15, Kind::kU8),
               typed("remote_core_id", 16, Kind::kImmVal),
               typed("remote_routing_id", 20, Kind::kImmVal),
               typed("dma_engine_mask", 24, Kind::kImmVal, Radix::kHex),
               typed("src_addr", 28, Kind::kAddr4), typed("dst_addr", 32, Kind::kAddr4),
               typed("free_dim_bytes", 36, Kind::kU32), typed("is_bidirectional", 40, Kind::kU8),
               typed("remote_sem_prev", 41, Kind::kU8), reserved("reserved0", 42, 2),
               reserved("reserved1", 44, 20)});

// ---- 0xF0/9 NEURON_ISA_TPB_EXTENDED_RDMA_DESC_START_STRUCT ----------------------------------
//   12 extended_opcode=9  13 completion_info  14 reserved0[2]  16 reserved1[48]
// [HIGH] wiki-facts §1.9
inline constexpr auto kRdmaDescStart =
    concat(kHeader, kEvents, kEnvelope,
           std::array{reserved("reserved0", 14, 2), reserved("reserved1", 16, 48)});

// ---- 0xF0/2 NEURON_ISA_TPB_EXTENDED_TTA_STRUCT ----------------------------------------------
//   12 extended_opcode=2  13 completion_info  14 in0_in1_dtype  15 out_dtype  16 op
//   17 reserved0[3]  20 src0_mem_pattern  32 src1_mem_pattern  44 dst_mem_pattern (TENSOR2D)
//   56 reserved1[8]
// [HIGH] ext-tensor-tensor-arith.md §2 (extended_utils.h:88, offsets compile-asserted)
inline constexpr auto kExtendedTta =
    concat(kHeader, kEvents, kEnvelope,
           std::array{typed("in0_in1_dtype", 14, Kind::kDtypePair),
                      enum8("out_dtype", 15, &kDtypeEnum), enum8("op", 16, &kAluOpEnum),
                      reserved("reserved0", 17, 3), typed("src0_mem_pattern", 20, Kind::kTensor2d),
                      typed("src1_mem_pattern", 32, Kind::kTensor2d),
                      typed("dst_mem_pattern", 44, Kind::kTensor2d), reserved("reserved1", 56, 8)});

// ---- 0xBF NEURON_ISA_TPB_S3D3_COLLECTIVE_STRUCT (SB2SB) --------------------------------------
//   12 in_dtype  13 out_dtype  14 reserved0[2]  16 src_mem_pattern (TENSOR3D)
//   32 lnc_size_fmt  33 num_active_channels  34 reserved1[14]  48 dst_mem_pattern (TENSOR3D)
// [HIGH] wiki-facts §1.10 (gcc probe + libnrt DWARF agree; reserved1 really spans 34..47)
inline constexpr auto kSb2sbCollective =
    concat(kHeader, kEvents,
           std::array{enum8("in_dtype", 12, &kDtypeEnum), enum8("out_dtype", 13, &kDtypeEnum),
                      reserved("reserved0", 14, 2), typed("src_mem_pattern", 16, Kind::kTensor3d),
                      enum8("lnc_size_fmt", 32, &kLncSizeFmtEnum),
                      typed("num_active_channels", 33, Kind::kU8), reserved("reserved1", 34, 14),
                      typed("dst_mem_pattern", 48, Kind::kTensor3d)});

// ---- 0xA0 EVENT_SEMAPHORE --------------------------------------------------------------------
//   0..11 header + events (public)   12..63 payload (layout not public)
// [HIGH] TPB header/events prefix; [CHOICE D15d] payload
inline constexpr auto kEventSemaphore =
    concat(kHeader, kEvents, std::array{opaque("payload", 12, 52)});

// ---- compile-time proof against the spec's tables -------------------------------------------

/// True if `fs` has a field `name` at `offset` spanning `size` bytes.
consteval bool placed(std::span<const Field> fs, std::string_view name, unsigned offset,
                      unsigned size) {
  const Field& f = at(fs, name);
  return f.offset == offset && f.size == size;
}

static_assert(tiles_word(kExtendedOpaque) && tiles_word(kRdmaDescGen) &&
              tiles_word(kRdmaDescStart) && tiles_word(kExtendedTta) &&
              tiles_word(kSb2sbCollective) && tiles_word(kEventSemaphore));

// HEADER (4 B), EVENTS (8 B), the ExtendedInst envelope. [HIGH] wiki-facts §1.2-1.4
static_assert(placed(kHeader, "opcode", 0, 1) && placed(kHeader, "inst_word_len", 1, 1));
static_assert(placed(kHeader, "debug_cmd", 2, 1) && placed(kHeader, "debug_hint", 3, 1));
static_assert(placed(kEvents, "wait_mode", 4, 1) && placed(kEvents, "wait_idx", 5, 1));
static_assert(placed(kEvents, "update_mode", 6, 1) && placed(kEvents, "update_idx", 7, 1));
static_assert(placed(kEvents, "semaphore_value", 8, 4));
static_assert(placed(kExtendedOpaque, "extended_opcode", 12, 1));
static_assert(placed(kExtendedOpaque, "completion_info", 13, 1));
static_assert(placed(kExtendedOpaque, "inst_specific0", 14, 18));
static_assert(placed(kExtendedOpaque, "inst_specific1", 32, 32));

// RDMA_DESC_GEN. [HIGH] wiki-facts §1.8
static_assert(placed(kRdmaDescGen, "local_sem", 14, 1) &&
              placed(kRdmaDescGen, "remote_sem", 15, 1));
static_assert(placed(kRdmaDescGen, "remote_core_id", 16, 4));
static_assert(placed(kRdmaDescGen, "remote_routing_id", 20, 4));
static_assert(placed(kRdmaDescGen, "dma_engine_mask", 24, 4));
static_assert(placed(kRdmaDescGen, "src_addr", 28, 4) && placed(kRdmaDescGen, "dst_addr", 32, 4));
static_assert(placed(kRdmaDescGen, "free_dim_bytes", 36, 4));
static_assert(placed(kRdmaDescGen, "is_bidirectional", 40, 1));
static_assert(placed(kRdmaDescGen, "remote_sem_prev", 41, 1));
static_assert(placed(kRdmaDescGen, "reserved0", 42, 2) &&
              placed(kRdmaDescGen, "reserved1", 44, 20));

// RDMA_DESC_START. [HIGH] wiki-facts §1.9
static_assert(placed(kRdmaDescStart, "reserved0", 14, 2));
static_assert(placed(kRdmaDescStart, "reserved1", 16, 48));

// EXTENDED_TTA. [HIGH] ext-tensor-tensor-arith.md §2
static_assert(placed(kExtendedTta, "in0_in1_dtype", 14, 1) &&
              placed(kExtendedTta, "out_dtype", 15, 1));
static_assert(placed(kExtendedTta, "op", 16, 1) && placed(kExtendedTta, "reserved0", 17, 3));
static_assert(placed(kExtendedTta, "src0_mem_pattern", 20, 12));
static_assert(placed(kExtendedTta, "src1_mem_pattern", 32, 12));
static_assert(placed(kExtendedTta, "dst_mem_pattern", 44, 12));
static_assert(placed(kExtendedTta, "reserved1", 56, 8));

// S3D3_COLLECTIVE. [HIGH] wiki-facts §1.10
static_assert(placed(kSb2sbCollective, "in_dtype", 12, 1));
static_assert(placed(kSb2sbCollective, "out_dtype", 13, 1));
static_assert(placed(kSb2sbCollective, "reserved0", 14, 2));
static_assert(placed(kSb2sbCollective, "src_mem_pattern", 16, 16));
static_assert(placed(kSb2sbCollective, "lnc_size_fmt", 32, 1));
static_assert(placed(kSb2sbCollective, "num_active_channels", 33, 1));
static_assert(placed(kSb2sbCollective, "reserved1", 34, 14));
static_assert(placed(kSb2sbCollective, "dst_mem_pattern", 48, 16));

// EVENT_SEMAPHORE. [HIGH] header + events; [CHOICE D15d]
static_assert(placed(kEventSemaphore, "payload", 12, 52));

}  // namespace sbrdma::isa::fields
