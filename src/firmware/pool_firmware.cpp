#include "firmware/pool_firmware.h"

namespace sbrdma::firmware {

PoolFirmware::PoolFirmware(Q7Env& env, const soc::AddressMap& map, CoreIdentity id,
                           FirmwareConfig cfg)
    : env_(env), map_(map), id_(id), cfg_(cfg) {}

base::Status PoolFirmware::ring_init() {
  layout_.reset();
  SBRDMA_TRY(firmware::ring_init(env_.bus(), map_, id_, cfg_));
  auto layout = ring_layout(map_, id_.tpb, cfg_);
  if (!layout) return layout.error();
  // Both roles start from fresh rings: tail 0, ring id 1. [CHOICE D2]
  for (const Role role : {Role::kRx, Role::kTx}) {
    const soc::Direction dir = direction_of(role);
    std::array<base::SocAddr, kRdmaEngines> bases{};
    for (unsigned e = 0; e < kRdmaEngines; ++e) bases[e] = layout->ring_base(e, dir);
    streams_[index(role)].reset(bases, cfg_.ring_depth);
  }
  // Each Q7 of the pair keeps the role it plays, for rdma_desc_start to check. [CHOICE D36]
  for (const Role role : {Role::kRx, Role::kTx}) {
    env_.local_store32(role_word_addr(prid_of(role)), role_bit(role));
  }
  layout_ = *layout;
  unstarted_.reset();
  return base::ok_status();
}

base::SocAddr PoolFirmware::role_word_addr(unsigned prid) const {
  return map_.tpb_base(id_.tpb).value() + soc::cayman_map::kQ7Dram +
         std::uint64_t{prid} * soc::cayman_map::kQ7Pitch + kRoleWordOffset;
}

void PoolFirmware::fail(std::string message) {
  if (env_.debug_enabled()) debug(message);
  errors_.push_back(FirmwareError{id_, pc_, std::move(message), std::move(fail_detail_)});
  fail_detail_.clear();
}

base::Status PoolFirmware::sem_write(unsigned core, soc::SemWindow w, unsigned idx,
                                     std::uint32_t value) {
  auto own_die = map_.die_of(id_.tpb);
  if (!own_die) return own_die.error();
  auto target = map_.sem_window_addr(core, w, idx);
  if (!target) return target.error();
  const soc::ChipDie here{id_.chip, *own_die};
  const soc::ChipDie there{id_.chip, map_.die_of(core).value()};
  // Another core of this chip may sit on the other die: route like the data. [CHOICE D9]
  auto routed = soc::fold_route(soc::LocalAddr(*target).local(), here, there);
  if (!routed) return routed.error();
  env_.bus().write32(*routed, value);
  return base::ok_status();
}

}  // namespace sbrdma::firmware
