#pragma once
/// The SDMA wrapper ("APP/misc", tdma_model) registers next to each UDMA, at channel +0x40000.
/// The soc tables cover UDMA_M2S/S2M; this is the small MISC bank the device model needs for
/// the broadcast aperture's group mask ([CHOICE D8], [CHOICE D22b], [CHOICE D25]). [HIGH]
/// udma-facts §2.4
///
///   MISC +0x000 event_accel            RW  bit0 enable
///   MISC +0x01C rob_cfg                RW
///   MISC +0x020 wob_cfg                RW
///   MISC +0x100 BROADCAST_CFG_GROUP    RW  mask[15:0]: engines of the group a BCAST write reaches
///   MISC +0x104 BROADCAST_CFG_LAST_NODE RW
///   MISC +0x800 model_robert_txdf      RW  [9:0]

#include <cstdint>

#include "soc/udma_regs.h"

namespace sbrdma::device {

namespace misc_reg {
inline constexpr std::uint32_t kBroadcastCfgGroup = 0x100;
inline constexpr std::uint32_t kBroadcastCfgLastNode = 0x104;
}  // namespace misc_reg

/// The MISC bank (offsets from the channel's MISC block).
const soc::RegBank& misc_bank();

}  // namespace sbrdma::device
