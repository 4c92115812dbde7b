// UDMA register tables. Sources: wiki-facts §3.2-§3.4 (Cayman udma_m2s.json / udma_s2m.json,
// HIGH/OBSERVED), udma-facts §2.1, §2.4 (MISC) and §3.6 (public driver / HAL). A reset value is the
// OR of its fields' resets; registers whose fields the record does not list have none here.
#include "soc/udma_regs.h"

#include <array>

namespace sbrdma::soc {
namespace {

using base::bit;
using base::BitField;
using reg_flag::kBroadcast;
using reg_flag::kCommand;
using reg_flag::kDoorbell;
constexpr Access RW = Access::kRW;
constexpr Access RO = Access::kRO;
constexpr Access WO = Access::kWO;

// ---- shared field lists ------------------------------------------------------------------

constexpr std::array kPtrFields{RegField{"descriptor_offset", kPtrOffset},
                                RegField{"ring_id", kPtrRingId, 1}};  // ring_id rst 1
constexpr std::array kPtrFieldsNoReset{RegField{"descriptor_offset", kPtrOffset},
                                       RegField{"ring_id", kPtrRingId}};
constexpr std::array kBaseLowFields{RegField{"addr", reg_field::kRingBaseLowAddr}};  // 64 B
constexpr std::array kBaseHighFields{RegField{"addr", BitField{31, 0}}};
constexpr std::array kRingLenFields{RegField{"length", reg_field::kRingLength}};
constexpr std::array kIncFields{RegField{"val", reg_field::kIncVal}};  // VAL_MASK 0xffffff
constexpr std::array kPrefQueueEnFields{RegField{"en", reg_field::kPrefQueueEn, 0xFFFF}};
constexpr std::array kChangeStateFields{RegField{"normal", reg_field::kChangeStateNormal},
                                        RegField{"dis", reg_field::kChangeStateDis},
                                        RegField{"abort", reg_field::kChangeStateAbort}};
constexpr std::array kQosFields{RegField{"q_qos", BitField{7, 0}}};

constexpr std::uint32_t kPtrReset = 1U << 30;  // ring_id 1

// ---- M2S engine-global (offsets in the UDMA_M2S block) ------------------------------------

constexpr std::array kM2sStateFields{
    RegField{"comp_ctrl", reg_field::kStateCompCtrl},
    RegField{"stream_if", reg_field::kStateStreamIf},
    RegField{"data_rd_ctrl", reg_field::kStateDataRdCtrl},
    RegField{"desc_pref", reg_field::kStateDescPref},
    RegField{"last_change_state_cmd", reg_field::kM2sStateLastChangeStateCmd}};
// Bit numbering of err_log_mask = M2S secondary group A. [DRV] udma-facts §3.6
constexpr std::array kM2sErrLogMaskFields{RegField{"stream_comp_mismatch", bit(0)},
                                          RegField{"stream_parity", bit(1)},
                                          RegField{"stream_response", bit(2)},
                                          RegField{"stream_timeout", bit(3)},
                                          RegField{"comp_axi", BitField{6, 4}},
                                          RegField{"data_axi", BitField{9, 7}},
                                          RegField{"pref_axi", BitField{12, 10}},
                                          RegField{"pref_pkt_len", bit(13)},
                                          RegField{"pref_max_desc", bit(14)},
                                          RegField{"pref_first", bit(15)},
                                          RegField{"pref_last", bit(16)},
                                          RegField{"pref_ring_id", reg_field::kM2sErrPrefRingId}};
constexpr std::array kM2sCfgLenFields{
    RegField{"max_pkt_size", reg_field::kM2sCfgLenMaxPktSize, 0x10000},
    RegField{"encode_64k", reg_field::kM2sCfgLenEncode64k, 1}};
constexpr std::array kM2sStreamCfgFields{RegField{"disable", bit(0)}, RegField{"rd_mode", bit(1)},
                                         RegField{"rd_th", BitField{18, 8}}};
constexpr std::array kM2sPrefCfg1Fields{RegField{"fifo_depth", BitField{7, 0}}};
constexpr std::array kM2sPrefCfg2Fields{RegField{"max_desc_per_pkt", BitField{11, 0}, 0x40},
                                        RegField{"pref_force_rr", bit(16), 1}};
constexpr std::array kM2sPrefCfg3Fields{RegField{"min_burst_below_thr", BitField{3, 0}},
                                        RegField{"min_burst_above_thr", BitField{7, 4}},
                                        RegField{"pref_thr", BitField{15, 8}}};
constexpr std::array kM2sDataCfgFields{RegField{"data_fifo_depth", BitField{11, 0}},
                                       RegField{"max_pkt_limit", BitField{23, 16}}};
// M2S_comp (+0x400): cfg_1c, cfg_coal, cfg_application_ack in the HAL's order; the field
// positions are the HAL's (al_hal_udma_regs_m2s.h), the reset values Cayman's CSR JSON
// (wiki-facts §3.2). cfg_coal has no public reset value and is not modelled.
constexpr std::array kM2sCompCfg1cFields{RegField{"comp_fifo_depth", BitField{7, 0}, 0x40},
                                         RegField{"unack_fifo_depth", BitField{16, 8}, 0x100},
                                         RegField{"q_promotion", bit(24), 1},
                                         RegField{"force_rr", bit(25)}};
constexpr std::array kM2sCompAppAckFields{RegField{"tout", BitField{23, 0}, 0x186A0}};

constexpr std::array kM2sEngineRegs{
    RegDesc{"state", 0x200, RO, 0, kM2sStateFields},
    RegDesc{"change_state", 0x204, WO, 0, kChangeStateFields, kCommand},
    RegDesc{"err_log_mask", 0x20C, RW, 0, kM2sErrLogMaskFields},
    RegDesc{"cfg_len", m2s_engine::kCfgLen, RW, 0x01010000,
            kM2sCfgLenFields},  // Cayman 64 KiB, encode_64k
    RegDesc{"stream_cfg", 0x258, RW, 0, kM2sStreamCfgFields},
    RegDesc{"pref_queue_en", 0x25C, RW, 0xFFFF, kPrefQueueEnFields},
    RegDesc{"desc_pref_cfg_1", 0x300, RW, 0, kM2sPrefCfg1Fields},
    RegDesc{"desc_pref_cfg_2", 0x304, RW, 0x10040, kM2sPrefCfg2Fields},
    RegDesc{"desc_pref_cfg_3", 0x308, RW, 0, kM2sPrefCfg3Fields},
    RegDesc{"data_cfg", 0x310, RW, 0, kM2sDataCfgFields},
    RegDesc{"cfg_1c", 0x400, RW, 0x01010040, kM2sCompCfg1cFields},
    RegDesc{"cfg_application_ack", 0x408, RW, 0x186A0, kM2sCompAppAckFields},
};

// ---- M2S_Q[q] (offsets in the queue bank) -------------------------------------------------

constexpr std::array kM2sDescPrefCfgFields{RegField{"fifo_depth", BitField{11, 0}, 0x080},
                                           RegField{"fifo_start_addr", BitField{26, 16}}};
constexpr std::array kM2sQCfgFields{RegField{"pkt_len_offset", BitField{15, 0}},
                                    RegField{"en_pref", reg_field::kQCfgEnPref},
                                    RegField{"en_scheduling", reg_field::kM2sQCfgEnScheduling},
                                    RegField{"allow_lt_min_pref", bit(20)},
                                    RegField{"axi_awcache_comp", BitField{27, 24}, 3},
                                    RegField{"AXI_qos", BitField{30, 28}},
                                    RegField{"force_full_line", bit(31)}};
constexpr std::array kM2sQStatusFields{RegField{"q_used", reg_field::kQStatusUsed},
                                       RegField{"q_isolated", bit(26)},
                                       RegField{"axi_rd_timeout", bit(27)},
                                       RegField{"prefetch", bit(28)},
                                       RegField{"scheduler", bit(29)},
                                       RegField{"q_dmb", bit(30)},
                                       RegField{"q_full", bit(31)}};
// rate limiter mask: [DRV] udma-facts §2.1 (reset 0b111)
constexpr std::array kM2sRateLimitMaskFields{
    RegField{"external_rate_limiter", bit(0), 1}, RegField{"internal_rate_limiter", bit(1), 1},
    RegField{"internal_pause_dmb", reg_field::kRateLimitMaskInternalPauseDmb, 1},
    RegField{"external_pause", bit(3)}};
constexpr std::array kM2sDwrrCfg1Fields{RegField{"strict", bit(24)}};
constexpr std::array kM2sDwrrCfg3Fields{RegField{"weight", BitField{7, 0}}};
constexpr std::array kM2sCompCfgFields{
    RegField{"en_comp_ring_update", reg_field::kCompCfgEnCompRingUpdate},  // rst 0
    RegField{"dis_comp_coal", bit(1)}};
constexpr std::array kM2sQSwCtrlFields{
    RegField{"rst_dmb", bit(0)},
    RegField{"rst_tail_ptr", reg_field::kQSwCtrlRstTailPtr},
    RegField{"rst_head_ptr", reg_field::kQSwCtrlRstHeadPtr},
    RegField{"rst_current_ptr", reg_field::kQSwCtrlRstCurrentPtr},
    RegField{"rst_data_tail_ptr", bit(4)},
    RegField{"rst_q", reg_field::kQSwCtrlRstQ}};
constexpr std::array kM2sReadDataSnpFields{RegField{"override_snoop_en", bit(0)},
                                           RegField{"snoop_val", bit(1), 1}};

constexpr std::array kM2sQueueRegs{
    RegDesc{"desc_pref_cfg", 0x00, RW, 0x080, kM2sDescPrefCfgFields},
    RegDesc{"desc_pref_cfg2", 0x04, RW, 0, {}},
    RegDesc{"desc_pref_fifo", 0x08, RO, 0, {}},
    RegDesc{"hdr_pref_fifo", 0x0C, RO, 0, {}},
    RegDesc{"desc_rd_aruser", 0x18, RW, 0, {}},
    RegDesc{"cmpl_wr_awuser", 0x1C, RW, 0, {}},
    RegDesc{"cfg", 0x20, RW, 0x03000000, kM2sQCfgFields},
    RegDesc{"status", 0x24, RO, 0, kM2sQStatusFields},
    RegDesc{"TDRBP_low", 0x28, RW, 0, kBaseLowFields},
    RegDesc{"TDRBP_high", 0x2C, RW, 0, kBaseHighFields},
    RegDesc{"TDRL", 0x30, RW, 0, kRingLenFields},
    RegDesc{"TDRHP", 0x34, RO, kPtrReset, kPtrFields},
    // TDRTP_inc: RW in the Cayman JSON, WO in another table; a write increments either way
    // (wiki-facts §9 item 9).
    RegDesc{"TDRTP_inc", 0x38, RW, 0, kIncFields, kDoorbell | kBroadcast},
    RegDesc{"TDRTP", 0x3C, RO, kPtrReset, kPtrFields},
    RegDesc{"TDCP", 0x40, RO, kPtrReset, kPtrFields},
    RegDesc{"TCRBP_low", 0x44, RW, 0, kBaseLowFields},
    RegDesc{"TCRBP_high", 0x48, RW, 0, kBaseHighFields},
    RegDesc{"TCRHP", 0x4C, RO, kPtrReset, kPtrFields},
    RegDesc{"TCRHP_internal", 0x50, RO, 0, kPtrFieldsNoReset},
    RegDesc{"gdma_pref", 0x54, RW, 0, {}},  // "RO/RW" in the record
    RegDesc{"cfg_2", 0x58, RW, 0, {}},
    RegDesc{"rate_limit_cfg_1s", 0x60, RW, 0, {}},
    RegDesc{"rate_limit_cfg_cycle", 0x64, RW, 0, {}},
    RegDesc{"rate_limit_cfg_token_size_1", 0x68, RW, 0, {}},
    RegDesc{"rate_limit_cfg_token_size_2", 0x6C, RW, 0, {}},
    RegDesc{"rate_limit_sw_ctrl", 0x70, WO, 0, {}, kCommand},
    RegDesc{"rate_limit_mask", 0x74, RW, 0x7, kM2sRateLimitMaskFields},
    RegDesc{"dwrr_cfg_1", 0x80, RW, 0, kM2sDwrrCfg1Fields},
    RegDesc{"dwrr_cfg_2", 0x84, RW, 0, kQosFields},
    RegDesc{"dwrr_cfg_3", 0x88, RW, 0, kM2sDwrrCfg3Fields},
    RegDesc{"dwrr_sw_ctrl", 0x8C, RW, 0, {}},
    RegDesc{"comp_cfg", 0xA0, RW, 0, kM2sCompCfgFields},
    RegDesc{"q_sw_ctrl", 0xB0, WO, 0, kM2sQSwCtrlFields, kCommand | kBroadcast},
    RegDesc{"q_tx_pkt", 0xC0, RO, 0, {}},
    RegDesc{"read_data_snp", 0xD0, RW, 0x2, kM2sReadDataSnpFields},
    RegDesc{"TDRDTP_inc", 0xE0, WO, 0, kIncFields, kDoorbell | kBroadcast},  // Cayman data tail
    RegDesc{"TDRDTP", 0xE4, RO, 0, {}},
    RegDesc{"force_target_q_mapping", 0x100, RW, 0, {}},
    RegDesc{"out_of_order", 0x104, RW, 0, {}},
};

// ---- S2M engine-global (offsets in the UDMA_S2M block) ------------------------------------

constexpr std::array kS2mStateFields{// "same encoding as M2S" + axi_wr_data (udma-facts §2.1)
                                     RegField{"comp_ctrl", reg_field::kStateCompCtrl},
                                     RegField{"stream_if", reg_field::kStateStreamIf},
                                     RegField{"data_rd_ctrl", reg_field::kStateDataRdCtrl},
                                     RegField{"desc_pref", reg_field::kStateDescPref},
                                     RegField{"axi_wr_data", BitField{17, 16}}};
constexpr std::array kS2mErrLogMaskFields{
    RegField{"pref_ring_id", reg_field::kS2mErrPrefRingId}};  // group B
constexpr std::array kS2mStreamCfgFields{RegField{"disable_stream", bit(0)},
                                         RegField{"flush", bit(4)},
                                         RegField{"stop_prefetch", bit(8)}};

constexpr std::array kS2mEngineRegs{
    RegDesc{"state", 0x200, RO, 0, kS2mStateFields},
    RegDesc{"change_state", 0x204, WO, 0, kChangeStateFields, kCommand},
    RegDesc{"err_log_mask", 0x20C, RW, 0, kS2mErrLogMaskFields},
    RegDesc{"stream_cfg", 0x250, RW, 0, kS2mStreamCfgFields},
    RegDesc{"pref_queue_en", 0x254, RW, 0xFFFF, kPrefQueueEnFields},
};

// ---- S2M_Q[q] (offsets in the queue bank) -------------------------------------------------

constexpr std::array kS2mQCfgFields{RegField{"axi_awcache_hdr", BitField{3, 0}, 3},
                                    RegField{"axi_awcache_data", BitField{7, 4}, 3},
                                    RegField{"en_pref", reg_field::kQCfgEnPref},
                                    RegField{"en_stream", reg_field::kS2mQCfgEnStream},
                                    RegField{"allow_lt_min_pref", bit(20)},
                                    RegField{"data_force_full_line", bit(23)},
                                    RegField{"axi_awcache_comp", BitField{27, 24}, 3},
                                    RegField{"AXI_qos", BitField{30, 28}},
                                    RegField{"cmpl_force_full_line", bit(31)}};
constexpr std::array kS2mQStatusFields{
    RegField{"q_used", reg_field::kQStatusUsed}, RegField{"q_isolated", bit(26)},
    RegField{"prefetch", bit(28)}, RegField{"rx", bit(29)}, RegField{"q_full", bit(31)}};
constexpr std::array kS2mCompCfgFields{
    // Cayman resets differ from M2S
    RegField{"en_comp_ring_update", reg_field::kCompCfgEnCompRingUpdate, 1},
    RegField{"dis_comp_coal", bit(1), 1}, RegField{"first_pkt_promotion", bit(2), 1},
    RegField{"buf2_len_location", bit(3), 1}, RegField{"desc_size", BitField{15, 12}, 4}};
constexpr std::array kS2mCompCfg2Fields{RegField{"timer", BitField{31, 0}, 0x186A0}};
constexpr std::array kS2mPktCfgFields{RegField{"hdr_split_size", BitField{15, 0}, 0x40},
                                      RegField{"force_hdr_split", bit(16)},
                                      RegField{"en_hdr_split", bit(17)}};
constexpr std::array kS2mQSwCtrlFields{
    RegField{"rst_tail_ptr", reg_field::kQSwCtrlRstTailPtr},
    RegField{"rst_head_ptr", reg_field::kQSwCtrlRstHeadPtr},
    RegField{"rst_current_ptr", reg_field::kQSwCtrlRstCurrentPtr}, RegField{"rst_prefetch", bit(4)},
    RegField{"rst_q", reg_field::kQSwCtrlRstQ}};

constexpr std::array kS2mQueueRegs{
    RegDesc{"desc_pref_cfg", 0x00, RW, 0, {}},
    RegDesc{"desc_pref_cfg2", 0x04, RW, 0, {}},
    RegDesc{"desc_rd_aruser", 0x18, RW, 0, {}},  // "AXI user" (names as M2S: MED)
    RegDesc{"cmpl_wr_awuser", 0x1C, RW, 0, {}},
    RegDesc{"cfg", 0x20, RW, 0x03000033, kS2mQCfgFields},
    RegDesc{"status", 0x24, RO, 0, kS2mQStatusFields},
    RegDesc{"RDRBP_low", 0x28, RW, 0, kBaseLowFields},
    RegDesc{"RDRBP_high", 0x2C, RW, 0, kBaseHighFields},
    RegDesc{"RDRL", 0x30, RW, 0, kRingLenFields},
    RegDesc{"RDRHP", 0x34, RO, kPtrReset, kPtrFields},
    RegDesc{"RDRTP_inc", 0x38, WO, 0, kIncFields, kDoorbell | kBroadcast},
    RegDesc{"RDRTP", 0x3C, RO, kPtrReset, kPtrFields},
    RegDesc{"RDCP", 0x40, RO, kPtrReset, kPtrFields},
    RegDesc{"RCRBP_low", 0x44, RW, 0, kBaseLowFields},
    RegDesc{"RCRBP_high", 0x48, RW, 0, kBaseHighFields},
    RegDesc{"RCRHP", 0x4C, RO, kPtrReset, kPtrFields},
    RegDesc{"RCRHP_internal", 0x50, RO, 0, kPtrFieldsNoReset},
    RegDesc{"comp_cfg", 0x54, RW, 0x400F, kS2mCompCfgFields},
    RegDesc{"comp_cfg_2", 0x58, RW, 0x186A0, kS2mCompCfg2Fields},
    RegDesc{"pkt_cfg", 0x5C, RW, 0x40, kS2mPktCfgFields},
    RegDesc{"qos_cfg", 0x60, RW, 0, kQosFields},
    RegDesc{"q_sw_ctrl", 0x64, WO, 0, kS2mQSwCtrlFields, kCommand},
    RegDesc{"q_rx_pkt", 0x68, RO, 0, {}},
};

// ---- MISC (offsets in the MISC block) ---------------------------------------------------------
// Names and offsets [DRV] udma-facts §2.4; resets not public, 0 ([CHOICE D25] for the mask).

constexpr std::array kEventAccelFields{RegField{"enable", bit(0)}};
constexpr std::array kRobWobFields{RegField{"en", bit(0)},
                                   RegField{"force_in_order", bit(1)},
                                   RegField{"clear", bit(2)},
                                   RegField{"use_rid_base", bit(3)},
                                   RegField{"rid_base", BitField{10, 4}},
                                   RegField{"powerdown", bit(31)}};
constexpr std::array kGroupFields{RegField{"mask", reg_field::kBroadcastCfgGroupMask}};
constexpr std::array kLastNodeFields{RegField{"mask", BitField{15, 0}}};
constexpr std::array kTxdfFields{RegField{"overhead_beats", BitField{9, 0}}};

constexpr std::array kMiscRegs{
    RegDesc{"event_accel", 0x000, RW, 0, kEventAccelFields},
    RegDesc{"rob_cfg", 0x01C, RW, 0, kRobWobFields},
    RegDesc{"wob_cfg", 0x020, RW, 0, kRobWobFields},
    RegDesc{"BROADCAST_CFG_GROUP", 0x100, RW, 0, kGroupFields},
    RegDesc{"BROADCAST_CFG_LAST_NODE", 0x104, RW, 0, kLastNodeFields},
    RegDesc{"model_robert_txdf", 0x800, RW, 0, kTxdfFields},
};

// ---- static checks: the tables are well formed --------------------------------------------

constexpr bool fields_ok(const RegDesc& r) {
  std::uint64_t seen = 0;
  std::uint64_t reset = 0;
  for (const RegField& f : r.fields) {
    if (f.bits.msb > 31 || f.bits.msb < f.bits.lsb) return false;  // inside 32 bits
    if ((seen & f.bits.mask()) != 0) return false;                 // no overlap
    if (!f.bits.fits(f.reset)) return false;
    seen |= f.bits.mask();
    reset |= std::uint64_t{f.reset} << f.bits.lsb;
  }
  // With fields listed, the register reset is exactly the fields' resets.
  return r.fields.empty() || reset == r.reset;
}

template <std::size_t N>
constexpr bool bank_ok(const std::array<RegDesc, N>& regs, std::uint32_t size) {
  for (std::size_t i = 0; i < N; ++i) {
    if (regs[i].offset % 4 != 0 || regs[i].offset + 4 > size) return false;
    if (i > 0 && regs[i - 1].offset >= regs[i].offset) return false;  // sorted, unique
    if (!fields_ok(regs[i])) return false;
  }
  return true;
}

static_assert(bank_ok(kM2sEngineRegs, udma::kEngineGlobalSize));
static_assert(bank_ok(kM2sQueueRegs, udma::kQueueBankStride));
static_assert(bank_ok(kS2mEngineRegs, udma::kEngineGlobalSize));
static_assert(bank_ok(kS2mQueueRegs, udma::kQueueBankStride));
static_assert(bank_ok(kMiscRegs, misc::kBankSize));

/// True if the register called `name` sits at `offset` (the named constants match the tables).
template <std::size_t N>
constexpr bool at(const std::array<RegDesc, N>& regs, std::string_view name, std::uint32_t offset) {
  for (const RegDesc& r : regs) {
    if (r.name == name) return r.offset == offset;
  }
  return false;
}

/// True if every role's register has that role's hardware name, in that order.
template <std::size_t N, std::size_t R>
constexpr bool roles_at(const std::array<RegDesc, N>& regs,
                        const std::array<std::string_view, R>& names,
                        const std::array<std::uint32_t, R>& offsets) {
  for (std::size_t i = 0; i < R; ++i) {
    if (!at(regs, names[i], offsets[i])) return false;
  }
  return true;
}
constexpr std::array<std::uint32_t, 14> roles(const QueueRegOffsets& o) {
  return {o.cfg,
          o.status,
          o.ring_base_low,
          o.ring_base_high,
          o.ring_len,
          o.head,
          o.doorbell,
          o.tail,
          o.current,
          o.comp_head,
          o.comp_cfg,
          o.sw_ctrl,
          o.comp_head_internal,
          o.packets};
}
constexpr std::array<std::uint32_t, 4> roles(const EngineRegOffsets& o) {
  return {o.state, o.change_state, o.err_log_mask, o.pref_queue_en};
}
constexpr std::array<std::string_view, 14> kM2sQueueRoleNames{
    "cfg",   "status", "TDRBP_low", "TDRBP_high", "TDRL",      "TDRHP",          "TDRTP_inc",
    "TDRTP", "TDCP",   "TCRHP",     "comp_cfg",   "q_sw_ctrl", "TCRHP_internal", "q_tx_pkt"};
constexpr std::array<std::string_view, 14> kS2mQueueRoleNames{
    "cfg",   "status", "RDRBP_low", "RDRBP_high", "RDRL",      "RDRHP",          "RDRTP_inc",
    "RDRTP", "RDCP",   "RCRHP",     "comp_cfg",   "q_sw_ctrl", "RCRHP_internal", "q_rx_pkt"};
constexpr std::array<std::string_view, 4> kEngineRoleNames{"state", "change_state", "err_log_mask",
                                                           "pref_queue_en"};

static_assert(roles_at(kM2sQueueRegs, kM2sQueueRoleNames, roles(kM2sQueueOffsets)));
static_assert(roles_at(kS2mQueueRegs, kS2mQueueRoleNames, roles(kS2mQueueOffsets)));
static_assert(at(kM2sQueueRegs, "TDRDTP_inc", m2s_q::kTdrdtpInc));
static_assert(roles_at(kM2sEngineRegs, kEngineRoleNames, roles(kM2sEngineOffsets)));
static_assert(roles_at(kS2mEngineRegs, kEngineRoleNames, roles(kS2mEngineOffsets)));
static_assert(at(kMiscRegs, "BROADCAST_CFG_GROUP", misc::kBroadcastCfgGroup) &&
              at(kMiscRegs, "BROADCAST_CFG_LAST_NODE", misc::kBroadcastCfgLastNode));

constexpr RegBank kM2sEngineBank{"M2S", udma::kEngineGlobalSize, kM2sEngineRegs};
constexpr RegBank kM2sQueueBank{"M2S_Q", udma::kQueueBankStride, kM2sQueueRegs};
constexpr RegBank kS2mEngineBank{"S2M", udma::kEngineGlobalSize, kS2mEngineRegs};
constexpr RegBank kS2mQueueBank{"S2M_Q", udma::kQueueBankStride, kS2mQueueRegs};
constexpr RegBank kMiscBank{"MISC", misc::kBankSize, kMiscRegs};

}  // namespace

std::string_view access_name(Access a) {
  switch (a) {
    case Access::kRW:
      return "RW";
    case Access::kRO:
      return "RO";
    case Access::kWO:
      return "WO";
  }
  return "?";
}

const RegBank& m2s_engine_bank() {
  return kM2sEngineBank;
}
const RegBank& m2s_queue_bank() {
  return kM2sQueueBank;
}
const RegBank& s2m_engine_bank() {
  return kS2mEngineBank;
}
const RegBank& s2m_queue_bank() {
  return kS2mQueueBank;
}
const RegBank& misc_bank() {
  return kMiscBank;
}
const RegBank& queue_bank(Direction d) {
  return d == Direction::kM2S ? kM2sQueueBank : kS2mQueueBank;
}
const RegBank& engine_bank(Direction d) {
  return d == Direction::kM2S ? kM2sEngineBank : kS2mEngineBank;
}

const RegDesc* find_reg(std::span<const RegDesc> regs, std::uint32_t offset) {
  for (const RegDesc& r : regs) {
    if (r.offset == offset) return &r;
  }
  return nullptr;
}

const RegDesc* find_reg(std::span<const RegDesc> regs, std::string_view name) {
  for (const RegDesc& r : regs) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

const RegField* find_field(const RegDesc& reg, std::string_view name) {
  for (const RegField& f : reg.fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace sbrdma::soc
