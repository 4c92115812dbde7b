// rdma_desc_start: the ordered MMIO writes (RX arms S2M and right_pushes before TX's left_pop
// returns; the M2S doorbell last), the count check, and a start with nothing to start.
#include <gtest/gtest.h>

#include <algorithm>

#include "firmware/fixtures.h"
#include "firmware/triggers.h"

namespace sbrdma::firmware {
namespace {

using testing::Action;
using testing::Core;
using testing::make_gen;
using Kind = Action::Kind;

// Core 0's engine group: SE_0 SDMA_0 at 0x1002000000. [HIGH] wiki-facts §3.1, [CHOICE D18a]
constexpr std::uint64_t kGroupCfg = 0x1002000000 + 0x40000 + 0x100;      // BROADCAST_CFG_GROUP
constexpr std::uint64_t kBcastM2sInc = 0x1002000000 + 0x80000 + 0x1038;  // queue 0 TDRTP_inc
constexpr std::uint64_t kBcastS2mInc = 0x1002000000 + 0xA0000 + 0x1038;  // queue 0 RDRTP_inc

/// The actions after the gen, without reads and descriptor writes.
std::vector<Action> start_actions(const Core& c, std::size_t from) {
  std::vector<Action> out;
  for (std::size_t i = from; i < c.env.actions.size(); ++i) {
    const Action& a = c.env.actions[i];
    if (a.kind != Kind::kRead32 && a.kind != Kind::kWriteBlock) out.push_back(a);
  }
  return out;
}

TEST(RdmaDescStart, OrderedWritesForMask3) {
  Core c(0, 0);
  ASSERT_TRUE(c.gen(make_gen(0x3, 256, 0x100, 0x200, 4, 0)).ok());
  const std::size_t before = c.env.actions.size();
  ASSERT_TRUE(c.start().ok());
  const std::vector<Action> got = start_actions(c, before);
  // Active engines 0,1 hold 64 + 2 descriptors each, the 14 others 1: two triggers per role.
  const std::vector<Action> want{
      {Kind::kFence, 0, 0, 0, 0},           // RX drains
      {Kind::kWrite32, kGroupCfg, 0x0003},  // RX: group = engines 0,1
      {Kind::kWrite32, kBcastS2mInc, 66},   //     S2M tail += 66
      {Kind::kWrite32, kGroupCfg, 0xFFFC},  //     group = the others
      {Kind::kWrite32, kBcastS2mInc, 1},    //     S2M tail += 1
      {Kind::kRightPush, 0, 146, 0, 0},     // RX signals TX (armed count)
      {Kind::kFence, 0, 0, 0, 1},           // TX drains
      {Kind::kLeftPop, 0, 146, 0, 1},       // TX's left_pop returns
      {Kind::kWrite32, kGroupCfg, 0x0003},  // TX: group = engines 0,1
      {Kind::kWrite32, kBcastM2sInc, 66},   //     M2S tail += 66
      {Kind::kWrite32, kGroupCfg, 0xFFFC},
      {Kind::kWrite32, kBcastM2sInc, 1},  // the M2S doorbell is the last write
  };
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].kind, want[i].kind) << "action " << i;
    EXPECT_EQ(got[i].addr, want[i].addr) << "action " << i;
    EXPECT_EQ(got[i].value, want[i].value) << "action " << i;
    EXPECT_EQ(got[i].prid, want[i].prid) << "action " << i;
  }
  // Published: nothing pending any more.
  EXPECT_EQ(c.fw.stream(Role::kTx).written_total(), 0U);
  EXPECT_EQ(c.fw.stream(Role::kRx).expected_total(), 0U);
}

