#include "firmware/ring_layout.h"

#include "base/check.h"
#include "soc/udma_regs.h"

namespace sbrdma::firmware {
namespace {

using soc::Direction;

/// Mask of the named field of a queue register, from the register tables (one description).
std::uint32_t field_mask(const soc::RegBank& bank, std::uint32_t reg_offset,
                         std::string_view field) {
  const soc::RegDesc* reg = soc::find_reg(bank.regs, reg_offset);
  SBRDMA_CHECK(reg != nullptr);
  const soc::RegField* f = soc::find_field(*reg, field);
  SBRDMA_CHECK(f != nullptr);
  return static_cast<std::uint32_t>(f->bits.mask());
}

/// Offset of an engine-global register, by name.
std::uint32_t engine_reg(const soc::RegBank& bank, std::string_view name) {
  const soc::RegDesc* reg = soc::find_reg(bank.regs, name);
  SBRDMA_CHECK(reg != nullptr);
  return reg->offset;
}

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
  const bool m2s = dir == Direction::kM2S;
  const soc::RegBank& bank = m2s ? soc::m2s_queue_bank() : soc::s2m_queue_bank();
  auto reg = [&](std::uint32_t off) { return map.queue_reg_addr(tpb, engine, dir, q, off); };
  const std::uint32_t base_low = m2s ? soc::m2s_q::kTdrbpLow : soc::s2m_q::kRdrbpLow;
  const std::uint32_t base_high = m2s ? soc::m2s_q::kTdrbpHigh : soc::s2m_q::kRdrbpHigh;
  const std::uint32_t len = m2s ? soc::m2s_q::kTdrl : soc::s2m_q::kRdrl;
  const std::uint32_t comp_cfg = m2s ? soc::m2s_q::kCompCfg : soc::s2m_q::kCompCfg;
  const std::uint32_t cfg = m2s ? soc::m2s_q::kCfg : soc::s2m_q::kCfg;
  // [HIGH] wiki-facts §3.3/§3.4: queue enable = en_pref | en_scheduling (M2S), en_stream (S2M)
  const std::uint32_t enables =
      field_mask(bank, cfg, "en_pref") | field_mask(bank, cfg, m2s ? "en_scheduling" : "en_stream");

  for (const std::uint32_t off : {base_low, base_high, len, comp_cfg, cfg}) {
    if (auto a = reg(off); !a) return a.error();
  }
  // 1. ring base and length (in descriptors)            [HIGH] wiki-facts §3.5
  bus.write32(*reg(base_low), lo32(ring));
  bus.write32(*reg(base_high), hi32(ring));
  bus.write32(*reg(len), depth);
  // 2. no completion ring: en_comp_ring_update off      [HIGH] udma-facts §3.2 step 4
  update_reg(bus, *reg(comp_cfg), 0, field_mask(bank, comp_cfg, "en_comp_ring_update"));
  // 3. queue enables                                     [HIGH] udma-facts §3.2 step 5
  update_reg(bus, *reg(cfg), enables, 0);
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
  auto first = map.engine_base(tpb, 0);  // the group's first channel [CHOICE D18a]
  if (!first) return first.error();
  return *first + (soc::udma::kMiscBlock + kBroadcastCfgGroup);
}

base::Status ring_init(soc::MmioBus& bus, const soc::AddressMap& map, const CoreIdentity& id,
                       const FirmwareConfig& cfg) {
  SBRDMA_TRY(check_config(cfg, id, map.profile()));
  auto layout = ring_layout(map, id.tpb, cfg);
  if (!layout) return layout.error();
  // change_state.normal: a cold engine is not armed until normal = 1. [HIGH] wiki-facts §3.2
  const std::uint32_t m2s_state = engine_reg(soc::m2s_engine_bank(), "change_state");
  const std::uint32_t s2m_state = engine_reg(soc::s2m_engine_bank(), "change_state");
  const std::uint32_t normal = 1;  // change_state.normal[0]
  for (unsigned e = 0; e < kRdmaEngines; ++e) {
    for (const Direction dir : {Direction::kM2S, Direction::kS2M}) {
      SBRDMA_TRY(init_queue(bus, map, id.tpb, e, dir, cfg.ring_num, layout->ring_base(e, dir),
                            cfg.ring_depth));
    }
    auto eng = map.engine_base(id.tpb, e);
    if (!eng) return eng.error();
    bus.write32(*eng + (soc::udma::kM2sBlock + m2s_state), normal);
    bus.write32(*eng + (soc::udma::kS2mBlock + s2m_state), normal);
  }
  auto group = bcast_group_cfg_addr(map, id.tpb);
  if (!group) return group.error();
  bus.write32(*group, kAllEngines);
  bus.write32(layout->one_word(), kOneWordValue);
  return base::ok_status();
}

}  // namespace sbrdma::firmware
