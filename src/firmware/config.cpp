#include "firmware/config.h"

#include <fmt/format.h>

namespace sbrdma::firmware {

base::Status check_config(const FirmwareConfig& cfg, const CoreIdentity& id,
                          const soc::Profile& profile) {
  if (profile.decode_only) {
    return base::make_error(
        fmt::format("profile {} is decode-only: no firmware runs on it", profile.name));
  }
  if (id.tpb >= profile.cores_per_chip) {
    return base::make_error(fmt::format("tpb_idx {} out of range (0..{} on {})", id.tpb,
                                        profile.cores_per_chip - 1, profile.name));
  }
  if (id.chip >= profile.max_chips) {
    return base::make_error(
        fmt::format("routing id {} out of range (0..{})", id.chip, profile.max_chips - 1));
  }
  if (profile.dma_engines_per_tpb != kRdmaEngines) {
    return base::make_error(
        fmt::format("profile {} has {} DMA engines per TPB; the RDMA "
                    "firmware drives {}",
                    profile.name, profile.dma_engines_per_tpb, kRdmaEngines));
  }
  if (cfg.ring_num >= profile.queues_per_engine) {
    return base::make_error(fmt::format("ring_num {} out of range (0..{})", cfg.ring_num,
                                        profile.queues_per_engine - 1));
  }
  if (cfg.ring_depth < kMinRingDepth || cfg.ring_depth > kMaxRingDepth ||
      cfg.ring_depth % 16 != 0) {
    return base::make_error(fmt::format("rdma_ring_depth {} must be a multiple of 16 in {}..{}",
                                        cfg.ring_depth, kMinRingDepth, kMaxRingDepth));
  }
  for (const unsigned s : {cfg.sb2sb_sems.ready, cfg.sb2sb_sems.local, cfg.sb2sb_sems.remote}) {
    if (s >= profile.semaphores) {
      return base::make_error(
          fmt::format("SB2SB semaphore {} out of range (0..{})", s, profile.semaphores - 1));
    }
  }
  for (const std::uint8_t s : cfg.sbuf_swizzle) {
    if (s >= kRdmaEngines) {
      return base::make_error(
          fmt::format("shuffled_sbuf_swizzle entry {} out of range (0..{})", s, kRdmaEngines - 1));
    }
  }
  return base::ok_status();
}

std::string FirmwareError::format() const {
  return fmt::format("chip {} core {} word {}: {}", core.chip, core.tpb, pc, message);
}

}  // namespace sbrdma::firmware
