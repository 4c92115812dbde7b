// Ring pointers of a queue: tail increments, ring ids on wrap, posted counts, resets; register
// access rules of the tables.
#include "device/udma_queue.h"

#include <gtest/gtest.h>

#include <random>

namespace sbrdma::device {
namespace {

using soc::Direction;
namespace q = soc::m2s_q;

UdmaQueue ring_of(std::uint32_t len) {
  UdmaQueue uq(Direction::kM2S);
  EXPECT_TRUE(uq.write_reg(q::kTdrl, len).ok());
  EXPECT_TRUE(uq.write_reg(q::kTdrbpLow, 0x12345678).ok());
  EXPECT_TRUE(uq.write_reg(q::kTdrbpHigh, 0x20).ok());
  return uq;
}

TEST(UdmaQueue, ResetPointersCarryRingIdOne) {
  const UdmaQueue uq(Direction::kS2M);
  EXPECT_EQ(uq.head(), (RingPos{0, 1}));
  EXPECT_EQ(uq.tail(), (RingPos{0, 1}));
  EXPECT_EQ(uq.regs().read(q::kTdrhp).value(), 1U << 30);
  EXPECT_FALSE(uq.enabled());
}

TEST(UdmaQueue, BaseIsSixtyFourByteAligned) {
  const UdmaQueue uq = ring_of(8);
  EXPECT_EQ(uq.ring_base().v, 0x2012345640ULL);
}

TEST(UdmaQueue, TailAndHeadWrapWithRingIds) {
  UdmaQueue uq = ring_of(4);
  std::vector<unsigned> ids;
  for (int lap = 0; lap < 5; ++lap) {
    ASSERT_TRUE(uq.add_tail(3).ok());
    EXPECT_EQ(uq.posted(), 3U);
    for (int i = 0; i < 3; ++i) uq.advance_head();
    ASSERT_TRUE(uq.add_tail(1).ok());
    uq.advance_head();
    ids.push_back(uq.head().ring_id);
    EXPECT_EQ(uq.head(), uq.tail());
    EXPECT_EQ(uq.current(), uq.head());
  }
  EXPECT_EQ(ids, (std::vector<unsigned>{2, 3, 0, 1, 2}));
  EXPECT_EQ(uq.regs().read(q::kStatus).value() & 0x1FFFFFF, 0U);
}

TEST(UdmaQueue, AFullRingIsNotEmptyAndRefusesMore) {
  UdmaQueue uq = ring_of(4);
  ASSERT_TRUE(uq.add_tail(4).ok());
  EXPECT_EQ(uq.tail(), (RingPos{0, 2}));
  EXPECT_EQ(uq.posted(), 4U);  // same offset, other ring id: full
  const base::Status st = uq.add_tail(1);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("tail beyond ring"), std::string::npos);
  EXPECT_FALSE(uq.add_tail(0).ok());
  EXPECT_FALSE(UdmaQueue(Direction::kM2S).add_tail(1).ok());  // length 0
}

TEST(UdmaQueue, SwCtrlResetsPointers) {
  UdmaQueue uq = ring_of(8);
  ASSERT_TRUE(uq.add_tail(5).ok());
  uq.batches.push_back(Batch{5, base::Tick{}});
  uq.advance_head();
  uq.sw_ctrl(1U << 1);  // rst_tail_ptr: tail back to slot 0 behind the head
  EXPECT_EQ(uq.tail(), (RingPos{0, 1}));
  uq.sw_ctrl(1U << 2);  // rst_head_ptr
  EXPECT_EQ(uq.posted(), 0U);
  EXPECT_TRUE(uq.batches.empty());
  ASSERT_TRUE(uq.add_tail(2).ok());
  uq.stop("test");
  uq.sw_ctrl(1U << 8);  // rst_q
  EXPECT_FALSE(uq.stopped());
  EXPECT_EQ(uq.posted(), 0U);
  EXPECT_EQ(uq.completion(), (RingPos{0, 1}));
}

TEST(UdmaQueue, RstQResetsEveryPointerIncludingTheCompletionHead) {
  UdmaQueue uq = ring_of(8);
  ASSERT_TRUE(uq.add_tail(3).ok());
  uq.advance_head();
  uq.advance_head();
  uq.advance_completion();
  ASSERT_EQ(uq.current(), (RingPos{2, 1}));
  ASSERT_EQ(uq.completion(), (RingPos{1, 1}));
  uq.sw_ctrl(1U << 8);  // rst_q: head, tail, current and the completion head back to {0, 1}
  EXPECT_EQ(uq.head(), (RingPos{0, 1}));
  EXPECT_EQ(uq.tail(), (RingPos{0, 1}));
  EXPECT_EQ(uq.current(), (RingPos{0, 1}));
  EXPECT_EQ(uq.completion(), (RingPos{0, 1}));
  EXPECT_EQ(uq.posted(), 0U);
}

TEST(UdmaQueue, CompletionsCountPacketsAndMoveTheInternalHead) {
  // [CHOICE D41m] No coalescing FIFO is modelled: CRHP_internal follows CRHP from the first
  // completion on, and each completed descriptor is one packet (q_tx_pkt / q_rx_pkt).
  for (const Direction d : {Direction::kM2S, Direction::kS2M}) {
    const std::uint32_t internal =
        d == Direction::kM2S ? q::kTcrhpInternal : soc::s2m_q::kRcrhpInternal;
    const std::uint32_t packets = d == Direction::kM2S ? q::kQTxPkt : soc::s2m_q::kQRxPkt;
    const soc::QueueRegOffsets& o = soc::queue_offsets(d);
    UdmaQueue uq(d);
    ASSERT_TRUE(uq.write_reg(o.ring_len, 4).ok());
    EXPECT_EQ(uq.regs().read(internal).value(), 0U);  // its reset value
    EXPECT_EQ(uq.regs().read(packets).value(), 0U);
    for (int i = 0; i < 6; ++i) {  // past the end of the ring: the ring id moves on
      if (uq.posted() == 0) {
        ASSERT_TRUE(uq.add_tail(3).ok());
      }
      uq.advance_head();
      uq.advance_completion();
      EXPECT_EQ(uq.regs().read(internal).value(), uq.regs().read(o.comp_head).value());
      EXPECT_EQ(uq.regs().read(packets).value(), static_cast<std::uint32_t>(i + 1));
    }
    EXPECT_EQ(uq.completion(), (RingPos{2, 2}));
    uq.sw_ctrl(1U << 8);  // rst_q: the internal head resets, the packet count keeps counting
    EXPECT_EQ(uq.regs().read(internal).value(), 0U);
    EXPECT_EQ(uq.regs().read(packets).value(), 6U);
    ASSERT_TRUE(uq.add_tail(1).ok());
    uq.advance_head();
    uq.advance_completion();
    EXPECT_EQ(uq.regs().read(internal).value(), ring_pos_reg(RingPos{1, 1}));
    EXPECT_EQ(uq.regs().read(packets).value(), 7U);
  }
}

/// posted() from the pointer registers alone: (tail - head) mod 4*DRL, positions id*DRL + offset.
std::uint32_t posted_from_registers(const UdmaQueue& uq) {
  const std::uint64_t len = uq.ring_len();
  if (len == 0) return 0;
  const std::uint64_t span = 4 * len;
  const auto pos = [&](RingPos p) { return (p.ring_id * len + p.offset) % span; };
  return static_cast<std::uint32_t>((pos(uq.tail()) + span - pos(uq.head())) % span);
}

TEST(UdmaQueue, PostedFollowsEveryPointerMoveAndLengthChange) {
  // The queue keeps posted() as it goes; after every step of a random mix of doorbells,
  // takes, pointer resets and DRL rewrites it must equal the count from the registers.
  std::mt19937 rng(7);
  for (const Direction d : {Direction::kM2S, Direction::kS2M}) {
    UdmaQueue uq(d);
    const soc::QueueRegOffsets& off = soc::queue_offsets(d);
    EXPECT_EQ(uq.posted(), 0U);
    unsigned moves = 0;
    for (int step = 0; step < 4000; ++step) {
      switch (rng() % 6) {
        case 0:  // DRL rewritten (also to 0 and to lengths the pointers lie beyond)
          ASSERT_TRUE(uq.write_reg(off.ring_len, rng() % 9).ok());
          break;
        case 1:
        case 2:
          if (uq.add_tail(1 + rng() % 5).ok()) ++moves;
          break;
        case 3:
          if (uq.posted() != 0) {
            uq.advance_head();
            ++moves;
          }
          break;
        case 4:  // also past the tail: the count wraps as the registers do
          uq.advance_head();
          ++moves;
          break;
        default: {
          const std::uint32_t bits[] = {1U << 1, 1U << 2, 1U << 3, 1U << 8};
          uq.sw_ctrl(bits[rng() % 4]);
          break;
        }
      }
      ASSERT_EQ(uq.posted(), posted_from_registers(uq)) << "step " << step;
      ASSERT_EQ(soc::reg_field::kQStatusUsed.get(uq.regs().get(off.status)), uq.posted())
          << "status.q_used, step " << step;
    }
    EXPECT_GT(moves, 1000U);  // the pointers really moved, across many wraps
  }
}

TEST(RegFile, AccessRulesComeFromTheTable) {
  RegFile m2s(soc::m2s_queue_bank());
  EXPECT_EQ(m2s.read(q::kCfg).value(), 0x03000000U);  // table reset
  EXPECT_FALSE(m2s.write(q::kTdrhp, 1).ok());         // RO
  EXPECT_EQ(m2s.get(q::kTdrhp), 1U << 30);            // unchanged
  EXPECT_FALSE(m2s.read(q::kQSwCtrl).ok());           // WO
  ASSERT_TRUE(m2s.write(q::kQSwCtrl, 0x100).ok());    // a command: not stored
  EXPECT_EQ(m2s.get(q::kQSwCtrl), 0U);
  EXPECT_FALSE(m2s.read(0x10).ok());             // no register at 0x10
  EXPECT_TRUE(m2s.write(q::kTdrtpInc, 3).ok());  // RW on Cayman
  EXPECT_EQ(m2s.read(q::kTdrtpInc).value(), 3U);
  RegFile s2m(soc::s2m_queue_bank());
  EXPECT_FALSE(s2m.read(soc::s2m_q::kRdrtpInc).ok());  // WO
  const auto e = s2m.write(soc::s2m_q::kRdrhp, 9);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "write of 0x9 to read-only register RDRHP (S2M_Q +0x34)");
}

}  // namespace
}  // namespace sbrdma::device
