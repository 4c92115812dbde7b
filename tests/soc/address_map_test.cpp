#include "soc/address_map.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <utility>

namespace sbrdma::soc {
namespace {

using base::SocAddr;

const AddressMap& cayman() {
  static const AddressMap m = AddressMap::build(cayman_profile()).value();
  return m;
}

TEST(AddressMap, TpbBases) {
  // [HIGH] wiki-facts §4.2
  constexpr std::array<std::uint64_t, 8> kWant{0x2000000000,   0x3000000000,   0x6000000000,
                                               0x7000000000,   0x802000000000, 0x803000000000,
                                               0x806000000000, 0x807000000000};
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(cayman().tpb_base(c)->v, kWant[c]) << c;
    EXPECT_EQ(*cayman().die_of(c), c / 4);
  }
  EXPECT_FALSE(cayman().tpb_base(8).ok());
}

/// The region called `name`, or nullptr.
const Region* region_named(std::string_view name) {
  for (const Region& r : cayman().regions().regions()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

TEST(AddressMap, TpbWindowOffsetsAndSizes) {
  // [HIGH] wiki-facts §4.2, "Within TPB_0": absolute bases on TPB_0 and sizes, as printed there;
  // the per-tile structure is identical, so TPB_5 (die 1) has them at its own base.
  struct Want {
    std::string_view name;
    std::uint64_t tpb0_base;
    std::uint64_t size;
  };
  constexpr std::array<Want, 7> kWant{{
      {"STATE_BUF", 0x2000000000, 32ULL << 20},              // 32 MiB (also §8 STATE_BUF_SZ)
      {"STATE_BUF_SCRATCH_RAM", 0x2004000000, 32ULL << 20},  // 32 MiB
      {"DGE_MEMORY", 0x2040000000, 1ULL << 30},              // 1 GiB
      {"TPB_RESERVED_SBUF", 0x2800000000, 32ULL << 20},      // 32 MiB
      {"PSUM_BUF", 0x2802000000, 4ULL << 20},                // 4 MiB
      {"POOL_Q7_CORE0_IRAM", 0x2803100000, 128ULL << 10},    // 128 KiB
      {"POOL_Q7_CORE0_DRAM", 0x2803180000, 256ULL << 10},    // 256 KiB
  }};
  for (const Want& w : kWant) {
    for (const auto& [core, tpb] :
         {std::pair{0U, 0x2000000000ULL}, std::pair{5U, 0x803000000000ULL}}) {
      const std::string name = "TPB_" + std::to_string(core) + "." + std::string(w.name);
      const Region* r = region_named(name);
      ASSERT_NE(r, nullptr) << name;
      EXPECT_EQ(r->base.v, w.tpb0_base - 0x2000000000 + tpb) << name;
      EXPECT_EQ(r->size, w.size) << name;
    }
  }
  // POOL_Q7_CORE{n}: 1 MiB pitch, IRAM 128 KiB and DRAM 256 KiB for every n.
  for (unsigned n = 0; n < 8; ++n) {
    const std::string q7 = "TPB_0.POOL_Q7_CORE" + std::to_string(n);
    const Region* iram = region_named(q7 + "_IRAM");
    const Region* dram = region_named(q7 + "_DRAM");
    ASSERT_TRUE(iram != nullptr && dram != nullptr) << q7;
    EXPECT_EQ(iram->base.v, 0x2803100000 + n * 0x100000ULL) << q7;
    EXPECT_EQ(dram->base.v, 0x2803180000 + n * 0x100000ULL) << q7;
    EXPECT_EQ(iram->size, 128U << 10) << q7;
    EXPECT_EQ(dram->size, 256U << 10) << q7;
  }
  // The layout constants themselves, as offsets from TPB_n base.
  EXPECT_EQ(cayman_map::kStateBufScratchRam, 0x4000000U);
  EXPECT_EQ(cayman_map::kTpbReservedSbuf, 0x800000000U);
  EXPECT_EQ(cayman_map::kPsumBuf, 0x802000000U);
  EXPECT_EQ(cayman_map::kQ7Iram, 0x803100000U);
  EXPECT_EQ(cayman_map::kQ7Dram, 0x803180000U);
  EXPECT_EQ(cayman_map::kQ7Pitch, 0x100000U);
  EXPECT_EQ(cayman_map::kTpbRegionSize, 0x804000000U);
}

TEST(AddressMap, NoTwoRegionsOverlap) {
  auto regions = cayman().regions().regions();
  ASSERT_GT(regions.size(), 8U * 22U);
  for (std::size_t i = 1; i < regions.size(); ++i) {
    EXPECT_LE(regions[i - 1].end(), regions[i].base.v)
        << regions[i - 1].name << " / " << regions[i].name;
  }
}

TEST(AddressMap, EveryRegionDecodesBackToItsCore) {
  const AddressMap& m = cayman();
  for (const Region& r : m.regions().regions()) {
    for (SocAddr a : {r.base, SocAddr{r.end() - 1}}) {
      auto h = m.lookup(a);
      ASSERT_TRUE(h.has_value()) << r.name;
      EXPECT_EQ(h->region, &r);
      EXPECT_EQ(h->region->core, r.core);
      EXPECT_EQ(h->offset, a.v - r.base.v);
    }
    if (r.kind == RegionKind::kTopSp) {  // chip-level: the die bit alone places it
      EXPECT_EQ(r.core, -1) << r.name;
      EXPECT_EQ(r.die, (r.base.v >> 47) & 1U) << r.name;
    } else {
      ASSERT_GE(r.core, 0) << r.name;
      EXPECT_EQ(r.die, *m.die_of(static_cast<unsigned>(r.core))) << r.name;
    }
    // From another chip, folded by the chip-id route, the same region is hit on chip 5.
    const ChipDie issuer{2, 0};
    auto folded = fold_route(LocalAddr{r.base}.local(), issuer, ChipDie{5, r.die});
    ASSERT_TRUE(folded.ok());
    auto d = m.decode(*folded, issuer);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->target.chip, 5U);
    ASSERT_TRUE(d->hit.has_value());
    EXPECT_EQ(d->hit->region, &r);
  }
}

TEST(AddressMap, RegionsPerCore) {
  std::array<int, 8> tpb{};
  std::array<int, 8> sdma{};
  for (const Region& r : cayman().regions().regions()) {
    if (r.core < 0) continue;  // TOP_SP: the chip's, below
    auto& n = r.name.starts_with("TPB_") ? tpb : sdma;
    ++n[static_cast<std::size_t>(r.core)];
  }
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(tpb[c], 6 + 2 * 8);    // 6 regions + IRAM/DRAM per Q7 core
    EXPECT_EQ(sdma[c], 16 * 5 + 4);  // 5 blocks per channel + one BCAST_UDMA (4 blocks)
  }
}

TEST(AddressMap, SemaphoreWindows) {
  const AddressMap& m = cayman();
  EXPECT_EQ(m.sem_window_addr(0, SemWindow::kInc, 0)->v, 0x2802701800U);  // [HIGH] §5
  // Events at EVT_SEM + 0x0, 4 bytes each (wiki-facts §5, udma-facts §4.4): TPB_0's EVT_SEM
  // 0x2802700000 (wiki-facts §4.2) + 5 * 4.
  EXPECT_EQ(m.sem_window_addr(0, SemWindow::kEvents, 5)->v, 0x2802700014U);
  EXPECT_EQ(m.sem_window_addr(4, SemWindow::kRead, 3)->v, 0x802802701000U + 12);
  EXPECT_FALSE(m.sem_window_addr(0, SemWindow::kInc, 256).ok());
  for (SemWindow w :
       {SemWindow::kEvents, SemWindow::kRead, SemWindow::kSet, SemWindow::kInc, SemWindow::kDec}) {
    for (unsigned idx : {0U, 17U, 255U}) {
      for (unsigned core : {1U, 6U}) {
        auto a = m.sem_window_addr(core, w, idx);
        ASSERT_TRUE(a.ok());
        auto h = m.lookup(*a);
        ASSERT_TRUE(h && h->sem);
        EXPECT_EQ(h->region->core, static_cast<int>(core));
        EXPECT_EQ(h->sem->window, w);
        EXPECT_EQ(h->sem->index, idx);
      }
    }
  }
  auto gap = m.lookup(SocAddr{0x2802700400});  // between events and READ
  ASSERT_TRUE(gap.has_value());
  EXPECT_EQ(gap->region->kind, RegionKind::kEvtSem);
  EXPECT_FALSE(gap->sem.has_value());
}

TEST(AddressMap, SbufAddresses) {
  const AddressMap& m = cayman();
  EXPECT_EQ(m.sbuf_addr(5, 3, 0x10)->v, 0x803000000000U + 3 * 0x40000 + 0x10);
  EXPECT_EQ(m.sbuf_addr(0, 127, 224 * 1024 - 1)->v, 0x2000000000U + 127 * 0x40000 + 0x37FFF);
  EXPECT_FALSE(m.sbuf_addr(0, 128, 0).ok());
  EXPECT_FALSE(m.sbuf_addr(0, 0, 224 * 1024).ok());  // beyond the active bytes
  auto h = m.lookup(*m.sbuf_addr(5, 3, 0x10));
  ASSERT_TRUE(h && h->sbuf);
  EXPECT_EQ(h->sbuf->partition, 3U);
  EXPECT_EQ(h->sbuf->byte, 0x10U);
  EXPECT_TRUE(h->sbuf->active);
  auto idle = m.lookup(SocAddr{0x2000000000 + 0x40000 + 224 * 1024});
  ASSERT_TRUE(idle && idle->sbuf);
  EXPECT_FALSE(idle->sbuf->active);
  EXPECT_EQ(m.dge_memory_base(0)->v, 0x2040000000U);
  EXPECT_EQ(m.dge_memory_base(7)->v, 0x807040000000U);
}

TEST(AddressMap, EnginesOfEachCore) {
  const AddressMap& m = cayman();
  // [HIGH] wiki-facts §3.1 worked example: SE_0 channel 5, M2S queue 5 TDRTP_inc.
  EXPECT_EQ(m.engine_base(0, 5)->v, 0x1002500000U);
  EXPECT_EQ(m.queue_reg_addr(0, 5, Direction::kM2S, 5, m2s_q::kTdrtpInc)->v, 0x1002506038U);
  EXPECT_EQ(m.queue_reg_addr(0, 0, Direction::kS2M, 0, s2m_q::kRdrtpInc)->v, 0x1002021038U);
  // [CHOICE D18] core i on a die: cluster i/2, channels (i%2)*16..
  EXPECT_EQ(m.engine_base(1, 0)->v, 0x1003000000U);                       // SE_0 SDMA_16
  EXPECT_EQ(m.engine_base(2, 0)->v, 0x5004000000U);                       // SE_1 SDMA_0
  EXPECT_EQ(m.engine_base(7, 15)->v, 0x805004000000ULL + 31 * 0x100000);  // SE_3 SDMA_31
  std::set<std::uint64_t> seen;
  for (unsigned c = 0; c < 8; ++c) {
    for (unsigned e = 0; e < 16; ++e) {
      auto loc = m.engine_loc(c, e);
      ASSERT_TRUE(loc.ok());
      EXPECT_EQ(loc->cluster / 2, c / 4);  // engines live on their core's die
      seen.insert(m.engine_base(c, e)->v);
      auto h = m.lookup(*m.queue_reg_addr(c, e, Direction::kS2M, 15, s2m_q::kRdrtpInc));
      ASSERT_TRUE(h && h->udma);
      EXPECT_EQ(h->region->core, static_cast<int>(c));
      EXPECT_EQ(h->region->engine, static_cast<int>(e));
      EXPECT_EQ(h->udma->dir, Direction::kS2M);
      EXPECT_EQ(h->udma->queue, 15U);
      ASSERT_NE(h->udma->reg, nullptr);
      EXPECT_EQ(h->udma->reg->name, "RDRTP_inc");
    }
  }
  EXPECT_EQ(seen.size(), 128U);
  EXPECT_FALSE(m.engine_base(0, 16).ok());
  EXPECT_FALSE(m.queue_reg_addr(0, 0, Direction::kM2S, 16, 0x38).ok());
  EXPECT_FALSE(m.queue_reg_addr(0, 0, Direction::kM2S, 0, 0x1000).ok());
  EXPECT_FALSE(m.queue_reg_addr(0, 0, Direction::kM2S, 0, 0x3A).ok());
}

TEST(AddressMap, EngineGlobalRegisters) {
  auto h = cayman().lookup(SocAddr{0x1002500000 + 0x20000 + 0x20C});
  ASSERT_TRUE(h && h->udma);
  EXPECT_FALSE(h->udma->queue.has_value());
  ASSERT_NE(h->udma->reg, nullptr);
  EXPECT_EQ(h->udma->reg->name, "err_log_mask");
  auto gen = cayman().lookup(SocAddr{0x1002500000 + 0x38000});
  ASSERT_TRUE(gen.has_value());
  EXPECT_EQ(gen->region->name, "SE_0.SDMA_5.UDMA_GEN");
  EXPECT_FALSE(gen->udma.has_value());
}

// [HIGH] wiki-facts §3.1: a channel's blocks, each at its offset and no larger than its size
// (S2M 0x18000, GEN and GEN_EX 0x4000 each), and the BCAST_UDMA GEN/GEN_EX mirror on SDMA_0.
TEST(AddressMap, ChannelBlocksSitAtTheirOffsets) {
  const AddressMap& m = cayman();
  struct Case {
    std::uint64_t addr;
    std::string_view region;
    std::uint64_t offset;
  };
  constexpr std::uint64_t kSdma5 = 0x1002500000;
  constexpr std::uint64_t kSdma0 = 0x1002000000;
  const Case cases[] = {
      {kSdma5 + 0x1FFFC, "SE_0.SDMA_5.UDMA_M2S", 0x1FFFC},
      {kSdma5 + 0x20000, "SE_0.SDMA_5.UDMA_S2M", 0},
      {kSdma5 + 0x37FFC, "SE_0.SDMA_5.UDMA_S2M", 0x17FFC},
      {kSdma5 + 0x38000, "SE_0.SDMA_5.UDMA_GEN", 0},
      {kSdma5 + 0x3BFFC, "SE_0.SDMA_5.UDMA_GEN", 0x3FFC},
      {kSdma5 + 0x3C000, "SE_0.SDMA_5.UDMA_GEN_EX", 0},
      {kSdma5 + 0x3FFFC, "SE_0.SDMA_5.UDMA_GEN_EX", 0x3FFC},
      {kSdma0 + 0xB8000, "SE_0.SDMA_0.BCAST_UDMA_GEN", 0},
      {kSdma0 + 0xBC000, "SE_0.SDMA_0.BCAST_UDMA_GEN_EX", 0},
  };
  for (const Case& c : cases) {
    auto h = m.lookup(SocAddr{c.addr});
    ASSERT_TRUE(h.has_value()) << std::hex << c.addr;
    EXPECT_EQ(h->region->name, c.region) << std::hex << c.addr;
    EXPECT_EQ(c.addr - h->region->base.v, c.offset) << std::hex << c.addr;
  }
}

TEST(AddressMap, EngineGlobalAndMiscRegisterAddresses) {
  const AddressMap& m = cayman();
  // SE_0 SDMA_5: the channel base, +0x20000 for S2M, +0x40000 for MISC. [HIGH] wiki-facts §3.1
  EXPECT_EQ(m.engine_reg_addr(0, 5, Direction::kM2S, m2s_engine::kChangeState)->v, 0x1002500204U);
  EXPECT_EQ(m.engine_reg_addr(0, 5, Direction::kS2M, s2m_engine::kPrefQueueEn)->v, 0x1002520254U);
  EXPECT_EQ(m.misc_reg_addr(0, 5, misc::kBroadcastCfgGroup)->v, 0x1002540100U);
  auto h = m.lookup(*m.engine_reg_addr(0, 5, Direction::kS2M, s2m_engine::kErrLogMask));
  ASSERT_TRUE(h && h->udma && h->udma->reg != nullptr);
  EXPECT_EQ(h->udma->reg->name, "err_log_mask");
  EXPECT_FALSE(m.engine_reg_addr(0, 16, Direction::kM2S, 0x204).ok());
  EXPECT_FALSE(m.engine_reg_addr(0, 0, Direction::kM2S, 0x1000).ok());  // a queue's bank
  EXPECT_FALSE(m.engine_reg_addr(0, 0, Direction::kM2S, 0x206).ok());
  EXPECT_FALSE(m.misc_reg_addr(0, 0, 0x1000).ok());
}

TEST(AddressMap, BroadcastApertures) {
  const AddressMap& m = cayman();
  // [HIGH] wiki-facts §3.6 cayman_bcast_region_table + (S2M ? 0x20000 : 0) + (q+1)<<12 + reg
  EXPECT_EQ(m.bcast_addr(0, Direction::kM2S, 0, m2s_q::kTdrtpInc)->v, 0x1002081038U);
  EXPECT_EQ(m.bcast_addr(1, Direction::kM2S, 0, m2s_q::kTdrtpInc)->v, 0x1003081038U);
  EXPECT_EQ(m.bcast_addr(2, Direction::kS2M, 3, s2m_q::kRdrtpInc)->v, 0x50040A4038U);
  EXPECT_EQ(m.bcast_addr(3, Direction::kM2S, 0, m2s_q::kQSwCtrl)->v, 0x50050810B0U);
  EXPECT_EQ(m.bcast_addr(4, Direction::kM2S, 0, m2s_q::kTdrdtpInc)->v, 0x8010020810E0U);
  EXPECT_FALSE(m.bcast_addr(0, Direction::kM2S, 0, m2s_q::kTdrbpLow).ok());  // never broadcast
  auto h = m.lookup(*m.bcast_addr(2, Direction::kS2M, 3, s2m_q::kRdrtpInc));
  ASSERT_TRUE(h && h->udma);
  EXPECT_TRUE(h->udma->broadcast);
  EXPECT_EQ(h->udma->queue, 3U);
  EXPECT_EQ(h->region->core, 2);
  EXPECT_EQ(h->region->engine, -1);
  // Channel 1 has no BCAST_UDMA: its +0x80000 hits nothing.
  EXPECT_FALSE(m.lookup(SocAddr{0x1002100000 + 0x81038}).has_value());
}

// TOP_SP: 10 windows of 4 MiB per die from 0x8280000000, stride 0x40000000, die 1 at |bit47;
// semaphore windows at +0x1000..+0x1C00 and LOCAL_REG doorbells. [HIGH] wiki-facts §4.2
TEST(AddressMap, TopSpWindows) {
  const AddressMap& m = cayman();
  std::vector<const Region*> sps;
  for (const Region& r : m.regions().regions()) {
    if (r.kind == RegionKind::kTopSp) sps.push_back(&r);
  }
  ASSERT_EQ(sps.size(), 20U);
  auto at = [&](std::uint64_t a) { return m.lookup(SocAddr{a}); };
  auto h = at(0x8280000000);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->region->name, "TOP_SP_0");
  EXPECT_EQ(h->region->size, 4U << 20);
  EXPECT_EQ(h->region->core, -1);
  EXPECT_EQ(at(0x8280000000 + 9 * 0x40000000ULL)->region->name, "TOP_SP_9");
  EXPECT_EQ(at(0x808280000000)->region->name, "TOP_SP_10");
  EXPECT_EQ(at(0x808280000000)->region->die, 1U);
  EXPECT_FALSE(at(0x8280000000 + 0x400000).has_value());            // past 4 MiB
  EXPECT_FALSE(at(0x8280000000 + 10 * 0x40000000ULL).has_value());  // no 11th on a die
  auto sem = at(0x8280000000 + 0x1800 + 3 * 4);
  ASSERT_TRUE(sem && sem->sem);
  EXPECT_EQ(sem->sem->window, SemWindow::kInc);
  EXPECT_EQ(sem->sem->index, 3U);
  EXPECT_FALSE(at(0x8280000000 + 0x4)->sem.has_value());  // no events window recorded there
  const Profile& c = cayman_profile();
  EXPECT_EQ(top_sp_local_reg(0x615a0, c), "host_trigger START");
  EXPECT_EQ(top_sp_local_reg(0x615e0, c), "basic_block_switch");
  EXPECT_EQ(top_sp_local_reg(0x61540, c), "INIT");
  EXPECT_EQ(top_sp_local_reg(0x61560, c), "TSYNC");
  EXPECT_EQ(top_sp_local_reg(0x615c0, c), "STOP");
  EXPECT_TRUE(top_sp_local_reg(0x61544, c).empty());
  EXPECT_TRUE(top_sp_local_reg(0x60848, c).empty());
  // SUNDA's START is at 0x60848; its other doorbells are not in the record.
  const Profile& s = *find_profile("sunda").value();
  EXPECT_EQ(top_sp_local_reg(0x60848, s), "host_trigger START");
  EXPECT_TRUE(top_sp_local_reg(0x615a0, s).empty());
  EXPECT_TRUE(top_sp_local_reg(0x61540, s).empty());
}

