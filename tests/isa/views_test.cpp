// The typed views agree with the generic, table-driven path: every member of a struct lands in
// the bytes the op table names for it, under the text key of the same name.

#include "isa/views.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "isa/printer.h"
#include "sweep_util.h"

namespace sbrdma::isa {
namespace {

/// Element `i` of the part a text key names, read through the op table.
std::int64_t value_of(const Word& w, std::string_view key, unsigned i = 0) {
  const OpDesc* op = find_op(w);
  EXPECT_NE(op, nullptr);
  for (const Field& f : op->fields) {
    for (const Part& p : parts_of(f.kind)) {
      if (key_name(f, p) == key) return read_value(w, f, p, i);
    }
  }
  ADD_FAILURE() << "no key " << key;
  return -1;
}

template <typename E>
std::int64_t n(E e) {
  return static_cast<std::int64_t>(e);
}

Events random_events(testing::RandomWords& r) {
  Events e;
  e.wait_mode = static_cast<WaitMode>(kWaitModeEnum.values[r.below(15)].value);
  e.wait_idx = static_cast<std::uint8_t>(r.below(256));
  e.update_mode = static_cast<UpdateMode>(kUpdateModeEnum.values[r.below(13)].value);
  e.update_idx = static_cast<std::uint8_t>(r.below(256));
  e.semaphore_value = static_cast<std::uint32_t>(r.in(0, 0xffffffff));
  return e;
}

void expect_common(const Word& w, const Header& h, const Events& e) {
  EXPECT_EQ(value_of(w, "inst_word_len"), h.inst_word_len);
  EXPECT_EQ(value_of(w, "debug_cmd"), h.debug_cmd);
  EXPECT_EQ(value_of(w, "debug_hint"), h.debug_hint);
  EXPECT_EQ(value_of(w, "wait_mode"), n(e.wait_mode));
  EXPECT_EQ(value_of(w, "wait_idx"), e.wait_idx);
  EXPECT_EQ(value_of(w, "update_mode"), n(e.update_mode));
  EXPECT_EQ(value_of(w, "update_idx"), e.update_idx);
  EXPECT_EQ(value_of(w, "semaphore_value"), e.semaphore_value);
  EXPECT_EQ(decode_header(w).inst_word_len, h.inst_word_len);
  EXPECT_EQ(decode_events(w), e);
}

template <typename T>
void expect_tensor(const Word& w, const std::string& name, const T& t) {
  EXPECT_EQ(value_of(w, name + ".start_addr"), t.start_addr.raw());
  for (unsigned i = 0; i < t.num_elem.size(); ++i) {
    EXPECT_EQ(value_of(w, name + ".step_elem", i), t.step_elem[i]);
    EXPECT_EQ(value_of(w, name + ".num_elem", i), t.num_elem[i]);
  }
}

TEST(Views, RdmaDescGenAgreesWithTheTable) {
  testing::RandomWords r(7);
  for (int k = 0; k < 100; ++k) {
    RdmaDescGen g;
    g.header.debug_cmd = static_cast<std::uint8_t>(r.below(256));
    g.events = random_events(r);
    g.completion_info = {r.one_in(2), r.one_in(2), static_cast<std::uint8_t>(r.below(8))};
    g.local_sem = static_cast<std::uint8_t>(r.below(256));
    g.remote_sem = static_cast<std::uint8_t>(r.below(256));
    g.remote_core_id.imm = static_cast<std::uint32_t>(r.in(0, 0xffffffff));
    g.remote_routing_id.imm = static_cast<std::uint32_t>(r.in(0, 0xffffffff));
    g.dma_engine_mask.imm = static_cast<std::uint32_t>(r.in(0, 0xffffffff));
    g.src_addr = r.addr4();
    g.dst_addr = r.addr4();
    g.free_dim_bytes = static_cast<std::uint32_t>(r.in(0, 0xffffffff));
    g.is_bidirectional = static_cast<std::uint8_t>(r.below(256));
    g.remote_sem_prev = static_cast<std::uint8_t>(r.below(256));
    const Word w = encode(g);
    EXPECT_EQ(w[0], kOpcodeExtendedInst);
    EXPECT_EQ(w[12], 8);
    expect_common(w, g.header, g.events);
    EXPECT_EQ(value_of(w, "completion_info.has_read"), g.completion_info.has_read);
    EXPECT_EQ(value_of(w, "completion_info.has_write"), g.completion_info.has_write);
    EXPECT_EQ(value_of(w, "completion_info.num_active_ports"), g.completion_info.num_active_ports);
    EXPECT_EQ(value_of(w, "local_sem"), g.local_sem);
    EXPECT_EQ(value_of(w, "remote_sem"), g.remote_sem);
    EXPECT_EQ(value_of(w, "remote_core_id"), g.remote_core_id.imm);
    EXPECT_EQ(value_of(w, "remote_routing_id"), g.remote_routing_id.imm);
    EXPECT_EQ(value_of(w, "dma_engine_mask"), g.dma_engine_mask.imm);
    EXPECT_EQ(value_of(w, "src_addr"), g.src_addr.raw());
    EXPECT_EQ(value_of(w, "dst_addr"), g.dst_addr.raw());
    EXPECT_EQ(value_of(w, "free_dim_bytes"), g.free_dim_bytes);
    EXPECT_EQ(value_of(w, "is_bidirectional"), g.is_bidirectional);
    EXPECT_EQ(value_of(w, "remote_sem_prev"), g.remote_sem_prev);
    EXPECT_EQ(decode_rdma_desc_gen(w).value(), g);
  }
}

TEST(Views, Sb2sbCollectiveAgreesWithTheTable) {
  testing::RandomWords r(8);
  for (int k = 0; k < 100; ++k) {
    Sb2sbCollective s;
    s.events = random_events(r);
    s.in_dtype = static_cast<Dtype>(r.below(16));
    s.out_dtype = static_cast<Dtype>(r.below(16));
    s.lnc_size_fmt = static_cast<LncSizeFmt>(r.below(4));
    s.num_active_channels = static_cast<std::uint8_t>(r.below(256));
    for (Tensor3d* t : {&s.src_mem_pattern, &s.dst_mem_pattern}) {
      t->start_addr = r.addr4();
      for (unsigned i = 0; i < 3; ++i) {
        t->step_elem[i] = static_cast<std::int16_t>(r.in(-32768, 32767));
        t->num_elem[i] = static_cast<std::uint16_t>(r.below(65536));
      }
    }
    const Word w = encode(s);
    EXPECT_EQ(w[0], kOpcodeSb2sbCollective);
    expect_common(w, s.header, s.events);
    EXPECT_EQ(value_of(w, "in_dtype"), n(s.in_dtype));
    EXPECT_EQ(value_of(w, "out_dtype"), n(s.out_dtype));
    EXPECT_EQ(value_of(w, "lnc_size_fmt"), n(s.lnc_size_fmt));
    EXPECT_EQ(value_of(w, "num_active_channels"), s.num_active_channels);
    expect_tensor(w, "src_mem_pattern", s.src_mem_pattern);
    expect_tensor(w, "dst_mem_pattern", s.dst_mem_pattern);
    EXPECT_EQ(decode_sb2sb_collective(w).value(), s);
  }
}

TEST(Views, TensorTensorArithAgreesWithTheTable) {
  testing::RandomWords r(9);
  for (int k = 0; k < 100; ++k) {
    ExtTensorTensorArith t;
    t.events = random_events(r);
    t.completion_info = {r.one_in(2), r.one_in(2), static_cast<std::uint8_t>(r.below(8))};
    t.in0_in1_dtype = {static_cast<Dtype>(r.below(16)), static_cast<Dtype>(r.below(16))};
    t.out_dtype = static_cast<Dtype>(r.below(16));
    t.op = static_cast<AluOp>(kAluOpEnum.values[r.below(60)].value);
    for (Tensor2d* p : {&t.src0_mem_pattern, &t.src1_mem_pattern, &t.dst_mem_pattern}) {
      p->start_addr = r.addr4();
      p->step_elem = {static_cast<std::int16_t>(r.in(-32768, 32767)),
                      static_cast<std::int16_t>(r.in(-32768, 32767))};
      p->num_elem = {static_cast<std::uint16_t>(r.below(65536)),
                     static_cast<std::uint16_t>(r.below(65536))};
    }
    const Word w = encode(t);
    EXPECT_EQ(w[12], 2);
    expect_common(w, t.header, t.events);
    EXPECT_EQ(value_of(w, "in0_in1_dtype.dtype_lo"), n(t.in0_in1_dtype.dtype_lo));
    EXPECT_EQ(value_of(w, "in0_in1_dtype.dtype_hi"), n(t.in0_in1_dtype.dtype_hi));
    EXPECT_EQ(value_of(w, "out_dtype"), n(t.out_dtype));
    EXPECT_EQ(value_of(w, "op"), n(t.op));
    expect_tensor(w, "src0_mem_pattern", t.src0_mem_pattern);
    expect_tensor(w, "src1_mem_pattern", t.src1_mem_pattern);
    expect_tensor(w, "dst_mem_pattern", t.dst_mem_pattern);
    EXPECT_EQ(decode_ext_tensor_tensor_arith(w).value(), t);
  }
}

TEST(Views, StartAndEventSemaphoreAgreeWithTheTable) {
  testing::RandomWords r(10);
  for (int k = 0; k < 50; ++k) {
    RdmaDescStart s;
    s.header.debug_hint = static_cast<std::uint8_t>(r.below(256));
    s.events = random_events(r);
    s.completion_info.num_active_ports = static_cast<std::uint8_t>(r.below(8));
    const Word ws = encode(s);
    expect_common(ws, s.header, s.events);
    EXPECT_EQ(ws[12], 9);
    EXPECT_EQ(decode_rdma_desc_start(ws).value(), s);

    EventSemaphore e;
    e.events = random_events(r);
    for (auto& b : e.payload) b = static_cast<std::uint8_t>(r.below(256));
    const Word we = encode(e);
    expect_common(we, e.header, e.events);
    EXPECT_TRUE(std::equal(e.payload.begin(), e.payload.end(), we.begin() + 12));
    EXPECT_EQ(decode_event_semaphore(we).value(), e);
  }
}

TEST(Views, EncodeWritesTheOpsOwnOpcode) {
  RdmaDescStart s;
  s.header.opcode = 0x12;  // ignored
  EXPECT_EQ(encode(s)[0], kOpcodeExtendedInst);
  EXPECT_EQ(encode(s)[1], kInstWordLen);
  EXPECT_EQ(decode_rdma_desc_start(encode(s)).value().header.opcode, kOpcodeExtendedInst);
}

TEST(Views, Addr4Forms) {
  EXPECT_EQ(Addr4::from_raw(0x1fffffff), (Addr4{Addr4Marker::kImmediate, 0x1fffffff}));
  EXPECT_EQ(Addr4::from_raw(0x80000005), (Addr4{Addr4Marker::kAddrReg, 5}));
  EXPECT_EQ(Addr4::from_raw(0x200000ff), (Addr4{Addr4Marker::kIndirectImm, 0xff}));
  EXPECT_EQ(Addr4::from_raw(0xC0000001), (Addr4{Addr4Marker::kAddrShapeReg, 1}));
  EXPECT_EQ((Addr4{Addr4Marker::kShapeReg, 7}).raw(), 0x40000007u);
  EXPECT_EQ((Addr4{Addr4Marker::kIndirectReg, 2}).raw(), 0xA0000002u);
  EXPECT_EQ((Addr4{Addr4Marker::kImmediate, 0x1000}).raw(), 0x1000u);
  EXPECT_TRUE(Addr4::from_raw(0x02000000).is_immediate());  // PSUM bit 25: still an immediate
}

TEST(Views, ReadmeExampleText) {
  RdmaDescGen g;
  g.local_sem = 3;
  g.dma_engine_mask.imm = 0xffff;
  g.free_dim_bytes = 4096;
  EXPECT_EQ(print_word(encode(g)),
            "rdma_desc_gen local_sem=3 dma_engine_mask=0xffff free_dim_bytes=4096");
}

}  // namespace
}  // namespace sbrdma::isa
