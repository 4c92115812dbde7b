#include "isa/views.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/check.h"
#include "isa/field_access.h"
#include "isa/op_fields.h"
#include "isa/op_table.h"
#include "isa/validate.h"

namespace sbrdma::isa {
namespace {

namespace f = fields;

constexpr const Part& part(const Field& field, std::string_view name) {
  for (const Part& p : parts_of(field.kind)) {
    if (p.name == name) return p;
  }
  SBRDMA_CHECK_MSG(false, "views: no such part");
  return parts_of(field.kind)[0];
}

/// Element `i` of part `name` of a field, resolved at compile time (a field named with
/// f::at converts implicitly): encoding and decoding a word are then loads and stores at
/// constant offsets.
struct Slot {
  consteval Slot(const Field& field, std::string_view name = "", unsigned i = 0)  // NOLINT
      : at(elem_slot(field, part(field, name), i)) {}
  ElemSlot at;
};

// Whole-field scalars (u8/u16/u32/enum/IMM_VAL/ADDR4 raw) and bit fields.
void put(Word& w, Slot s, std::int64_t v) {
  write_slot(w, s.at, v);
}
std::int64_t get(const Word& w, Slot s) {
  return read_slot(w, s.at);
}

template <typename E>
std::int64_t num(E e) {
  return static_cast<std::int64_t>(e);
}
template <typename E>
E as(std::int64_t v) {
  return static_cast<E>(v);
}

void put_header(Word& w, const Header& h) {
  put(w, f::at(f::kHeader, "inst_word_len"), h.inst_word_len);
  put(w, f::at(f::kHeader, "debug_cmd"), h.debug_cmd);
  put(w, f::at(f::kHeader, "debug_hint"), h.debug_hint);
}

void put_events(Word& w, const Events& e) {
  put(w, f::at(f::kEvents, "wait_mode"), num(e.wait_mode));
  put(w, f::at(f::kEvents, "wait_idx"), e.wait_idx);
  put(w, f::at(f::kEvents, "update_mode"), num(e.update_mode));
  put(w, f::at(f::kEvents, "update_idx"), e.update_idx);
  put(w, f::at(f::kEvents, "semaphore_value"), e.semaphore_value);
}

constexpr const Field& kCompletionInfo = f::at(f::kEnvelope, "completion_info");

void put_completion(Word& w, const CompletionInfo& c) {
  put(w, {kCompletionInfo, "has_read"}, c.has_read ? 1 : 0);
  put(w, {kCompletionInfo, "has_write"}, c.has_write ? 1 : 0);
  put(w, {kCompletionInfo, "num_active_ports"}, c.num_active_ports);
}

CompletionInfo get_completion(const Word& w) {
  return CompletionInfo{get(w, {kCompletionInfo, "has_read"}) != 0,
                        get(w, {kCompletionInfo, "has_write"}) != 0,
                        static_cast<std::uint8_t>(get(w, {kCompletionInfo, "num_active_ports"}))};
}

template <typename T>
void put_tensor(Word& w, const Field& field, const T& t) {
  write_value(w, field, part(field, "start_addr"), 0, t.start_addr.raw());
  for (unsigned i = 0; i < t.step_elem.size(); ++i) {
    write_value(w, field, part(field, "step_elem"), i, t.step_elem[i]);
    write_value(w, field, part(field, "num_elem"), i, t.num_elem[i]);
  }
}

template <typename T>
T get_tensor(const Word& w, const Field& field) {
  T t;
  t.start_addr =
      Addr4::from_raw(static_cast<std::uint32_t>(read_value(w, field, part(field, "start_addr"))));
  for (unsigned i = 0; i < t.step_elem.size(); ++i) {
    t.step_elem[i] = static_cast<std::int16_t>(read_value(w, field, part(field, "step_elem"), i));
    t.num_elem[i] = static_cast<std::uint16_t>(read_value(w, field, part(field, "num_elem"), i));
  }
  return t;
}

Addr4 get_addr4(const Word& w, Slot s) {
  return Addr4::from_raw(static_cast<std::uint32_t>(get(w, s)));
}

Word blank(std::string_view mnemonic) {
  const OpDesc* op = find_mnemonic(mnemonic);
  SBRDMA_CHECK(op != nullptr);
  return blank_word(*op);
}

/// Checks that `w` is a decodable `mnemonic` word.
base::Status expect_op(const Word& w, std::string_view mnemonic) {
  const OpDesc* op = find_op(w);
  if (op == nullptr || op->mnemonic != mnemonic) {
    return base::make_error(
        fmt::format("not an {} word (opcode 0x{:02x}, byte 12 = {})", mnemonic, w[0], w[12]));
  }
  if (auto p = decode_problem(w)) return base::make_error(p->message);
  return base::ok_status();
}

}  // namespace

std::uint32_t Addr4::raw() const {
  if (is_immediate()) {
    SBRDMA_CHECK_MSG((value & ~kImmediateMask) == 0, "Addr4 immediate wider than 29 bits");
    return value;
  }
  SBRDMA_CHECK_MSG(value <= 0xff, "Addr4 register number wider than 8 bits");
  return (std::uint32_t{static_cast<std::uint8_t>(marker)} << 24) | value;
}

Addr4 Addr4::from_raw(std::uint32_t raw) {
  if ((raw & ~kImmediateMask) == 0) return Addr4{Addr4Marker::kImmediate, raw};
  return Addr4{static_cast<Addr4Marker>(raw >> 24), raw & 0xff};
}

Header decode_header(const Word& w) {
  return Header{w[0], static_cast<std::uint8_t>(get(w, f::at(f::kHeader, "inst_word_len"))),
                static_cast<std::uint8_t>(get(w, f::at(f::kHeader, "debug_cmd"))),
                static_cast<std::uint8_t>(get(w, f::at(f::kHeader, "debug_hint")))};
}

Events decode_events(const Word& w) {
  return Events{as<WaitMode>(get(w, f::at(f::kEvents, "wait_mode"))),
                static_cast<std::uint8_t>(get(w, f::at(f::kEvents, "wait_idx"))),
                as<UpdateMode>(get(w, f::at(f::kEvents, "update_mode"))),
                static_cast<std::uint8_t>(get(w, f::at(f::kEvents, "update_idx"))),
                static_cast<std::uint32_t>(get(w, f::at(f::kEvents, "semaphore_value")))};
}

// ---- rdma_desc_gen ---------------------------------------------------------------------------

Word encode(const RdmaDescGen& v) {
  static const Word kBlank = blank("rdma_desc_gen");  // looked up and filled once
  Word w = kBlank;
  put_header(w, v.header);
  put_events(w, v.events);
  put_completion(w, v.completion_info);
  put(w, f::at(f::kRdmaDescGen, "local_sem"), v.local_sem);
  put(w, f::at(f::kRdmaDescGen, "remote_sem"), v.remote_sem);
  put(w, f::at(f::kRdmaDescGen, "remote_core_id"), v.remote_core_id.imm);
  put(w, f::at(f::kRdmaDescGen, "remote_routing_id"), v.remote_routing_id.imm);
  put(w, f::at(f::kRdmaDescGen, "dma_engine_mask"), v.dma_engine_mask.imm);
  put(w, f::at(f::kRdmaDescGen, "src_addr"), v.src_addr.raw());
  put(w, f::at(f::kRdmaDescGen, "dst_addr"), v.dst_addr.raw());
  put(w, f::at(f::kRdmaDescGen, "free_dim_bytes"), v.free_dim_bytes);
  put(w, f::at(f::kRdmaDescGen, "is_bidirectional"), v.is_bidirectional);
  put(w, f::at(f::kRdmaDescGen, "remote_sem_prev"), v.remote_sem_prev);
  return w;
}

base::Result<RdmaDescGen> decode_rdma_desc_gen(const Word& w) {
  SBRDMA_TRY(expect_op(w, "rdma_desc_gen"));
  RdmaDescGen v;
  v.header = decode_header(w);
  v.events = decode_events(w);
  v.completion_info = get_completion(w);
  v.local_sem = static_cast<std::uint8_t>(get(w, f::at(f::kRdmaDescGen, "local_sem")));
  v.remote_sem = static_cast<std::uint8_t>(get(w, f::at(f::kRdmaDescGen, "remote_sem")));
  v.remote_core_id.imm =
      static_cast<std::uint32_t>(get(w, f::at(f::kRdmaDescGen, "remote_core_id")));
  v.remote_routing_id.imm =
      static_cast<std::uint32_t>(get(w, f::at(f::kRdmaDescGen, "remote_routing_id")));
  v.dma_engine_mask.imm =
      static_cast<std::uint32_t>(get(w, f::at(f::kRdmaDescGen, "dma_engine_mask")));
  v.src_addr = get_addr4(w, f::at(f::kRdmaDescGen, "src_addr"));
  v.dst_addr = get_addr4(w, f::at(f::kRdmaDescGen, "dst_addr"));
  v.free_dim_bytes = static_cast<std::uint32_t>(get(w, f::at(f::kRdmaDescGen, "free_dim_bytes")));
  v.is_bidirectional =
      static_cast<std::uint8_t>(get(w, f::at(f::kRdmaDescGen, "is_bidirectional")));
  v.remote_sem_prev = static_cast<std::uint8_t>(get(w, f::at(f::kRdmaDescGen, "remote_sem_prev")));
  return v;
}

// ---- rdma_desc_start -------------------------------------------------------------------------

Word encode(const RdmaDescStart& v) {
  static const Word kBlank = blank("rdma_desc_start");  // looked up and filled once
  Word w = kBlank;
  put_header(w, v.header);
  put_events(w, v.events);
  put_completion(w, v.completion_info);
  return w;
}

base::Result<RdmaDescStart> decode_rdma_desc_start(const Word& w) {
  SBRDMA_TRY(expect_op(w, "rdma_desc_start"));
  return RdmaDescStart{decode_header(w), decode_events(w), get_completion(w)};
}

// ---- sb2sb_collective ------------------------------------------------------------------------

Word encode(const Sb2sbCollective& v) {
  static const Word kBlank = blank("sb2sb_collective");  // looked up and filled once
  Word w = kBlank;
  put_header(w, v.header);
  put_events(w, v.events);
  put(w, f::at(f::kSb2sbCollective, "in_dtype"), num(v.in_dtype));
  put(w, f::at(f::kSb2sbCollective, "out_dtype"), num(v.out_dtype));
  put_tensor(w, f::at(f::kSb2sbCollective, "src_mem_pattern"), v.src_mem_pattern);
  put(w, f::at(f::kSb2sbCollective, "lnc_size_fmt"), num(v.lnc_size_fmt));
  put(w, f::at(f::kSb2sbCollective, "num_active_channels"), v.num_active_channels);
  put_tensor(w, f::at(f::kSb2sbCollective, "dst_mem_pattern"), v.dst_mem_pattern);
  return w;
}

base::Result<Sb2sbCollective> decode_sb2sb_collective(const Word& w) {
  SBRDMA_TRY(expect_op(w, "sb2sb_collective"));
  Sb2sbCollective v;
  v.header = decode_header(w);
  v.events = decode_events(w);
  v.in_dtype = as<Dtype>(get(w, f::at(f::kSb2sbCollective, "in_dtype")));
  v.out_dtype = as<Dtype>(get(w, f::at(f::kSb2sbCollective, "out_dtype")));
  v.src_mem_pattern = get_tensor<Tensor3d>(w, f::at(f::kSb2sbCollective, "src_mem_pattern"));
  v.lnc_size_fmt = as<LncSizeFmt>(get(w, f::at(f::kSb2sbCollective, "lnc_size_fmt")));
  v.num_active_channels =
      static_cast<std::uint8_t>(get(w, f::at(f::kSb2sbCollective, "num_active_channels")));
  v.dst_mem_pattern = get_tensor<Tensor3d>(w, f::at(f::kSb2sbCollective, "dst_mem_pattern"));
  return v;
}

// ---- ext_tensor_tensor_arith -----------------------------------------------------------------

Word encode(const ExtTensorTensorArith& v) {
  static const Word kBlank = blank("ext_tensor_tensor_arith");  // looked up and filled once
  Word w = kBlank;
  put_header(w, v.header);
  put_events(w, v.events);
  put_completion(w, v.completion_info);
  constexpr const Field& pair = f::at(f::kExtendedTta, "in0_in1_dtype");
  put(w, {pair, "dtype_lo"}, num(v.in0_in1_dtype.dtype_lo));
  put(w, {pair, "dtype_hi"}, num(v.in0_in1_dtype.dtype_hi));
  put(w, f::at(f::kExtendedTta, "out_dtype"), num(v.out_dtype));
  put(w, f::at(f::kExtendedTta, "op"), num(v.op));
  put_tensor(w, f::at(f::kExtendedTta, "src0_mem_pattern"), v.src0_mem_pattern);
  put_tensor(w, f::at(f::kExtendedTta, "src1_mem_pattern"), v.src1_mem_pattern);
  put_tensor(w, f::at(f::kExtendedTta, "dst_mem_pattern"), v.dst_mem_pattern);
  return w;
}

base::Result<ExtTensorTensorArith> decode_ext_tensor_tensor_arith(const Word& w) {
  SBRDMA_TRY(expect_op(w, "ext_tensor_tensor_arith"));
  ExtTensorTensorArith v;
  v.header = decode_header(w);
  v.events = decode_events(w);
  v.completion_info = get_completion(w);
  constexpr const Field& pair = f::at(f::kExtendedTta, "in0_in1_dtype");
  v.in0_in1_dtype.dtype_lo = as<Dtype>(get(w, {pair, "dtype_lo"}));
  v.in0_in1_dtype.dtype_hi = as<Dtype>(get(w, {pair, "dtype_hi"}));
  v.out_dtype = as<Dtype>(get(w, f::at(f::kExtendedTta, "out_dtype")));
  v.op = as<AluOp>(get(w, f::at(f::kExtendedTta, "op")));
  v.src0_mem_pattern = get_tensor<Tensor2d>(w, f::at(f::kExtendedTta, "src0_mem_pattern"));
  v.src1_mem_pattern = get_tensor<Tensor2d>(w, f::at(f::kExtendedTta, "src1_mem_pattern"));
  v.dst_mem_pattern = get_tensor<Tensor2d>(w, f::at(f::kExtendedTta, "dst_mem_pattern"));
  return v;
}

// ---- event_semaphore -------------------------------------------------------------------------

Word encode(const EventSemaphore& v) {
  static const Word kBlank = blank("event_semaphore");  // looked up and filled once
  Word w = kBlank;
  put_header(w, v.header);
  put_events(w, v.events);
  auto bytes = field_bytes(w, f::at(f::kEventSemaphore, "payload"));
  std::copy(v.payload.begin(), v.payload.end(), bytes.begin());
  return w;
}

base::Result<EventSemaphore> decode_event_semaphore(const Word& w) {
  SBRDMA_TRY(expect_op(w, "event_semaphore"));
  EventSemaphore v;
  v.header = decode_header(w);
  v.events = decode_events(w);
  auto bytes = field_bytes(w, f::at(f::kEventSemaphore, "payload"));
  std::copy(bytes.begin(), bytes.end(), v.payload.begin());
  return v;
}

}  // namespace sbrdma::isa
