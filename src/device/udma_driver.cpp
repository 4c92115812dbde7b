#include "device/udma_driver.h"

#include "device/misc_regs.h"

namespace sbrdma::device {
namespace {

using soc::Direction;
constexpr std::uint32_t kEnPref = 1U << 16;           // cfg.en_pref [HIGH] wiki-facts §3.3
constexpr std::uint32_t kEnSchedOrStream = 1U << 17;  // en_scheduling (M2S) / en_stream (S2M)
constexpr std::uint32_t kRstQ = 1U << 8;              // q_sw_ctrl.rst_q
constexpr std::uint32_t kNormal = 1U << 0;            // change_state.normal
constexpr std::uint32_t kChangeState = 0x204;         // [HIGH] wiki-facts §3.2

base::Result<base::SocAddr> engine_reg(const soc::AddressMap& map, unsigned tpb, unsigned engine,
                                       Direction dir, std::uint32_t offset) {
  auto base = map.engine_base(tpb, engine);
  if (!base) return base.error();
  return *base + ((dir == Direction::kM2S ? soc::udma::kM2sBlock : soc::udma::kS2mBlock) + offset);
}

}  // namespace

base::Status start_engine(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                          unsigned engine) {
  for (Direction d : {Direction::kM2S, Direction::kS2M}) {
    auto a = engine_reg(map, tpb, engine, d, kChangeState);
    if (!a) return a.error();
    bus.write32(*a, kNormal);
  }
  return base::ok_status();
}

base::Status init_queue(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                        unsigned engine, Direction dir, unsigned queue, base::SocAddr ring,
                        std::uint32_t ring_len) {
  namespace q = soc::m2s_q;  // ring registers share offsets in both directions
  auto reg = [&](std::uint32_t off) { return map.queue_reg_addr(tpb, engine, dir, queue, off); };
  auto cfg = reg(q::kCfg);
  if (!cfg) return cfg.error();
  const std::uint32_t sw_ctrl = dir == Direction::kM2S ? q::kQSwCtrl : soc::s2m_q::kQSwCtrl;
  const std::uint32_t en = kEnPref | kEnSchedOrStream;
  const std::uint32_t cfg_now = bus.read32(*cfg);
  bus.write32(*cfg, cfg_now & ~en);                                            // 1.
  bus.write32(reg(sw_ctrl).value(), kRstQ);                                    // 2.
  bus.write32(reg(q::kTdrbpLow).value(), static_cast<std::uint32_t>(ring.v));  // 3.
  bus.write32(reg(q::kTdrbpHigh).value(), static_cast<std::uint32_t>(ring.v >> 32));
  bus.write32(reg(q::kTdrl).value(), ring_len);
  bus.write32(*cfg, cfg_now | en);  // 4.
  return base::ok_status();
}

base::Status ring_doorbell(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                           unsigned engine, Direction dir, unsigned queue, std::uint32_t n) {
  auto a = map.queue_reg_addr(tpb, engine, dir, queue, soc::m2s_q::kTdrtpInc);
  if (!a) return a.error();
  bus.write32(*a, n);
  return base::ok_status();
}

base::Status ring_broadcast_doorbell(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                                     Direction dir, unsigned queue, std::uint32_t n) {
  auto a = map.bcast_addr(tpb, dir, queue, soc::m2s_q::kTdrtpInc);
  if (!a) return a.error();
  bus.write32(*a, n);
  return base::ok_status();
}

base::Result<base::SocAddr> misc_reg_addr(const soc::AddressMap& map, unsigned tpb, unsigned engine,
                                          std::uint32_t offset) {
  auto base = map.engine_base(tpb, engine);
  if (!base) return base.error();
  return *base + (soc::udma::kMiscBlock + offset);
}

base::Status set_broadcast_group(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                                 std::uint16_t mask) {
  auto a = misc_reg_addr(map, tpb, 0, misc_reg::kBroadcastCfgGroup);
  if (!a) return a.error();
  bus.write32(*a, mask);
  return base::ok_status();
}

RingWriter::RingWriter(base::SocAddr base, std::uint32_t ring_len) : base_(base), len_(ring_len) {
  SBRDMA_CHECK(ring_len > 0);
}

std::uint32_t RingWriter::push(soc::MmioBus& bus, soc::UdmaDescriptor d) {
  d.word0 = static_cast<std::uint32_t>(soc::desc_word0::kRingId.set(d.word0, ring_id_));
  const std::uint32_t slot = slot_;
  bus.write_block(base_ + std::uint64_t{slot} * soc::kDescBytes, soc::encode_descriptor(d));
  if (++slot_ == len_) {  // wrap: the next pass uses the next ring id
    slot_ = 0;
    ring_id_ = (ring_id_ + 1) % 4;
  }
  return slot;
}

}  // namespace sbrdma::device
