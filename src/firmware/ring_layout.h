#pragma once
/// Where the RDMA rings live and how the runtime brings their queues up at boot. [CHOICE D3,
/// D20]
///
///  DGE_MEMORY of a core (1 GiB)                                              [CHOICE D20a]
///  +0x000  the "one" word: u32 1, read by the M2S half of every semaphore descriptor
///  +0x100  engine 0 M2S ring  (ring_depth x 16 B)
///          engine 0 S2M ring
///          engine 1 M2S ring
///          ...
///          engine 15 S2M ring    ring (e, d) at 0x100 + (2e + d) * ring_depth * 16
///  Every ring base is 256-byte aligned (ring_depth is a multiple of 16).
///
///  Broadcast group register: BROADCAST_CFG_GROUP (soc::misc::kBroadcastCfgGroup) of the
///  group's first channel; bit e set = engine e of the group takes broadcast writes.
///  [DRV] udma-facts §2.4 (offset), [CHOICE D22b] (meaning)

#include <cstdint>

#include "base/result.h"
#include "base/units.h"
#include "firmware/config.h"
#include "firmware/env.h"
#include "soc/address_map.h"
#include "soc/mmio_bus.h"

namespace sbrdma::firmware {

/// DGE_MEMORY offsets. [CHOICE D20a]
inline constexpr std::uint64_t kOneWordOffset = 0x0;
inline constexpr std::uint64_t kRingsOffset = 0x100;
inline constexpr std::uint32_t kOneWordValue = 1;
/// Ring base alignment. [DRV] udma-facts §3.2 (base 256-byte aligned)
inline constexpr std::uint64_t kRingAlign = 256;
/// Value that lets every engine of the group take broadcast writes. [CHOICE D22b]
inline constexpr std::uint32_t kAllEngines = soc::reg_mask(soc::reg_field::kBroadcastCfgGroupMask);

/// The queue a role drives: TX the M2S (read local) queue, RX the S2M (write remote) one.
/// [HIGH] spec §3 (token adjacency TX\0RX\0 / M2S\0S2M\0)
constexpr soc::Direction direction_of(Role r) {
  return r == Role::kTx ? soc::Direction::kM2S : soc::Direction::kS2M;
}

/// The ring addresses of one core.
class RingLayout {
 public:
  /// Contract: `depth` passed check_config.
  RingLayout(base::SocAddr dge_base, unsigned depth) : dge_(dge_base), depth_(depth) {}

  [[nodiscard]] unsigned depth() const { return depth_; }
  [[nodiscard]] std::uint64_t ring_bytes() const { return std::uint64_t{depth_} * 16; }
  /// The u32 1 semaphore descriptors copy.
  [[nodiscard]] base::SocAddr one_word() const { return dge_ + kOneWordOffset; }
  /// First descriptor of engine `engine`'s ring in direction `dir`.
  [[nodiscard]] base::SocAddr ring_base(unsigned engine, soc::Direction dir) const {
    const unsigned slot = 2 * engine + (dir == soc::Direction::kS2M ? 1 : 0);
    return dge_ + (kRingsOffset + slot * ring_bytes());
  }

 private:
  base::SocAddr dge_;
  unsigned depth_;
};

/// The layout of core `tpb`.
base::Result<RingLayout> ring_layout(const soc::AddressMap& map, unsigned tpb,
                                     const FirmwareConfig& cfg);

/// BROADCAST_CFG_GROUP of core `tpb`'s engine group.
base::Result<base::SocAddr> bcast_group_cfg_addr(const soc::AddressMap& map, unsigned tpb);

/// What the runtime does at boot, through MMIO only: per engine, queue ring_num of M2S and
/// S2M gets its ring base (low, high) and length, no completion ring (comp_cfg
/// en_comp_ring_update cleared), its queue enables (M2S en_pref|en_scheduling, S2M
/// en_pref|en_stream, read-modify-write), then the engine's M2S and S2M change_state = normal;
/// then the group's BROADCAST_CFG_GROUP = 0xFFFF; then the one word. [CHOICE D20b]
/// Errors: the configuration does not fit the map (check_config).
base::Status ring_init(soc::MmioBus& bus, const soc::AddressMap& map, const CoreIdentity& id,
                       const FirmwareConfig& cfg);

}  // namespace sbrdma::firmware
