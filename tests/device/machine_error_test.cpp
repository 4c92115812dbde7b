// Guest mistakes are modelled errors: flagged with where and what, the queue stops where the
// hardware would, and the run goes on.
#include <gtest/gtest.h>

#include <algorithm>

#include "machine_rig.h"
#include "soc/udma_regs.h"

namespace sbrdma::device {
namespace {

using soc::Direction;
using testing::Channel;
using testing::pattern;
using testing::Rig;

/// The sub-state fields of an engine side's state register (udma-facts 3.5): 0x2222 when
/// aborted, 0x1111 when moving data, 0 when idle.
std::uint32_t sub_states(const Rig& rig, CoreId core, unsigned engine, Direction d) {
  const std::uint32_t reg =
      d == Direction::kM2S ? soc::m2s_engine::kState : soc::s2m_engine::kState;
  return rig.m->peek_reg(core, engine, d, std::nullopt, reg).value() & 0x3333U;
}

/// The error whose message contains `text`, or nullptr.
const ModelledError* find_error(const Rig& rig, std::string_view text) {
  for (const ModelledError& e : rig.m->errors()) {
    if (e.message.find(text) != std::string::npos) return &e;
  }
  return nullptr;
}

// With the default abort mask a ring-id error aborts the block: the M2S side of engine 4,
// every queue of it, reads ABORT; its S2M side and the other engines go on. [DRV]
// udma-facts §1.4, §3.6
TEST(MachineErrors, StaleRingIdAbortsTheEnginesM2sSide) {
  Rig rig;
  rig.seed(0, 0, 0, pattern(256));
  Channel bad = rig.open(0, 4, 2, 8);
  Channel other = rig.open(0, 4, 3, 8);  // another queue of the same engine
  Channel next = rig.open(0, 5, 2, 8);   // the same queue of another engine
  auto stale = soc::make_copy_descriptor(rig.sbuf(0, 0, 0), 256, 2).value();
  rig.bus(0).write_block(bad.m2s.base(), soc::encode_descriptor(stale));
  bad.s2m.push(rig.bus(0), soc::make_copy_descriptor(rig.sbuf(0, 1, 0), 256, 0).value());
  rig.copy(other, rig.sbuf(0, 0, 0), rig.sbuf(0, 2, 0), 256);
  rig.copy(next, rig.sbuf(0, 0, 0), rig.sbuf(0, 3, 0), 256);
  rig.start(bad, 1);  // queue 2 is served first (round robin from queue 0)
  rig.start(other, 1);
  rig.start(next, 1);
  rig.run();
  ASSERT_NE(find_error(rig, "; M2S engine aborted"), nullptr) << rig.m->error_report();
  // The state registers: every sub-state field 2 (ABORT) on M2S; S2M still NORMAL and
  // moving (its armed descriptors wait).
  EXPECT_EQ(sub_states(rig, 0, 4, Direction::kM2S), 0x2222U);
  EXPECT_EQ(sub_states(rig, 0, 4, Direction::kS2M), 0x1111U);
  // The other queue of the aborted engine moved nothing; engine 5 moved its bytes.
  EXPECT_EQ(rig.read(0, 2, 0, 256), std::vector<std::uint8_t>(256, 0));
  EXPECT_EQ(rig.read(0, 3, 0, 256), pattern(256));
  // Queue 3 is reported as held by the abort (queue 2's own line names its ring-id stop).
  const std::vector<std::string> pending = rig.m->pending_work();
  EXPECT_TRUE(std::any_of(pending.begin(), pending.end(), [](const std::string& l) {
    return l.find("engine 4 M2S queue 3:") != std::string::npos &&
           l.ends_with(": M2S engine aborted");
  })) << rig.m->error_report();
}

TEST(MachineErrors, StaleRingIdStopsTheQueueAndLatchesPrefRingId) {
  Rig rig;
  rig.seed(0, 0, 0, pattern(256));
  Channel ch = rig.open(0, 4, 2, 8);
  rig.copy(ch, rig.sbuf(0, 0, 0), rig.sbuf(0, 1, 0), 256);
  // A second M2S descriptor stamped with a stale ring id (2 on the first pass).
  auto stale = soc::make_copy_descriptor(rig.sbuf(0, 0, 0), 256, 2).value();
  rig.bus(0).write_block(ch.m2s.base() + 16, soc::encode_descriptor(stale));
  ch.s2m.push(rig.bus(0), soc::make_copy_descriptor(rig.sbuf(0, 2, 0), 256, 0).value());
  rig.start(ch, 2);
  rig.run();
  EXPECT_EQ(rig.read(0, 1, 0, 256), pattern(256));                       // the first landed
  EXPECT_EQ(rig.read(0, 2, 0, 256), std::vector<std::uint8_t>(256, 0));  // the second did not
  const ModelledError* e = find_error(rig, "pref_ring_id");
  ASSERT_NE(e, nullptr) << rig.m->error_report();
  EXPECT_EQ(e->core, 0U);
  EXPECT_EQ(e->engine, 4U);
  EXPECT_EQ(e->dir, Direction::kM2S);
  EXPECT_EQ(e->queue, 2U);
  // Id 2 where 1 is expected is what the slot's next lap writes: the message says so.
  EXPECT_NE(e->message.find("has ring id 2, expected 1 (the next lap's: the ring was written "
                            "round ahead of the engine, onto slots it had not taken yet); M2S "
                            "engine aborted"),
            std::string::npos)
      << e->message;
  const QueueState q = rig.queue(ch, Direction::kM2S);
  EXPECT_TRUE(q.stopped);
  EXPECT_EQ(q.head, (RingPos{1, 1}));  // stopped at the stale descriptor
  const auto log =
      rig.m->peek_reg(0, 4, Direction::kM2S, std::nullopt, soc::m2s_engine::kErrLogMask);
  EXPECT_EQ(log.value(), 1U << 17);
  EXPECT_FALSE(rig.m->pending_work().empty());
}

TEST(MachineErrors, StaleRingIdWithAbortOffLatchesAndContinues) {
  Rig rig("trn2", MachineOptions{.timing_only = false, .ring_id_abort = false});
  rig.seed(0, 0, 0, pattern(256));
  Channel ch = rig.open(0, 4, 2, 8);
  auto stale = soc::make_copy_descriptor(rig.sbuf(0, 0, 0), 256, 3).value();
  rig.bus(0).write_block(ch.m2s.base(), soc::encode_descriptor(stale));
  ch.s2m.push(rig.bus(0), soc::make_copy_descriptor(rig.sbuf(0, 2, 0), 256, 0).value());
  rig.start(ch, 1);
  rig.run();
  EXPECT_EQ(rig.read(0, 2, 0, 256), pattern(256));
  const ModelledError* e = find_error(rig, "pref_ring_id");
  ASSERT_NE(e, nullptr);
  // Id 3 where 1 is expected is no lap's: no note.
  EXPECT_TRUE(e->message.ends_with("has ring id 3, expected 1")) << e->message;
  EXPECT_FALSE(rig.queue(ch, Direction::kM2S).stopped);
  EXPECT_EQ(rig.queue(ch, Direction::kM2S).head, (RingPos{1, 1}));
  EXPECT_EQ(
      rig.m->peek_reg(0, 4, Direction::kM2S, std::nullopt, soc::m2s_engine::kErrLogMask).value(),
      1U << 17);
}

TEST(MachineErrors, StaleS2mRingIdLatchesBit11) {
  Rig rig;
  Channel ch = rig.open(0, 0, 0, 8);
  ch.m2s.push(rig.bus(0), soc::make_copy_descriptor(rig.sbuf(0, 0, 0), 64, 0).value());
  auto stale = soc::make_copy_descriptor(rig.sbuf(0, 2, 0), 64, 0).value();
  rig.bus(0).write_block(ch.s2m.base(), soc::encode_descriptor(stale));
  rig.start(ch, 1);
  rig.run();
  EXPECT_EQ(
      rig.m->peek_reg(0, 0, Direction::kS2M, std::nullopt, soc::s2m_engine::kErrLogMask).value(),
      1U << 11);
  EXPECT_TRUE(rig.queue(ch, Direction::kS2M).stopped);
  EXPECT_TRUE(rig.queue(ch, Direction::kM2S).stopped);
  // The S2M side aborted, the M2S side did not (its queue stopped with its S2M half).
  EXPECT_EQ(sub_states(rig, 0, 0, Direction::kS2M), 0x2222U);
  EXPECT_NE(sub_states(rig, 0, 0, Direction::kM2S), 0x2222U);
}

TEST(MachineErrors, M2sDataWithNoArmedS2mDescriptor) {
  Rig rig;
  Channel ch = rig.open(1, 9, 5, 8);
  rig.copy(ch, rig.sbuf(1, 0, 0), rig.sbuf(1, 1, 0), 64);
  ASSERT_TRUE(ring_doorbell(rig.bus(1), rig.map(), 1, 9, Direction::kM2S, 5, 1).ok());  // no RX
  rig.run();
  const ModelledError* e = find_error(rig, "no armed S2M descriptor");
  ASSERT_NE(e, nullptr) << rig.m->error_report();
  EXPECT_EQ(e->core, 1U);
  EXPECT_EQ(e->engine, 9U);
  EXPECT_EQ(e->queue, 5U);
  EXPECT_NE(e->format().find("core 1 engine 9 M2S queue 5"), std::string::npos) << e->format();
  EXPECT_EQ(rig.m->stats().descriptors, 0U);
}

TEST(MachineErrors, AnM2sDescriptorWithoutFirstAndLastIsRefused) {
  // A packet of several descriptors (FIRST ... LAST, udma-facts 1.2) is not modelled: the
  // record names its error bits, not what raises them. It is refused, not run as if each
  // descriptor were whole. [CHOICE D25i]
  for (const soc::CopyFlags f : {soc::CopyFlags{.first = true, .last = false},
                                 soc::CopyFlags{.first = false, .last = true}}) {
    Rig rig;
    Channel ch = rig.open(0, 0, 0, 8);
    ch.m2s.push(rig.bus(0), soc::make_copy_descriptor(rig.sbuf(0, 0, 0), 64, 0, f).value());
    ch.s2m.push(rig.bus(0), soc::make_copy_descriptor(rig.sbuf(0, 1, 0), 64, 0).value());
    rig.start(ch, 1);
    rig.run();
    const ModelledError* e =
        find_error(rig, "packets of several descriptors are not modelled; set both");
    ASSERT_NE(e, nullptr) << rig.m->error_report();
    EXPECT_NE(e->format().find(f.first ? "(FIRST 1, LAST 0)" : "(FIRST 0, LAST 1)"),
              std::string::npos)
        << e->format();
    EXPECT_TRUE(rig.queue(ch, Direction::kM2S).stopped);
    EXPECT_EQ(rig.m->stats().descriptors, 0U);
  }
}

TEST(MachineErrors, OnlyCmeCopyIsModelled) {
  Rig rig;
  Channel ch = rig.open(0, 0, 0, 8);
  auto crc = soc::make_copy_descriptor(rig.sbuf(0, 0, 0), 64, 0).value();
  crc.word1 = static_cast<std::uint32_t>(soc::desc_word1::kOptype.set(crc.word1, 1));  // CRC32
  ch.m2s.push(rig.bus(0), crc);
  ch.s2m.push(rig.bus(0), soc::make_copy_descriptor(rig.sbuf(0, 1, 0), 64, 0).value());
  rig.start(ch, 1);
  rig.run();
  EXPECT_NE(find_error(rig, "(op 2, optype 1) is not a CME COPY"), nullptr)
      << rig.m->error_report();
  EXPECT_TRUE(rig.queue(ch, Direction::kM2S).stopped);
}

// TOP_SP windows decode (sbrdma decode addr names them) but are not modelled: a DMA or an
// MMIO write there is an error naming the window, not a crash or a silent write.
TEST(MachineErrors, TopSpWindowsAreNotModelled) {
  Rig rig;
  Channel ch = rig.open(0, 0, 0, 8);
  rig.copy(ch, rig.sbuf(0, 0, 0), base::SocAddr{0x8280001800}, 4);
  rig.start(ch, 1);
  rig.bus(0).write32(base::SocAddr{0x82800615a0}, 1);
  rig.run();
  EXPECT_NE(find_error(rig,
                       "0x8280001800 is in TOP_SP_0 +0x1800, a CC-core window the "
                       "simulator does not model"),
            nullptr)
      << rig.m->error_report();
  EXPECT_NE(find_error(rig, "0x82800615a0 is in TOP_SP_0 +0x615a0"), nullptr)
      << rig.m->error_report();
}

TEST(MachineErrors, AddressThatDecodesToNothingNamesIt) {
  Rig rig;
  Channel ch = rig.open(0, 0, 0, 8);
  rig.copy(ch, rig.sbuf(0, 0, 0), base::SocAddr{0x1234560}, 64);
  rig.start(ch, 1);
  rig.bus(0).write32(base::SocAddr{0x7654320}, 5);
  rig.run();
  EXPECT_NE(find_error(rig, "0x1234560 decodes to nothing"), nullptr) << rig.m->error_report();
  EXPECT_NE(find_error(rig, "0x7654320 decodes to nothing"), nullptr) << rig.m->error_report();
  // A chip that does not exist in the topology.
  Rig one;
  Channel c1 = one.open(0, 0, 0, 8);
  const base::SocAddr far = soc::fold_route(0x100, {0, 0}, {9, 0}).value();
  one.copy(c1, one.sbuf(0, 0, 0), far, 64);
  one.start(c1, 1);
  one.run();
  EXPECT_NE(find_error(one, "routes to chip 9, which does not exist"), nullptr)
      << one.m->error_report();
}

TEST(MachineErrors, SbufBeyondTheActivePartition) {
  Rig rig;
  const std::uint64_t active = rig.m->profile().partition_active.n;  // 224 KiB on cayman
  Channel ch = rig.open(0, 0, 0, 8);
  rig.copy(ch, rig.sbuf(0, 0, 0), rig.sbuf(0, 1, active - 100), 200);
  rig.start(ch, 1);
  rig.bus(0).write_block(rig.sbuf(0, 3, active - 2), std::vector<std::uint8_t>(4, 1));
  rig.run();
  EXPECT_NE(find_error(rig, "S2M destination: SBUF access beyond the active part"), nullptr)
      << rig.m->error_report();
  EXPECT_NE(find_error(rig, "MMIO block write: SBUF access beyond the active part"), nullptr);
  EXPECT_FALSE(rig.m->sbuf_write(0, 1, active, std::vector<std::uint8_t>(1)).ok());
  EXPECT_TRUE(rig.m->sbuf_write(0, 1, active - 1, std::vector<std::uint8_t>(1)).ok());
}

TEST(MachineErrors, WriteToReadOnlyAndReadOfWriteOnly) {
  Rig rig;
  const auto tdrhp = rig.map().queue_reg_addr(0, 3, Direction::kM2S, 0, soc::m2s_q::kTdrhp).value();
  const auto rdrtp_inc =
      rig.map().queue_reg_addr(0, 3, Direction::kS2M, 0, soc::s2m_q::kRdrtpInc).value();
  const auto tdrtp_inc =
      rig.map().queue_reg_addr(0, 3, Direction::kM2S, 0, soc::m2s_q::kTdrtpInc).value();
  rig.bus(0).write32(tdrhp, 7);
  EXPECT_EQ(rig.bus(0).read32(rdrtp_inc), 0U);
  rig.run();
  EXPECT_NE(find_error(rig, "write of 0x7 to read-only register TDRHP"), nullptr)
      << rig.m->error_report();
  EXPECT_NE(find_error(rig, "read of write-only register RDRTP_inc"), nullptr);
  EXPECT_EQ(rig.m->errors().size(), 2U);
  EXPECT_EQ(rig.bus(0).read32(tdrhp), 1U << 30);  // unchanged: reset ring id 1, offset 0
  rig.bus(0).read32(tdrtp_inc);                   // RW in the Cayman table: readable
  EXPECT_EQ(rig.m->errors().size(), 2U);
  // Semaphore windows follow the same rule.
  rig.bus(0).write32(rig.map().sem_window_addr(0, soc::SemWindow::kRead, 4).value(), 1);
  rig.bus(0).read32(rig.sem_inc(0, 4));
  rig.run();
  EXPECT_NE(find_error(rig, "read-only READ window"), nullptr);
  EXPECT_NE(find_error(rig, "write-only INC window"), nullptr);
}

// cfg_len: the engines keep LEN 0 = 64 KiB and do not split packets, as at reset (encode_64k,
// max_pkt_size 64 KiB; wiki-facts §2.3). The driver's value (a larger max_pkt_size) is fine;
// a value that asks for anything else is stored but flagged. [CHOICE D37]
TEST(MachineErrors, CfgLenOtherThanSixtyFourKibEncodingIsFlagged) {
  Rig rig;
  const auto cfg_len = rig.map().engine_base(0, 2).value() + soc::m2s_engine::kCfgLen;
  EXPECT_EQ(rig.bus(0).read32(cfg_len), 0x01010000U);  // Cayman reset
  rig.bus(0).write32(cfg_len, 0x010FFFFF);             // the driver's ENCODE_64K | 0xFFFFF
  rig.run();
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
  rig.bus(0).write32(cfg_len, 0x000FFFFF);
  rig.bus(0).write32(cfg_len, 0x01008000);
  rig.run();
  EXPECT_NE(find_error(rig, "write of 0xfffff to cfg_len clears encode_64k"), nullptr)
      << rig.m->error_report();
  EXPECT_NE(find_error(rig, "write of 0x1008000 to cfg_len: a max_pkt_size below 64 KiB"), nullptr);
  EXPECT_EQ(rig.m->errors().size(), 2U);
  EXPECT_EQ(rig.bus(0).read32(cfg_len), 0x01008000U);  // stored all the same
}

// M2S_comp's cfg_1c and cfg_application_ack read their Cayman reset values and keep what is
// written (they steer completion writes, which the model does not make); cfg_coal between
// them has no public reset value and is still "no register".
TEST(MachineErrors, M2sCompRegistersResetAndStore) {
  Rig rig;
  const auto base = rig.map().engine_base(0, 2).value();
  EXPECT_EQ(rig.bus(0).read32(base + 0x400), 0x01010040U);  // depths 0x40 / 0x100, promotion
  EXPECT_EQ(rig.bus(0).read32(base + 0x408), 0x186A0U);     // application ack timeout
  rig.bus(0).write32(base + 0x400, 0x02010020);
  rig.run();
  EXPECT_EQ(rig.bus(0).read32(base + 0x400), 0x02010020U);
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
  EXPECT_EQ(rig.bus(0).read32(base + 0x404), 0U);
  EXPECT_NE(find_error(rig, "no register"), nullptr) << rig.m->error_report();
}

TEST(MachineErrors, DoorbellsOnDisabledQueuesAndBeyondTheRing) {
  Rig rig;
  // Never enabled, no ring length.
  ASSERT_TRUE(ring_doorbell(rig.bus(0), rig.map(), 0, 6, Direction::kS2M, 1, 1).ok());
  Channel ch = rig.open(0, 2, 0, 4);
  rig.start(ch, 3);
  rig.start(ch, 3);  // 6 > 4 descriptors
  rig.run();
  EXPECT_NE(find_error(rig, "ring of length 0"), nullptr) << rig.m->error_report();
  EXPECT_NE(find_error(rig, "tail beyond ring"), nullptr);
  // Enabled queue, engine never started: kept and flagged; starting the engine runs it.
  Rig late;
  const auto data = pattern(128);
  late.seed(0, 0, 0, data);
  Channel c2 = late.open(0, 1, 0, 4);
  late.bus(0).write32(late.map().engine_base(0, 1).value() + soc::m2s_engine::kChangeState, 2);
  late.bus(0).write32(
      late.map().engine_base(0, 1).value() + 0x20000 + soc::s2m_engine::kChangeState, 2);
  late.copy(c2, late.sbuf(0, 0, 0), late.sbuf(0, 5, 0), 128);
  late.start(c2, 1);
  late.run();
  EXPECT_NE(find_error(late, "not in NORMAL state"), nullptr) << late.m->error_report();
  EXPECT_EQ(late.m->pending_work().size(), 2U);
  ASSERT_TRUE(start_engine(late.bus(0), late.map(), 0, 1).ok());
  late.run();
  EXPECT_EQ(late.read(0, 5, 0, 128), data);
  EXPECT_TRUE(late.m->pending_work().empty());
}

TEST(MachineErrors, AColdEngineIsNotArmedUntilChangeStateNormal) {
  // [HIGH] wiki-facts §3.2: an engine out of reset runs nothing until change_state.normal is
  // written, even with its queues programmed and enabled (the driver's queue init alone).
  Rig rig;
  const auto data = pattern(128);
  rig.seed(0, 0, 0, data);
  const base::SocAddr dge = rig.map().dge_memory_base(0).value();
  Channel ch = rig.rings_at(0, 1, 0, dge + 0x20 * 0x10000, dge + 0x21 * 0x10000, 4);
  rig.copy(ch, rig.sbuf(0, 0, 0), rig.sbuf(0, 5, 0), 128);
  rig.start(ch, 1);
  rig.run();
  EXPECT_NE(find_error(rig, "not in NORMAL state"), nullptr) << rig.m->error_report();
  EXPECT_EQ(rig.read(0, 5, 0, 128), std::vector<std::uint8_t>(128, 0));
  EXPECT_EQ(rig.m->pending_work().size(), 2U);
  ASSERT_TRUE(start_engine(rig.bus(0), rig.map(), 0, 1).ok());
  rig.run();
  EXPECT_EQ(rig.read(0, 5, 0, 128), data);
  EXPECT_TRUE(rig.m->pending_work().empty());
}

TEST(MachineErrors, QueueResetClearsPointersAndAStop) {
  Rig rig;
  Channel ch = rig.open(0, 0, 0, 8);
  auto stale = soc::make_copy_descriptor(rig.sbuf(0, 0, 0), 64, 0).value();
  rig.bus(0).write_block(ch.m2s.base(), soc::encode_descriptor(stale));
  ch.s2m.push(rig.bus(0), soc::make_copy_descriptor(rig.sbuf(0, 1, 0), 64, 0).value());
  rig.start(ch, 1);
  rig.run();
  ASSERT_TRUE(rig.queue(ch, Direction::kM2S).stopped);
  const auto sw = rig.map().queue_reg_addr(0, 0, Direction::kM2S, 0, soc::m2s_q::kQSwCtrl).value();
  rig.bus(0).write32(sw, 1U << 8);  // rst_q
  rig.run();
  const QueueState q = rig.queue(ch, Direction::kM2S);
  EXPECT_FALSE(q.stopped);
  EXPECT_EQ(q.head, (RingPos{0, 1}));
  EXPECT_EQ(q.tail, (RingPos{0, 1}));
  EXPECT_EQ(q.posted, 0U);
}

TEST(MachineErrors, BroadcastWithEmptyGroupMask) {
  Rig rig;
  ASSERT_TRUE(ring_broadcast_doorbell(rig.bus(0), rig.map(), 0, Direction::kM2S, 0, 1).ok());
  rig.run();
  EXPECT_NE(find_error(rig, "empty group mask"), nullptr) << rig.m->error_report();
}

TEST(MachineErrors, AnS2mBufferShorterThanTheM2sDataIsRefusedAndNotOverrun) {
  // 256 bytes read into a 128-byte S2M buffer: a modelled error, and no byte past the buffer.
  Rig rig;
  Channel ch = rig.open(0, 0, 0, 8);
  rig.seed(0, 0, 0, std::vector<std::uint8_t>(256, 0xAB));
  ch.m2s.push(rig.bus(0), soc::make_copy_descriptor(rig.sbuf(0, 0, 0), 256, 0).value());
  ch.s2m.push(rig.bus(0), soc::make_copy_descriptor(rig.sbuf(1, 0, 0x1000), 128, 0).value());
  rig.start(ch, 1);
  rig.run();
  EXPECT_TRUE(rig.has_error("is smaller than the 256-byte M2S descriptor"))
      << rig.m->error_report();
  EXPECT_EQ(rig.read(1, 0, 0x1080, 128), std::vector<std::uint8_t>(128, 0));
}

}  // namespace
}  // namespace sbrdma::device
