#include "soc/udma_regs.h"

#include <gtest/gtest.h>

#include <set>
#include <span>
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
  const auto broadcast_offsets = [](const auto& regs) {
    std::set<std::uint32_t> out;
    for (const RegDesc& r : regs) {
      if ((r.flags & reg_flag::kBroadcast) != 0) out.insert(r.offset);
    }
    return out;
  };
  // [HIGH] wiki-facts §3.6: tail_ptr_inc, sw_ctrl and data_tail_ptr_inc; S2M only the first
  // [CHOICE D41q].
  EXPECT_EQ(broadcast_offsets(m2s_queue_regs()), (std::set<std::uint32_t>{0x38, 0xB0, 0xE0}));
  EXPECT_EQ(broadcast_offsets(s2m_queue_regs()), (std::set<std::uint32_t>{0x38}));
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

// The register maps, row by row, as the record lists them (wiki-facts §3.2-§3.4, Cayman CSR
// JSON; engine-bank widths the record omits from udma-facts, the HAL): every literal below is
// copied from there, not from the tables under test, so a shifted offset, a wrong access type,
// a moved field or a wrong reset fails here.
struct RecordReg {
  const RegBank* bank;
  std::uint32_t offset;
  std::string_view name;    // empty: the record gives no single name for the offset
  std::string_view access;  // empty: the record gives none (or "RO/RW")
};
struct RecordField {
  const RegBank* bank;
  std::string_view reg;
  std::string_view field;
  unsigned msb;
  unsigned lsb;
  std::uint32_t reset;
};

void expect_regs_match(std::span<const RecordReg> regs) {
  for (const RecordReg& want : regs) {
    const RegDesc* got = find_reg(want.bank->regs, want.offset);
    ASSERT_NE(got, nullptr) << want.bank->name << " +" << std::hex << want.offset;
    if (!want.name.empty()) {
      EXPECT_EQ(got->name, want.name) << want.bank->name;
    }
    if (!want.access.empty()) {
      EXPECT_EQ(access_name(got->access), want.access) << want.bank->name << "." << got->name;
    }
  }
}

void expect_fields_match(std::span<const RecordField> fields) {
  for (const RecordField& want : fields) {
    const RegDesc* reg = find_reg(want.bank->regs, want.reg);
    ASSERT_NE(reg, nullptr) << want.bank->name << "." << want.reg;
    const RegField* f = find_field(*reg, want.field);
    ASSERT_NE(f, nullptr) << want.bank->name << "." << want.reg << "." << want.field;
    EXPECT_EQ(f->bits.msb, want.msb) << want.reg << "." << want.field;
    EXPECT_EQ(f->bits.lsb, want.lsb) << want.reg << "." << want.field;
    EXPECT_EQ(f->reset, want.reset) << want.reg << "." << want.field;
  }
}

