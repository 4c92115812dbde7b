// Every operation x algorithm on small sizes, run on the test interpreter under several
// random schedules and checked against the CPU reference. Three iterations back to back, so
// that reuse across iterations is exercised too.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "collectives/harness.h"

namespace sbrdma::collectives {
namespace {

using testing::Outcome;
using testing::run_collective;
using testing::small_geometry;

struct Case {
  Op op;
  Algorithm alg;
  DataType dt;
  std::uint64_t count;  // elements
  Communicator comm;
  ReduceOp red = ReduceOp::kSum;
  unsigned iterations = 0;    // 0: three, or one where a repeated in-place sum is unpredictable
  SrcTargetPairs pairs = {};  // permute: none, the ring
};

std::string name(const Case& c) {
  return fmt::format("{} {} {} {} elements, {} ranks, {}", op_name(c.op), algorithm_name(c.alg),
                     dtype_name(c.dt), c.count, c.comm.ranks(), reduce_op_name(c.red));
}

void expect_right(const Geometry& g, const Case& c, unsigned seeds = 2,
                  std::uint64_t halves_from = 16 << 10) {
  LowerRequest r;
  r.ring_halves_from = halves_from;
  r.op = c.op;
  r.algorithm = c.alg;
  r.dtype = c.dt;
  r.reduce = c.red;
  r.bytes = c.count * dtype_bytes(c.dt);
  r.pairs = c.pairs;
  // Three iterations back to back exercise reuse across iterations. In-place sums reduce
  // their own results again: all-reduce's are predictable (exact dtypes), a reduce-scatter
  // leaves partial sums in the other blocks, so those are checked after one.
  const bool half = c.dt == DataType::kBf16 || c.dt == DataType::kFp16;
  const bool once =
      c.red == ReduceOp::kSum && (c.op == Op::kReduceScatter || (c.op == Op::kAllReduce && half));
  r.iterations = c.iterations != 0 ? c.iterations : once ? 1 : 3;
  for (std::uint64_t s = 1; s <= seeds; ++s) {
    const Outcome o = run_collective(g, c.comm, r, DataFill::kRandom, s);
    ASSERT_EQ(o.error, "") << name(c);
    EXPECT_EQ(o.wrong, 0u) << name(c) << " schedule " << s;
    EXPECT_GT(o.checked, 0u) << name(c);
  }
}

Communicator ranks(const Geometry& g, unsigned n) {
  return *default_communicator(g, n);
}

Communicator groups(std::vector<std::vector<CoreId>> gs) {
  return Communicator{std::move(gs)};
}

/// Groups whose chips hold different numbers of ranks (hierarchical's lanes, lanes.h), on
/// small_geometry(7): 8 + 4 (12 ranks from core 0); 8 + 1 (eight rounds: the lone rank holds
/// every lane); 5 + 3 + 2 with ranks out of chip order (a chip of 3 under N = 5: its ranks
/// hold 2, 2 and 1 lanes); and, in one communicator, 3 + 2 beside 4 + 1 (a group whose ranks
/// alternate chips).
struct UnequalChips {
  explicit UnequalChips(const Geometry& g)
      : twelve(*default_communicator(g, 12)),
        lone(*default_communicator(g, 9)),
        three{{{8, 0, 9, 1, 2, 10, 11, 12, 16, 17}}},
        mixed{{{24, 25, 26, 32, 33}, {40, 48, 41, 42, 43}}} {}
  Communicator twelve;
  Communicator lone;
  Communicator three;
  Communicator mixed;
};

constexpr Op kReduceOps[] = {Op::kAllReduce, Op::kReduceScatter, Op::kAllGather};
constexpr Algorithm kFlat[] = {Algorithm::kRing, Algorithm::kMesh};

TEST(Correctness, EveryDtypeOnEveryFlatAlgorithm) {
  const Geometry g = small_geometry(1);
  for (Op op : kReduceOps) {
    for (Algorithm a : {Algorithm::kRing, Algorithm::kMesh, Algorithm::kRdh}) {
      for (DataType dt : all_dtypes()) {
        expect_right(g, Case{op, a, dt, 131 * 4 + 3, ranks(g, 4)}, 1);  // a prime count
      }
    }
  }
}

TEST(Correctness, MaxAndMin) {
  const Geometry g = small_geometry(1);
  for (ReduceOp red : {ReduceOp::kMax, ReduceOp::kMin}) {
    // Each integer width signed and unsigned: a max/min that compared with the wrong sign
    // would pick the other value wherever the top bits differ.
    for (DataType dt : {DataType::kFp32, DataType::kBf16, DataType::kInt8, DataType::kUint8,
                        DataType::kInt16, DataType::kUint16, DataType::kUint32}) {
      expect_right(g, Case{Op::kAllReduce, Algorithm::kRing, dt, 700, ranks(g, 3), red}, 1);
      expect_right(g, Case{Op::kReduceScatter, Algorithm::kRdh, dt, 700, ranks(g, 4), red}, 1);
    }
  }
}

// A repeated reduce-scatter whose iterations shared one semaphore could let a fast sender's
// next-iteration leg complete a count this iteration's wait is still missing, and the owner
// would then reduce a slot whose data has not landed. Min over uint8 shows it (a slot not yet
// written reads 0, which min takes); max would hide it, and a repeated sum is not checked.
TEST(Correctness, RepeatedReduceScattersKeepEachIterationsCountApart) {
  const Geometry g = small_geometry(1);
  for (Algorithm a : {Algorithm::kMesh, Algorithm::kRing, Algorithm::kRdh}) {
    for (unsigned r : {2u, 3u, 4u}) {
      if (a == Algorithm::kRdh && r == 3) continue;  // RDH needs 2^k ranks
      expect_right(
          g, Case{Op::kReduceScatter, a, DataType::kUint8, 300 * r, ranks(g, r), ReduceOp::kMin, 3},
          16);
    }
  }
}

// Fewer elements than ranks leave some positions with empty pieces. A position that hears
// from nobody runs iterations ahead, and its same-parity legs then meet a slower position's
// wait early, which reduces a scratch slot not yet written (or already overwritten). Min over
// uint8 shows it on a repeated reduce-scatter, as above.
TEST(Correctness, EmptyPiecesStillPaceRepeatedReduceScatters) {
  const Geometry g = small_geometry(2);
  for (Algorithm a : {Algorithm::kRdh, Algorithm::kRing, Algorithm::kMesh}) {
    for (std::uint64_t n : {1u, 3u, 5u}) {
      expect_right(
          g, Case{Op::kReduceScatter, a, DataType::kUint8, n, ranks(g, 8), ReduceOp::kMin, 6}, 8);
    }
  }
  expect_right(g,
               Case{Op::kReduceScatter, Algorithm::kHierarchical, DataType::kUint8, 3, ranks(g, 16),
                    ReduceOp::kMin, 6},
               8);
}

// The same with an all-gather after the reduce-scatter: its legs pace the ring's and the
// hierarchical's inter-chip ring (3 chips) where pieces are empty, as the interpreter's
// schedules check.
TEST(Correctness, EmptyPiecesInRepeatedAllReduces) {
  const Geometry g = small_geometry(3);
  for (Algorithm a : {Algorithm::kRing, Algorithm::kMesh}) {
    expect_right(g, Case{Op::kAllReduce, a, DataType::kUint8, 3, ranks(g, 7), ReduceOp::kMin, 6},
                 4);
  }
  expect_right(
      g, Case{Op::kAllReduce, Algorithm::kRdh, DataType::kUint8, 3, ranks(g, 8), ReduceOp::kMin, 6},
      4);
  expect_right(g,
               Case{Op::kAllReduce, Algorithm::kHierarchical, DataType::kUint8, 20, ranks(g, 24),
                    ReduceOp::kMin, 6},
               4);
}

TEST(Correctness, TinyAndUnevenSizes) {
  const Geometry g = small_geometry(1);
  for (Op op : kReduceOps) {
    for (Algorithm a : kFlat) {
      for (std::uint64_t n : {1u, 3u, 127u, 129u, 1031u}) {
        for (unsigned r : {2u, 3u, 5u, 8u})
          expect_right(g, Case{op, a, DataType::kUint8, n, ranks(g, r)}, 1);
      }
    }
    for (std::uint64_t n : {1u, 3u, 1031u}) {
      expect_right(g, Case{op, Algorithm::kRdh, DataType::kInt32, n, ranks(g, 8)}, 1);
    }
  }
}

TEST(Correctness, OneRank) {
  const Geometry g = small_geometry(1);
  for (Op op : all_ops())
    expect_right(g, Case{op, Algorithm::kAuto, DataType::kFp32, 77, ranks(g, 1)}, 1);
}

TEST(Correctness, AllToAllSendRecvPermute) {
  const Geometry g = small_geometry(1);
  for (Op op : {Op::kAllToAll, Op::kSendRecv, Op::kPermute}) {
    for (unsigned r : {2u, 3u, 8u}) {
      for (std::uint64_t n : {1u, 5u, 1000u}) {
        expect_right(g, Case{op, Algorithm::kAuto, DataType::kBf16, n, ranks(g, r)});
      }
    }
  }
}

using Pairs = std::vector<SrcTarget>;

// Permute along custom pairs (D30j): each output must be its source's input, whatever the
// ring would have given; two and three iterations back to back.
TEST(Correctness, PermuteAlongCustomPairs) {
  const Geometry g = small_geometry(1);
  // nccom-test's documented example: two swaps, four positions that keep their buffer.
  const SrcTargetPairs doc = {
      Pairs{{0, 1}, {1, 0}, {2, 3}, {3, 2}, {4, 4}, {5, 5}, {6, 6}, {7, 7}}};
  // A 3-cycle over positions 0, 2 and 4, and two fixed points, listed out of order.
  const SrcTargetPairs cycle3 = {Pairs{{4, 0}, {1, 1}, {0, 2}, {3, 3}, {2, 4}}};
  for (std::uint64_t n : {1u, 5u, 1000u}) {
    for (unsigned it : {2u, 3u}) {
      expect_right(g, Case{Op::kPermute, Algorithm::kAuto, DataType::kInt32, n, ranks(g, 8),
                           ReduceOp::kSum, it, doc});
      expect_right(g, Case{Op::kPermute, Algorithm::kRing, DataType::kBf16, n, ranks(g, 5),
                           ReduceOp::kSum, it, cycle3});
    }
  }
  // Two replica groups, each with its own pairs.
  const Communicator two = groups({{6, 1, 0, 7}, {3, 4, 2, 5}});
  const SrcTargetPairs each = {Pairs{{0, 3}, {3, 0}, {1, 2}, {2, 1}},
                               Pairs{{0, 1}, {1, 2}, {2, 0}, {3, 3}}};
  for (unsigned it : {1u, 2u}) {
    expect_right(g, Case{Op::kPermute, Algorithm::kAuto, DataType::kFp32, 301, two, {}, it, each});
  }
}

// All-to-all with every algorithm: counts that do not divide by the rank count (one
// element, three, primes), so blocks differ in width and some are empty. One iteration and
// three: later iterations rewrite the same bytes, which can hide a missing wait.
constexpr DataType kA2aDtypes[] = {DataType::kFp32, DataType::kBf16, DataType::kInt8};

TEST(Correctness, AllToAllRingAndRdh) {
  const Geometry g = small_geometry(1);
  for (DataType dt : kA2aDtypes) {
    for (std::uint64_t n : {1u, 3u, 131u, 1031u}) {
      for (unsigned it : {1u, 3u}) {
        for (unsigned r : {1u, 2u, 3u, 5u, 8u}) {
          expect_right(g, Case{Op::kAllToAll, Algorithm::kRing, dt, n, ranks(g, r), {}, it}, 1);
        }
        for (unsigned r : {1u, 2u, 4u, 8u})
          expect_right(g, Case{Op::kAllToAll, Algorithm::kRdh, dt, n, ranks(g, r), {}, it}, 1);
      }
    }
  }
  // Two schedules on sizes whose blocks are all several columns wide.
  expect_right(
      g, Case{Op::kAllToAll, Algorithm::kRing, DataType::kInt32, 128 * 7 * 6 + 5, ranks(g, 7)});
  expect_right(g,
               Case{Op::kAllToAll, Algorithm::kRdh, DataType::kFp32, 128 * 3 * 8 - 1, ranks(g, 8)});
}

TEST(Correctness, AllToAllHierarchical) {
  const Geometry g = small_geometry(16);  // trn2.48xlarge's chip count
  const Communicator two_per_chip = groups({{0, 5, 8, 13, 16, 21, 24, 29}});
  const Communicator three_chips = groups({{0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19}});
  const Communicator one_per_chip = groups({{0, 8, 16, 24, 32, 40, 48, 56, 64}});
  for (DataType dt : kA2aDtypes) {
    // (elements, iterations)
    for (const auto& [n, it] : {std::pair{1u, 1u}, {3u, 3u}, {131u, 1u}, {1031u, 3u}}) {
      for (const Communicator* c : {&two_per_chip, &three_chips, &one_per_chip})
        expect_right(g, Case{Op::kAllToAll, Algorithm::kHierarchical, dt, n, *c, {}, it}, 1);
    }
  }
}

TEST(Correctness, AllToAllHierarchicalOnWholeChips) {
  const Geometry g = small_geometry(16);
  // The default communicator of 24 ranks: 3 chips of 8.
  expect_right(
      g, Case{Op::kAllToAll, Algorithm::kHierarchical, DataType::kBf16, 24 * 128 + 3, ranks(g, 24)},
      1);
  // Groups out of chip order, and two groups side by side.
  expect_right(g, Case{Op::kAllToAll, Algorithm::kHierarchical, DataType::kFp32, 997,
                       groups({{17, 3, 16, 2}, {9, 25, 24, 8}})});
}

// Chips of different sizes: each target's blocks travel in its lane (lanes.h), lanes that
// share a rank in rounds.
TEST(Correctness, AllToAllHierarchicalOverChipsOfDifferentSizes) {
  const Geometry g = small_geometry(7);
  const UnequalChips u(g);
  for (const auto& [n, it] : {std::pair{1u, 1u}, {131u, 3u}, {1031u, 2u}}) {
    for (const Communicator* c : {&u.twelve, &u.lone, &u.three, &u.mixed}) {
      expect_right(
          g, Case{Op::kAllToAll, Algorithm::kHierarchical, DataType::kInt32, n, *c, {}, it}, 2);
    }
  }
  expect_right(
      g,
      Case{Op::kAllToAll, Algorithm::kHierarchical, DataType::kBf16, 12 * 128 + 5, u.twelve, {}, 3},
      1);
}

TEST(Correctness, ChipsOfDifferentSizesShareTheirIntraChipReservations) {
  // Each chip size's intra-chip phases run on other cores than the other sizes', so they
  // start from the same semaphore index and scratch offset: the lowering uses what the
  // largest needs, not the sum. (Pinned: a lowering that stacked them used more.)
  const Geometry g = small_geometry(7);
  const UnequalChips u(g);
  LowerRequest r;
  r.op = Op::kAllReduce;
  r.algorithm = Algorithm::kHierarchical;
  r.dtype = DataType::kFp32;
  r.bytes = 4 * 1000;
  const auto three = lower(g, u.three, r);  // chips of three sizes
  ASSERT_TRUE(three.ok()) << three.error().format();
  EXPECT_EQ(three->semaphores, 59U);   // stacked: 77
  EXPECT_EQ(three->sbuf_bytes, 320U);  // stacked: 448
  const auto mixed = lower(g, u.mixed, r);
  ASSERT_TRUE(mixed.ok()) << mixed.error().format();
  EXPECT_EQ(mixed->semaphores, 40U);  // stacked: 42
}

TEST(Correctness, RingHalvesAndCredits) {
  // 4 KiB partitions: a 2.5 KiB-per-partition buffer leaves room for 8 of the 16 scratch slots
  // a credit-free ring of 8 ranks in halves needs, so the ring credits them.
  const Geometry g = small_geometry(1, 4 << 10);
  const Case c{Op::kAllReduce, Algorithm::kRing, DataType::kInt32, 128 * 640, ranks(g, 8)};
  expect_right(g, c, 2, 64);
  expect_right(g,
               Case{Op::kReduceScatter, Algorithm::kRing, DataType::kFp32, 128 * 640, ranks(g, 8)},
               1, 64);
  expect_right(g,
               Case{Op::kAllGather, Algorithm::kRing, DataType::kUint8, 128 * 900 + 7, ranks(g, 5)},
               2, 64);
  LowerRequest r;
  r.bytes = c.count * 4;
  r.dtype = c.dt;
  r.algorithm = Algorithm::kRing;
  r.iterations = 3;
  r.ring_halves_from = 64;
  const auto low = lower(g, c.comm, r);
  ASSERT_TRUE(low.ok());
  EXPECT_GT(low->stats.semaphore_legs, 0u) << "expected credit legs";
  EXPECT_EQ(low->stats.legs - low->stats.semaphore_legs, 8u * 2 * 14 * 3) << "two halves a step";
}

// The split is "from" ring_halves_from: a piece whose half is exactly that many bytes per
// partition already goes in two halves (hw-params §3, [CHOICE D30d]); one byte more of
// threshold and it goes whole. 4 ranks x 100 fp32 columns: a half is 200 bytes.
TEST(Correctness, RingSplitsAPieceWhoseHalfIsExactlyTheThreshold) {
  const Geometry g = small_geometry(1);
  const auto data_legs = [&](std::uint64_t halves_from) {
    LowerRequest r;
    r.op = Op::kAllReduce;
    r.algorithm = Algorithm::kRing;
    r.dtype = DataType::kFp32;
    r.bytes = 128 * 400 * 4;
    r.iterations = 1;
    r.ring_halves_from = halves_from;
    const auto low = lower(g, ranks(g, 4), r);
    EXPECT_TRUE(low.ok()) << (low.ok() ? "" : low.error().message);
    return low.ok() ? low->stats.legs - low->stats.semaphore_legs : 0;
  };
  EXPECT_EQ(data_legs(200), 4u * 6 * 2) << "at the threshold: two halves a step";
  EXPECT_EQ(data_legs(201), 4u * 6) << "below it: one leg a step";
  expect_right(g, Case{Op::kAllReduce, Algorithm::kRing, DataType::kFp32, 128 * 400, ranks(g, 4)},
               1, 200);
}

TEST(Correctness, RingScratchSlotsHoldTheLargerHalfOfAnOddPiece) {
  // 33 columns a piece in two halves: half 0 has 17 columns, half 1 has 16. A scratch slot
  // must hold the larger one (a rounded-down slot lets half 0's last column run into the next
  // slot, where the next leg's data lands before it is reduced, or past the scratch).
  const Geometry g = small_geometry(1);
  for (const Op op : {Op::kReduceScatter, Op::kAllReduce}) {
    expect_right(
        g, Case{op, Algorithm::kRing, DataType::kInt32, 128 * 4 * 33, ranks(g, 4), ReduceOp::kMax},
        2, 64);
  }
}

// Random schedules rarely let one rank fall far behind. Here each rank in turn runs its words
// only when no other core can move, so its neighbours run ahead as far as the semaphores
// allow: a slot reused without a credit (the next iteration's data landing in scratch the
// slow rank has not reduced yet) shows as a wrong element. Max, unlike sum, gives the same
// result in every further iteration, so three iterations of a lone reduce-scatter are checked.
// Each case runs twice: with room to spare, and in the smallest partition it fits, where the
// ring has the fewest scratch slots and reuses one across an iteration's end.
TEST(Correctness, ASlowRankIsNotOverrunByItsNeighbours) {
  for (const Op op : {Op::kReduceScatter, Op::kAllReduce, Op::kAllGather}) {
    for (const Algorithm a : {Algorithm::kRing, Algorithm::kRdh, Algorithm::kMesh}) {
      for (const std::uint64_t count : {128u * 4 * 3, 128u * 4 * 100}) {
        LowerRequest r;
        r.op = op;
        r.algorithm = a;
        r.dtype = DataType::kInt32;
        r.reduce = ReduceOp::kMax;
        r.bytes = count * 4;
        r.iterations = 3;
        r.ring_halves_from = 64;  // halves too: more slots in use
        std::uint64_t tight = 64;
        while (!lower(small_geometry(1, tight), ranks(small_geometry(1), 4), r).ok()) tight += 64;
        for (const std::uint64_t partition : {std::uint64_t{16} << 10, tight}) {
          const Geometry g = small_geometry(1, partition);
          for (CoreId slow = 0; slow < 4; ++slow) {
            const Outcome o = run_collective(g, ranks(g, 4), r, DataFill::kRandom, 1, slow);
            const std::string what =
                fmt::format("{} {} count {} in {} B, slow rank {}", op_name(op), algorithm_name(a),
                            count, partition, slow);
            ASSERT_EQ(o.error, "") << what;
            EXPECT_EQ(o.wrong, 0u) << what;
            EXPECT_GT(o.checked, 0u) << what;
          }
        }
      }
    }
  }
}

TEST(Correctness, AMeshRankWithAnEmptyPieceStillWaitsForItsPeers) {
  // 3 elements over 4 ranks: rank 3's piece is empty, so no reduce-scatter data reaches it.
  // Its peers still pace it with a semaphore-only leg each iteration; without them it would
  // wait for nothing and run iterations ahead, and its later iterations' arrivals (same
  // semaphore parity) could complete a peer's wait before a slow rank's data has landed.
  // A sum shows the early read (max would hide it: the last iteration reads the right data).
  const Geometry g = small_geometry(1);
  LowerRequest r;
  r.op = Op::kReduceScatter;
  r.algorithm = Algorithm::kMesh;
  r.dtype = DataType::kInt32;
  r.reduce = ReduceOp::kSum;  // mesh keeps the other blocks, so repeated sums are exact
  r.bytes = 3 * 4;
  r.iterations = 3;
  for (CoreId slow = 0; slow < 3; ++slow) {
    const Outcome o = run_collective(g, ranks(g, 4), r, DataFill::kRandom, 1, slow);
    ASSERT_EQ(o.error, "") << "slow rank " << slow;
    EXPECT_EQ(o.wrong, 0u) << "slow rank " << slow;
    EXPECT_GT(o.checked, 0u);
  }
}

TEST(Correctness, ReplicaGroupsRunSideBySide) {
  const Geometry g = small_geometry(1);
  const Communicator c = groups({{0, 5, 2}, {7, 1, 4}});
  for (Op op : all_ops()) {
    const Algorithm a = op == Op::kAllToAll                           ? Algorithm::kMesh
                        : (op == Op::kSendRecv || op == Op::kPermute) ? Algorithm::kRing
                                                                      : Algorithm::kRing;
    expect_right(g, Case{op, a, DataType::kInt32, 301, c});
  }
  expect_right(g, Case{Op::kAllToAll, Algorithm::kRing, DataType::kInt32, 301, c});
  expect_right(
      g, Case{Op::kAllReduce, Algorithm::kRdh, DataType::kFp16, 301, groups({{6, 1}, {3, 4}})});
  expect_right(g, Case{Op::kAllToAll, Algorithm::kRdh, DataType::kFp16, 301,
                       groups({{6, 1, 0, 7}, {3, 4, 2, 5}})});
}

TEST(Correctness, RanksOverChipsAndHierarchical) {
  const Geometry g = small_geometry(16);  // trn2.48xlarge's chip count
  const Communicator spread = groups({{0, 5, 8, 13, 16, 21, 24, 29}});  // 2 per chip, both dies
  for (Op op : kReduceOps) {
    for (Algorithm a :
         {Algorithm::kRing, Algorithm::kMesh, Algorithm::kRdh, Algorithm::kHierarchical}) {
      expect_right(g, Case{op, a, DataType::kFp32, 2000, spread}, 1);
    }
  }
  // 3 chips x 4 ranks: hierarchical's inter-chip phase is a ring.
  const Communicator three = groups({{0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19}});
  for (Op op : kReduceOps)
    expect_right(g, Case{op, Algorithm::kHierarchical, DataType::kBf16, 999, three}, 1);
}

// Groups laid out differently run hierarchical side by side, each with its own phases: one
// rank on each of 4 chips (inter-chip RDH only, in-chip phases of one rank) beside two on
// each of 2 chips, and three chips of two beside two chips of three (rings).
TEST(Correctness, HierarchicalOverGroupsLaidOutDifferently) {
  const Geometry g = small_geometry(6);
  const Communicator mixed = groups({{0, 8, 16, 24}, {1, 2, 9, 10}});
  const Communicator odd = groups({{3, 4, 11, 12, 19, 20}, {32, 33, 34, 40, 41, 42}});
  for (Op op : kReduceOps) {
    expect_right(g, Case{op, Algorithm::kHierarchical, DataType::kFp32, 1000, mixed}, 2);
    expect_right(g, Case{op, Algorithm::kHierarchical, DataType::kInt32, 777, odd}, 2);
  }
}

// Chips of different sizes: lanes cut the work, and a rank on a smaller chip holds several,
// in rounds of the inter-chip phase (hierarchical.cpp).
TEST(Correctness, HierarchicalOverChipsOfDifferentSizes) {
  const Geometry g = small_geometry(7);
  const UnequalChips u(g);
  for (Op op : kReduceOps) {
    expect_right(g, Case{op, Algorithm::kHierarchical, DataType::kFp32, 1000, u.twelve}, 2);
    expect_right(g, Case{op, Algorithm::kHierarchical, DataType::kInt32, 131 * 9, u.lone}, 1);
    expect_right(g, Case{op, Algorithm::kHierarchical, DataType::kBf16, 777, u.three}, 2);
    expect_right(g, Case{op, Algorithm::kHierarchical, DataType::kInt8, 5 * 128 + 3, u.mixed}, 2);
  }
  // Fewer columns than lanes: most lanes carry nothing.
  expect_right(g, Case{Op::kAllReduce, Algorithm::kHierarchical, DataType::kFp32, 3, u.twelve}, 2);
}

TEST(Correctness, RingCreditsTheLastSentUserOfASlotPastEmptyLegs) {
  // 17 columns over 80 ranks leave most pieces empty. A leg's semaphore slot (32 per
  // iteration parity) was credited only against the leg one slot-width back; when that one
  // was empty, the leg two back still counted on the slot, unordered by the chain (80 legs),
  // and a fast engine's next leg completed its wait early: the interpreter's schedules gave
  // 960-1760 wrong elements. The wait must be for the last leg actually sent.
  const Geometry g = small_geometry(10);
  expect_right(g,
               Case{Op::kAllReduce, Algorithm::kRing, DataType::kInt32, 17 * 128, ranks(g, 80),
                    ReduceOp::kMax, 2},
               1);
}

// Two relayed hops into one relay core at different pairwise steps. Ring over {0, 1, 197}:
// 1 -> 197 at step 1 and 0 -> 197 at step 2 both go through core 193 (chip 24 die 0).
// Hierarchical over two ranks on each of chips 0, 3 and 24: the inter-chip exchange of local
// index 0, {0, 24, 196}, sends 24 -> 196 at step 1 and 0 -> 196 at step 2 through core 192.
// Had the relay counted on the steps' semaphore, with the first hop's sender slowed the
// second hop could meet the wait meant for the first, and the relay would forward a slot not
// yet written (ring: 200 wrong elements, hierarchical 800, tried). Each core is slowed in turn, on
// one iteration (whose relay slots hold nothing yet) and on three.
TEST(Correctness, PairwiseRelaysWaitForTheirOwnHops) {
  const Geometry g = small_geometry(26);
  const std::pair<Algorithm, Communicator> cases[] = {
      {Algorithm::kRing, groups({{0, 1, 24 * 8 + 5}})},
      {Algorithm::kHierarchical, groups({{0, 1, 24, 25, 24 * 8 + 4, 24 * 8 + 5}})},
  };
  for (const auto& [a, c] : cases) {
    const unsigned n = c.ranks();
    for (unsigned iterations : {1u, 3u}) {
      LowerRequest r;
      r.op = Op::kAllToAll;
      r.algorithm = a;
      r.dtype = DataType::kInt32;
      r.bytes = n * 200 * 4;
      r.iterations = iterations;
      for (const CoreId slow : {0u, 1u, 24u, 24u * 8, 24u * 8 + 1, 24u * 8 + 4, 24u * 8 + 5}) {
        for (std::uint64_t seed = 1; seed <= 2; ++seed) {
          const Outcome o = run_collective(g, c, r, DataFill::kRandom, seed, slow);
          ASSERT_EQ(o.error, "") << algorithm_name(a);
          EXPECT_EQ(o.wrong, 0u) << algorithm_name(a) << " x" << iterations << ", slow core "
                                 << slow << ", schedule " << seed;
          EXPECT_GT(o.lowered.stats.relayed_legs, 0u);
        }
      }
    }
  }
}

TEST(Correctness, UnroutableAddressesAreRelayed) {
  const Geometry g = small_geometry(26);
  // Core 0 (chip 0 die 0) and core 24*8+5 (chip 24 die 1): 0 -> 197 cannot be folded.
  const Communicator c = groups({{0, 24 * 8 + 5, 3 * 8 + 4}});
  for (Op op : all_ops()) {
    const Algorithm a = op == Op::kAllToAll ? Algorithm::kMesh : Algorithm::kRing;
    expect_right(g, Case{op, a, DataType::kFp32, 500, c});
  }
  expect_right(g, Case{Op::kAllGather, Algorithm::kMesh, DataType::kFp32, 500, c});
  expect_right(g, Case{Op::kAllToAll, Algorithm::kMesh, DataType::kInt8, 1, c});  // empty: signals
  // The pairwise exchange (all-to-all ring, and hierarchical's inter-chip step) sends its
  // relayed pairs after its steps, on semaphores of their own: its early waits only pace, and
  // a relay counting on them could forward a slot not yet written.
  for (Algorithm a : {Algorithm::kRing, Algorithm::kHierarchical}) {
    expect_right(g, Case{Op::kAllToAll, a, DataType::kFp32, 500, c}, 4);
    expect_right(g, Case{Op::kAllToAll, a, DataType::kInt8, 1, c});  // empty: signals
  }
  // Two ranks on each of three chips, two of them relayed into chip 24 from both dies.
  expect_right(g,
               Case{Op::kAllToAll, Algorithm::kHierarchical, DataType::kBf16, 1200,
                    groups({{0, 5, 24 * 8 + 1, 24 * 8 + 5, 3 * 8 + 4, 3 * 8 + 2}})},
               4);
  expect_right(g, Case{Op::kAllToAll, Algorithm::kRdh, DataType::kFp32, 500,
                       groups({{0, 24 * 8 + 5, 3 * 8 + 4, 24 * 8 + 1}})});
  LowerRequest r;
  r.op = Op::kAllReduce;
  r.bytes = 2000;
  r.algorithm = Algorithm::kMesh;
  const auto low = lower(g, c, r);
  ASSERT_TRUE(low.ok());
  EXPECT_GT(low->stats.relayed_legs, 0u);
}

TEST(Correctness, ARingCreditsASemaphoreSlotReusedOneLegShortOfItsChain) {
  // 33 ranks, one leg a step: the chain is 33 legs and a parity has 32 semaphore slots, so a
  // slot comes back at distance 32 = chain - 1 inside one iteration, which the chain does not
  // order: a credit leg must.
  const Geometry g = small_geometry(5);
  LowerRequest r;
  r.op = Op::kAllReduce;
  r.algorithm = Algorithm::kRing;
  r.dtype = DataType::kInt32;
  r.bytes = 128 * 33 * 4 * 4;
  r.iterations = 2;
  const Communicator comm = *default_communicator(g, 33);
  const auto low = lower(g, comm, r);
  ASSERT_TRUE(low.ok()) << low.error().message;
  EXPECT_GT(low->stats.semaphore_legs, 0U) << "no credit legs";
  const auto o = testing::run_collective(g, comm, r, DataFill::kRandom, 1, CoreId{1});
  ASSERT_EQ(o.error, "");
  EXPECT_EQ(o.wrong, 0U);
}

}  // namespace
}  // namespace sbrdma::collectives