// Where each DEBUG line falls among the drain, the doorbells and the handshake. [HIGH] spec
// §4.1, §4.3-4.4: "Draining" before the drain and "drained" after it; RX logs "Writing"
// before its S2M doorbell, "Signaling" before right_push and "TX signaled" after it; TX logs
// "Waiting for RX sync" before left_pop returns, "Writing" after it and before its M2S
// doorbell, and "written" after that doorbell.
TEST(RdmaDescStart, LogLinesFallBetweenTheirWritesAndHandshakes) {
  Core c(0, 0);
  ASSERT_TRUE(c.gen(make_gen(0xFFFF, 64, 0, 0, 1, 0)).ok());
  c.env.log_actions = true;
  const std::size_t before = c.env.actions.size();
  ASSERT_TRUE(c.start().ok());
  // Each action as a word: a line without its "P0: Q7: rdma_desc_start " prefix, cut at its
  // first ',' or ';' (values vary), or the bus action it is.
  std::vector<std::string> got;
  for (const Action& a : start_actions(c, before)) {
    switch (a.kind) {
      case Kind::kLog: {
        std::string line = c.env.lines[a.addr];
        if (const auto at = line.find("rdma_desc_start "); at != std::string::npos) {
          line = line.substr(at + 16);
        } else if (line.find("Trigger DMA") != std::string::npos) {
          line = "Trigger DMA";
        }
        line = line.substr(0, line.find_first_of(",;\n"));
        got.push_back(line);
        break;
      }
      case Kind::kFence:
        got.push_back("fence");
        break;
      case Kind::kRightPush:
        got.push_back("right_push");
        break;
      case Kind::kLeftPop:
        got.push_back("left_pop");
        break;
      case Kind::kWrite32:
        got.push_back(a.addr == kGroupCfg      ? "group"
                      : a.addr == kBcastS2mInc ? "S2M doorbell"
                      : a.addr == kBcastM2sInc ? "M2S doorbell"
                                               : "write");
        break;
      default:
        got.push_back("other");
    }
  }
  const std::vector<std::string> want{
      "[RX] Start",
      "[RX] ring_num=0",
      "[RX] Trigger S2M DMA",
      "[RX] Draining descriptor writes",
      "fence",
      "[RX] Descriptor writes drained",
      "[RX] Writing tail pointer increment",
      "Trigger DMA",
      "group",
      "S2M doorbell",
      "[RX] Signaling TX to proceed (right_push)",
      "right_push",
      "[RX] TX signaled",
      "[RX] End",
      "[TX] Start",
      "[TX] ring_num=0",
      "[TX] Trigger M2S DMA",
      "[TX] Draining descriptor writes",
      "fence",
      "[TX] Descriptor writes drained",
      "[TX] Waiting for RX sync (left_pop)",
      "left_pop",
      "[TX] Writing tail pointer increment",
      "Trigger DMA",
      "group",
      "M2S doorbell",
      "[TX] Tail pointer increment written",
      "[TX] End",
  };
  EXPECT_EQ(got, want);
}

TEST(RdmaDescStart, AllSixteenEnginesNeedOneTriggerPerRole) {
  Core c(0, 0);
  ASSERT_TRUE(c.gen(make_gen(0xFFFF, 64, 0, 0, 1, 0)).ok());
  EXPECT_EQ(plan_triggers(c.fw.stream(Role::kTx)), (std::vector<Trigger>{{0xFFFF, 10}}));
  const std::size_t before = c.env.actions.size();
  ASSERT_TRUE(c.start().ok());
  const auto got = start_actions(c, before);
  const auto doorbells = std::count_if(got.begin(), got.end(), [](const Action& a) {
    return a.kind == Kind::kWrite32 && (a.addr == kBcastM2sInc || a.addr == kBcastS2mInc);
  });
  EXPECT_EQ(doorbells, 2);
}

