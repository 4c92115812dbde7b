// Copies driven by MMIO writes alone: bytes land exactly (same core, other core, other die,
// other chip), pointers advance, completion semaphores count, len 0 moves 64 KiB; and the
// in-place SBUF view local compute uses.
#include <gtest/gtest.h>

#include <algorithm>

#include "machine_rig.h"

namespace sbrdma::device {
namespace {

using soc::Direction;
using testing::Channel;
using testing::pattern;
using testing::Rig;

TEST(MachineCopy, SameCoreLandsExactlyAndHeadAdvances) {
  Rig rig;
  const auto data = pattern(5000);
  rig.seed(0, 3, 0x100, data);
  Channel ch = rig.open(0, 2, 1, 64);
  rig.copy(ch, rig.sbuf(0, 3, 0x100), rig.sbuf(0, 7, 0x2000), 5000);
  rig.start(ch, 1);
  rig.run();
  EXPECT_EQ(rig.read(0, 7, 0x2000, 5000), data);
  // The neighbours of the destination are untouched.
  EXPECT_EQ(rig.read(0, 7, 0x1FFF, 1)[0], 0);
  EXPECT_EQ(rig.read(0, 7, 0x2000 + 5000, 1)[0], 0);
  for (Direction d : {Direction::kM2S, Direction::kS2M}) {
    const QueueState q = rig.queue(ch, d);
    EXPECT_EQ(q.head, (RingPos{1, 1}));
    EXPECT_EQ(q.tail, (RingPos{1, 1}));
    EXPECT_EQ(q.completion, (RingPos{1, 1}));
    EXPECT_EQ(q.posted, 0U);
  }
  // The head register as software reads it: ring_id [31:30] = 1, offset 1.
  EXPECT_EQ(rig.bus(0).read32(
                rig.map().queue_reg_addr(0, 2, Direction::kM2S, 1, soc::m2s_q::kTdrhp).value()),
            (1U << 30) | 1U);
  EXPECT_EQ(rig.m->stats().descriptors, 1U);
  EXPECT_EQ(rig.m->stats().data_bytes, 5000U);
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
  EXPECT_TRUE(rig.m->pending_work().empty());
}

TEST(MachineCopy, StateReadsIdleUnlessDataMoves) {
  // udma-facts 3.5: after change_state NORMAL the HAL polls `state` for IDLE (every
  // sub-state 0); a sub-state reads 1 while the block works, 2 once aborted. [CHOICE D25h]
  Rig rig;
  auto state_addr = [&](Direction d) {
    return rig.map().engine_reg_addr(0, 2, d, soc::engine_offsets(d).state).value();
  };
  auto bus_state = [&](Direction d) { return rig.bus(0).read32(state_addr(d)); };
  constexpr std::uint32_t kLastCmdNormal = 1U << 16;  // M2S last_change_state_cmd [18:16]
  EXPECT_EQ(bus_state(Direction::kM2S), 0U);          // reset: disabled
  Channel ch = rig.open(0, 2, 0, 64);                 // change_state NORMAL, rings programmed
  rig.run();                                          // the posted writes take effect
  EXPECT_EQ(bus_state(Direction::kM2S), kLastCmdNormal);
  EXPECT_EQ(bus_state(Direction::kS2M), 0U);
  rig.copy(ch, rig.sbuf(0, 3, 0), rig.sbuf(0, 7, 0), 65536);
  rig.start(ch, 1);
  const TimingParams& p = rig.m->params();
  rig.kernel.run_until(p.mmio_write_latency + p.dma_fixed_cost + base::nanoseconds(500));
  EXPECT_EQ(rig.queue(ch, Direction::kM2S).completion.offset, 0U);  // still streaming
  EXPECT_EQ(bus_state(Direction::kM2S), kLastCmdNormal | 0x1111U);
  EXPECT_EQ(bus_state(Direction::kS2M), 0x1111U);
  EXPECT_EQ(rig.m
                ->peek_reg(0, 2, Direction::kS2M, std::nullopt,
                           soc::engine_offsets(Direction::kS2M).state)
                .value(),
            0x1111U);
  rig.run();
  EXPECT_EQ(rig.queue(ch, Direction::kM2S).completion.offset, 1U);
  EXPECT_EQ(bus_state(Direction::kM2S), kLastCmdNormal);
  EXPECT_EQ(bus_state(Direction::kS2M), 0U);
  // ABORT: every sub-state 2, and the command kept.
  const std::uint32_t abort = static_cast<std::uint32_t>(soc::reg_field::kChangeStateAbort.mask());
  rig.bus(0).write32(
      rig.map()
          .engine_reg_addr(0, 2, Direction::kM2S, soc::engine_offsets(Direction::kM2S).change_state)
          .value(),
      abort);
  rig.run();
  EXPECT_EQ(bus_state(Direction::kM2S), (abort << 16) | 0x2222U);
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
}

TEST(MachineCopy, OtherCoreSameDie) {
  Rig rig;
  const auto data = pattern(4096, 3, 1);
  rig.seed(0, 0, 0, data);
  Channel ch = rig.open(0, 5, 0, 16);
  rig.copy(ch, rig.sbuf(0, 0, 0), rig.sbuf(2, 9, 0x800), 4096);  // TPB_2: same die, plain address
  rig.start(ch, 1);
  rig.run();
  EXPECT_EQ(rig.read(2, 9, 0x800, 4096), data);
  EXPECT_EQ(rig.read(0, 9, 0x800, 4096), std::vector<std::uint8_t>(4096, 0));
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
}

TEST(MachineCopy, CrossDieByNeighbourFold) {
  Rig rig;
  const auto data = pattern(3000, 5, 9);
  rig.seed(1, 4, 0x40, data);
  Channel ch = rig.open(1, 0, 3, 16);
  const base::SocAddr dst = rig.routed(1, rig.sbuf(6, 4, 0x40), 6);  // core 6 is on die 1
  EXPECT_TRUE(soc::NeighborAddr(dst).neighbor_route());
  rig.copy(ch, rig.sbuf(1, 4, 0x40), dst, 3000);
  rig.start(ch, 1);
  rig.run();
  EXPECT_EQ(rig.read(6, 4, 0x40, 3000), data);
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
}

TEST(MachineCopy, CrossChipByChipIdFold) {
  Rig rig("trn2.48xlarge");
  const CoreId src = 3;          // chip 0, TPB_3
  const CoreId dst = 5 * 8 + 6;  // chip 5, TPB_6 (die 1)
  const auto data = pattern(10000, 11, 2);
  rig.seed(src, 12, 0, data);
  Channel ch = rig.open(src, 7, 2, 16);
  const base::SocAddr to = rig.routed(src, rig.sbuf(dst, 12, 0x1000), dst);
  EXPECT_EQ(soc::LocalAddr(to).cayman_id(), 5U);
  EXPECT_TRUE(soc::LocalAddr(to).cayman_id_valid());
  rig.copy(ch, rig.sbuf(src, 12, 0), to, 10000);
  rig.start(ch, 1);
  rig.run();
  EXPECT_EQ(rig.read(dst, 12, 0x1000, 10000), data);
  // The same local offset on the issuer's own chip (TPB_6 of chip 0) stays empty.
  EXPECT_EQ(rig.read(6, 12, 0x1000, 10000), std::vector<std::uint8_t>(10000, 0));
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
}

TEST(MachineCopy, LengthZeroMoves64KiB) {
  Rig rig;
  const auto data = pattern(65536, 13, 4);
  rig.seed(0, 1, 0, data);
  Channel ch = rig.open(0, 0, 0, 16);
  const auto m2s = soc::make_copy_descriptor(rig.sbuf(0, 1, 0), 65536, 0).value();
  EXPECT_EQ(soc::desc_word0::kLen.get(m2s.word0), 0U);  // encoded as 0
  rig.copy(ch, rig.sbuf(0, 1, 0), rig.sbuf(0, 2, 0x100), 65536);
  rig.start(ch, 1);
  rig.run();
  EXPECT_EQ(rig.read(0, 2, 0x100, 65536), data);
  EXPECT_EQ(rig.m->stats().data_bytes, 65536U);
}

TEST(MachineCopy, SemaphoreDescriptorsCountCompletion) {
  // [CHOICE D5]: after its data, an engine increments remote_sem on the peer and local_sem
  // on its own core.
  Rig rig;
  const CoreId me = 0;
  const CoreId peer = 5;
  rig.one_word(me);
  const auto data = pattern(2048);
  rig.seed(me, 0, 0, data);
  for (unsigned e = 0; e < 4; ++e) {
    Channel ch = rig.open(me, e, 0, 8);
    rig.copy(ch, rig.sbuf(me, 0, 0), rig.routed(me, rig.sbuf(peer, e, 0), peer), 2048);
    rig.sema(ch, rig.routed(me, rig.sem_inc(peer, 17), peer));  // remote_sem
    rig.sema(ch, rig.sem_inc(me, 3));                           // local_sem
    rig.start(ch, 3);
  }
  rig.run();
  EXPECT_EQ(rig.m->semaphore(peer, 17), 4U);
  EXPECT_EQ(rig.m->semaphore(me, 3), 4U);
  EXPECT_EQ(rig.m->semaphore(peer, 3), 0U);
  for (unsigned e = 0; e < 4; ++e) EXPECT_EQ(rig.read(peer, e, 0, 2048), data);
  EXPECT_EQ(rig.m->stats().semaphore_writes, 8U);
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
}

TEST(MachineCopy, SbufToSbufCopiesAreHeldAndLandBeforeAnyoneReads) {
  // 202 landings and nothing else touching an SBUF: the first 128 run as a batch in the
  // background, the rest when the test reads (D44); every byte is there, as copied one by
  // one: a copy reads what an earlier one wrote, and a source rewritten later was read first.
  Rig rig;
  Channel ch = rig.open(0, 0, 0, 256);
  std::vector<std::vector<std::uint8_t>> want;
  for (unsigned n = 0; n < 200; ++n) {
    const unsigned part = n % 128;
    const std::uint64_t at = 0x1000 + (n / 128) * 0x800;
    want.push_back(pattern(0x800, n + 3, n));
    rig.seed(0, part, at, want.back());
    rig.copy(ch, rig.sbuf(0, part, at), rig.sbuf(1, part, at), 0x800);
  }
  // Then one that reads what the first wrote, and one that writes where the second read.
  rig.copy(ch, rig.sbuf(1, 0, 0x1000), rig.sbuf(0, 5, 0x3000), 0x800);
  rig.copy(ch, rig.sbuf(1, 2, 0x1000), rig.sbuf(0, 1, 0x1000), 0x800);
  rig.start(ch, 202);
  rig.run();
  EXPECT_EQ(rig.m->held_copies(), 128U);  // the full batch; 74 still held
  for (unsigned n = 0; n < 200; ++n) {
    EXPECT_EQ(rig.read(1, n % 128, 0x1000 + (n / 128) * 0x800, 0x800), want[n]) << n;
  }
  EXPECT_EQ(rig.read(0, 5, 0x3000, 0x800), want[0]);
  EXPECT_EQ(rig.read(0, 1, 0x1000, 0x800), want[2]);
  EXPECT_EQ(rig.m->held_copies(), 202U);
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
}

TEST(MachineCopy, RingWrapsSeveralLapsWithRingIdAdvancing) {
  Rig rig;
  constexpr std::uint32_t kDepth = 4;
  Channel ch = rig.open(0, 1, 4, kDepth);
  std::vector<unsigned> head_ids{rig.queue(ch, Direction::kM2S).head.ring_id};
  for (unsigned lap = 0; lap < 5; ++lap) {
    for (unsigned half = 0; half < 2; ++half) {  // two doorbells of 2 per lap
      for (unsigned i = 0; i < 2; ++i) {
        const unsigned n = lap * kDepth + half * 2 + i;
        rig.seed(0, 0, n * 64, pattern(64, n + 1, n));
        rig.copy(ch, rig.sbuf(0, 0, n * 64), rig.sbuf(0, 1, n * 64), 64);
      }
      rig.start(ch, 2);
      rig.run();
    }
    const QueueState q = rig.queue(ch, Direction::kM2S);
    EXPECT_EQ(q.head.offset, 0U);
    head_ids.push_back(q.head.ring_id);
  }
  EXPECT_EQ(head_ids, (std::vector<unsigned>{1, 2, 3, 0, 1, 2}));
  for (unsigned n = 0; n < 5 * kDepth; ++n)
    EXPECT_EQ(rig.read(0, 1, n * 64, 64), pattern(64, n + 1, n));
  EXPECT_EQ(rig.queue(ch, Direction::kS2M).head, (RingPos{0, 2}));
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
}

// [HIGH] wiki-facts §3.3/§3.4: TDRTP_inc and RDRTP_inc take val[23:0] (VAL_MASK 0xffffff) and
// bits [31:24] are reserved; the hardware does TDRTP += val. A doorbell with the reserved bits
// set moves the tail by the low 24 bits alone.
TEST(MachineCopy, DoorbellAddsOnlyVal23To0) {
  Rig rig;
  const auto data = pattern(384);
  rig.seed(0, 0, 0, data);
  Channel ch = rig.open(0, 2, 1, 8);
  for (unsigned i = 0; i < 3; ++i) {  // three pairs written, two posted
    rig.copy(ch, rig.sbuf(0, 0, i * 128), rig.sbuf(0, 1 + i, 0), 128);
  }
  ASSERT_TRUE(ring_doorbell(rig.bus(0), rig.map(), 0, 2, Direction::kS2M, 1, 0xFF000002U).ok());
  ASSERT_TRUE(ring_doorbell(rig.bus(0), rig.map(), 0, 2, Direction::kM2S, 1, 0x01000002U).ok());
  rig.run();
  EXPECT_FALSE(rig.has_error("tail beyond ring")) << rig.m->error_report();
  for (Direction d : {Direction::kM2S, Direction::kS2M}) {
    const QueueState q = rig.queue(ch, d);
    EXPECT_EQ(q.tail, (RingPos{2, 1}));  // offset 2, ring id 1
    EXPECT_EQ(q.head, (RingPos{2, 1}));
    EXPECT_EQ(q.posted, 0U);
  }
  EXPECT_EQ(rig.read(0, 1, 0, 128), std::vector<std::uint8_t>(data.begin(), data.begin() + 128));
  EXPECT_EQ(rig.read(0, 2, 0, 128),
            std::vector<std::uint8_t>(data.begin() + 128, data.begin() + 256));
  EXPECT_EQ(rig.read(0, 3, 0, 128), std::vector<std::uint8_t>(128, 0));  // not posted
  EXPECT_EQ(rig.m->stats().descriptors, 2U);
}

TEST(MachineSbufSpan, IsThePartitionsActiveBytesInPlace) {
  Rig rig;
  const std::uint64_t active = rig.m->profile().partition_active.n;
  const std::size_t before = rig.m->allocated_bytes();
  auto span = rig.m->sbuf_span(3, 17);
  ASSERT_TRUE(span.ok()) << span.error().message;
  ASSERT_EQ(span->size(), active);
  EXPECT_EQ(rig.m->allocated_bytes(), before + active);  // its page, allocated on demand
  // Writes through the span are the partition's bytes, and the other way round.
  const auto data = pattern(64);
  std::copy(data.begin(), data.end(), span->data() + active - 64);
  EXPECT_EQ(rig.read(3, 17, active - 64, 64), data);
  rig.seed(3, 17, 0, data);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), span->data()));
  EXPECT_EQ(rig.read(3, 16, 0, 64), std::vector<std::uint8_t>(64, 0));  // not a neighbour's
  // The same bytes on every call.
  EXPECT_EQ(rig.m->sbuf_span(3, 17)->data(), span->data());
  // A shorter span starts at the same byte.
  auto head = rig.m->sbuf_span(3, 17, 100);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->size(), 100U);
  EXPECT_EQ(head->data(), span->data());
  EXPECT_EQ(rig.m->sbuf_span(3, 17, active + 1)->size(), active);
  EXPECT_FALSE(rig.m->sbuf_span(3, rig.m->profile().sbuf_partitions).ok());
  EXPECT_FALSE(rig.m->sbuf_span(rig.m->topology().num_cores(), 0).ok());
}

}  // namespace
}  // namespace sbrdma::device
