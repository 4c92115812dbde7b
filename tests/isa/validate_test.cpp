// Validation, rule by rule, and the separation between decoding faults (illegal op, reserved
// bits) and validation faults (bad values, unsupported, rules).

#include "isa/validate.h"

#include <gtest/gtest.h>

#include "isa/views.h"

namespace sbrdma::isa {
namespace {

/// The faults of a word, in order.
std::vector<Fault> faults(const Word& w) {
  std::vector<Fault> out;
  for (const Problem& p : validate(w)) out.push_back(p.fault);
  return out;
}

std::string first_message(const Word& w) {
  const Problems ps = validate(w);
  return ps.empty() ? std::string() : ps.front().message;
}

RdmaDescGen good_gen() {
  RdmaDescGen g;
  g.dma_engine_mask.imm = 0xffff;
  g.free_dim_bytes = 4096;
  return g;
}

Sb2sbCollective good_sb2sb() {
  Sb2sbCollective s;
  s.in_dtype = s.out_dtype = Dtype::kFp32;
  s.lnc_size_fmt = LncSizeFmt::kLnc2;
  s.num_active_channels = 128;
  s.src_mem_pattern.num_elem = {64, 1, 1};
  s.dst_mem_pattern.num_elem = {64, 1, 1};
  return s;
}

TEST(Validate, GoodWordsHaveNoProblems) {
  EXPECT_TRUE(validate(encode(good_gen())).empty());
  EXPECT_TRUE(validate(encode(RdmaDescStart{})).empty());
  EXPECT_TRUE(validate(encode(good_sb2sb())).empty());
  EXPECT_TRUE(validate(encode(EventSemaphore{})).empty());
}

TEST(Validate, IllegalOpcodeAndSubOpAreDecodingFaults) {
  Word w{};
  w[0] = 0x12;
  ASSERT_TRUE(decode_problem(w));
  EXPECT_EQ(decode_problem(w)->fault, Fault::kIllegalOpcode);
  EXPECT_EQ(decode_problem(w)->message, "illegal opcode 0x12");
  // An opcode the ISA has but sbrdma does not model is named, not called illegal. [HIGH] §1.1
  w[0] = 0xB8;
  EXPECT_EQ(decode_problem(w)->message,
            "opcode 0xb8 (DMAMEMCPY) is not modelled (sbrdma decodes 0xa0, 0xbf and 0xf0)");
  w[0] = 0xD4;
  EXPECT_EQ(decode_problem(w)->fault, Fault::kIllegalOpcode);
  EXPECT_NE(decode_problem(w)->message.find("(PSEUDO_DMA_DIRECT2D)"), std::string::npos);
  w[0] = kOpcodeExtendedInst;
  for (std::uint8_t sub : {5, 10, 255}) {
    w[12] = sub;
    ASSERT_TRUE(decode_problem(w));
    EXPECT_EQ(decode_problem(w)->fault, Fault::kIllegalSubOp);
    EXPECT_EQ(faults(w), std::vector<Fault>{Fault::kIllegalSubOp});
  }
}

TEST(Validate, ReservedBytesMustBeZero) {
  struct Case {
    Word word;
    unsigned byte;
  };
  std::vector<Case> cases;
  for (unsigned b : {42u, 43u, 44u, 63u}) cases.push_back({encode(good_gen()), b});
  for (unsigned b : {14u, 15u, 16u, 63u}) cases.push_back({encode(RdmaDescStart{}), b});
  for (unsigned b : {14u, 15u, 34u, 47u}) cases.push_back({encode(good_sb2sb()), b});
  for (Case& c : cases) {
    c.word[c.byte] = 0x80;
    ASSERT_TRUE(decode_problem(c.word)) << c.byte;
    EXPECT_EQ(decode_problem(c.word)->fault, Fault::kReservedBits) << c.byte;
    EXPECT_EQ(faults(c.word).front(), Fault::kReservedBits);
  }
}

TEST(Validate, CompletionInfoReservedBits) {
  for (std::uint8_t bit : {0x02, 0x40, 0x80}) {
    Word w = encode(RdmaDescStart{});
    w[13] = bit;
    ASSERT_TRUE(decode_problem(w));
    EXPECT_EQ(decode_problem(w)->fault, Fault::kReservedBits);
  }
  Word w = encode(RdmaDescStart{});
  w[13] = 0x3D;  // every defined bit set
  EXPECT_FALSE(decode_problem(w));
  EXPECT_TRUE(validate(w).empty());
}

TEST(Validate, Addr4RegisterFormReservedBytesAndMarkers) {
  RdmaDescGen g = good_gen();
  g.src_addr = Addr4{Addr4Marker::kAddrReg, 5};
  Word w = encode(g);
  EXPECT_TRUE(validate(w).empty());
  w[29] = 1;  // src_addr byte 1: reserved in the register form
  ASSERT_TRUE(decode_problem(w));
  EXPECT_EQ(decode_problem(w)->fault, Fault::kReservedBits);
  w[29] = 0;
  w[31] = 0xE0;  // not a marker
  EXPECT_FALSE(decode_problem(w));
  EXPECT_EQ(faults(w), std::vector<Fault>{Fault::kBadValue});
  EXPECT_EQ(first_message(w), "rdma_desc_gen: src_addr has unknown ADDR4 marker 0xe0");
  w[31] = 0x1F;  // bits 31:29 clear: an immediate, whatever byte 0..2 hold
  EXPECT_TRUE(validate(w).empty());
}

// ADDR_REG names one of NUM_ADDR_REGISTERS = 64 registers. [HIGH] wiki-facts §1.7
TEST(Validate, Addr4RegisterNumbersStopBelowSixtyFour) {
  RdmaDescGen g = good_gen();
  g.dst_addr = Addr4{Addr4Marker::kAddrReg, 63};
  EXPECT_TRUE(validate(encode(g)).empty());
  g.dst_addr = Addr4{Addr4Marker::kAddrReg, 64};
  const Word w = encode(g);
  EXPECT_FALSE(decode_problem(w));  // decodes; validation refuses
  EXPECT_EQ(faults(w), std::vector<Fault>{Fault::kBadValue});
  EXPECT_EQ(first_message(w), "rdma_desc_gen: dst_addr names address register 64 (there are 64)");
}

TEST(Validate, ValuesOutsideTheirEnumsAreBadValues) {
  Word w = encode(RdmaDescStart{});
  w[4] = 0x42;
  EXPECT_FALSE(decode_problem(w));  // decodes; validation refuses
  EXPECT_EQ(faults(w), std::vector<Fault>{Fault::kBadValue});
  EXPECT_EQ(first_message(w), "rdma_desc_start: wait_mode 0x42 is not a WAIT_MODE");
  w[4] = 0xFF;  // INVALID
  EXPECT_EQ(faults(w), std::vector<Fault>{Fault::kBadValue});
  w[4] = 0;
  w[6] = 0x13;
  EXPECT_TRUE(validate(w).empty());
  w[6] = 0x06;
  EXPECT_EQ(faults(w), std::vector<Fault>{Fault::kBadValue});
  Word s = encode(good_sb2sb());
  s[12] = s[13] = 0x10;  // FP4 is v4-only; Cayman has 16 dtypes
  EXPECT_EQ(faults(s), (std::vector<Fault>{Fault::kBadValue, Fault::kBadValue}));
}

// "an" before a type name read with a vowel sound first, LNC_SIZE_FMT's "el" included.
TEST(Validate, AnUndefinedLncSizeFmtIsNotAnLncSizeFmt) {
  Sb2sbCollective s = good_sb2sb();
  s.lnc_size_fmt = static_cast<LncSizeFmt>(0x07);
  const Word w = encode(s);
  EXPECT_FALSE(decode_problem(w));  // decodes; validation refuses
  ASSERT_FALSE(faults(w).empty());
  EXPECT_EQ(faults(w).front(), Fault::kBadValue);
  EXPECT_EQ(first_message(w), "sb2sb_collective: lnc_size_fmt 0x07 is not an LNC_SIZE_FMT");
}

TEST(Validate, InstWordLenIsNotChecked) {
  for (int len : {0x00, 0x04, 0x10, 0x40, 0xFF}) {
    RdmaDescStart s;
    s.header.inst_word_len = static_cast<std::uint8_t>(len);
    EXPECT_TRUE(validate(encode(s)).empty()) << len;
  }
}

TEST(Validate, DmaEngineMaskCountsEngines) {
  for (std::uint32_t mask : {0x1u, 0x8000u, 0x3u, 0x0f00u, 0x5555u, 0xffffu}) {
    RdmaDescGen g = good_gen();
    g.dma_engine_mask.imm = mask;
    EXPECT_TRUE(validate(encode(g)).empty()) << mask;
  }
  for (std::uint32_t mask : {0x0u, 0x7u, 0x7fffu, 0x10000u, 0x1ffffu, 0xffffffffu}) {
    RdmaDescGen g = good_gen();
    g.dma_engine_mask.imm = mask;
    EXPECT_EQ(faults(encode(g)), std::vector<Fault>{Fault::kRuleViolated}) << mask;
  }
}

TEST(Validate, BidirectionalIsNotSupported) {
  RdmaDescGen g = good_gen();
  g.is_bidirectional = 1;
  const Word w = encode(g);
  EXPECT_FALSE(decode_problem(w));
  EXPECT_EQ(faults(w), std::vector<Fault>{Fault::kUnsupported});
  EXPECT_EQ(first_message(w), "rdma_desc_gen: is_bidirectional=1 is not supported");
  g.is_bidirectional = 0;
  g.remote_sem_prev = 9;  // only meaningful with is_bidirectional; allowed
  EXPECT_TRUE(validate(encode(g)).empty());
}

TEST(Validate, Sb2sbDtypesMustMatch) {
  Sb2sbCollective s = good_sb2sb();
  s.out_dtype = Dtype::kBfloat16;
  EXPECT_EQ(faults(encode(s)), std::vector<Fault>{Fault::kRuleViolated});
  EXPECT_EQ(
      first_message(encode(s)),
      "sb2sb_collective: in_dtype fp32 differs from out_dtype bfloat16 (SB2SB does not convert)");
}

TEST(Validate, Sb2sbLncOneOrTwoOnly) {
  for (LncSizeFmt l : {LncSizeFmt::kLnc1, LncSizeFmt::kLnc2}) {
    Sb2sbCollective s = good_sb2sb();
    s.lnc_size_fmt = l;
    EXPECT_TRUE(validate(encode(s)).empty());
  }
  for (LncSizeFmt l : {LncSizeFmt::kLnc4, LncSizeFmt::kLnc8}) {
    Sb2sbCollective s = good_sb2sb();
    s.lnc_size_fmt = l;
    EXPECT_EQ(faults(encode(s)), std::vector<Fault>{Fault::kUnsupported});
  }
}

TEST(Validate, Sb2sbChannelRange) {
  for (int n : {1, 64, 128}) {
    Sb2sbCollective s = good_sb2sb();
    s.num_active_channels = static_cast<std::uint8_t>(n);
    EXPECT_TRUE(validate(encode(s)).empty()) << n;
  }
  for (int n : {0, 129, 255}) {
    Sb2sbCollective s = good_sb2sb();
    s.num_active_channels = static_cast<std::uint8_t>(n);
    EXPECT_EQ(faults(encode(s)), std::vector<Fault>{Fault::kRuleViolated}) << n;
  }
}

TEST(Validate, Sb2sbAtMost256SourceElements) {
  using N = std::array<std::uint16_t, 3>;
  for (const N& n : {N{256, 1, 1}, N{4, 8, 8}, N{16, 16, 1}, N{0, 0, 0}, N{65535, 0, 65535}}) {
    Sb2sbCollective s = good_sb2sb();
    s.src_mem_pattern.num_elem = n;
    EXPECT_TRUE(validate(encode(s)).empty()) << n[0] << "," << n[1] << "," << n[2];
  }
  for (const N& n : {N{257, 1, 1}, N{2, 2, 65}, N{65535, 65535, 65535}}) {
    Sb2sbCollective s = good_sb2sb();
    s.src_mem_pattern.num_elem = n;
    EXPECT_EQ(faults(encode(s)), std::vector<Fault>{Fault::kRuleViolated});
  }
  Sb2sbCollective s = good_sb2sb();  // no limit on the destination
  s.dst_mem_pattern.num_elem = {1024, 1, 1};
  EXPECT_TRUE(validate(encode(s)).empty());
}

TEST(Validate, Sb2sbSbufOnly) {
  Sb2sbCollective s = good_sb2sb();
  s.src_mem_pattern.start_addr = Addr4{Addr4Marker::kImmediate, Addr4::kPsumBase - 1};
  EXPECT_TRUE(validate(encode(s)).empty());
  s.src_mem_pattern.start_addr.value = Addr4::kPsumBase;
  EXPECT_EQ(faults(encode(s)), std::vector<Fault>{Fault::kRuleViolated});
  s = good_sb2sb();
  s.dst_mem_pattern.start_addr = Addr4{Addr4Marker::kImmediate, 0x1fffffff};
  EXPECT_EQ(faults(encode(s)), std::vector<Fault>{Fault::kRuleViolated});
  s.dst_mem_pattern.start_addr = Addr4{Addr4Marker::kAddrReg, 3};  // not checkable statically
  EXPECT_TRUE(validate(encode(s)).empty());
}

TEST(Validate, Sb2sbReportsEveryBrokenRule) {
  Sb2sbCollective s;  // all zero: dtypes match (invalid == invalid), lnc1, but 0 channels
  s.out_dtype = Dtype::kFp16;
  s.lnc_size_fmt = LncSizeFmt::kLnc8;
  s.src_mem_pattern.num_elem = {300, 1, 1};
  s.src_mem_pattern.start_addr.value = 0x3000000;
  EXPECT_EQ(faults(encode(s)),
            (std::vector<Fault>{Fault::kRuleViolated, Fault::kUnsupported, Fault::kRuleViolated,
                                Fault::kRuleViolated, Fault::kRuleViolated}));
}

TEST(Validate, TensorTensorArithAddOrMultOnly) {
  ExtTensorTensorArith t;
  for (AluOp op : {AluOp::kAdd, AluOp::kMult}) {
    t.op = op;
    EXPECT_TRUE(validate(encode(t)).empty());
  }
  for (AluOp op : {AluOp::kBypass, AluOp::kMax, AluOp::kAddInt}) {
    t.op = op;
    EXPECT_EQ(faults(encode(t)), std::vector<Fault>{Fault::kUnsupported});
  }
  Word w = encode(t);
  w[16] = 0x30;  // not an ALU_OP at all
  EXPECT_EQ(faults(w).front(), Fault::kBadValue);
}

TEST(Validate, OpaqueOpsAcceptAnyPayload) {
  Word w{};
  w[0] = kOpcodeExtendedInst;
  w[12] = 6;  // EXTENDED_SBUF_TO_SBUF (D12)
  for (unsigned i = 14; i < kWordBytes; ++i) w[i] = static_cast<std::uint8_t>(i * 7);
  EXPECT_TRUE(validate(w).empty());
  EventSemaphore e;
  e.payload.fill(0xAB);
  EXPECT_TRUE(validate(encode(e)).empty());
}

TEST(Validate, TypedDecodeChecksOpAndReservedButNotRules) {
  RdmaDescGen g = good_gen();
  g.dma_engine_mask.imm = 0x7;  // a rule violation: decoding still works
  auto d = decode_rdma_desc_gen(encode(g));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, g);
  Word w = encode(good_gen());
  w[50] = 1;
  EXPECT_FALSE(decode_rdma_desc_gen(w).ok());
  EXPECT_EQ(decode_rdma_desc_gen(w).error().message,
            "rdma_desc_gen: reserved bits set in reserved1 (byte 50 = 0x01)");
  auto wrong = decode_rdma_desc_start(encode(good_gen()));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message, "not an rdma_desc_start word (opcode 0xf0, byte 12 = 8)");
  EXPECT_FALSE(decode_sb2sb_collective(encode(RdmaDescStart{})).ok());
  EXPECT_FALSE(decode_event_semaphore(Word{}).ok());
}

