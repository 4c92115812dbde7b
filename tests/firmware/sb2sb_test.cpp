// The SB2SB leg: lowering of the 0xBF word to gen parameters, the patterns it refuses, and the
// leg's pre-sync / gen / start / completion on a scripted core.
#include "firmware/sb2sb.h"

#include <gtest/gtest.h>

#include <array>

#include "firmware/fixtures.h"
#include "soc/profile.h"

namespace sbrdma::firmware {
namespace {

using isa::Dtype;
using isa::LncSizeFmt;
using testing::Action;
using testing::Core;
using Kind = Action::Kind;

isa::Tensor3d pattern(std::uint32_t start, std::array<std::int16_t, 3> step,
                      std::array<std::uint16_t, 3> num) {
  isa::Tensor3d t;
  t.start_addr.value = start;
  t.step_elem = step;
  t.num_elem = num;
  return t;
}

/// 64 fp32 per partition, all 128 channels, src 0x100 -> dst 0x800.
isa::Sb2sbCollective fp32_leg(LncSizeFmt lnc) {
  isa::Sb2sbCollective s;
  s.in_dtype = s.out_dtype = Dtype::kFp32;
  s.lnc_size_fmt = lnc;
  s.num_active_channels = 128;
  s.src_mem_pattern = pattern(0x100, {1, 0, 0}, {64, 1, 1});
  s.dst_mem_pattern = pattern(0x800, {1, 8, 0}, {8, 8, 1});  // 8 x 8, still contiguous
  return s;
}

TEST(Sb2sbLowering, Lnc2PairsNeighboursAndUsesEveryEngine) {
  const CoreIdentity id{2, 7};
  auto low = lower_sb2sb(fp32_leg(LncSizeFmt::kLnc2), soc::cayman_profile(), id, {});
  ASSERT_TRUE(low.ok()) << low.error().message;
  EXPECT_EQ(low->peer, 3U);
  EXPECT_EQ(low->elements, 64U);
  EXPECT_EQ(low->gen.free_dim_bytes, 256U);
  EXPECT_EQ(low->gen.src_addr.value, 0x100U);
  EXPECT_EQ(low->gen.dst_addr.value, 0x800U);
  EXPECT_EQ(low->gen.dma_engine_mask.imm, 0xFFFFU);
  EXPECT_EQ(low->gen.remote_core_id.imm, 3U);
  EXPECT_EQ(low->gen.remote_routing_id.imm, 7U);
  EXPECT_EQ(low->gen.local_sem, 254);
  EXPECT_EQ(low->gen.remote_sem, 255);
  auto self = lower_sb2sb(fp32_leg(LncSizeFmt::kLnc1), soc::cayman_profile(), id, {});
  ASSERT_TRUE(self.ok());
  EXPECT_EQ(self->peer, 2U);
}

// Each DTYPE code's element width sets the bytes a leg moves per partition: num_elem x width.
// [HIGH] wiki-facts §1.10 (the widths are the DTYPE names'). INVALID (0) has none.
TEST(Sb2sbLowering, EveryDtypeMovesItsOwnWidthPerElement) {
  // Codes 1..15: uint64 int8 uint8 int16 uint16 bfloat16 fp16 int32 uint32 fp32 fp32r int64
  // fp8_exp3 fp8_exp4 fp8_exp5.
  constexpr std::array<unsigned, 15> kWidth = {8, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 8, 1, 1, 1};
  for (unsigned code = 1; code <= kWidth.size(); ++code) {
    isa::Sb2sbCollective s = fp32_leg(LncSizeFmt::kLnc1);
    s.in_dtype = s.out_dtype = static_cast<Dtype>(code);
    auto low = lower_sb2sb(s, soc::cayman_profile(), CoreIdentity{0, 0}, {});
    ASSERT_TRUE(low.ok()) << code << ": " << low.error().message;
    EXPECT_EQ(low->element_bytes, kWidth[code - 1]) << code;
    EXPECT_EQ(low->gen.free_dim_bytes, 64 * kWidth[code - 1]) << code;
  }
  isa::Sb2sbCollective s = fp32_leg(LncSizeFmt::kLnc1);
  s.in_dtype = s.out_dtype = Dtype::kInvalid;
  auto low = lower_sb2sb(s, soc::cayman_profile(), CoreIdentity{0, 0}, {});
  ASSERT_FALSE(low.ok());
  EXPECT_EQ(low.error().message, "sb2sb_collective: in_dtype has no element size");
}

struct BadLeg {
  isa::Sb2sbCollective s;
  std::string message;
};

isa::Sb2sbCollective leg_with(void (*edit)(isa::Sb2sbCollective&)) {
  isa::Sb2sbCollective s = fp32_leg(LncSizeFmt::kLnc2);
  edit(s);
  return s;
}

class Sb2sbRejects : public ::testing::TestWithParam<BadLeg> {};

TEST_P(Sb2sbRejects, PatternsGenCannotExpress) {
  auto low = lower_sb2sb(GetParam().s, soc::cayman_profile(), CoreIdentity{0, 0}, {});
  ASSERT_FALSE(low.ok());
  EXPECT_EQ(low.error().message, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Patterns, Sb2sbRejects,
    ::testing::Values(
        BadLeg{leg_with([](isa::Sb2sbCollective& s) { s.num_active_channels = 64; }),
               "sb2sb_collective: num_active_channels=64 cannot be lowered: the RDMA transport "
               "moves all 128 partitions"},
        BadLeg{leg_with([](isa::Sb2sbCollective& s) { s.src_mem_pattern.step_elem[0] = 2; }),
               "sb2sb_collective: src_mem_pattern is not contiguous: dimension 0 steps by 2 "
               "elements, expected 1 (the RDMA transport moves one contiguous span per "
               "partition)"},
        BadLeg{leg_with([](isa::Sb2sbCollective& s) { s.dst_mem_pattern.step_elem[1] = 16; }),
               "sb2sb_collective: dst_mem_pattern is not contiguous: dimension 1 steps by 16 "
               "elements, expected 8 (the RDMA transport moves one contiguous span per "
               "partition)"},
        BadLeg{leg_with([](isa::Sb2sbCollective& s) { s.dst_mem_pattern.num_elem[2] = 2; }),
               "sb2sb_collective: dst_mem_pattern is not contiguous: dimension 2 steps by 0 "
               "elements, expected 64 (the RDMA transport moves one contiguous span per "
               "partition)"},
        BadLeg{leg_with([](isa::Sb2sbCollective& s) {
                 s.dst_mem_pattern.num_elem = {32, 1, 1};
               }),
               "sb2sb_collective: src_mem_pattern has 64 elements, dst_mem_pattern 32"},
        BadLeg{leg_with([](isa::Sb2sbCollective& s) {
                 s.src_mem_pattern.start_addr.value = 32U << 18;
               }),
               "sb2sb_collective: src_mem_pattern.start_addr 0x800000 starts at partition 32; "
               "the RDMA transport moves partitions 0..127"},
        BadLeg{leg_with([](isa::Sb2sbCollective& s) {
                 s.dst_mem_pattern.start_addr = isa::Addr4{isa::Addr4Marker::kAddrReg, 1};
               }),
               "sb2sb_collective: dst_mem_pattern.start_addr is a register form; only an "
               "immediate partition offset can be lowered"}));

TEST(Sb2sbLeg, SelfCopyRunsPreSyncGenStartAndWaitsForBothDirections) {
  Core c(0, 0);
  auto t = c.fw.sb2sb(fp32_leg(LncSizeFmt::kLnc1));
  // Pre-sync to itself passes at once; the leg then waits for its engines (local +16).
  EXPECT_FALSE(testing::drive(t));
  EXPECT_EQ(c.env.sems[253], 0U);  // ready: +1 from the pre-sync, -1 consumed
  EXPECT_EQ(c.fw.stream(Role::kTx).written_total(), 0U);  // published by start
  // The engines' LOCAL and the peer's REMOTE descriptors land (as the device would do). Each
  // wait is for all 16 engines: at 15, one engine's bytes may still be in flight.
  c.env.sems[254] = 15;
  EXPECT_EQ(c.env.pump(), 0);
  c.env.sems[254] = 16;
  EXPECT_EQ(c.env.pump(), 1);
  EXPECT_FALSE(t.done());  // still waiting for the remote side
  c.env.sems[255] = 15;
  EXPECT_EQ(c.env.pump(), 0);
  EXPECT_FALSE(t.done());
  c.env.sems[255] = 16;
  EXPECT_EQ(c.env.pump(), 1);
  ASSERT_TRUE(t.done());
  const base::Status st = t.take_result();
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(c.env.sems[254], 0U);  // consumed
  EXPECT_EQ(c.env.sems[255], 0U);
  // gen's descriptors: src 0x100 of core 0 to dst 0x800 of core 0, 256 B, 16 engines.
  EXPECT_EQ(c.desc(0, soc::Direction::kM2S, 0).buf_ptr, 0x2000000100U);
  EXPECT_EQ(c.desc(15, soc::Direction::kS2M, 7).buf_ptr, 0x2000000800U + 127 * 0x40000U);
  EXPECT_EQ(c.desc(15, soc::Direction::kS2M, 8).buf_ptr, 0x2802700000U + 0x1800 + 255 * 4);
}

// The leg's DEBUG lines come first, in remote_copy.cpp's own formats: the decode, the totals
// (64 fp32 elements per partition x 128 channels, dtype FP32 = 0xA, core 5 to its pair 4, all
// 16 engines), the channel count, the pre-sync. [HIGH] wiki-facts §6.1, §6.3
TEST(Sb2sbLeg, DebugLinesOpenTheLegInTheFirmwaresFormats) {
  Core c(5, 1);
  auto t = c.fw.sb2sb(fp32_leg(LncSizeFmt::kLnc2));
  EXPECT_FALSE(testing::drive(t));  // waits in the pre-sync
  ASSERT_GE(c.env.lines.size(), 4U);
  EXPECT_EQ(c.env.lines[0], "P0: Decode : SB2SB_Collective");
  EXPECT_EQ(c.env.lines[1],
            "P0: SB2SB_Collective : total_src_nelem = 8192, total_dst_nelem = 8192, dtype=10, "
            "dst_nc=4, src_nc=5, mask=0xffff");
  EXPECT_EQ(c.env.lines[2], "P0: SB2SB_Collective: num_chans=128, tpb_idx=5");
  EXPECT_EQ(c.env.lines[3],
            "P0: SB2SB Pre-sync: This TPB (NC 5) is letting NC 4 know that we are ready to "
            "receive data.");
  ASSERT_EQ(c.env.lines.size(), 4U);  // the sender's line waits for the peer's ready
  // Core 4's pre-sync arrives: the sender's line gives where the leg writes in core 4 (its
  // destination start, partition 0 byte 0x800) and core 4's ready semaphore (the INC window,
  // slot 253) as their low 32 bits, and the ready count seen. [CHOICE D24c]
  c.env.sems[253] = 1;
  c.env.pump();
  ASSERT_GE(c.env.lines.size(), 5U);
  EXPECT_EQ(c.env.lines[4],
            "P0: SB2SB Pre-sync: remote_pool_xt_addr=0x800, remote_q7_xt_addr=0x2701bf4, "
            "sb2sb_ready_to_receive_remote=0x1");
}

TEST(Sb2sbLeg, Lnc2WaitsInPreSyncUntilThePeerIsReady) {
  Core c(5, 1);  // core 5 (die 1): its peer is core 4
  auto t = c.fw.sb2sb(fp32_leg(LncSizeFmt::kLnc2));
  EXPECT_FALSE(testing::drive(t));
  // It told core 4 (same die: a plain address) that it is ready, and waits for core 4.
  const std::uint64_t peer_ready_inc = (1ULL << 47) | (0x2802700000U + 0x1800 + 253 * 4);
  const auto& acts = c.env.actions;
  EXPECT_NE(std::find_if(acts.begin(), acts.end(),
                         [&](const Action& a) {
                           return a.kind == Kind::kWrite32 && a.addr == peer_ready_inc &&
                                  a.value == 1;
                         }),
            acts.end());
  EXPECT_EQ(c.fw.stream(Role::kTx).expected_total(), 0U);  // no gen yet
  c.env.sems[253] = 1;                                     // core 4's pre-sync arrives
  c.env.pump();
  EXPECT_EQ(c.fw.stream(Role::kTx).expected_total(), 0U);  // gen and start ran: published
  EXPECT_EQ(c.desc(0, soc::Direction::kS2M, 0).buf_ptr, (1ULL << 47) | 0x2000000800U);
  c.env.sems[254] = 16;
  c.env.sems[255] = 16;
  c.env.pump();
  ASSERT_TRUE(t.done());
  EXPECT_TRUE(t.take_result().ok());
}

// Through the sequencer: _COMPLETE fires when the leg is done; "_READ fires after the
// instruction's reads finish" [HIGH] wiki-facts §1.4, and a leg's reads are its engines' reads
// of the source, done when they have all signalled LOCAL (each engine's semaphore write lands
// behind its data, D26d), not when the peer's data has arrived.
TEST(Sb2sbLeg, ThroughTheSequencerWithReadAndCompletionUpdates) {
  for (const isa::UpdateMode mode : {isa::UpdateMode::kIncComplete, isa::UpdateMode::kIncRead}) {
    SCOPED_TRACE(static_cast<int>(mode));
    const bool read = mode == isa::UpdateMode::kIncRead;
    Core c(0, 0);
    isa::Sb2sbCollective s = fp32_leg(LncSizeFmt::kLnc1);
    s.events.update_mode = mode;
    s.events.update_idx = 12;
    auto run = c.fw.run({isa::encode(s)});
    EXPECT_FALSE(testing::drive(run));
    EXPECT_EQ(c.env.sems[12], 0U);  // gen and start ran; no engine has finished
    c.env.sems[254] = 16;
    c.env.pump();
    EXPECT_FALSE(run.done());  // the peer's data has not arrived
    EXPECT_EQ(c.env.sems[12], read ? 1U : 0U);
    c.env.sems[255] = 16;
    c.env.pump();
    ASSERT_TRUE(run.done());
    EXPECT_FALSE(c.fw.halted());
    EXPECT_EQ(c.env.sems[12], 1U);  // once
  }
}

// NC-v2 firmware has no 0xBF handler: the word is an unknown opcode there, not a leg.
// [HIGH] wiki-facts §1.10 (nc >= V3), §9.11
TEST(Sb2sbLeg, SundaTakesTheWordForAnUnknownOpcode) {
  const soc::AddressMap sunda = soc::AddressMap::build(*soc::find_profile("sunda").value()).value();
  Core c(0, 0, {}, sunda);
  auto run = c.fw.run({isa::encode(fp32_leg(LncSizeFmt::kLnc1))});
  ASSERT_TRUE(testing::drive(run));
  ASSERT_EQ(c.fw.errors().size(), 1U);
  EXPECT_EQ(c.fw.errors()[0].message, "UNKNOWN OPCODE=0xbf");
  EXPECT_TRUE(c.run_actions().empty());  // nothing was written
}

TEST(Sb2sbLeg, InvalidWordIsRejectedByTheRuntimeRules) {
  Core c(0, 0);
  isa::Sb2sbCollective s = fp32_leg(LncSizeFmt::kLnc2);
  s.out_dtype = Dtype::kBfloat16;
  auto t = c.fw.sb2sb(s);
  ASSERT_TRUE(testing::drive(t));
  const base::Status st = t.take_result();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "sb2sb_collective: in_dtype fp32 differs from out_dtype bfloat16 (SB2SB does not "
            "convert)");
}

}  // namespace
}  // namespace sbrdma::firmware