TEST(RdmaDescStart, TwoGensBeforeOneStartArePublishedTogether) {
  Core c(0, 0);
  ASSERT_TRUE(c.gen(make_gen(0x1, 64, 0, 0, 1, 0)).ok());
  ASSERT_TRUE(c.gen(make_gen(0x2, 64, 0, 0, 1, 0)).ok());
  // Engine 0: 130 + 1, engine 1: 1 + 130, the others 2.
  EXPECT_EQ(plan_triggers(c.fw.stream(Role::kRx)),
            (std::vector<Trigger>{{0x0003, 131}, {0xFFFC, 2}}));
  ASSERT_TRUE(c.start().ok());
}

TEST(RdmaDescStart, WithoutGenIsAnError) {
  Core c(0, 0);
  const base::Status st = c.start();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "rdma_desc_start: no rdma_desc_gen since the last start: nothing to start");
  // A second start after a good gen+start has nothing to start either.
  ASSERT_TRUE(c.gen(make_gen(0x1, 64, 0, 0, 1, 0)).ok());
  ASSERT_TRUE(c.start().ok());
  EXPECT_FALSE(c.start().ok());
}

TEST(RdmaDescStart, RingTooSmallFailsTheStreamCheck) {
  FirmwareConfig cfg;
  cfg.ring_depth = 32;  // 31 usable slots per start [CHOICE D20c]
  Core c(0, 0, cfg);
  // Engine 0 should get 128 + 2 = 130: the stream stops after 31. Others: 1 each.
  ASSERT_TRUE(c.gen(make_gen(0x1, 256, 0, 0, 1, 0)).ok());
  EXPECT_TRUE(c.fw.stream(Role::kTx).ring(0).stopped);
  const std::size_t before = c.env.actions.size();
  const base::Status st = c.start();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "P0: ERROR: DescriptorStream wrote 46 descriptors, expected 145");
  // Fatal before any doorbell: the only action is RX's drain.
  const auto got = start_actions(c, before);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].kind, Kind::kFence);
}

// Each Q7 of the pair keeps its role in bit 0 of a word in its own DRAM (ring_init writes
// it); start compares it with the role it runs and takes the fatal DescriptorStream path on a
// mismatch. [HIGH] wiki-facts §7, [CHOICE D7, D36]
constexpr std::uint64_t kQ7Dram = 0x2000000000 + 0x803180000;  // core 0, Q7 0
constexpr std::uint64_t kRxRoleWord = kQ7Dram + 0x3fffc;
constexpr std::uint64_t kTxRoleWord = kQ7Dram + 0x100000 + 0x3fffc;

TEST(RdmaDescStart, RingInitWritesEachQ7sRoleWord) {
  Core c(0, 0);
  EXPECT_EQ(c.env.local_load32(base::SocAddr{kRxRoleWord}), 0U);
  EXPECT_EQ(c.env.local_load32(base::SocAddr{kTxRoleWord}), 1U);
}

TEST(RdmaDescStart, ARoleWordThatSaysTheOtherRoleIsFatal) {
  for (const bool flip_tx : {false, true}) {
    Core c(0, 0);
    ASSERT_TRUE(c.gen(make_gen(0x3, 256, 0x100, 0x200, 4, 0)).ok());
    // Only bit 0 counts: the other bits are the word's own business.
    c.env.local_store32(base::SocAddr{kRxRoleWord}, flip_tx ? 0xfffffffeU : 0x1U);
    c.env.local_store32(base::SocAddr{kTxRoleWord}, flip_tx ? 0x0U : 0x3U);
    const std::size_t before = c.env.actions.size();
    const base::Status st = c.start();
    ASSERT_FALSE(st.ok()) << flip_tx;
    EXPECT_EQ(st.error().message, flip_tx ? "P1: ERROR: DescriptorStream wrote 146 descriptors, "
                                            "expected 146"
                                          : "P0: ERROR: DescriptorStream wrote 146 descriptors, "
                                            "expected 146");
    // RX with a wrong word stops after its drain; TX with one after RX armed S2M, before its
    // own M2S doorbell.
    const auto got = start_actions(c, before);
    EXPECT_EQ(std::count_if(got.begin(), got.end(),
                            [](const Action& a) { return a.addr == kBcastM2sInc; }),
              0);
    EXPECT_EQ(std::count_if(got.begin(), got.end(),
                            [](const Action& a) { return a.addr == kBcastS2mInc; }),
              flip_tx ? 2 : 0);
    // The check comes right after the drain (bne a7,a6 before either role's branch, [HIGH]
    // wiki-facts §7): the failing role's last action is its fence, so TX never pops.
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got.back().kind, Kind::kFence);
    EXPECT_EQ(got.back().prid, flip_tx ? 1U : 0U);
    EXPECT_EQ(std::count_if(got.begin(), got.end(),
                            [](const Action& a) { return a.kind == Kind::kLeftPop; }),
              0);
  }
}

