#include "soc/udma_regs.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace sbrdma::soc {
namespace {

const RegBank* kBanks[] = {&m2s_engine_bank(), &m2s_queue_bank(), &s2m_engine_bank(),
                           &s2m_queue_bank(), &misc_bank()};

TEST(RegTables, OffsetsUniqueAlignedInsideBank) {
  for (const RegBank* bank : kBanks) {
    std::set<std::uint32_t> offsets;
    std::set<std::string_view> names;
    ASSERT_FALSE(bank->regs.empty()) << bank->name;
    for (const RegDesc& r : bank->regs) {
      EXPECT_EQ(r.offset % 4, 0U) << bank->name << "." << r.name;
      EXPECT_LT(r.offset, bank->size) << bank->name << "." << r.name;
      EXPECT_TRUE(offsets.insert(r.offset).second) << bank->name << "." << r.name;
      EXPECT_TRUE(names.insert(r.name).second) << bank->name << "." << r.name;
    }
  }
}

TEST(RegTables, FieldsDisjointAndResetsConsistent) {
  for (const RegBank* bank : kBanks) {
    for (const RegDesc& r : bank->regs) {
      std::uint64_t seen = 0;
      std::uint64_t reset = 0;
      for (const RegField& f : r.fields) {
        EXPECT_LE(f.bits.msb, 31U) << r.name << "." << f.name;
        EXPECT_EQ(seen & f.bits.mask(), 0U) << r.name << "." << f.name;
        seen |= f.bits.mask();
        reset |= std::uint64_t{f.reset} << f.bits.lsb;
      }
      if (!r.fields.empty()) {
        EXPECT_EQ(reset, r.reset) << bank->name << "." << r.name;
      }
    }
  }
}

TEST(RegTables, DoorbellsAndCommands) {
  const RegDesc* tdrtp = find_reg(m2s_queue_regs(), "TDRTP_inc");
  ASSERT_NE(tdrtp, nullptr);
  EXPECT_EQ(tdrtp->offset, 0x38U);
  EXPECT_EQ(tdrtp->access, Access::kRW);  // Cayman JSON
  EXPECT_NE(tdrtp->flags & reg_flag::kDoorbell, 0U);
  EXPECT_NE(tdrtp->flags & reg_flag::kBroadcast, 0U);
  EXPECT_EQ(find_field(*tdrtp, "val")->bits.mask(), 0xFFFFFFU);
  const RegDesc* rdrtp = find_reg(s2m_queue_regs(), 0x38U);
  ASSERT_NE(rdrtp, nullptr);
  EXPECT_EQ(rdrtp->name, "RDRTP_inc");
  EXPECT_EQ(rdrtp->access, Access::kWO);
  EXPECT_NE(rdrtp->flags & reg_flag::kDoorbell, 0U);
  // q_sw_ctrl sits at different offsets per direction. [DRV] udma-facts §2.1
  EXPECT_EQ(find_reg(m2s_queue_regs(), "q_sw_ctrl")->offset, 0xB0U);
  EXPECT_EQ(find_reg(s2m_queue_regs(), "q_sw_ctrl")->offset, 0x64U);
  EXPECT_EQ(find_reg(m2s_queue_regs(), "TDRBP_low")->flags & reg_flag::kBroadcast, 0U);
  std::set<std::uint32_t> bcast;
  for (const RegDesc& r : m2s_queue_regs()) {
    if ((r.flags & reg_flag::kBroadcast) != 0) bcast.insert(r.offset);
  }
  EXPECT_EQ(bcast, (std::set<std::uint32_t>{0x38, 0xB0, 0xE0}));  // [HIGH] wiki-facts §3.6
}

TEST(RegTables, ErrorLogRingIdBits) {
  const RegDesc* m2s = find_reg(m2s_engine_regs(), "err_log_mask");
  ASSERT_NE(m2s, nullptr);
  EXPECT_EQ(m2s->offset, 0x20CU);
  EXPECT_EQ(find_field(*m2s, "pref_ring_id")->bits.lsb, 17U);
  const RegDesc* s2m = find_reg(s2m_engine_regs(), 0x20CU);
  ASSERT_NE(s2m, nullptr);
  EXPECT_EQ(find_field(*s2m, "pref_ring_id")->bits.lsb, 11U);
}

TEST(RegTables, ResetValues) {
  EXPECT_EQ(find_reg(m2s_engine_regs(), "pref_queue_en")->offset, 0x25CU);
  EXPECT_EQ(find_reg(m2s_engine_regs(), "pref_queue_en")->reset, 0xFFFFU);
  EXPECT_EQ(find_reg(s2m_engine_regs(), "pref_queue_en")->offset, 0x254U);
  EXPECT_EQ(find_reg(m2s_engine_regs(), "cfg_len")->reset, 0x01010000U);
  EXPECT_EQ(find_reg(m2s_queue_regs(), "cfg")->reset, 0x03000000U);
  EXPECT_EQ(find_reg(m2s_queue_regs(), "TDRHP")->reset >> 30, 1U);  // ring_id resets to 1
  EXPECT_EQ(find_reg(s2m_queue_regs(), "RDRTP")->reset >> 30, 1U);
  EXPECT_EQ(find_reg(m2s_queue_regs(), "comp_cfg")->reset & 1U, 0U);  // M2S: no ring update
  EXPECT_EQ(find_reg(s2m_queue_regs(), "comp_cfg")->reset & 1U, 1U);  // S2M: on (Cayman)
  EXPECT_EQ(find_reg(m2s_queue_regs(), "rate_limit_mask")->reset, 0x7U);
  const RegDesc* cfg = find_reg(m2s_queue_regs(), m2s_q::kCfg);
  EXPECT_EQ(find_field(*cfg, "en_pref")->bits.lsb, 16U);
  EXPECT_EQ(find_field(*cfg, "en_scheduling")->bits.lsb, 17U);
  EXPECT_EQ(find_field(*find_reg(s2m_queue_regs(), s2m_q::kCfg), "en_stream")->bits.lsb, 17U);
}

TEST(RegTables, MiscBroadcastGroup) {
  const RegDesc* g = find_reg(misc_bank().regs, "BROADCAST_CFG_GROUP");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->offset, 0x100U);  // [DRV] udma-facts §2.4
  EXPECT_EQ(g->offset, misc::kBroadcastCfgGroup);
  EXPECT_EQ(g->reset, 0U);  // [CHOICE D25]
  EXPECT_EQ(find_field(*g, "mask")->bits.mask(), 0xFFFFU);
  EXPECT_EQ(find_reg(misc_bank().regs, 0x104U)->name, "BROADCAST_CFG_LAST_NODE");
  EXPECT_EQ(misc_bank().name, "MISC");
}

TEST(RegTables, LookupMisses) {
  EXPECT_EQ(find_reg(m2s_queue_regs(), 0x10U), nullptr);
  EXPECT_EQ(find_reg(m2s_queue_regs(), "no_such"), nullptr);
  EXPECT_EQ(find_field(*find_reg(m2s_queue_regs(), "TDRL"), "no_such"), nullptr);
  EXPECT_EQ(access_name(Access::kWO), "WO");
}

}  // namespace
}  // namespace sbrdma::soc
