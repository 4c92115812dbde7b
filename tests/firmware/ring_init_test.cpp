// ring_init: the queue programming the runtime does at boot, through MMIO only.
#include <gtest/gtest.h>

#include "firmware/fixtures.h"
#include "firmware/ring_layout.h"

namespace sbrdma::firmware {
namespace {

using testing::Action;
using testing::Core;
using Kind = Action::Kind;

// Engine 15 of core 0: SE_0 SDMA_15 at 0x1002000000 + 15 * 0x100000, and its S2M queue 0.
// [CHOICE D18a]
constexpr std::uint64_t kEngine15 = 0x1002000000 + 15 * 0x100000;
constexpr std::uint64_t kEngine15S2mQ0 = kEngine15 + 0x20000 + 0x1000;

TEST(RingInit, ProgramsEveryEnginesRdmaQueue) {
  Core c(0, 0);
  const auto& bus = c.env.recording_bus();
  const std::uint64_t eng = kEngine15;
  const std::uint64_t m2s_q0 = eng + 0x1000;
  const std::uint64_t s2m_q0 = kEngine15S2mQ0;
  const std::uint64_t m2s_ring = 0x2040000000 + 0x100 + 30 * 1024 * 16;  // (2*15 + 0) * 16 KiB
  EXPECT_EQ(bus.load32(m2s_q0 + 0x28), static_cast<std::uint32_t>(m2s_ring));  // TDRBP_low
  EXPECT_EQ(bus.load32(m2s_q0 + 0x2C), 0x20U);                                 // TDRBP_high
  EXPECT_EQ(bus.load32(m2s_q0 + 0x30), 1024U);                                 // TDRL
  EXPECT_EQ(bus.load32(m2s_q0 + 0x20), 0x30000U);  // cfg: en_pref | en_scheduling
  EXPECT_EQ(bus.load32(s2m_q0 + 0x28), static_cast<std::uint32_t>(m2s_ring + 1024 * 16));
  EXPECT_EQ(bus.load32(s2m_q0 + 0x30), 1024U);     // RDRL
  EXPECT_EQ(bus.load32(s2m_q0 + 0x20), 0x30000U);  // cfg: en_pref | en_stream
  EXPECT_TRUE(bus.written(s2m_q0 + 0x54));         // comp_cfg: en_comp_ring_update cleared
  EXPECT_EQ(bus.load32(eng + 0x204), 1U);          // M2S change_state.normal
  EXPECT_EQ(bus.load32(eng + 0x20000 + 0x204), 1U);
  EXPECT_EQ(bus.load32(0x1002000000 + 0x40000 + 0x100), 0xFFFFU);  // BROADCAST_CFG_GROUP
  EXPECT_EQ(bus.load32(0x2040000000), 1U);                         // the one word
  // The one word is the last write of the boot; nothing but MMIO was used.
  ASSERT_FALSE(c.env.actions.empty());
  EXPECT_EQ(c.env.actions.back().addr, 0x2040000000U);
  for (const Action& a : c.env.actions) {
    EXPECT_TRUE(a.kind == Kind::kWrite32 || a.kind == Kind::kRead32);
  }
}

TEST(RingInit, ClearsOnlyEnCompRingUpdateOfTheS2mCompCfg) {
  // S2M comp_cfg resets to 0x400F (en_comp_ring_update = 1); ring_init read-modify-writes it so
  // that only bit 0 goes. [DRV] udma-facts §3.2 step 4
  testing::ScriptedEnv env(testing::cayman_map(), 0, 0);
  const std::uint64_t s2m_comp_cfg = kEngine15S2mQ0 + 0x54;
  env.recording_bus().write32(base::SocAddr{s2m_comp_cfg}, 0x400F);  // the register's reset
  PoolFirmware fw(env, testing::cayman_map(), CoreIdentity{0, 0}, FirmwareConfig{});
  ASSERT_TRUE(fw.ring_init().ok());
  EXPECT_EQ(env.recording_bus().load32(s2m_comp_cfg), 0x400EU);
}

TEST(RingInit, RingNumAndDepthAreConfigurable) {
  FirmwareConfig cfg;
  cfg.ring_num = 3;
  cfg.ring_depth = 64;
  Core c(6, 0, cfg);  // core 6: die 1, local 2 -> SE_3, channels 0..15
  const auto& bus = c.env.recording_bus();
  const std::uint64_t eng0 = (1ULL << 47) | (0x5000000000 + 0x4000000);
  EXPECT_EQ(bus.load32(eng0 + 0x1000 + 3 * 0x1000 + 0x30), 64U);
  EXPECT_EQ(bus.load32(eng0 + 0x1000 + 0x30), 0U);  // queue 0 untouched
}

TEST(RingInit, BadConfigurationIsRefused) {
  struct Case {
    FirmwareConfig cfg;
    CoreIdentity id;
    std::string message;
  };
  const auto depth = [](unsigned d) {
    FirmwareConfig cfg;
    cfg.ring_depth = d;
    return cfg;
  };
  FirmwareConfig queue;
  queue.ring_num = 16;
  FirmwareConfig sem;
  sem.sb2sb_sems.ready = 256;
  for (const Case& k :
       {Case{depth(100), {0, 0}, "rdma_ring_depth 100 must be a multiple of 16 in 32..65536"},
        // [DRV] udma-facts §3.2: UDMA_MIN_Q_SIZE 32, the rev-4 HAL's maximum 65536
        Case{depth(0), {0, 0}, "rdma_ring_depth 0 must be a multiple of 16 in 32..65536"},
        Case{depth(16), {0, 0}, "rdma_ring_depth 16 must be a multiple of 16 in 32..65536"},
        Case{depth(65552), {0, 0}, "rdma_ring_depth 65552 must be a multiple of 16 in 32..65536"},
        Case{queue, {0, 0}, "ring_num 16 out of range (0..15)"},
        Case{sem, {0, 0}, "SB2SB semaphore 256 out of range (0..255)"},
        Case{{}, {8, 0}, "tpb_idx 8 out of range (0..7 on cayman)"},
        Case{{}, {0, 64}, "routing id 64 out of range (0..63)"}}) {
    testing::ScriptedEnv env(testing::cayman_map(), 0, 0);
    PoolFirmware fw(env, testing::cayman_map(), k.id, k.cfg);
    const base::Status st = fw.ring_init();
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().message, k.message);
    EXPECT_TRUE(env.actions.empty());
  }
}

TEST(RingInit, RingDepthsFrom32To65536InStepsOf16AreAccepted) {
  // The ends of BadConfigurationIsRefused's range. [DRV] udma-facts §3.2
  const soc::Profile& p = testing::cayman_map().profile();
  for (const unsigned ok : {32U, 48U, 65536U}) {
    FirmwareConfig cfg;
    cfg.ring_depth = ok;
    EXPECT_TRUE(check_config(cfg, CoreIdentity{0, 0}, p).ok()) << ok;
  }
}

}  // namespace
}  // namespace sbrdma::firmware
