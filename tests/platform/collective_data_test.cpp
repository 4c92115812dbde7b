// The bench's data path: inputs written straight into SBUF, outputs compared in place chunk
// by chunk — a run checks clean, and one corrupted output element is exactly one wrong.
#include "platform/collective_data.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "collectives/communicator.h"
#include "platform/collective_runner.h"
#include "platform/topology_json.h"

namespace sbrdma::platform {
namespace {

using collectives::DataType;
using collectives::Op;
using collectives::ReduceOp;

struct Ran {
  std::unique_ptr<Simulation> sim;
  collectives::Communicator comm;
  collectives::Lowered low;
};

/// `-c random` data of `op` with `seed` (a permute along the ring).
CollectiveData random_data(Op op, DataType dt, ReduceOp red, std::uint64_t seed) {
  CollectiveData d;
  d.op = op;
  d.dtype = dt;
  d.reduce = red;
  d.fill = collectives::DataFill::kRandom;
  d.seed = seed;
  return d;
}

/// A collective of `bytes` over 4 ranks of trn2, filled and run.
Ran run(Op op, DataType dt, std::uint64_t bytes, const CollectiveData& data) {
  auto topo = load_topology("trn2");
  EXPECT_TRUE(topo.ok());
  const collectives::Geometry geom = geometry_of(*topo);
  auto comm = collectives::default_communicator(geom, 4);
  EXPECT_TRUE(comm.ok());
  collectives::LowerRequest req;
  req.op = op;
  req.dtype = dt;
  req.reduce = data.reduce;
  req.bytes = bytes;
  req.pairs = data.pairs;
  auto low = collectives::lower(geom, *comm, req);
  EXPECT_TRUE(low.ok()) << low.error().message;
  auto sim = Simulation::create(*topo);
  EXPECT_TRUE(sim.ok());
  for (const auto& p : low->programs) EXPECT_TRUE((*sim)->load_program(p.core, p.words).ok());
  EXPECT_TRUE(fill_inputs(**sim, *comm, *low, data).ok());
  auto rep = (*sim)->run();
  EXPECT_TRUE(rep.ok() && rep->ok());
  return Ran{std::move(*sim), std::move(*comm), std::move(*low)};
}

/// check_outputs of `x` against `data`; a check that fails to run fails the test (and counts
/// every element wrong, none checked).
CheckCount check(const Ran& x, const CollectiveData& data) {
  auto c = check_outputs(*x.sim, x.comm, x.low, data);
  EXPECT_TRUE(c.ok()) << c.error().message;
  return c.ok() ? *c : CheckCount{~std::uint64_t{0}, 0};
}

/// Adds 1 to the last byte of output element `e` of rank `r` (blocks in order; element k of
/// a block at partition k % P, column k / P).
void corrupt(Ran& x, unsigned r, std::uint64_t e) {
  const collectives::Tiled& t = x.low.buffers[0][r].out;
  std::size_t b = 0;
  while (b < t.blocks() && e >= t.counts[b]) e -= t.counts[b++];
  ASSERT_LT(b, t.blocks());
  const auto p = static_cast<unsigned>(e % t.partitions);
  const SbufRegion one{x.comm.groups[0][r], t.byte_of(t.col0[b] + e / t.partitions), t.elem_bytes,
                       p, p + 1};
  auto bytes = x.sim->read(one);
  ASSERT_TRUE(bytes.ok());
  bytes->back() = static_cast<std::uint8_t>(bytes->back() + 1);
  ASSERT_TRUE(x.sim->write(one, *bytes).ok());
}

TEST(CollectiveData, ARunChecksCleanAndOneCorruptElementIsOneWrong) {
  // 3 chunks of 256 columns and a ragged last column: the corruption lands in the middle one.
  const CollectiveData data = random_data(Op::kAllReduce, DataType::kFp32, ReduceOp::kSum, 5);
  const std::uint64_t elems = 128 * 600 + 77;
  Ran x = run(Op::kAllReduce, DataType::kFp32, elems * 4, data);
  const CheckCount clean = check(x, data);
  EXPECT_EQ(clean.wrong, 0U);
  EXPECT_EQ(clean.checked, 4 * elems);
  corrupt(x, 2, 128 * 300 + 5);
  const CheckCount one = check(x, data);
  EXPECT_EQ(one.wrong, 1U);
  corrupt(x, 0, elems - 1);  // the ragged last column
  const CheckCount two = check(x, data);
  EXPECT_EQ(two.wrong, 2U);
}

TEST(CollectiveData, RowsLongerThanOneFillBufferAreFilledWhole) {
  // int8 rows of 16389 or 16390 cells: two fill buffers each (the second a short one), and
  // the check's chunks end elsewhere. Clean, then one element past the first buffer is wrong.
  const CollectiveData data = random_data(Op::kAllReduce, DataType::kInt8, ReduceOp::kSum, 11);
  const std::uint64_t elems = 128 * 16389 + 3;
  Ran x = run(Op::kAllReduce, DataType::kInt8, elems, data);
  const collectives::Tiled& t = x.low.buffers[0][1].in;
  const std::uint64_t longest = *std::max_element(t.counts.begin(), t.counts.end());
  ASSERT_GT(longest / t.partitions, 16384U) << "a row fits one fill buffer: nothing tested";
  const CheckCount clean = check(x, data);
  EXPECT_EQ(clean.wrong, 0U);
  EXPECT_EQ(clean.checked, 4 * elems);
  corrupt(x, 1, 128 * 16385 + 2);  // partition 2, column 16385
  const CheckCount one = check(x, data);
  EXPECT_EQ(one.wrong, 1U);
}

TEST(CollectiveData, EveryDtypeChecksCleanAndOneCorruptElementIsOneWrong) {
  // A max (exact in every dtype): the fill and the check agree on each dtype's width and
  // sign, and the top byte of one element changed is one wrong.
  for (DataType dt : collectives::all_dtypes()) {
    const CollectiveData data = random_data(Op::kAllReduce, dt, ReduceOp::kMax, 3);
    const std::uint64_t elems = 128 * 3 + 5;
    Ran x = run(Op::kAllReduce, dt, elems * collectives::dtype_bytes(dt), data);
    const CheckCount clean = check(x, data);
    EXPECT_EQ(clean.wrong, 0U) << collectives::dtype_name(dt);
    EXPECT_EQ(clean.checked, 4 * elems) << collectives::dtype_name(dt);
    corrupt(x, 1, 200);
    const CheckCount one = check(x, data);
    EXPECT_EQ(one.wrong, 1U) << collectives::dtype_name(dt);
  }
}

TEST(CollectiveData, EachRankOfAGatherIsCheckedOnItsOwn) {
  const CollectiveData data = random_data(Op::kAllGather, DataType::kUint8, ReduceOp::kSum, 9);
  Ran x = run(Op::kAllGather, DataType::kUint8, 4 * 1000, data);
  const CheckCount clean = check(x, data);
  EXPECT_EQ(clean.wrong, 0U);
  corrupt(x, 3, 2500);  // in the block from rank 2
  const CheckCount one = check(x, data);
  EXPECT_EQ(one.wrong, 1U);
  // Another seed's data is not what was filled: nearly every element is wrong.
  CollectiveData other = data;
  other.seed = 10;
  const CheckCount all = check(x, other);
  EXPECT_GT(all.wrong, all.checked / 2);
}

TEST(CollectiveData, APermuteIsCheckedAlongItsPairs) {
  // 0 <-> 2, and 1 and 3 keep their own buffers (D30j).
  CollectiveData data = random_data(Op::kPermute, DataType::kInt16, ReduceOp::kSum, 4);
  data.pairs = {{{0, 2}, {1, 1}, {2, 0}, {3, 3}}};
  const std::uint64_t elems = 128 * 5 + 3;
  Ran x = run(Op::kPermute, DataType::kInt16, elems * 2, data);
  const CheckCount clean = check(x, data);
  EXPECT_EQ(clean.wrong, 0U);
  EXPECT_EQ(clean.checked, 4 * elems);
  // Checked as the ring, every rank's output is another rank's input: nearly all wrong.
  CollectiveData ring = data;
  ring.pairs.clear();
  const CheckCount all = check(x, ring);
  EXPECT_GT(all.wrong, all.checked * 9 / 10);
}

TEST(CollectiveData, SmallBlocksSideBySideAreFilledAndCheckedTogether) {
  // Blocks of 130 elements: two columns each, the second holding elements only in
  // partitions 0 and 1 and padding in the others, so a partition's cells of the four blocks
  // follow each other in bytes but not in elements, padding between. The fill and the check
  // take them together. All-to-all gives every rank an output of its own, all-gather one
  // output for all four.
  for (Op op : {Op::kAllToAll, Op::kAllGather}) {
    const CollectiveData data = random_data(op, DataType::kInt32, ReduceOp::kSum, 21);
    Ran x = run(op, DataType::kInt32, 4 * 130 * 4, data);  // the size of each rank's output
    const collectives::Tiled& t = x.low.buffers[0][2].out;
    ASSERT_EQ(t.blocks(), 4U);
    for (std::size_t b = 0; b < t.blocks(); ++b) {
      ASSERT_EQ(t.counts[b], 130U);
      ASSERT_EQ(t.col0[b], t.col0[0] + 2 * b);
    }
    const CheckCount clean = check(x, data);
    EXPECT_EQ(clean.wrong, 0U) << collectives::op_name(op);
    EXPECT_EQ(clean.checked, 4 * 4 * 130U) << collectives::op_name(op);
    corrupt(x, 2, 130 + 7);        // block 1, partition 7, its first column
    corrupt(x, 2, 3 * 130 + 100);  // block 3, partition 100: after block 2's padding there
    corrupt(x, 3, 129);            // block 0's last element, partition 1, its second column
    EXPECT_EQ(check(x, data).wrong, 3U) << collectives::op_name(op);
    // A padding cell (partition 100 of block 2's second column) is no element: not counted.
    const SbufRegion pad{x.comm.groups[0][2], t.byte_of(t.col0[2] + 1), t.elem_bytes, 100, 101};
    ASSERT_TRUE(x.sim->write(pad, std::vector<std::uint8_t>(t.elem_bytes, 0x5A)).ok());
    EXPECT_EQ(check(x, data).wrong, 3U) << collectives::op_name(op);
  }
}

TEST(CollectiveData, TheFillWritesEachElementInItsPlaceAndLeavesGapsAlone) {
  // Two blocks of 130 int32 elements at columns 0-1 and 5-6 of a core: in each partition the
  // second block's cells do not follow the first's, so they are a write of their own.
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  auto comm = collectives::default_communicator(geometry_of(*topo), 1);
  ASSERT_TRUE(comm.ok());
  collectives::Tiled t;
  t.base = 4096;
  t.elem_bytes = 4;
  t.counts = {130, 130};
  t.col0 = {0, 5};
  collectives::Lowered low;
  low.buffers = {{collectives::RankBuffers{t, t}}};
  auto sim = Simulation::create(*topo);
  ASSERT_TRUE(sim.ok());
  const CollectiveData data = random_data(Op::kAllReduce, DataType::kInt32, ReduceOp::kSum, 8);
  ASSERT_TRUE(fill_inputs(**sim, *comm, low, data).ok());
  std::vector<std::uint8_t> all(260 * 4);  // the elements, blocks in order
  collectives::make_input_range(data.dtype, data.fill, data.seed, 0, 0, 0, 260, all.data());
  for (unsigned p = 0; p < 128; ++p) {
    auto row = (*sim)->read(SbufRegion{comm->groups[0][0], t.base, 7 * 4, p, p + 1});
    ASSERT_TRUE(row.ok());
    std::vector<std::uint8_t> want(7 * 4, 0);  // padding and the gap: zero
    for (unsigned b = 0; b < 2; ++b) {
      for (std::uint64_t e = p; e < 130; e += 128) {
        const std::uint64_t col = t.col0[b] + e / 128;
        std::copy_n(all.begin() + static_cast<std::ptrdiff_t>((b * 130 + e) * 4), 4,
                    want.begin() + static_cast<std::ptrdiff_t>(col * 4));
      }
    }
    ASSERT_EQ(*row, want) << "partition " << p;
  }
}

}  // namespace
}  // namespace sbrdma::platform
