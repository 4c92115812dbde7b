#include "device/udma_driver.h"

namespace sbrdma::device {
namespace {

using soc::Direction;
namespace rf = soc::reg_field;
using soc::reg_mask;

}  // namespace

base::Status start_engine(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                          unsigned engine) {
  for (Direction d : {Direction::kM2S, Direction::kS2M}) {
    auto a = map.engine_reg_addr(tpb, engine, d, soc::engine_offsets(d).change_state);
    if (!a) return a.error();
    bus.write32(*a, reg_mask(rf::kChangeStateNormal));
  }
  return base::ok_status();
}

base::Status init_queue(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                        unsigned engine, Direction dir, unsigned queue, base::SocAddr ring,
                        std::uint32_t ring_len) {
  const soc::QueueRegOffsets& q = soc::queue_offsets(dir);
  auto reg = [&](std::uint32_t off) { return map.queue_reg_addr(tpb, engine, dir, queue, off); };
  auto cfg = reg(q.cfg);
  if (!cfg) return cfg.error();
  const std::uint32_t en = soc::queue_enables(dir);
  const std::uint32_t cfg_now = bus.read32(*cfg);
  bus.write32(*cfg, cfg_now & ~en);                                               // 1.
  bus.write32(reg(q.sw_ctrl).value(), reg_mask(rf::kQSwCtrlRstQ));                // 2.
  bus.write32(reg(q.ring_base_low).value(), static_cast<std::uint32_t>(ring.v));  // 3.
  bus.write32(reg(q.ring_base_high).value(), static_cast<std::uint32_t>(ring.v >> 32));
  bus.write32(reg(q.ring_len).value(), ring_len);
  bus.write32(*cfg, cfg_now | en);  // 4.
  if (dir == Direction::kM2S) {     // 5. v2/v3 TX queues: DMB on [DRV] udma-facts §3.3
    const base::SocAddr mask = reg(soc::m2s_q::kRateLimitMask).value();
    bus.write32(mask, bus.read32(mask) & ~reg_mask(rf::kRateLimitMaskInternalPauseDmb));
  }
  return base::ok_status();
}

base::Status ring_doorbell(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                           unsigned engine, Direction dir, unsigned queue, std::uint32_t n) {
  auto a = map.queue_reg_addr(tpb, engine, dir, queue, soc::queue_offsets(dir).doorbell);
  if (!a) return a.error();
  bus.write32(*a, n);
  return base::ok_status();
}

base::Status ring_broadcast_doorbell(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                                     Direction dir, unsigned queue, std::uint32_t n) {
  auto a = map.bcast_addr(tpb, dir, queue, soc::queue_offsets(dir).doorbell);
  if (!a) return a.error();
  bus.write32(*a, n);
  return base::ok_status();
}

base::Status set_broadcast_group(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                                 std::uint16_t mask) {
  auto a = map.misc_reg_addr(tpb, 0, soc::misc::kBroadcastCfgGroup);
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
