// The shapes of all-to-all's algorithms, read back from the words they lower to: who sends
// to whom in which step, what each step waits for, how much scratch they take, and the
// errors of those that do not apply or do not fit. (The data check is correctness_test.cpp.)
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <set>

#include "collectives/harness.h"
#include "isa/views.h"

namespace sbrdma::collectives {
namespace {

using testing::small_geometry;

/// One leg as its sender's program shows it: its gen and the wait folded into its start
/// (0 if none).
struct LegSeen {
  isa::RdmaDescGen gen;
  std::uint32_t start_waits_for = 0;
};

/// The legs of `p` in order (gen k goes with start k).
std::vector<LegSeen> legs_of(const CoreProgram& p) {
  std::vector<isa::RdmaDescGen> gens;
  std::vector<LegSeen> out;
  for (const isa::Word& w : p.words) {
    if (auto gen = isa::decode_rdma_desc_gen(w); gen.ok()) gens.push_back(*gen);
    if (!isa::decode_rdma_desc_start(w).ok()) continue;
    LegSeen l;
    const isa::Events ev = isa::decode_events(w);
    if (ev.wait_mode != isa::WaitMode::kNone) l.start_waits_for = ev.semaphore_value;
    l.gen = gens.at(out.size());
    out.push_back(l);
  }
  return out;
}

CoreId target(const Geometry& g, const isa::RdmaDescGen& gen) {
  return g.core_of(Place{gen.remote_routing_id.imm, 0, gen.remote_core_id.imm});
}

Lowered lowered(const Geometry& g, const Communicator& c, Algorithm a, std::uint64_t bytes,
                DataType dt = DataType::kFp32) {
  LowerRequest r;
  r.op = Op::kAllToAll;
  r.algorithm = a;
  r.bytes = bytes;
  r.dtype = dt;
  r.notes = true;
  auto low = lower(g, c, r);
  EXPECT_TRUE(low.ok()) << (low.ok() ? "" : low.error().message);
  return low.ok() ? std::move(*low) : Lowered{};
}

TEST(AllToAll, RingIsPairwise) {
  const Geometry g = small_geometry(1);
  const Communicator c = *default_communicator(g, 5);
  // 5 blocks of 3 columns (every leg has data), then 3 elements (two in three pairs empty).
  for (std::uint64_t count : {5u * 128 * 3, 3u}) {
    const Lowered low = lowered(g, c, Algorithm::kRing, count * 4);
    ASSERT_EQ(low.programs.size(), 5u);
    for (const CoreProgram& p : low.programs) {
      const unsigned s = p.core;    // the default communicator: rank = core
      std::vector<unsigned> steps;  // d of each leg: it goes to s + d
      for (const LegSeen& l : legs_of(p)) {
        const unsigned d = (target(g, l.gen) + 5 - s) % 5;
        steps.push_back(d);
        // Step d >= 2 starts once the own block and steps 1..d-1 have landed (16 each, D5).
        if (d >= 2 && count != 3) {
          EXPECT_EQ(l.start_waits_for, 16u * d) << "step " << d << " of rank " << s;
        }
      }
      std::vector<unsigned> want{1, 2, 3, 4};
      if (count != 3 || s < 3) want.insert(want.begin(), 0);  // the own block, if not empty
      EXPECT_EQ(steps, want) << "rank " << s;
    }
    if (count == 3) {
      EXPECT_GT(low.stats.semaphore_legs, 0u) << "empty pairs still signal";
    } else {
      EXPECT_EQ(low.stats.semaphore_legs, 0u);
    }
  }
}

/// The wait words of `p` on semaphore `sem`: the cumulative values they wait for.
std::vector<std::uint32_t> waits_on(const CoreProgram& p, unsigned sem) {
  std::vector<std::uint32_t> out;
  for (const isa::Word& w : p.words) {
    const isa::Events ev = isa::decode_events(w);
    if (ev.wait_mode != isa::WaitMode::kNone && ev.wait_idx == sem) {
      out.push_back(ev.semaphore_value);
    }
  }
  return out;
}

TEST(AllToAll, ARingOfOneRankStillWaitsForItsOwnBlock) {
  // One rank: the pairwise exchange is only step 0, the leg to itself, which is otherwise
  // waited for with step 1. With no step 1 the program must still wait for it, once per
  // iteration, or the core finishes before its output block has landed.
  const Geometry g = small_geometry(1);
  const Lowered low = lowered(g, *default_communicator(g, 1), Algorithm::kRing, 128 * 3 * 4);
  ASSERT_EQ(low.programs.size(), 1u);
  std::vector<std::uint32_t> all;
  for (unsigned sem = 0; sem < 32; ++sem) {
    for (std::uint32_t v : waits_on(low.programs[0], sem)) all.push_back(v);
  }
  EXPECT_EQ(all, std::vector<std::uint32_t>{16}) << "the own block's 16 engines (D5)";
}

TEST(AllToAll, MeshRanksThatReceiveNothingStillWait) {
  // 3 elements over 5 ranks: blocks for ranks 3 and 4 are empty, so no data reaches them.
  // Each still waits, every iteration, for a leg from each peer (D34d): without those waits
  // its next iteration would not follow its peers' previous one.
  const Geometry g = small_geometry(1);
  const Communicator c = *default_communicator(g, 5);
  LowerRequest r;
  r.op = Op::kAllToAll;
  r.algorithm = Algorithm::kMesh;
  r.bytes = 3 * 4;
  r.iterations = 2;
  auto low = lower(g, c, r);
  ASSERT_TRUE(low.ok()) << low.error().message;
  EXPECT_GT(low->stats.semaphore_legs, 0u);
  for (const CoreProgram& p : low->programs) {
    std::set<unsigned> targets;
    for (const LegSeen& l : legs_of(p)) targets.insert(target(g, l.gen));
    for (unsigned j = 0; j < 5; ++j) {
      if (j != p.core) {
        EXPECT_TRUE(targets.count(j)) << p.core << " signals " << j;
      }
    }
    // One wait per iteration (the two parities' semaphores): ranks 0..2 receive a data leg
    // from each rank, itself included (+16 each, D5); ranks 3 and 4 a semaphore-only leg
    // (+1) from each peer.
    std::vector<std::uint32_t> all;
    for (unsigned sem = 0; sem < 32; ++sem) {
      for (std::uint32_t v : waits_on(p, sem)) all.push_back(v);
    }
    const std::uint32_t want = p.core < 3 ? 5 * 16 : 4;
    EXPECT_EQ(all, (std::vector<std::uint32_t>{want, want})) << "rank " << p.core;
  }
}

TEST(AllToAll, RdhIsBruck) {
  const Geometry g = small_geometry(1);
  const Communicator c = *default_communicator(g, 8);
  const std::uint64_t block = 128 * 2;  // elements: two columns of fp32, 8 bytes a partition
  const Lowered low = lowered(g, c, Algorithm::kRdh, 8 * block * 4);
  const Lowered mesh = lowered(g, c, Algorithm::kMesh, 8 * block * 4);
  ASSERT_EQ(low.programs.size(), 8u);
  for (const CoreProgram& p : low.programs) {
    const unsigned s = p.core;
    const std::vector<LegSeen> legs = legs_of(p);
    ASSERT_FALSE(legs.empty());
    EXPECT_EQ(target(g, legs[0].gen), s) << "the own block first";
    std::uint64_t moved = legs[0].gen.free_dim_bytes;
    std::vector<std::uint64_t> per_step(3, 0);
    int last = -1;
    for (std::size_t k = 1; k < legs.size(); ++k) {
      const unsigned d = (target(g, legs[k].gen) + 8 - s) % 8;
      ASSERT_TRUE(d == 1 || d == 2 || d == 4) << "rank " << s << " sends to +" << d;
      const int m = std::countr_zero(d);
      ASSERT_GE(m, last) << "steps in order";
      // A step's first leg waits for the step before (its blocks are forwarded).
      if (m > last && m > 0) {
        EXPECT_GT(legs[k].start_waits_for, 0u) << "step " << m;
      }
      last = m;
      moved += legs[k].gen.free_dim_bytes;
      per_step[static_cast<unsigned>(m)] += legs[k].gen.free_dim_bytes;
    }
    // Each step moves half the blocks (4 x 8 bytes a partition); the own block once.
    for (unsigned m = 0; m < 3; ++m) EXPECT_EQ(per_step[m], 4u * 8) << "step " << m;
    EXPECT_EQ(moved, (1 + 4 * 3) * 8u);
  }
  // Scratch: blocks kept for a later step, (4-1) + (4-2) + 0 slots, two sets.
  EXPECT_EQ(low.sbuf_bytes - mesh.sbuf_bytes, (2 * 5 * 8 + 63) / 64 * 64);
  EXPECT_EQ(low.semaphores - mesh.semaphores, 2u * 3 - 2);
}

TEST(AllToAll, HierarchicalCrossesEachChipPairOnce) {
  const Geometry g = small_geometry(4);
  const Communicator c = *default_communicator(g, 32);  // 4 chips of 8
  const std::uint64_t block = 128;                      // one column of bf16: 2 bytes
  const Lowered low = lowered(g, c, Algorithm::kHierarchical, 32 * block * 2, DataType::kBf16);
  ASSERT_EQ(low.programs.size(), 32u);
  for (const CoreProgram& p : low.programs) {
    const Place me = g.locate(p.core);
    std::vector<unsigned> chips_reached;
    bool crossed = false;
    for (const LegSeen& l : legs_of(p)) {
      const Place to = g.locate(target(g, l.gen));
      if (to.chip == me.chip) {
        EXPECT_FALSE(crossed) << "intra-chip legs come first";
        continue;
      }
      // Inter-chip: the rank with the same local index gets this chip's 8 blocks for it in one
      // leg; peer chips in pairwise order, after the intra-chip blocks have landed.
      if (!crossed) {
        EXPECT_GT(l.start_waits_for, 0u);
      }
      crossed = true;
      EXPECT_EQ(to.tpb, me.tpb);
      EXPECT_EQ(l.gen.free_dim_bytes, 8u * 2);
      chips_reached.push_back((to.chip + 4 - me.chip) % 4);
    }
    EXPECT_EQ(chips_reached, (std::vector<unsigned>{1, 2, 3})) << "core " << p.core;
  }
}

TEST(AllToAll, AutoKeepsMeshAtEverySize) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 2);
  const Communicator c = *default_communicator(g, 16);
  for (std::uint64_t bytes : {1ULL << 10, 1ULL << 20, 8ULL << 20, 64ULL << 20}) {
    LowerRequest r;
    r.op = Op::kAllToAll;
    r.bytes = bytes;
    EXPECT_EQ(*resolve_algorithm(g, c, r), Algorithm::kMesh) << bytes;
  }
  LowerRequest r;
  r.op = Op::kAllToAll;
  r.bytes = 64 << 10;
  auto a = lower(g, c, r);
  r.algorithm = Algorithm::kMesh;
  auto m = lower(g, c, r);
  ASSERT_TRUE(a.ok() && m.ok());
  EXPECT_EQ(a->algorithm, Algorithm::kMesh);
  ASSERT_EQ(a->programs.size(), m->programs.size());
  for (std::size_t i = 0; i < a->programs.size(); ++i) {
    EXPECT_EQ(a->programs[i].words, m->programs[i].words);
  }
}