// field_problem() is validate()'s first reserved-bit or bad-value problem, and nothing of the
// op's rules: what the sequencer refuses a word for before the routine checks the rest.
TEST(Validate, FieldProblemIsTheFirstFieldFaultAndSkipsTheRules) {
  EXPECT_FALSE(field_problem(encode(good_gen())));
  Word unknown{};
  unknown[0] = 0x12;
  EXPECT_FALSE(field_problem(unknown));  // no op: validate() says so, not field_problem()

  RdmaDescGen g = good_gen();
  g.dma_engine_mask.imm = 0x7;  // a rule violation only
  ASSERT_FALSE(validate(encode(g)).empty());
  EXPECT_FALSE(field_problem(encode(g)));

  Word w = encode(RdmaDescStart{});
  w[4] = 0x42;   // wait_mode: a bad value
  w[14] = 0x80;  // and reserved bits later in the word
  const Problems all = validate(w);
  ASSERT_EQ(all.size(), 2u);
  ASSERT_TRUE(field_problem(w));
  EXPECT_EQ(field_problem(w)->fault, all.front().fault);
  EXPECT_EQ(field_problem(w)->message, all.front().message);
  EXPECT_EQ(field_problem(w)->message, "rdma_desc_start: wait_mode 0x42 is not a WAIT_MODE");

  // With reserved bits set the rules are not checked (the word does not decode): the
  // rule-breaking mask adds nothing after the reserved-bit fault.
  Word r = encode(g);
  r[50] = 1;
  EXPECT_EQ(faults(r), std::vector<Fault>{Fault::kReservedBits});
  ASSERT_TRUE(field_problem(r));
  EXPECT_EQ(field_problem(r)->message,
            "rdma_desc_gen: reserved bits set in reserved1 (byte 50 = 0x01)");
}

}  // namespace
}  // namespace sbrdma::isa