TEST(AddressMap, HitsNothing) {
  const AddressMap& m = cayman();
  EXPECT_FALSE(m.lookup(SocAddr{0}).has_value());
  EXPECT_FALSE(m.lookup(SocAddr{0x2000000000 + 0x804000000}).has_value());
  auto d = m.decode(SocAddr{0x58800000100000}, ChipDie{0, 0});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->target.route, Route::kNeighbor);
  EXPECT_FALSE(d->hit.has_value());
  EXPECT_FALSE(m.decode(SocAddr{1ULL << 60}, ChipDie{0, 0}).ok());
}

TEST(AddressMap, OtherProfiles) {
  auto sunda = AddressMap::build(*find_profile("sunda").value());
  ASSERT_TRUE(sunda.ok()) << sunda.error().format();
  EXPECT_EQ(sunda->tpb_base(1)->v, 0x3000000000U);
  EXPECT_FALSE(sunda->tpb_base(2).ok());
  EXPECT_EQ(sunda->engine_base(1, 0)->v, 0x1003000000U);
  auto idle = sunda->lookup(*sunda->sbuf_addr(0, 1, 0) + 192 * 1024);  // 192 KiB active
  ASSERT_TRUE(idle && idle->sbuf);
  EXPECT_FALSE(idle->sbuf->active);
  auto mariana = AddressMap::build(*find_profile("mariana").value());
  ASSERT_TRUE(mariana.ok());
  EXPECT_EQ(mariana->regions().regions().size(), cayman().regions().regions().size());
  auto maverick = AddressMap::build(*find_profile("maverick").value());
  ASSERT_FALSE(maverick.ok());
  EXPECT_NE(maverick.error().message.find("no public SoC address map"), std::string::npos);
}