TEST(AllToAll, AlgorithmsThatDoNotApplyAreErrors) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 2);
  LowerRequest r;
  r.op = Op::kAllToAll;
  r.bytes = 4096;
  r.algorithm = Algorithm::kRdh;
  EXPECT_EQ(lower(g, *default_communicator(g, 6), r).error().message,
            "--algorithm rdh needs a power-of-2 number of ranks per group, got 6");
  r.algorithm = Algorithm::kHierarchical;
  EXPECT_EQ(lower(g, *default_communicator(g, 8), r).error().message,
            "--algorithm hierarchical needs groups on more than one chip (group 0 is on one)");
  EXPECT_TRUE(lower(g, *default_communicator(g, 12), r).ok());  // 8 + 4: lanes (D30d)
  for (Algorithm a : {Algorithm::kRing, Algorithm::kRdh}) {
    r.algorithm = a;
    EXPECT_TRUE(lower(g, *default_communicator(g, 8), r).ok()) << algorithm_name(a);
  }
}

TEST(AllToAll, ScratchThatDoesNotFitSaysHowMuchDoes) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 1);
  const Communicator c = *default_communicator(g, 8);
  LowerRequest r;
  r.op = Op::kAllToAll;
  r.bytes = 12 << 20;  // mesh: input + output, 192 KiB a partition; rdh adds 10 slots of 12 KiB
  r.algorithm = Algorithm::kMesh;
  EXPECT_TRUE(lower(g, c, r).ok());
  r.algorithm = Algorithm::kRdh;
  auto e = lower(g, c, r);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("all-to-all of 12582912 B (fp32, 8 ranks, rdh) needs "),
            std::string::npos)
      << e.error().message;
  EXPECT_NE(e.error().message.find("; 224 KiB fit: at most "), std::string::npos);
  const std::uint64_t most = max_fitting_bytes(g, c, r);
  EXPECT_GT(most, 8u << 20);  // (2 + 10/8) blocks of 8 a partition: 224 KiB x 128 / 3.25
  EXPECT_LT(most, 9u << 20);
  r.bytes = most;
  EXPECT_TRUE(lower(g, c, r).ok());
  r.bytes = most + 128 * 4 * 8;
  EXPECT_FALSE(lower(g, c, r).ok());
}

}  // namespace
}  // namespace sbrdma::collectives