TEST(RdmaDescStart, RingIdAdvancesWhenTheTailWraps) {
  FirmwareConfig cfg;
  cfg.ring_depth = 32;
  Core c(0, 0, cfg);
  // Each gen+start puts 10 descriptors into every engine's ring (8 partitions + 2).
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.gen(make_gen(0xFFFF, 64, 0, 0, 1, 0)).ok());
    ASSERT_TRUE(c.start().ok());
  }
  ASSERT_TRUE(c.gen(make_gen(0xFFFF, 64, 0, 0, 1, 0)).ok());
  // Slots 30, 31 carry ring id 1; the wrap to 0 moves to ring id 2. [CHOICE D2]
  EXPECT_EQ(c.desc(3, soc::Direction::kM2S, 31).ring_id(), 1U);
  EXPECT_EQ(c.desc(3, soc::Direction::kM2S, 0).ring_id(), 2U);
  EXPECT_EQ(c.desc(3, soc::Direction::kS2M, 7).ring_id(), 2U);
  EXPECT_EQ(c.desc(3, soc::Direction::kS2M, 8).ring_id(), 1U);  // from the third start
  EXPECT_EQ(c.fw.stream(Role::kTx).ring(3).tail, 8U);
  EXPECT_EQ(c.fw.stream(Role::kTx).ring(3).ring_id, 2U);
  // The flush wrote the wrapped run in two blocks: slots 30..31 and 0..7.
  const auto& acts = c.env.actions;
  const std::uint64_t ring3 = 0x2040000000 + 0x100 + 6 * 32 * 16;
  EXPECT_NE(std::find_if(acts.begin(), acts.end(),
                         [&](const Action& a) {
                           return a.kind == Kind::kWriteBlock && a.addr == ring3 + 30 * 16 &&
                                  a.bytes == 32;
                         }),
            acts.end());
  EXPECT_NE(std::find_if(acts.begin(), acts.end(),
                         [&](const Action& a) {
                           return a.kind == Kind::kWriteBlock && a.addr == ring3 && a.bytes == 128;
                         }),
            acts.end());
  ASSERT_TRUE(c.start().ok());
}

TEST(RdmaDescStart, RingIdRunsOneTwoThreeZeroLapAfterLap) {
  // [HIGH] udma-facts §1.4 [DRV][HAL]: the id starts at 1 and is (id + 1) & 3 at each wrap, so
  // five laps carry 1, 2, 3, 0, 1. [CHOICE D2]
  FirmwareConfig cfg;
  cfg.ring_depth = 32;
  Core c(0, 0, cfg);
  unsigned written = 0;  // M2S descriptors in engine 3's ring so far, 10 per round
  std::vector<unsigned> lap_ids;
  while (written < 5 * 32) {
    ASSERT_TRUE(c.gen(make_gen(0xFFFF, 64, 0, 0, 1, 0)).ok());
    for (unsigned k = written; k < written + 10; ++k) {
      const unsigned id = c.desc(3, soc::Direction::kM2S, k % 32).ring_id();
      if (k % 32 == 0) lap_ids.push_back(id);
      EXPECT_EQ(id, (1 + k / 32) % 4) << "descriptor " << k;
    }
    written += 10;
    EXPECT_EQ(c.fw.stream(Role::kTx).ring(3).ring_id, (1 + written / 32) % 4) << written;
    ASSERT_TRUE(c.start().ok());
  }
  EXPECT_EQ(lap_ids, (std::vector<unsigned>{1, 2, 3, 0, 1}));
}

