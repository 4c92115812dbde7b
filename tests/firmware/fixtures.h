#pragma once
/// One core's firmware on a ScriptedEnv, and builders for the words the tests feed it.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "firmware/fake_env.h"
#include "firmware/pool_firmware.h"
#include "firmware/ring_layout.h"
#include "isa/views.h"
#include "soc/udma_descriptor.h"

namespace sbrdma::firmware::testing {

/// An rdma_desc_gen request (immediates everywhere).
inline isa::RdmaDescGen make_gen(std::uint32_t mask, std::uint32_t free_dim_bytes,
                                 std::uint32_t src, std::uint32_t dst, unsigned peer_core,
                                 std::uint32_t routing_id, std::uint8_t local_sem = 3,
                                 std::uint8_t remote_sem = 5) {
  isa::RdmaDescGen g;
  g.local_sem = local_sem;
  g.remote_sem = remote_sem;
  g.remote_core_id.imm = peer_core;
  g.remote_routing_id.imm = routing_id;
  g.dma_engine_mask.imm = mask;
  g.src_addr.value = src;
  g.dst_addr.value = dst;
  g.free_dim_bytes = free_dim_bytes;
  return g;
}

/// A booted core: ScriptedEnv + PoolFirmware after ring_init.
struct Core {
  explicit Core(unsigned tpb = 0, std::uint32_t chip = 0, FirmwareConfig cfg = {},
                const soc::AddressMap& map = cayman_map())
      : env(map, tpb, chip), fw(env, map, CoreIdentity{tpb, chip}, cfg) {
    const base::Status st = fw.ring_init();
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
    boot_actions = env.actions.size();
  }

  /// Runs gen to its end (it never waits).
  base::Status gen(const isa::RdmaDescGen& g) {
    auto t = fw.rdma_desc_gen(g);
    SBRDMA_CHECK(drive(t));
    return t.take_result();
  }
  /// Runs start to its end (RX pushes before TX pops, so it never waits).
  base::Status start() {
    auto t = fw.rdma_desc_start();
    SBRDMA_CHECK(drive(t));
    return t.take_result();
  }

  /// Descriptor `slot` of `engine`'s ring in direction `dir`, as it lies in DGE memory.
  soc::UdmaDescriptor desc(unsigned engine, soc::Direction dir, unsigned slot) {
    const RingLayout layout = ring_layout(cayman_map(), fw.identity().tpb, fw.config()).value();
    const auto bytes = env.recording_bus().load(
        (layout.ring_base(engine, dir) + std::uint64_t{slot} * soc::kDescBytes).v, soc::kDescBytes);
    return soc::decode_descriptor(std::span<const std::uint8_t, soc::kDescBytes>(bytes));
  }

  /// The actions after boot.
  std::vector<Action> run_actions() const {
    return {env.actions.begin() + static_cast<std::ptrdiff_t>(boot_actions), env.actions.end()};
  }

  ScriptedEnv env;
  PoolFirmware fw;
  std::size_t boot_actions = 0;
};

}  // namespace sbrdma::firmware::testing