TEST(RegTables, QueueAndEngineRegistersMatchTheRecord) {
  const RegBank* mq = &m2s_queue_bank();
  const RegBank* sq = &s2m_queue_bank();
  const RegBank* me = &m2s_engine_bank();
  const RegBank* se = &s2m_engine_bank();
  const RecordReg regs[] = {
      {mq, 0x00, "desc_pref_cfg", "RW"},
      {mq, 0x04, "desc_pref_cfg2", "RW"},
      {mq, 0x08, "desc_pref_fifo", "RO"},
      {mq, 0x0C, "hdr_pref_fifo", "RO"},
      {mq, 0x18, "desc_rd_aruser", "RW"},
      {mq, 0x1C, "cmpl_wr_awuser", "RW"},
      {mq, 0x20, "cfg", "RW"},
      {mq, 0x24, "status", "RO"},
      {mq, 0x28, "TDRBP_low", "RW"},
      {mq, 0x2C, "TDRBP_high", "RW"},
      {mq, 0x30, "TDRL", "RW"},
      {mq, 0x34, "TDRHP", "RO"},
      {mq, 0x38, "TDRTP_inc", "RW"},
      {mq, 0x3C, "TDRTP", "RO"},
      {mq, 0x40, "TDCP", "RO"},
      {mq, 0x44, "TCRBP_low", "RW"},
      {mq, 0x48, "TCRBP_high", "RW"},
      {mq, 0x4C, "TCRHP", "RO"},
      {mq, 0x50, "TCRHP_internal", "RO"},
      {mq, 0x54, "gdma_pref", ""},
      {mq, 0x58, "cfg_2", "RW"},
      {mq, 0x74, "rate_limit_mask", "RW"},
      {mq, 0x80, "dwrr_cfg_1", "RW"},
      {mq, 0x84, "dwrr_cfg_2", "RW"},
      {mq, 0x88, "dwrr_cfg_3", "RW"},
      {mq, 0x8C, "dwrr_sw_ctrl", "RW"},
      {mq, 0xA0, "comp_cfg", "RW"},
      {mq, 0xB0, "q_sw_ctrl", "WO"},
      {mq, 0xC0, "q_tx_pkt", "RO"},
      {mq, 0xD0, "read_data_snp", "RW"},
      {mq, 0xE0, "TDRDTP_inc", "WO"},
      {mq, 0xE4, "TDRDTP", "RO"},
      {mq, 0x100, "force_target_q_mapping", "RW"},
      {mq, 0x104, "out_of_order", "RW"},
      {sq, 0x00, "desc_pref_cfg", "RW"},
      {sq, 0x04, "desc_pref_cfg2", "RW"},
      {sq, 0x18, "", "RW"},
      {sq, 0x1C, "", "RW"},
      {sq, 0x20, "cfg", "RW"},
      {sq, 0x24, "status", "RO"},
      {sq, 0x28, "RDRBP_low", "RW"},
      {sq, 0x2C, "RDRBP_high", "RW"},
      {sq, 0x30, "RDRL", "RW"},
      {sq, 0x34, "RDRHP", "RO"},
      {sq, 0x38, "RDRTP_inc", "WO"},
      {sq, 0x3C, "RDRTP", "RO"},
      {sq, 0x40, "RDCP", "RO"},
      {sq, 0x44, "RCRBP_low", "RW"},
      {sq, 0x48, "RCRBP_high", "RW"},
      {sq, 0x4C, "RCRHP", "RO"},
      {sq, 0x50, "RCRHP_internal", "RO"},
      {sq, 0x54, "comp_cfg", "RW"},
      {sq, 0x58, "comp_cfg_2", "RW"},
      {sq, 0x5C, "pkt_cfg", "RW"},
      {sq, 0x60, "qos_cfg", "RW"},
      {sq, 0x64, "q_sw_ctrl", "WO"},
      {sq, 0x68, "q_rx_pkt", "RO"},
      {me, 0x200, "state", "RO"},
      {me, 0x204, "change_state", ""},
      {me, 0x20C, "err_log_mask", ""},
      {me, 0x25C, "pref_queue_en", ""},
      // The engine offsets below are the HAL's (udma-facts §2.1), which the record's names match.
      {me, 0x254, "cfg_len", ""},
      {me, 0x258, "stream_cfg", ""},
      {me, 0x300, "desc_pref_cfg_1", ""},
      {me, 0x304, "desc_pref_cfg_2", ""},
      {me, 0x308, "desc_pref_cfg_3", ""},
      {me, 0x310, "data_cfg", ""},
      {me, 0x400, "cfg_1c", "RW"},  // M2S_comp, HAL order
      {me, 0x408, "cfg_application_ack", "RW"},
      {se, 0x204, "change_state", ""},
      {se, 0x250, "stream_cfg", ""},
      {se, 0x254, "pref_queue_en", ""},
  };
  expect_regs_match(regs);

  const RecordField fields[] = {
      {mq, "desc_pref_cfg", "fifo_depth", 11, 0, 0x080},
      {mq, "desc_pref_cfg", "fifo_start_addr", 26, 16, 0},
      {mq, "cfg", "pkt_len_offset", 15, 0, 0},
      {mq, "cfg", "en_pref", 16, 16, 0},
      {mq, "cfg", "en_scheduling", 17, 17, 0},
      {mq, "cfg", "allow_lt_min_pref", 20, 20, 0},
      {mq, "cfg", "axi_awcache_comp", 27, 24, 3},
      {mq, "cfg", "AXI_qos", 30, 28, 0},
      {mq, "cfg", "force_full_line", 31, 31, 0},
      {mq, "status", "q_used", 24, 0, 0},
      {mq, "status", "q_isolated", 26, 26, 0},
      {mq, "status", "axi_rd_timeout", 27, 27, 0},
      {mq, "status", "prefetch", 28, 28, 0},
      {mq, "status", "scheduler", 29, 29, 0},
      {mq, "status", "q_dmb", 30, 30, 0},
      {mq, "status", "q_full", 31, 31, 0},
      {mq, "TDRHP", "ring_id", 31, 30, 1},
      {mq, "TDRHP", "descriptor_offset", 23, 0, 0},
      {mq, "TDRTP_inc", "val", 23, 0, 0},
      // rlimit.mask, reset 0b111 (udma-facts §2.1)
      {mq, "rate_limit_mask", "external_rate_limiter", 0, 0, 1},
      {mq, "rate_limit_mask", "internal_rate_limiter", 1, 1, 1},
      {mq, "rate_limit_mask", "internal_pause_dmb", 2, 2, 1},
      {mq, "rate_limit_mask", "external_pause", 3, 3, 0},
      {mq, "dwrr_cfg_1", "strict", 24, 24, 0},
      {mq, "dwrr_cfg_2", "q_qos", 7, 0, 0},
      {mq, "dwrr_cfg_3", "weight", 7, 0, 0},
      {mq, "comp_cfg", "en_comp_ring_update", 0, 0, 0},
      {mq, "comp_cfg", "dis_comp_coal", 1, 1, 0},
      {mq, "q_sw_ctrl", "rst_dmb", 0, 0, 0},
      {mq, "q_sw_ctrl", "rst_tail_ptr", 1, 1, 0},
      {mq, "q_sw_ctrl", "rst_head_ptr", 2, 2, 0},
      {mq, "q_sw_ctrl", "rst_current_ptr", 3, 3, 0},
      {mq, "q_sw_ctrl", "rst_data_tail_ptr", 4, 4, 0},
      {mq, "q_sw_ctrl", "rst_q", 8, 8, 0},
      {mq, "read_data_snp", "override_snoop_en", 0, 0, 0},
      {mq, "read_data_snp", "snoop_val", 1, 1, 1},
      {mq, "TDRDTP_inc", "val", 23, 0, 0},
      {sq, "cfg", "axi_awcache_hdr", 3, 0, 3},
      {sq, "cfg", "axi_awcache_data", 7, 4, 3},
      {sq, "cfg", "en_pref", 16, 16, 0},
      {sq, "cfg", "en_stream", 17, 17, 0},
      {sq, "cfg", "allow_lt_min_pref", 20, 20, 0},
      {sq, "cfg", "data_force_full_line", 23, 23, 0},
      {sq, "cfg", "axi_awcache_comp", 27, 24, 3},
      {sq, "cfg", "AXI_qos", 30, 28, 0},
      {sq, "cfg", "cmpl_force_full_line", 31, 31, 0},
      {sq, "status", "q_used", 24, 0, 0},
      {sq, "status", "q_isolated", 26, 26, 0},
      {sq, "status", "prefetch", 28, 28, 0},
      {sq, "status", "rx", 29, 29, 0},
      {sq, "status", "q_full", 31, 31, 0},
      {sq, "RDRHP", "ring_id", 31, 30, 1},
      {sq, "RDRTP_inc", "val", 23, 0, 0},
      {sq, "comp_cfg", "en_comp_ring_update", 0, 0, 1},
      {sq, "comp_cfg", "dis_comp_coal", 1, 1, 1},
      {sq, "comp_cfg", "first_pkt_promotion", 2, 2, 1},
      {sq, "comp_cfg", "buf2_len_location", 3, 3, 1},
      {sq, "comp_cfg", "desc_size", 15, 12, 4},
      {sq, "comp_cfg_2", "timer", 31, 0, 0x186A0},
      {sq, "pkt_cfg", "hdr_split_size", 15, 0, 0x40},
      {sq, "pkt_cfg", "force_hdr_split", 16, 16, 0},
      {sq, "pkt_cfg", "en_hdr_split", 17, 17, 0},
      {sq, "qos_cfg", "q_qos", 7, 0, 0},
      {sq, "q_sw_ctrl", "rst_tail_ptr", 1, 1, 0},
      {sq, "q_sw_ctrl", "rst_head_ptr", 2, 2, 0},
      {sq, "q_sw_ctrl", "rst_current_ptr", 3, 3, 0},
      {sq, "q_sw_ctrl", "rst_prefetch", 4, 4, 0},
      {sq, "q_sw_ctrl", "rst_q", 8, 8, 0},
      {me, "state", "comp_ctrl", 1, 0, 0},
      {me, "state", "stream_if", 5, 4, 0},
      {me, "state", "data_rd_ctrl", 9, 8, 0},
      {me, "state", "desc_pref", 13, 12, 0},
      {me, "state", "last_change_state_cmd", 18, 16, 0},
      {me, "change_state", "normal", 0, 0, 0},
      {me, "change_state", "dis", 1, 1, 0},
      {me, "change_state", "abort", 2, 2, 0},
      // err_log_mask numbers its bits as M2S secondary group A (udma-facts §3.6).
      {me, "err_log_mask", "stream_comp_mismatch", 0, 0, 0},
      {me, "err_log_mask", "stream_parity", 1, 1, 0},
      {me, "err_log_mask", "stream_response", 2, 2, 0},
      {me, "err_log_mask", "stream_timeout", 3, 3, 0},
      {me, "err_log_mask", "comp_axi", 6, 4, 0},
      {me, "err_log_mask", "data_axi", 9, 7, 0},
      {me, "err_log_mask", "pref_axi", 12, 10, 0},
      {me, "err_log_mask", "pref_pkt_len", 13, 13, 0},
      {me, "err_log_mask", "pref_max_desc", 14, 14, 0},
      {me, "err_log_mask", "pref_first", 15, 15, 0},
      {me, "err_log_mask", "pref_last", 16, 16, 0},
      {me, "err_log_mask", "pref_ring_id", 17, 17, 0},
      {me, "pref_queue_en", "en", 15, 0, 0xFFFF},
      {me, "cfg_len", "max_pkt_size", 19, 0, 0x10000},  // width: udma-facts (HAL)
      {me, "cfg_len", "encode_64k", 24, 24, 1},
      // Fields of udma-facts §2.1; it gives these registers no reset: 0.
      {me, "stream_cfg", "disable", 0, 0, 0},
      {me, "stream_cfg", "rd_mode", 1, 1, 0},
      {me, "stream_cfg", "rd_th", 18, 8, 0},
      {me, "desc_pref_cfg_1", "fifo_depth", 7, 0, 0},
      {me, "desc_pref_cfg_2", "max_desc_per_pkt", 11, 0, 0x40},
      {me, "desc_pref_cfg_2", "pref_force_rr", 16, 16, 1},
      {me, "desc_pref_cfg_3", "min_burst_below_thr", 3, 0, 0},
      {me, "desc_pref_cfg_3", "min_burst_above_thr", 7, 4, 0},
      {me, "desc_pref_cfg_3", "pref_thr", 15, 8, 0},
      {me, "data_cfg", "data_fifo_depth", 11, 0, 0},
      {me, "data_cfg", "max_pkt_limit", 23, 16, 0},
      {me, "cfg_1c", "comp_fifo_depth", 7, 0, 0x40},  // positions: the HAL's
      {me, "cfg_1c", "unack_fifo_depth", 16, 8, 0x100},
      {me, "cfg_1c", "q_promotion", 24, 24, 1},
      {me, "cfg_1c", "force_rr", 25, 25, 0},
      {me, "cfg_application_ack", "tout", 23, 0, 0x186A0},
      {se, "change_state", "normal", 0, 0, 0},
      {se, "pref_queue_en", "en", 15, 0, 0xFFFF},
      {se, "stream_cfg", "disable_stream", 0, 0, 0},
      {se, "stream_cfg", "flush", 4, 4, 0},
      {se, "stream_cfg", "stop_prefetch", 8, 8, 0},
  };
  expect_fields_match(fields);
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

// [DRV] udma-facts §2.4: the SDMA wrapper registers besides the broadcast pair, with their
// fields. The record gives no resets: 0.
TEST(RegTables, MiscRegistersMatchTheRecord) {
  const RegBank* mi = &misc_bank();
  const RecordReg regs[] = {
      {mi, 0x000, "event_accel", ""},
      {mi, 0x01C, "rob_cfg", ""},
      {mi, 0x020, "wob_cfg", ""},
      {mi, 0x800, "model_robert_txdf", ""},
  };
  expect_regs_match(regs);
  const RecordField fields[] = {
      {mi, "event_accel", "enable", 0, 0, 0},
      {mi, "model_robert_txdf", "overhead_beats", 9, 0, 0},
  };
  expect_fields_match(fields);
  // WOB cfg has "the same layout" as ROB cfg.
  for (std::string_view reg : {"rob_cfg", "wob_cfg"}) {
    const RecordField rob_wob[] = {
        {mi, reg, "en", 0, 0, 0},        {mi, reg, "force_in_order", 1, 1, 0},
        {mi, reg, "clear", 2, 2, 0},     {mi, reg, "use_rid_base", 3, 3, 0},
        {mi, reg, "rid_base", 10, 4, 0}, {mi, reg, "powerdown", 31, 31, 0},
    };
    expect_fields_match(rob_wob);
  }
}

TEST(RegTables, LookupMisses) {
  EXPECT_EQ(find_reg(m2s_queue_regs(), 0x10U), nullptr);
  EXPECT_EQ(find_reg(m2s_queue_regs(), "no_such"), nullptr);
  EXPECT_EQ(find_field(*find_reg(m2s_queue_regs(), "TDRL"), "no_such"), nullptr);
  EXPECT_EQ(access_name(Access::kWO), "WO");
}

}  // namespace
}  // namespace sbrdma::soc