TEST(AddressMap, SemaphoreTargetOfDescriptor) {
  const AddressMap& m = cayman();
  const ChipDie issuer{1, 0};
  // REMOTE semaphore descriptor to core 6 (die 1) of chip 9, semaphore 42.
  auto inc = m.sem_window_addr(6, SemWindow::kInc, 42);
  auto routed = fold_route(LocalAddr{*inc}.local(), issuer, ChipDie{9, 1});
  ASSERT_TRUE(routed.ok());
  auto d = make_sema_inc_descriptor(*routed, 1);
  ASSERT_TRUE(d.ok());
  auto t = semaphore_target(*d, m, issuer);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->chip, 9U);
  EXPECT_EQ(t->core, 6U);
  EXPECT_EQ(t->sem.window, SemWindow::kInc);
  EXPECT_EQ(t->sem.index, 42U);
  auto data = make_copy_descriptor(*m.sbuf_addr(0, 0, 0), 4, 1);
  EXPECT_FALSE(semaphore_target(*data, m, issuer).has_value());
  // An EVT_SEM window of no core (a chip-wide region): no semaphore target.
  auto chipwide = make_sema_inc_descriptor(base::SocAddr{0x8280000000 + 0x1800 + 3 * 4}, 1);
  ASSERT_TRUE(chipwide.ok());
  EXPECT_FALSE(semaphore_target(*chipwide, m, ChipDie{0, 0}).has_value());
}

TEST(AddressMap, PastTheQueueBanksIsNoQueue) {
  const AddressMap& m = cayman();
  auto h = m.lookup(base::SocAddr{0x1002511000});  // SE_0.SDMA_5.UDMA_M2S +0x11000
  ASSERT_TRUE(h && h->udma);
  EXPECT_FALSE(h->udma->queue.has_value());
  EXPECT_EQ(h->udma->reg, nullptr);
  auto last = m.lookup(base::SocAddr{0x1002510ffc});
  ASSERT_TRUE(last && last->udma);
  EXPECT_EQ(last->udma->queue, 15U);
}

}  // namespace
}  // namespace sbrdma::soc
