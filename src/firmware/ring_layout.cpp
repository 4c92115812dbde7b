#include "firmware/ring_layout.h"

#include "base/check.h"
#include "soc/udma_regs.h"

namespace sbrdma::firmware {
namespace {

using soc::Direction;
using soc::reg_mask;
namespace rf = soc::reg_field;

std::uint32_t lo32(base::SocAddr a) {
  return static_cast<std::uint32_t>(a.v);
}
std::uint32_t hi32(base::SocAddr a) {
  return static_cast<std::uint32_t>(a.v >> 32);
}

/// Read-modify-write: set `set` bits, clear `clear` bits.
void update_reg(soc::MmioBus& bus, base::SocAddr a, std::uint32_t set, std::uint32_t clear) {
  bus.write32(a, (bus.read32(a) & ~clear) | set);
}

/// One direction of one engine: ring pointers, no completion ring, queue enables.
base::Status init_queue(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                        unsigned engine, Direction dir, unsigned q, base::SocAddr ring,
                        unsigned depth) {
  const soc::QueueRegOffsets& r = soc::queue_offsets(dir);
  auto reg = [&](std::uint32_t off) { return map.queue_reg_addr(tpb, engine, dir, q, off); };
  for (const std::uint32_t off :
       {r.ring_base_low, r.ring_base_high, r.ring_len, r.comp_cfg, r.cfg}) {
    if (auto a = reg(off); !a) return a.error();
  }
  // 1. ring base and length (in descriptors)            [HIGH] wiki-facts §3.5
  bus.write32(*reg(r.ring_base_low), lo32(ring));
  bus.write32(*reg(r.ring_base_high), hi32(ring));
  bus.write32(*reg(r.ring_len), depth);
  // 2. no completion ring: en_comp_ring_update off      [DRV] udma-facts §3.2 step 4
  update_reg(bus, *reg(r.comp_cfg), 0, reg_mask(rf::kCompCfgEnCompRingUpdate));
  // 3. queue enables: en_pref | en_scheduling (M2S) / en_stream (S2M)
  //                                                      [DRV] udma-facts §3.2 step 5
  update_reg(bus, *reg(r.cfg), soc::queue_enables(dir), 0);
  return base::ok_status();
}

}  // namespace

base::Result<RingLayout> ring_layout(const soc::AddressMap& map, unsigned tpb,
                                     const FirmwareConfig& cfg) {
  auto dge = map.dge_memory_base(tpb);
  if (!dge) return dge.error();
  return RingLayout(*dge, cfg.ring_depth);
}

base::Result<base::SocAddr> bcast_group_cfg_addr(const soc::AddressMap& map, unsigned tpb) {
  // the group's first channel [CHOICE D18a]
  return map.misc_reg_addr(tpb, 0, soc::misc::kBroadcastCfgGroup);
}

base::Status ring_init(soc::MmioBus& bus, const soc::AddressMap& map, const CoreIdentity& id,
                       const FirmwareConfig& cfg) {
  SBRDMA_TRY(check_config(cfg, id, map.profile()));
  auto layout = ring_layout(map, id.tpb, cfg);
  if (!layout) return layout.error();
  // change_state.normal: a cold engine is not armed until normal = 1. [HIGH] wiki-facts §3.2
  const std::uint32_t normal = reg_mask(rf::kChangeStateNormal);
  for (unsigned e = 0; e < kRdmaEngines; ++e) {
    for (const Direction dir : {Direction::kM2S, Direction::kS2M}) {
      SBRDMA_TRY(init_queue(bus, map, id.tpb, e, dir, cfg.ring_num, layout->ring_base(e, dir),
                            cfg.ring_depth));
    }
    for (const Direction dir : {Direction::kM2S, Direction::kS2M}) {
      auto a = map.engine_reg_addr(id.tpb, e, dir, soc::engine_offsets(dir).change_state);
      if (!a) return a.error();
      bus.write32(*a, normal);
    }
  }
  auto group = bcast_group_cfg_addr(map, id.tpb);
  if (!group) return group.error();
  bus.write32(*group, kAllEngines);
  bus.write32(layout->one_word(), kOneWordValue);
  return base::ok_status();
}

}  // namespace sbrdma::firmware