// The firmware's count-check message says only the totals; the error's detail (sbrdma's own
// words, not printed by the firmware) names the full ring or the role word. [CHOICE D6, D36]
TEST(RdmaDescStart, TheStreamErrorsDetailNamesTheFullRing) {
  const auto detail_of = [](std::uint32_t mask) {
    FirmwareConfig cfg;
    cfg.ring_depth = 32;
    Core c(0, 0, cfg);
    auto run =
        c.fw.run({isa::encode(make_gen(mask, 256, 0, 0, 1, 0)), isa::encode(isa::RdmaDescStart{})});
    EXPECT_TRUE(testing::drive(run));
    EXPECT_EQ(c.fw.errors().size(), 1U);
    return c.fw.errors().empty() ? std::string() : c.fw.errors()[0].detail;
  };
  // One engine: 128 partitions + 2 semaphore descriptors on a ring of 31 usable slots.
  EXPECT_EQ(detail_of(0x1),
            "those counts are every engine's together; engine 0's ring was full: the "
            "rdma_desc_gen words since the last rdma_desc_start put 130 descriptors on it, and a "
            "ring of 32 holds at most 31 until a start publishes them, D6");
  // Engines 1 and 2: 64 + 2 each; the first full one is told.
  EXPECT_EQ(detail_of(0x6),
            "those counts are every engine's together; 2 rings were full, engine 1's: the "
            "rdma_desc_gen words since the last rdma_desc_start put 66 descriptors on it, and a "
            "ring of 32 holds at most 31 until a start publishes them, D6");
}

TEST(RdmaDescStart, TheStreamErrorsDetailNamesARoleWordThatDisagrees) {
  Core c(0, 0);
  c.env.local_store32(base::SocAddr{kTxRoleWord}, 0x0U);
  auto run = c.fw.run(
      {isa::encode(make_gen(0x3, 256, 0x100, 0x200, 4, 0)), isa::encode(isa::RdmaDescStart{})});
  ASSERT_TRUE(testing::drive(run));
  ASSERT_EQ(c.fw.errors().size(), 1U);
  EXPECT_EQ(c.fw.errors()[0].message,
            "P1: ERROR: DescriptorStream wrote 146 descriptors, expected 146");
  EXPECT_EQ(c.fw.errors()[0].detail,
            "the counts agree: bit 0 of Q7 P1's role word is not 1, its role's bit, D36");
}

// The gens no start has published yet: their first word and their count.
TEST(RdmaDescStart, GensNotYetStartedAreKnownByTheirFirstWord) {
  Core c(0, 0);
  EXPECT_FALSE(c.fw.unstarted());
  isa::EventSemaphore nop;
  const isa::Word gen = isa::encode(make_gen(0x1, 64, 0, 0, 1, 0));
  const isa::Word start = isa::encode(isa::RdmaDescStart{});
  auto run = c.fw.run({isa::encode(nop), gen, gen, start, isa::encode(nop), gen, gen, gen});
  ASSERT_TRUE(testing::drive(run));
  ASSERT_TRUE(c.fw.errors().empty());
  ASSERT_TRUE(c.fw.unstarted());
  EXPECT_EQ(c.fw.unstarted()->first_pc, 5U);
  EXPECT_EQ(c.fw.unstarted()->gens, 3U);
  auto publish = c.fw.run({start});
  ASSERT_TRUE(testing::drive(publish));
  EXPECT_FALSE(c.fw.unstarted());
}

}  // namespace
}  // namespace sbrdma::firmware
