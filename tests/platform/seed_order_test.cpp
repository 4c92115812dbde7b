// A tie seed (`sbrdma run --seed N`) shuffles same-tick events; program order must survive it.
// The reproduction: core 0 sends 256 bytes per partition to core 5 on engines 0-3 while core 5
// sends a semaphore-only transfer back on engine 0. Both start's triggers (BROADCAST_CFG_GROUP
// then doorbell, twice) were issued at one tick; a shuffle used to swap a group write and a
// doorbell, post 35 descriptors instead of 34 to engines 0-3 and stop a queue on pref_ring_id.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "platform/program_runner.h"
#include "platform/topology_json.h"

namespace sbrdma::platform {
namespace {

constexpr const char* kProgram =
    ".init core=0 addr=0 bytes=256 pattern=random:7\n"
    ".core 0\n"
    "rdma_desc_gen local_sem=1 remote_sem=2 remote_core_id=5 remote_routing_id=0 "
    "dma_engine_mask=0xf src_addr=0 dst_addr=0x10000 free_dim_bytes=256\n"
    "rdma_desc_start\n"
    ".core 5\n"
    "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=0 remote_routing_id=0 "
    "dma_engine_mask=0x1 free_dim_bytes=0\n"
    "rdma_desc_start\n"
    ".expect sem core=0 idx=1 value=16\n"
    ".expect sem core=5 idx=2 value=4\n"
    ".expect sem core=5 idx=3 value=16\n"
    ".expect sem core=0 idx=4 value=1\n"
    ".expect sbuf core=5 addr=0x10000 bytes=256 equals core=0 addr=0\n";

ProgramOutcome run_seeded(std::uint64_t seed) {
  auto topo = load_topology("trn2");
  SBRDMA_CHECK(topo.ok());
  const soc::Profile& p = **soc::find_profile(topo->profile());
  ProgramParse parsed = parse_program(kProgram, "seed.s", *topo, p);
  for (const auto& e : parsed.errors) ADD_FAILURE() << e.format();
  SimOptions opt;
  opt.seed = seed;
  auto out = run_program(parsed.program, std::move(*topo), opt);
  SBRDMA_CHECK(out.ok());
  return std::move(*out);
}

/// The final state of a run as text: time, changed semaphores, counters other than events.
std::string final_state(const RunReport& r) {
  std::string s = format_ns(r.end_time) + "\n";
  for (const CoreSemaphores& c : r.semaphores) {
    for (const SemaphoreChange& ch : c.changes) {
      s += "core " + std::to_string(c.core) + " sem[" + std::to_string(ch.idx) +
           "]=" + std::to_string(ch.after) + "\n";
    }
  }
  s += std::to_string(r.stats.descriptors) + " " + std::to_string(r.stats.data_bytes) + " " +
       std::to_string(r.stats.semaphore_writes) + " " + std::to_string(r.stats.mmio_writes);
  return s;
}

TEST(SeedOrder, BroadcastTriggersOfTwoCoresSurviveFiftySeeds) {
  const ProgramOutcome base = run_seeded(0);
  for (const base::Error& e : outcome_failures(base)) ADD_FAILURE() << e.format();
  ASSERT_TRUE(base.ok());
  const std::string want = final_state(base.report);
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const ProgramOutcome o = run_seeded(seed);
    for (const base::Error& e : outcome_failures(o))
      ADD_FAILURE() << "seed " << seed << ": " << e.format();
    EXPECT_TRUE(o.ok()) << "seed " << seed;
    EXPECT_EQ(final_state(o.report), want) << "seed " << seed;
  }
}

}  // namespace
}  // namespace sbrdma::platform
