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
inline constexpr std::uint32_t kCompCfg = 0xA0;
inline constexpr std::uint32_t kQSwCtrl = 0xB0;
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
inline constexpr std::uint32_t kCompCfg = 0x54;
inline constexpr std::uint32_t kQSwCtrl = 0x64;
}  // namespace s2m_q

/// Pointer registers (head/tail/current): ring id [31:30], descriptor offset [23:0].
/// [HIGH] wiki-facts §3.3
inline constexpr base::BitField kPtrRingId{31, 30};
inline constexpr base::BitField kPtrOffset{23, 0};

}  // namespace sbrdma::soc
