// The SDMA wrapper (MISC) registers. Source: udma-facts §2.4 (public driver), HIGH for names
// and offsets; reset values are not public and are 0 ([CHOICE D25] for the group mask).
#include "device/misc_regs.h"

#include <array>

namespace sbrdma::device {
namespace {

using base::bit;
using base::BitField;
using soc::Access;
using soc::RegDesc;
using soc::RegField;

constexpr std::array kEventAccelFields{RegField{"enable", bit(0)}};
constexpr std::array kRobWobFields{RegField{"en", bit(0)},
                                   RegField{"force_in_order", bit(1)},
                                   RegField{"clear", bit(2)},
                                   RegField{"use_rid_base", bit(3)},
                                   RegField{"rid_base", BitField{10, 4}},
                                   RegField{"powerdown", bit(31)}};
constexpr std::array kGroupFields{RegField{"mask", BitField{15, 0}}};  // [CHOICE D25] reset 0
constexpr std::array kLastNodeFields{RegField{"mask", BitField{15, 0}}};
constexpr std::array kTxdfFields{RegField{"overhead_beats", BitField{9, 0}}};

constexpr std::array kMiscRegs{
    RegDesc{"event_accel", 0x000, Access::kRW, 0, kEventAccelFields},
    RegDesc{"rob_cfg", 0x01C, Access::kRW, 0, kRobWobFields},
    RegDesc{"wob_cfg", 0x020, Access::kRW, 0, kRobWobFields},
    RegDesc{"BROADCAST_CFG_GROUP", misc_reg::kBroadcastCfgGroup, Access::kRW, 0, kGroupFields},
    RegDesc{"BROADCAST_CFG_LAST_NODE", misc_reg::kBroadcastCfgLastNode, Access::kRW, 0,
            kLastNodeFields},
    RegDesc{"model_robert_txdf", 0x800, Access::kRW, 0, kTxdfFields},
};

constexpr bool sorted() {
  for (std::size_t i = 1; i < kMiscRegs.size(); ++i) {
    if (kMiscRegs[i - 1].offset >= kMiscRegs[i].offset) return false;
  }
  return true;
}
static_assert(sorted(), "MISC offsets sorted and unique");

constexpr soc::RegBank kMiscBank{"MISC", 0x1000, kMiscRegs};

}  // namespace

const soc::RegBank& misc_bank() {
  return kMiscBank;
}

}  // namespace sbrdma::device
