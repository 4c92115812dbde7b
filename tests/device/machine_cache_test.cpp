// The engines remember the memory windows their ring slots, sources and destinations fell in,
// and their last route. Whatever they remember, a moved ring, a new region, another core or a
// range that leaves the window must give what a fresh decode gives.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "machine_rig.h"
#include "soc/address_map.h"

namespace sbrdma::device {
namespace {

using soc::Direction;
using testing::Channel;
using testing::pattern;
using testing::Rig;

TEST(MachineCache, ARingBaseRewrittenMidRunIsReadAtItsNewPlace) {
  Rig rig;
  const auto a = pattern(256, 3, 1);
  const auto b = pattern(256, 5, 2);
  const auto c = pattern(256, 9, 7);
  rig.seed(0, 0, 0, a);
  rig.seed(0, 3, 0, b);
  rig.seed(0, 6, 0, c);
  Channel ch = rig.open(0, 2, 1, 8);
  rig.copy(ch, rig.sbuf(0, 0, 0), rig.sbuf(0, 1, 0), 256);
  rig.start(ch, 1);
  rig.run();
  ASSERT_EQ(rig.read(0, 1, 0, 256), a);

  // The old rings' slot 0 now holds a pair that would write partition 5 if it were read.
  Channel old = ch;
  old.m2s = RingWriter(ch.m2s.base(), 8);
  old.s2m = RingWriter(ch.s2m.base(), 8);
  rig.copy(old, rig.sbuf(0, 0, 0), rig.sbuf(0, 5, 0), 256);

  // Moves the rings, copies partition `from` to `to` through them, checks the copy and that
  // the old ring's pair was not taken.
  auto through = [&](base::SocAddr m2s_ring, base::SocAddr s2m_ring, unsigned from, unsigned to,
                     const std::vector<std::uint8_t>& want) {
    Channel moved = rig.rings_at(0, 2, 1, m2s_ring, s2m_ring, 8);
    rig.copy(moved, rig.sbuf(0, from, 0), rig.sbuf(0, to, 0), 256);
    rig.start(moved, 1);
    rig.run();
    EXPECT_EQ(rig.read(0, to, 0, 256), want);
    EXPECT_EQ(rig.read(0, 5, 0, 256), std::vector<std::uint8_t>(256, 0));
  };
  // 1. New rings elsewhere in the same DGE memory (the same region as before).
  const base::SocAddr dge = rig.map().dge_memory_base(rig.tpb(0)).value();
  through(dge + 0x200000, dge + 0x210000, 3, 4, b);
  // 2. New rings in another region of the core: the scratch RAM.
  const base::SocAddr scratch =
      rig.map().tpb_base(rig.tpb(0)).value() + soc::cayman_map::kStateBufScratchRam;
  through(scratch + 0x1000, scratch + 0x2000, 6, 7, c);
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
  EXPECT_EQ(rig.m->stats().descriptors, 3U);
}

TEST(MachineCache, OneQueueReadsAndWritesAcrossCoresDiesAndChips) {
  Rig rig("trn2.48xlarge");
  const CoreId me = 1;              // chip 0, die 0
  const CoreId other_die = 6;       // chip 0, die 1
  const CoreId other_chip = 2 * 8;  // chip 2, die 0, TPB_0
  const auto mine = pattern(1000, 3, 1);
  const auto theirs = pattern(1000, 7, 5);
  const auto far = pattern(1000, 11, 9);
  rig.seed(me, 2, 0x100, mine);
  rig.seed(other_die, 2, 0x100, theirs);
  rig.seed(other_chip, 2, 0x100, far);
  Channel ch = rig.open(me, 5, 0, 16);
  // The same partition and offset on three cores: three windows at the same local offset.
  rig.copy(ch, rig.sbuf(me, 2, 0x100), rig.sbuf(me, 9, 0), 1000);
  rig.copy(ch, rig.routed(me, rig.sbuf(other_die, 2, 0x100), other_die), rig.sbuf(me, 10, 0), 1000);
  rig.copy(ch, rig.routed(me, rig.sbuf(other_chip, 2, 0x100), other_chip), rig.sbuf(me, 11, 0),
           1000);
  rig.copy(ch, rig.sbuf(me, 2, 0x100), rig.routed(me, rig.sbuf(other_chip, 12, 0), other_chip),
           1000);
  rig.copy(ch, rig.sbuf(me, 2, 0x100), rig.sbuf(me, 12, 0), 1000);
  rig.start(ch, 5);
  rig.run();
  EXPECT_EQ(rig.read(me, 9, 0, 1000), mine);
  EXPECT_EQ(rig.read(me, 10, 0, 1000), theirs);
  EXPECT_EQ(rig.read(me, 11, 0, 1000), far);
  EXPECT_EQ(rig.read(other_chip, 12, 0, 1000), mine);
  EXPECT_EQ(rig.read(me, 12, 0, 1000), mine);
  EXPECT_EQ(rig.read(other_die, 12, 0, 1000), std::vector<std::uint8_t>(1000, 0));
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
}

TEST(MachineCache, ARangeLeavingARememberedWindowIsStillRefused) {
  Rig rig;
  const std::uint64_t active = rig.m->profile().partition_active.n;
  rig.seed(0, 0, 0, pattern(512));
  Channel ch = rig.open(0, 0, 0, 8);
  // The first pair makes partition 0 and 1's region known; the second leaves the active bytes.
  rig.copy(ch, rig.sbuf(0, 0, 0), rig.sbuf(0, 1, 0), 512);
  rig.copy(ch, rig.sbuf(0, 0, active - 100), rig.sbuf(0, 1, 0x1000), 200);
  rig.start(ch, 2);
  rig.run();
  EXPECT_EQ(rig.read(0, 1, 0, 512), pattern(512));
  EXPECT_TRUE(rig.has_error("M2S source: SBUF access beyond the active part"))
      << rig.m->error_report();
  EXPECT_EQ(rig.m->stats().descriptors, 1U);
  EXPECT_TRUE(rig.queue(ch, Direction::kM2S).stopped);
}

TEST(MachineCache, SemaphoreWindowsResolveAsAFreshDecodeWould) {
  // An engine remembers the EVT_SEM window it wrote last; hits, other windows, and a range
  // that runs past the window's end must give what the decode gives.
  Rig rig;
  rig.one_word(0);
  const auto set5 = rig.map().sem_window_addr(rig.tpb(0), soc::SemWindow::kSet, 5).value();
  const unsigned last = rig.m->profile().semaphores - 1;
  Channel ch = rig.open(0, 3, 0, 16);
  rig.sema(ch, rig.sem_inc(0, 2));
  rig.sema(ch, rig.sem_inc(0, 7));  // the same window: remembered
  ch.m2s.push(rig.bus(0), soc::make_copy_descriptor(rig.one_addr(0), 4, 0).value());
  ch.s2m.push(rig.bus(0), soc::make_copy_descriptor(set5, 4, 0).value());  // another window
  rig.sema(ch, rig.sem_inc(0, last));  // back to INC, its last slot
  // Two slots from the last one: the second is past the window (an error, as decoded).
  ch.m2s.push(rig.bus(0), soc::make_copy_descriptor(rig.one_addr(0), 8, 0).value());
  ch.s2m.push(rig.bus(0), soc::make_copy_descriptor(rig.sem_inc(0, last), 8, 0).value());
  rig.start(ch, 5);
  rig.run();
  EXPECT_EQ(rig.m->semaphore(0, 2), 1U);
  EXPECT_EQ(rig.m->semaphore(0, 7), 1U);
  EXPECT_EQ(rig.m->semaphore(0, 5), 1U);  // SET 5 to the source word, 1
  EXPECT_EQ(rig.m->semaphore(0, last), 1U);
  EXPECT_EQ(rig.m->stats().semaphore_writes, 4U);
  ASSERT_EQ(rig.m->errors().size(), 1U) << rig.m->error_report();
  EXPECT_NE(rig.m->errors()[0].message.find("whole aligned 4-byte slots inside the window"),
            std::string::npos)
      << rig.m->error_report();
}

TEST(MachineCache, SemaphoreWindowsOfTwoCoresInTurnLandEachOnItsOwnCore) {
  // An engine remembers two EVT_SEM windows (a leg ends with a write to its own core and one
  // to the peer's). Windows at the same local offset on three cores, in turn and with a
  // third one between them: every write must land where the decode puts it.
  Rig rig("trn2.48xlarge");
  const CoreId me = 1;       // chip 0, die 0
  const CoreId peer = 6;     // chip 0, die 1
  const CoreId far = 2 * 8;  // chip 2
  rig.one_word(me);
  Channel ch = rig.open(me, 3, 0, 32);
  const auto at = [&](CoreId c, unsigned slot) {
    return c == me ? rig.sem_inc(me, slot) : rig.routed(me, rig.sem_inc(c, slot), c);
  };
  const std::vector<std::pair<CoreId, unsigned>> writes{
      {me, 2}, {peer, 2}, {me, 3}, {peer, 3}, {far, 2}, {me, 4}, {peer, 4}, {far, 3}, {peer, 5},
  };
  for (const auto& [c, slot] : writes) rig.sema(ch, at(c, slot));
  rig.start(ch, static_cast<std::uint32_t>(writes.size()));
  rig.run();
  EXPECT_TRUE(rig.m->errors().empty()) << rig.m->error_report();
  for (const CoreId c : {me, peer, far}) {
    for (unsigned slot = 0; slot < 8; ++slot) {
      unsigned want = 0;
      for (const auto& w : writes) want += w == std::pair{c, slot} ? 1U : 0U;
      EXPECT_EQ(rig.m->semaphore(c, slot), want) << "core " << c << " slot " << slot;
    }
  }
  EXPECT_EQ(rig.m->stats().semaphore_writes, writes.size());
}

TEST(MachineCache, BusWritesResolveAsAFreshDecodeWould) {
  // A core's bus remembers the plain memory window and the exact register addresses it wrote
  // lately. Each step runs on a rig whose bus has seen every step before it, and on a fresh
  // rig: the errors it adds must read the same, and what it wrote must be where a decode puts it.
  const CoreId me = 1;         // trn2.48xlarge: chip 0, die 0
  const CoreId other_die = 6;  // chip 0, die 1
  Rig warm("trn2.48xlarge");
  const soc::AddressMap& map = warm.map();
  const base::SocAddr dge = map.dge_memory_base(warm.tpb(me)).value();
  const base::SocAddr far_dge =
      warm.routed(me, map.dge_memory_base(warm.tpb(other_die)).value(), other_die);
  const base::SocAddr evt = map.tpb_base(warm.tpb(me)).value() + soc::cayman_map::kEvtSem;
  const auto q_reg = [&](unsigned q) {
    return map.queue_reg_addr(warm.tpb(me), 2, Direction::kM2S, q, soc::m2s_q::kTdrbpLow).value();
  };
  const base::SocAddr gen_block = map.engine_base(warm.tpb(me), 2).value() + soc::udma::kGenBlock;
  const auto a = pattern(16, 3, 1);
  const auto b = pattern(16, 5, 2);
  const auto c = pattern(16, 9, 7);
  using Step = std::function<void(Rig&)>;
  const std::vector<Step> steps{
      [&](Rig& r) { r.bus(me).write_block(dge + 0x1000, a); },  // remembers DGE memory
      [&](Rig& r) { r.bus(me).write_block(dge + 0x2008, b); },  // inside it
      [&](Rig& r) { r.bus(me).write_block(dge + (soc::cayman_map::kDgeMemorySize - 8), c); },
      [&](Rig& r) { r.bus(me).write_block(dge + soc::cayman_map::kDgeMemorySize, c); },
      [&](Rig& r) { r.bus(me).write_block(base::SocAddr{dge.v - 4}, c); },  // below it
      [&](Rig& r) { r.bus(me).write_block(far_dge + 0x3000, c); },          // the other die's
      [&](Rig& r) { r.bus(me).write_block(dge + 0x4000, b); },              // back again
      [&](Rig& r) { r.bus(me).write32(warm.sem_inc(me, 3), 1); },
      [&](Rig& r) { r.bus(me).write32(warm.sem_inc(me, 3), 1); },  // the same address
      [&](Rig& r) { r.bus(me).write32(warm.sem_inc(me, 4), 1); },  // its neighbour
      [&](Rig& r) { r.bus(me).write32(evt + 0x3000, 1); },         // no window there
      [&](Rig& r) { r.bus(me).write32(evt + 0x3000, 1); },
      [&](Rig& r) { r.bus(me).write32(q_reg(0), 0x1240); },
      [&](Rig& r) { r.bus(me).write32(q_reg(1), 0x2480); },
      [&](Rig& r) { r.bus(me).write32(q_reg(0) + 0x10000000, 5); },  // decodes to nothing
      [&](Rig& r) { EXPECT_EQ(r.bus(me).read32(dge + 0x2008), 0x110c0702U); },
      [&](Rig& r) { EXPECT_EQ(r.bus(me).read32(q_reg(1)), 0x2480U); },
      [&](Rig& r) { EXPECT_EQ(r.bus(me).read32(gen_block), 0U); },  // not modelled
      [&](Rig& r) { EXPECT_EQ(r.bus(me).read32(gen_block), 0U); },
  };
  const std::map<std::size_t, std::size_t> needs{{15, 1}, {16, 13}};
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::size_t before = warm.m->errors().size();
    steps[i](warm);
    warm.run();
    Rig fresh("trn2.48xlarge");
    if (auto n = needs.find(i); n != needs.end()) {  // what a read reads, landed first
      steps[n->second](fresh);
      fresh.run();
    }
    steps[i](fresh);
    fresh.run();
    std::vector<std::string> got;
    std::vector<std::string> want;
    for (std::size_t k = before; k < warm.m->errors().size(); ++k) {
      got.push_back(warm.m->errors()[k].message);
    }
    for (const ModelledError& e : fresh.m->errors()) want.push_back(e.message);
    EXPECT_EQ(got, want) << "step " << i;
  }
  EXPECT_EQ(warm.m->errors().size(), 8U) << warm.m->error_report();
  const auto mem = [&](base::SocAddr at) {
    std::vector<std::uint8_t> v(16);
    EXPECT_TRUE(warm.m->mem_read(me, at, v).ok());
    return v;
  };
  EXPECT_EQ(mem(dge + 0x1000), a);
  EXPECT_EQ(mem(dge + 0x2008), b);
  EXPECT_EQ(mem(dge + 0x4000), b);
  EXPECT_EQ(mem(far_dge + 0x3000), c);
  EXPECT_EQ(warm.m->semaphore(me, 3), 2U);
  EXPECT_EQ(warm.m->semaphore(me, 4), 1U);
  EXPECT_EQ(warm.m->peek_reg(me, 2, Direction::kM2S, 0, soc::m2s_q::kTdrbpLow).value(), 0x1240U);
  EXPECT_EQ(warm.m->stats().mmio_writes, 15U);
}

}  // namespace
}  // namespace sbrdma::device
