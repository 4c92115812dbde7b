#pragma once
/// UDMA (al_udma rev 4, "SDMA" in Cayman naming) register tables as data, QEMU register-API
/// style: each register is {name, offset, access, reset, fields, flags}. The device model
/// builds its CSR files from these tables; printers and the address decoder read them too.
///
///  One engine (a 1 MiB SDMA channel slot), offsets from the channel base:
///  +0x00000 UDMA_M2S  engine-global regs 0x000..0xFFF, M2S_Q[q] at 0x1000 + q*0x1000
///  +0x20000 UDMA_S2M  engine-global regs 0x000..0xFFF, S2M_Q[q] at 0x1000 + q*0x1000
///  +0x38000 UDMA_GEN, +0x3C000 UDMA_GEN_EX, +0x40000 MISC         [HIGH] wiki-facts §3.1

#include <cstdint>
#include <span>
#include <string_view>

#include "base/bits.h"

namespace sbrdma::soc {

/// Direction of a UDMA block: M2S reads memory into the stream, S2M writes it out.
enum class Direction : std::uint8_t { kM2S, kS2M };

/// Software access of a register. [HIGH] wiki-facts §3.3/§3.4 (CSR JSON)
enum class Access { kRW, kRO, kWO };
/// "RW", "RO", "WO".
std::string_view access_name(Access a);

/// Register flags (bit set).
namespace reg_flag {
/// A write adds its value to a ring pointer and may schedule engine work (a post-write hook
/// that schedules, never performs, the work).
inline constexpr unsigned kDoorbell = 1U << 0;
/// Reachable through the BCAST_UDMA aperture. [HIGH] wiki-facts §3.6
inline constexpr unsigned kBroadcast = 1U << 1;
/// A write is a one-shot command (state change, pointer reset); it reads back as 0.
inline constexpr unsigned kCommand = 1U << 2;
}  // namespace reg_flag

/// One named bit field of a register and its reset value (already shifted out: field units).
struct RegField {
  std::string_view name;
  base::BitField bits;
  std::uint32_t reset = 0;
};

/// One 32-bit register.
struct RegDesc {
  std::string_view name;  ///< verbatim hardware name (`TDRTP_inc`)
  std::uint32_t offset;   ///< from the start of its bank
  Access access;
  std::uint32_t reset;
  std::span<const RegField> fields;  ///< LSB first; empty when the record lists none
  unsigned flags = 0;                ///< reg_flag bits
};

/// A bank of registers: the engine-global part of a block, or one queue's bank.
struct RegBank {
  std::string_view name;          ///< "M2S", "M2S_Q", "S2M", "S2M_Q"
  std::uint32_t size;             ///< bytes the bank spans; every offset is below it
  std::span<const RegDesc> regs;  ///< sorted by offset
};

/// Engine-global M2S registers (offsets from the UDMA_M2S block). [HIGH] wiki-facts §3.2
const RegBank& m2s_engine_bank();
/// Per-queue M2S_Q[q] registers (offsets from the queue bank). [HIGH] wiki-facts §3.3
const RegBank& m2s_queue_bank();
/// Engine-global S2M registers (offsets from the UDMA_S2M block). [HIGH] wiki-facts §3.4
const RegBank& s2m_engine_bank();
/// Per-queue S2M_Q[q] registers (offsets from the queue bank). [HIGH] wiki-facts §3.4
const RegBank& s2m_queue_bank();
/// The SDMA wrapper ("APP/misc") registers next to each UDMA (offsets from the MISC block).
/// [DRV] udma-facts §2.4 (names, offsets); reset values are not public: 0 ([CHOICE D25]).
///
///   MISC +0x000 event_accel             RW  bit0 enable
///   MISC +0x01C rob_cfg                 RW
///   MISC +0x020 wob_cfg                 RW
///   MISC +0x100 BROADCAST_CFG_GROUP     RW  mask[15:0]: engines of the group a BCAST write reaches
///   MISC +0x104 BROADCAST_CFG_LAST_NODE RW
///   MISC +0x800 model_robert_txdf       RW  [9:0]
const RegBank& misc_bank();

/// Shorthands for the tables above.
inline std::span<const RegDesc> m2s_engine_regs() {
  return m2s_engine_bank().regs;
}
inline std::span<const RegDesc> m2s_queue_regs() {
  return m2s_queue_bank().regs;
}
inline std::span<const RegDesc> s2m_engine_regs() {
  return s2m_engine_bank().regs;
}
inline std::span<const RegDesc> s2m_queue_regs() {
  return s2m_queue_bank().regs;
}

/// The register at exactly `offset`, or nullptr.
const RegDesc* find_reg(std::span<const RegDesc> regs, std::uint32_t offset);
/// The register called `name` (exact), or nullptr.
const RegDesc* find_reg(std::span<const RegDesc> regs, std::string_view name);
/// The field called `name` of `reg`, or nullptr.
const RegField* find_field(const RegDesc& reg, std::string_view name);

/// Geometry of one engine. [HIGH] wiki-facts §3.1, §3.3; udma-facts §2.2
namespace udma {
inline constexpr std::uint32_t kM2sBlock = 0x00000;
inline constexpr std::uint32_t kS2mBlock = 0x20000;
inline constexpr std::uint32_t kM2sBlockSize = 0x20000;
inline constexpr std::uint32_t kS2mBlockSize = 0x18000;
inline constexpr std::uint32_t kGenBlock = 0x38000;
inline constexpr std::uint32_t kGenExBlock = 0x3C000;
inline constexpr std::uint32_t kMiscBlock = 0x40000;
inline constexpr std::uint32_t kQueueBankBase = 0x1000;  ///< queue q at base + q*stride
inline constexpr std::uint32_t kQueueBankStride = 0x1000;
inline constexpr unsigned kQueues = 16;
inline constexpr std::uint32_t kEngineGlobalSize = 0x1000;  ///< engine regs below the queues
}  // namespace udma

/// Per-queue register offsets firmware and the device model name directly.
/// [HIGH] wiki-facts §3.3/§3.4 (Cayman HAL getters)
namespace m2s_q {
inline constexpr std::uint32_t kCfg = 0x20;
inline constexpr std::uint32_t kStatus = 0x24;
inline constexpr std::uint32_t kTdrbpLow = 0x28;
inline constexpr std::uint32_t kTdrbpHigh = 0x2C;
inline constexpr std::uint32_t kTdrl = 0x30;
inline constexpr std::uint32_t kTdrhp = 0x34;
inline constexpr std::uint32_t kTdrtpInc = 0x38;  ///< the M2S doorbell
inline constexpr std::uint32_t kTdrtp = 0x3C;
inline constexpr std::uint32_t kTdcp = 0x40;
inline constexpr std::uint32_t kTcrhp = 0x4C;
inline constexpr std::uint32_t kTcrhpInternal = 0x50;
/// rate_limit_mask: bit 2 internal_pause_dmb, reset 0b111. [DRV] udma-facts §2.1
inline constexpr std::uint32_t kRateLimitMask = 0x74;
inline constexpr std::uint32_t kCompCfg = 0xA0;
inline constexpr std::uint32_t kQSwCtrl = 0xB0;
inline constexpr std::uint32_t kQTxPkt = 0xC0;
inline constexpr std::uint32_t kTdrdtpInc = 0xE0;
}  // namespace m2s_q
namespace s2m_q {
inline constexpr std::uint32_t kCfg = 0x20;
inline constexpr std::uint32_t kStatus = 0x24;
inline constexpr std::uint32_t kRdrbpLow = 0x28;
inline constexpr std::uint32_t kRdrbpHigh = 0x2C;
inline constexpr std::uint32_t kRdrl = 0x30;
inline constexpr std::uint32_t kRdrhp = 0x34;
inline constexpr std::uint32_t kRdrtpInc = 0x38;  ///< the S2M doorbell
inline constexpr std::uint32_t kRdrtp = 0x3C;
inline constexpr std::uint32_t kRdcp = 0x40;
inline constexpr std::uint32_t kRcrhp = 0x4C;
inline constexpr std::uint32_t kRcrhpInternal = 0x50;
inline constexpr std::uint32_t kCompCfg = 0x54;
inline constexpr std::uint32_t kQSwCtrl = 0x64;
inline constexpr std::uint32_t kQRxPkt = 0x68;
}  // namespace s2m_q

/// Engine-global register offsets firmware and the device model name directly (UDMA_M2S and
/// UDMA_S2M blocks). [HIGH] wiki-facts §3.2/§3.4
namespace m2s_engine {
inline constexpr std::uint32_t kState = 0x200;
inline constexpr std::uint32_t kChangeState = 0x204;
inline constexpr std::uint32_t kErrLogMask = 0x20C;
inline constexpr std::uint32_t kCfgLen = 0x254;
inline constexpr std::uint32_t kPrefQueueEn = 0x25C;
}  // namespace m2s_engine
namespace s2m_engine {
inline constexpr std::uint32_t kState = 0x200;
inline constexpr std::uint32_t kChangeState = 0x204;
inline constexpr std::uint32_t kErrLogMask = 0x20C;
inline constexpr std::uint32_t kPrefQueueEn = 0x254;
}  // namespace s2m_engine

/// MISC register offsets. [DRV] udma-facts §2.4
namespace misc {
inline constexpr std::uint32_t kBroadcastCfgGroup = 0x100;
inline constexpr std::uint32_t kBroadcastCfgLastNode = 0x104;
inline constexpr std::uint32_t kBankSize = 0x1000;  ///< every MISC offset is below it
}  // namespace misc

/// The registers code serving both directions acts on, by role: the M2S and S2M names (and a
/// few offsets) differ. One description per direction, built from the named constants above.
struct QueueRegOffsets {
  std::uint32_t cfg;
  std::uint32_t status;
  std::uint32_t ring_base_low;   ///< TDRBP_low / RDRBP_low
  std::uint32_t ring_base_high;  ///< TDRBP_high / RDRBP_high
  std::uint32_t ring_len;        ///< TDRL / RDRL
  std::uint32_t head;            ///< TDRHP / RDRHP
  std::uint32_t doorbell;        ///< TDRTP_inc / RDRTP_inc
  std::uint32_t tail;            ///< TDRTP / RDRTP
  std::uint32_t current;         ///< TDCP / RDCP
  std::uint32_t comp_head;       ///< TCRHP / RCRHP
  std::uint32_t comp_cfg;
  std::uint32_t sw_ctrl;             ///< q_sw_ctrl
  std::uint32_t comp_head_internal;  ///< TCRHP_internal / RCRHP_internal
  std::uint32_t packets;             ///< q_tx_pkt / q_rx_pkt
};
/// Engine-global registers by role.
struct EngineRegOffsets {
  std::uint32_t state;
  std::uint32_t change_state;
  std::uint32_t err_log_mask;
  std::uint32_t pref_queue_en;
};
inline constexpr QueueRegOffsets kM2sQueueOffsets{
    m2s_q::kCfg,     m2s_q::kStatus,   m2s_q::kTdrbpLow,      m2s_q::kTdrbpHigh, m2s_q::kTdrl,
    m2s_q::kTdrhp,   m2s_q::kTdrtpInc, m2s_q::kTdrtp,         m2s_q::kTdcp,      m2s_q::kTcrhp,
    m2s_q::kCompCfg, m2s_q::kQSwCtrl,  m2s_q::kTcrhpInternal, m2s_q::kQTxPkt};
inline constexpr QueueRegOffsets kS2mQueueOffsets{
    s2m_q::kCfg,     s2m_q::kStatus,   s2m_q::kRdrbpLow,      s2m_q::kRdrbpHigh, s2m_q::kRdrl,
    s2m_q::kRdrhp,   s2m_q::kRdrtpInc, s2m_q::kRdrtp,         s2m_q::kRdcp,      s2m_q::kRcrhp,
    s2m_q::kCompCfg, s2m_q::kQSwCtrl,  s2m_q::kRcrhpInternal, s2m_q::kQRxPkt};
inline constexpr EngineRegOffsets kM2sEngineOffsets{m2s_engine::kState, m2s_engine::kChangeState,
                                                    m2s_engine::kErrLogMask,
                                                    m2s_engine::kPrefQueueEn};
inline constexpr EngineRegOffsets kS2mEngineOffsets{s2m_engine::kState, s2m_engine::kChangeState,
                                                    s2m_engine::kErrLogMask,
                                                    s2m_engine::kPrefQueueEn};
/// The queue / engine-global register offsets of direction `d`.
constexpr const QueueRegOffsets& queue_offsets(Direction d) {
  return d == Direction::kM2S ? kM2sQueueOffsets : kS2mQueueOffsets;
}
constexpr const EngineRegOffsets& engine_offsets(Direction d) {
  return d == Direction::kM2S ? kM2sEngineOffsets : kS2mEngineOffsets;
}
/// The queue / engine-global register table of direction `d`.
const RegBank& queue_bank(Direction d);
const RegBank& engine_bank(Direction d);

/// A field's bits as a 32-bit register value (fields of these registers lie in bits 31..0).
constexpr std::uint32_t reg_mask(base::BitField f) {
  return static_cast<std::uint32_t>(f.mask());
}

/// Fields firmware and the device model act on, the same in both directions unless named
/// M2S/S2M. The register tables use these very constants. [HIGH] wiki-facts §3.2-§3.4,
/// udma-facts §1.4, §2.1, §3.5, §3.6
namespace reg_field {
/// change_state commands (abort wins over dis, dis over normal).
inline constexpr base::BitField kChangeStateNormal = base::bit(0);
inline constexpr base::BitField kChangeStateDis = base::bit(1);
inline constexpr base::BitField kChangeStateAbort = base::bit(2);
/// state: the four sub-state fields (1 normal, 2 aborted, 0 otherwise).
inline constexpr base::BitField kStateCompCtrl{1, 0};
inline constexpr base::BitField kStateStreamIf{5, 4};
inline constexpr base::BitField kStateDataRdCtrl{9, 8};
inline constexpr base::BitField kStateDescPref{13, 12};
/// M2S queue rate_limit_mask.internal_pause_dmb: set (the reset value), the queue ignores
/// DMB and write_barrier; v2/v3 drivers clear it on TX queues. [DRV] udma-facts §2.1, §3.3
inline constexpr base::BitField kRateLimitMaskInternalPauseDmb = base::bit(2);
/// state.last_change_state_cmd (M2S only).
inline constexpr base::BitField kM2sStateLastChangeStateCmd{18, 16};
/// err_log_mask.pref_ring_id: M2S bit 17 (secondary group A), S2M bit 11 (group B).
inline constexpr base::BitField kM2sErrPrefRingId = base::bit(17);
inline constexpr base::BitField kS2mErrPrefRingId = base::bit(11);
/// M2S cfg_len: max_pkt_size (Cayman reset 64 KiB) and encode_64k (descriptor LEN 0 = 64 KiB).
/// [HIGH] wiki-facts §2.3, udma-facts §1.1
inline constexpr base::BitField kM2sCfgLenMaxPktSize{19, 0};
inline constexpr base::BitField kM2sCfgLenEncode64k = base::bit(24);
/// pref_queue_en: bit q enables queue q.
inline constexpr base::BitField kPrefQueueEn{15, 0};
/// Queue cfg: en_pref, and en_scheduling (M2S) / en_stream (S2M) at the same bit.
inline constexpr base::BitField kQCfgEnPref = base::bit(16);
inline constexpr base::BitField kM2sQCfgEnScheduling = base::bit(17);
inline constexpr base::BitField kS2mQCfgEnStream = base::bit(17);
/// Queue status.q_used.
inline constexpr base::BitField kQStatusUsed{24, 0};
/// Ring base low (64-byte aligned: addr[31:6]) and ring length in descriptors.
inline constexpr base::BitField kRingBaseLowAddr{31, 6};
inline constexpr base::BitField kRingLength{23, 0};
/// TDRTP_inc / RDRTP_inc / TDRDTP_inc: the increment (VAL_MASK 0xffffff).
inline constexpr base::BitField kIncVal{23, 0};
/// q_sw_ctrl pointer resets and the whole-queue reset.
inline constexpr base::BitField kQSwCtrlRstTailPtr = base::bit(1);
inline constexpr base::BitField kQSwCtrlRstHeadPtr = base::bit(2);
inline constexpr base::BitField kQSwCtrlRstCurrentPtr = base::bit(3);
inline constexpr base::BitField kQSwCtrlRstQ = base::bit(8);
/// comp_cfg.en_comp_ring_update.
inline constexpr base::BitField kCompCfgEnCompRingUpdate = base::bit(0);
/// BROADCAST_CFG_GROUP.mask: bit e = engine e of the group takes broadcast writes.
inline constexpr base::BitField kBroadcastCfgGroupMask{15, 0};
}  // namespace reg_field

/// The fields above that differ by direction.
/// cfg's second queue enable: en_scheduling (M2S) / en_stream (S2M).
constexpr base::BitField queue_run_enable(Direction d) {
  return d == Direction::kM2S ? reg_field::kM2sQCfgEnScheduling : reg_field::kS2mQCfgEnStream;
}
/// Both enables a queue needs to run (cfg.en_pref and the one above).
constexpr std::uint32_t queue_enables(Direction d) {
  return reg_mask(reg_field::kQCfgEnPref) | reg_mask(queue_run_enable(d));
}
/// err_log_mask.pref_ring_id.
constexpr base::BitField err_pref_ring_id(Direction d) {
  return d == Direction::kM2S ? reg_field::kM2sErrPrefRingId : reg_field::kS2mErrPrefRingId;
}

/// Pointer registers (head/tail/current): ring id [31:30], descriptor offset [23:0].
/// [HIGH] wiki-facts §3.3
inline constexpr base::BitField kPtrRingId{31, 30};
inline constexpr base::BitField kPtrOffset{23, 0};

}  // namespace sbrdma::soc
