// The lowered collectives under the race checker (SimOptions::check_races, D49): every
// operation and algorithm, over several iterations (a buffer of one is reused by the next),
// orders every pair of accesses to the same bytes by its semaphores. And the checker is live
// in these runs: the same program with one wait dropped reports races.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "collectives/communicator.h"
#include "collectives/lower.h"
#include "isa/enums.h"
#include "isa/views.h"
#include "isa/word.h"
#include "platform/collective_runner.h"
#include "platform/simulation.h"
#include "platform/topology_json.h"

namespace sbrdma::platform {
namespace {

using collectives::Algorithm;
using collectives::Op;

struct Case {
  Op op;
  Algorithm algorithm;
  unsigned ranks;
  std::uint64_t bytes;
  const char* topology;
};

/// The collective's programs, lowered for `c` with three iterations.
collectives::Lowered lowered(const Case& c, device::Topology& topo) {
  const collectives::Geometry geom = geometry_of(topo);
  auto comm = collectives::default_communicator(geom, c.ranks);
  EXPECT_TRUE(comm.ok()) << comm.error().message;
  collectives::LowerRequest req;
  req.op = c.op;
  req.bytes = c.bytes;
  req.algorithm = c.algorithm;
  req.iterations = 3;
  auto low = collectives::lower(geom, *comm, req);
  EXPECT_TRUE(low.ok()) << low.error().message;
  return low.ok() ? std::move(*low) : collectives::Lowered{};
}

/// The run of `programs` under the race checker (timing only: races do not need the bytes).
RunReport checked_run(const device::Topology& topo,
                      const std::vector<collectives::CoreProgram>& programs) {
  SimOptions o;
  o.timing_only = true;
  o.check_races = true;
  auto sim = Simulation::create(topo, o);
  EXPECT_TRUE(sim.ok()) << sim.error().message;
  if (!sim.ok()) return {};
  for (const auto& p : programs) EXPECT_TRUE((*sim)->load_program(p.core, p.words).ok());
  auto rep = (*sim)->run();
  EXPECT_TRUE(rep.ok()) << rep.error().message;
  return rep.ok() ? std::move(*rep) : RunReport{};
}

std::string describe(const Case& c) {
  return "op " + std::to_string(static_cast<int>(c.op)) + " algorithm " +
         std::to_string(static_cast<int>(c.algorithm)) + " ranks " + std::to_string(c.ranks);
}

TEST(RaceFree, EveryCollectiveOrdersItsAccesses) {
  const std::vector<Case> cases = {
      {Op::kAllReduce, Algorithm::kRing, 4, 64 << 10, "trn2"},
      {Op::kAllReduce, Algorithm::kRing, 3, 100'003, "trn2"},
      {Op::kAllReduce, Algorithm::kMesh, 5, 12'345, "trn2"},
      {Op::kAllReduce, Algorithm::kRdh, 8, 256 << 10, "trn2"},
      {Op::kAllReduce, Algorithm::kHierarchical, 16, 64 << 10, "trn2.48xlarge"},
      {Op::kAllGather, Algorithm::kRing, 7, 300'007, "trn2"},
      {Op::kAllGather, Algorithm::kMesh, 8, 64 << 10, "trn2"},
      {Op::kAllGather, Algorithm::kRing, 3, 1'001, "trn2"},
      {Op::kAllGather, Algorithm::kRdh, 4, 64 << 10, "trn2"},
      {Op::kAllGather, Algorithm::kRdh, 8, 12'345, "trn2"},
      {Op::kAllGather, Algorithm::kHierarchical, 16, 64 << 10, "trn2.48xlarge"},
      {Op::kReduceScatter, Algorithm::kRing, 6, 200'000, "trn2"},
      {Op::kReduceScatter, Algorithm::kMesh, 8, 64 << 10, "trn2"},
      {Op::kReduceScatter, Algorithm::kRdh, 8, 64 << 10, "trn2"},
      {Op::kReduceScatter, Algorithm::kHierarchical, 16, 64 << 10, "trn2.48xlarge"},
      {Op::kAllToAll, Algorithm::kMesh, 8, 64 << 10, "trn2"},
      {Op::kAllToAll, Algorithm::kRing, 8, 64 << 10, "trn2"},
      {Op::kAllToAll, Algorithm::kRdh, 8, 64 << 10, "trn2"},
      {Op::kSendRecv, Algorithm::kAuto, 2, 64 << 10, "trn2"},
      {Op::kPermute, Algorithm::kAuto, 8, 64 << 10, "trn2"},
  };
  for (const Case& c : cases) {
    auto topo = load_topology(c.topology);
    ASSERT_TRUE(topo.ok());
    const collectives::Lowered low = lowered(c, *topo);
    const RunReport r = checked_run(*topo, low.programs);
    EXPECT_GT(r.stats.descriptors, 0U) << describe(c);
    std::string first;
    if (!r.races.empty()) first = device::RaceChecker::where(r.races.front().race);
    EXPECT_EQ(r.races_total, 0U) << describe(c) << ": first at " << first;
    EXPECT_TRUE(r.ok()) << describe(c);
  }
}

TEST(RaceFree, RelayedLegsOrderTheirSlotsAcrossIterations) {
  // On trn2u, a leg into chip 24's other die goes through a relay core (D30g), whose slot
  // every iteration writes again: the sender's next first hop must not overwrite it before the
  // relay has forwarded the last one. Groups whose legs go through relays, one for each
  // collective that lowered them without a credit (the reviewer's cases).
  auto topo = load_topology("trn2u");
  ASSERT_TRUE(topo.ok());
  const collectives::Geometry geom = geometry_of(*topo);
  const std::vector<collectives::CoreId> pair = {139, 197};
  std::vector<collectives::CoreId> sixteen = {0, 1, 2, 3, 4, 5, 6, 7, 192, 193, 196, 197};
  for (collectives::CoreId c = 200; c < 204; ++c) sixteen.push_back(c);
  struct Relayed {
    Op op;
    Algorithm algorithm;
    std::vector<collectives::CoreId> group;
  };
  const std::vector<Relayed> cases = {
      {Op::kSendRecv, Algorithm::kAuto, pair},
      {Op::kPermute, Algorithm::kAuto, pair},
      {Op::kAllGather, Algorithm::kMesh, pair},
      {Op::kAllGather, Algorithm::kRing, pair},
      {Op::kAllToAll, Algorithm::kMesh, pair},
      {Op::kAllToAll, Algorithm::kRdh, pair},
      {Op::kAllToAll, Algorithm::kMesh, sixteen},
      {Op::kAllReduce, Algorithm::kMesh, sixteen},
      // Forwarding all-gathers, fenced (D49b), whose fences' credits are relayed too.
      {Op::kAllGather, Algorithm::kRdh, sixteen},
      {Op::kAllGather, Algorithm::kHierarchical, sixteen},
  };
  for (const Relayed& c : cases) {
    const collectives::Communicator comm{{c.group}};
    ASSERT_TRUE(collectives::has_relayed_pair(geom, c.group));
    collectives::LowerRequest req;
    req.op = c.op;
    req.bytes = 3 << 10;
    req.algorithm = c.algorithm;
    req.iterations = 3;
    auto low = collectives::lower(geom, comm, req);
    ASSERT_TRUE(low.ok()) << low.error().message;
    ASSERT_GT(low->stats.relayed_legs, 0U);
    const RunReport r = checked_run(*topo, low->programs);
    const std::string what = describe(Case{c.op, c.algorithm, comm.ranks(), req.bytes, "trn2u"});
    std::string first;
    if (!r.races.empty()) first = device::RaceChecker::where(r.races.front().race);
    EXPECT_EQ(r.races_total, 0U) << what << ": first at " << first;
    EXPECT_TRUE(r.ok()) << what;
  }
}

TEST(RaceFree, ARingWithOneWaitDroppedRaces) {
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  const Case c{Op::kAllReduce, Algorithm::kRing, 4, 64 << 10, "trn2"};
  collectives::Lowered low = lowered(c, *topo);
  // Core 1's first EVENT_SEMAPHORE wait (its first piece arrived) waits for nothing.
  constexpr std::size_t kWaitModeByte = 4;  // every word's events header [HIGH] layout
  bool dropped = false;
  for (auto& p : low.programs) {
    if (p.core != 1) continue;
    for (isa::Word& w : p.words) {
      if (w[0] != isa::kOpcodeEventSemaphore ||
          isa::decode_events(w).wait_mode == isa::WaitMode::kNone) {
        continue;
      }
      w[kWaitModeByte] = static_cast<std::uint8_t>(isa::WaitMode::kNone);
      ASSERT_EQ(isa::decode_events(w).wait_mode, isa::WaitMode::kNone);
      dropped = true;
      break;
    }
    break;
  }
  ASSERT_TRUE(dropped);
  const RunReport r = checked_run(*topo, low.programs);
  EXPECT_GT(r.races_total, 0U);
  EXPECT_FALSE(r.ok());
  // `bench --check-races` fails such a run with one error: the count and the first race.
  const std::string e = races_error(r).message;
  EXPECT_EQ(e.find(fmt::format("the collective's programs race ({} races in all; the first: t=",
                               r.races_total)),
            0U)
      << e;
  const std::string line = report_failures(r).front().message;  // "race: t=..."
  ASSERT_EQ(line.rfind("race: ", 0), 0U);
  EXPECT_NE(e.find(line.substr(6)), std::string::npos) << e;
  EXPECT_NE(e.find("`--dump-programs DIR`, then `sbrdma run DIR --check-races` with the same "
                   "--topology and --param"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace sbrdma::platform
