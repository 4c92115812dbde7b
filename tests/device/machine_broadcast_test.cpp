// The broadcast aperture ([CHOICE D8], [CHOICE D22b], [CHOICE D25]): one write to the engine
// group's BCAST doorbell advances exactly the engines its group mask selects.
#include <gtest/gtest.h>

#include <vector>

#include "machine_rig.h"
#include "soc/udma_regs.h"

namespace sbrdma::device {
namespace {

using soc::Direction;
using testing::Channel;
using testing::pattern;
using testing::Rig;

TEST(MachineBroadcast, DoorbellStartsExactlyTheSelectedEngines) {
  Rig rig;
  const CoreId core = 5;              // die 1: TPB_5's group is SE_2 channels 16..31
  const std::uint16_t mask = 0x8025;  // engines 0, 2, 5, 15
  const unsigned n = rig.m->profile().dma_engines_per_tpb;
  std::vector<Channel> chans;
  for (unsigned e = 0; e < n; ++e) {
    rig.seed(core, e, 0, pattern(512, e + 1, e));
    chans.push_back(rig.open(core, e, 3, 8));
    rig.copy(chans.back(), rig.sbuf(core, e, 0), rig.sbuf(core, e, 0x10000), 512);
    // RX arms per engine; TX goes through the broadcast aperture below.
    ASSERT_TRUE(
        ring_doorbell(rig.bus(core), rig.map(), rig.tpb(core), e, Direction::kS2M, 3, 1).ok());
  }
  ASSERT_TRUE(set_broadcast_group(rig.bus(core), rig.map(), rig.tpb(core), mask).ok());
  ASSERT_TRUE(
      ring_broadcast_doorbell(rig.bus(core), rig.map(), rig.tpb(core), Direction::kM2S, 3, 1).ok());
  rig.run();
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
  EXPECT_EQ(rig.m->peek_misc(core, 0, soc::misc::kBroadcastCfgGroup).value(), mask);
  for (unsigned e = 0; e < n; ++e) {
    SCOPED_TRACE(e);
    const bool selected = ((mask >> e) & 1U) != 0;
    const QueueState m2s = rig.queue(chans[e], Direction::kM2S);
    EXPECT_EQ(m2s.tail.offset, selected ? 1U : 0U);
    EXPECT_EQ(m2s.head.offset, selected ? 1U : 0U);
    EXPECT_EQ(rig.read(core, e, 0x10000, 512),
              selected ? pattern(512, e + 1, e) : std::vector<std::uint8_t>(512, 0));
  }
  EXPECT_EQ(rig.m->stats().descriptors, 4U);
  // Unselected engines still hold their armed S2M descriptor, and say why.
  EXPECT_EQ(rig.m->pending_work().size(), n - 4);
}

TEST(MachineBroadcast, OnlyBroadcastCapableRegistersAreMirrored) {
  Rig rig;
  ASSERT_TRUE(set_broadcast_group(rig.bus(0), rig.map(), 0, 0xFFFF).ok());
  // TDRL is programmed per engine, never broadcast (wiki-facts §3.6).
  const base::SocAddr tdrl =
      rig.map().queue_reg_addr(0, 0, Direction::kM2S, 0, soc::m2s_q::kTdrl).value() +
      soc::cayman_map::kBcastOffset;
  rig.bus(0).write32(tdrl, 64);
  rig.run();
  ASSERT_EQ(rig.m->errors().size(), 1U);
  EXPECT_NE(rig.m->errors()[0].message.find("not a broadcast-capable queue register"),
            std::string::npos);
  EXPECT_EQ(rig.m->peek_reg(0, 0, Direction::kM2S, 0, soc::m2s_q::kTdrl).value(), 0U);
}

}  // namespace
}  // namespace sbrdma::device
