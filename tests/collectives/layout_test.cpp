#include "collectives/layout.h"

#include <gtest/gtest.h>

#include "collectives/geometry.h"
#include "collectives/types.h"

namespace sbrdma::collectives {
namespace {

TEST(Layout, SplitEvenGivesTheFirstPartsTheRemainder) {
  const auto parts = split_even(Cols{10, 17}, 3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0], (Cols{10, 13}));
  EXPECT_EQ(parts[1], (Cols{13, 15}));
  EXPECT_EQ(parts[2], (Cols{15, 17}));
  const auto empty = split_even(Cols{4, 5}, 3);  // more parts than columns: empty tails
  EXPECT_EQ(empty[0], (Cols{4, 5}));
  EXPECT_TRUE(empty[1].empty());
  EXPECT_TRUE(empty[2].empty());
}

TEST(Layout, SplitPieceCutsAcrossRanges) {
  const Segments s{{0, 3}, {10, 12}};  // 5 columns
  EXPECT_EQ(split_piece(s, 2, 0), (Segments{{0, 3}}));
  EXPECT_EQ(split_piece(s, 2, 1), (Segments{{10, 12}}));
  EXPECT_EQ(split_piece(s, 3, 1), (Segments{{2, 3}, {10, 11}}));
  EXPECT_EQ(total_cols(split_piece(s, 3, 2)), 1u);
}

TEST(Layout, AppendMergesTouchingRanges) {
  Segments s;
  append(s, Cols{0, 2});
  append(s, Cols{2, 5});
  append(s, Cols{7, 7});  // empty: dropped
  append(s, Cols{8, 9});
  EXPECT_EQ(s, (Segments{{0, 5}, {8, 9}}));
}

TEST(Layout, EvenCountsSpreadTheRemainderFirst) {
  EXPECT_EQ(even_counts(10, 4), (std::vector<std::uint64_t>{3, 3, 2, 2}));
  EXPECT_EQ(even_counts(1, 3), (std::vector<std::uint64_t>{1, 0, 0}));
}

TEST(Layout, TilesAreColumnMajorBlocksSideBySide) {
  // 300 fp32 elements in block 0 (3 columns), 5 in block 1 (1 column), base 64.
  const Tiled t = tile_blocks(64, 4, 128, {300, 5});
  EXPECT_EQ(t.block_cols(0), (Cols{0, 3}));
  EXPECT_EQ(t.block_cols(1), (Cols{3, 4}));
  EXPECT_EQ(t.end_col(), 4u);
  EXPECT_EQ(t.byte_of(3), 64u + 12u);
  const auto rs = runs(t);
  // Block 0: partitions 0..43 hold 3 elements (e, e+128, e+256), 44..127 hold 2.
  ASSERT_EQ(rs.size(), 128u + 5u);
  EXPECT_EQ(rs[0].n, 3u);
  EXPECT_EQ(rs[43].n, 3u);
  EXPECT_EQ(rs[44].n, 2u);
  EXPECT_EQ(rs[128].partition, 0u);
  EXPECT_EQ(rs[128].first, 300u);  // block 1's logical elements follow block 0's
  EXPECT_EQ(rs[128].offset, 64u + 12u);
}

TEST(Layout, PackAndUnpackRoundTrip) {
  const Tiled t = tile_blocks(0, 2, 4, {7});  // 4 partitions for a small example
  std::vector<std::uint8_t> logical(14);
  for (std::size_t i = 0; i < logical.size(); ++i) logical[i] = static_cast<std::uint8_t>(i + 1);
  std::vector<std::uint8_t> back(14, 0);
  for (const TileRun& r : runs(t)) {
    std::vector<std::uint8_t> bytes(r.n * 2);
    pack_run(r, logical.data(), 2, 4, bytes.data());
    if (r.partition == 1) {  // elements 1 and 5
      EXPECT_EQ(bytes, (std::vector<std::uint8_t>{3, 4, 11, 12}));
    }
    unpack_run(r, bytes.data(), 2, 4, back.data());
  }
  EXPECT_EQ(back, logical);
}

TEST(Geometry, LocatesCoresChipMajor) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 16);
  EXPECT_EQ(g.num_cores(), 128u);
  EXPECT_EQ(g.locate(13), (Place{1, 1, 5}));
  EXPECT_EQ(g.core_of(Place{1, 1, 5}), 13u);
  EXPECT_EQ(g.partition_bytes, 224u << 10);
}

TEST(Geometry, OnlyChip24sOtherDieIsUnfoldable) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 64);
  const CoreId c0 = 0;          // chip 0 die 0
  const CoreId c24d0 = 24 * 8;  // chip 24 die 0
  const CoreId c24d1 = 24 * 8 + 5;
  EXPECT_TRUE(foldable(g, c0, c24d0));
  EXPECT_FALSE(foldable(g, c0, c24d1));      // the fold that aliases the neighbour route
  EXPECT_TRUE(foldable(g, c24d0, c24d1));    // same chip: neighbour fold
  EXPECT_TRUE(foldable(g, 8 + 4, c24d1));    // chip 1 die 1 -> chip 24 die 1: same die
  EXPECT_FALSE(foldable(g, 25 * 8, c24d1));  // chip 25 die 0 -> chip 24 die 1
  const CoreId relay = relay_core(g, c0, c24d1);
  EXPECT_EQ(relay, 24u * 8 + 1);  // chip 24, die 0, same position as tpb 5 on die 1
  EXPECT_TRUE(foldable(g, c0, relay));
  EXPECT_TRUE(foldable(g, relay, c24d1));
}

TEST(Types, NamesRoundTripAndBusFactors) {
  for (Op op : all_ops()) EXPECT_EQ(*parse_op(op_name(op)), op);
  for (DataType d : all_dtypes()) EXPECT_EQ(*parse_dtype(dtype_name(d)), d);
  EXPECT_EQ(*parse_op("all_reduce"), Op::kAllReduce);
  EXPECT_EQ(*parse_algorithm("hier"), Algorithm::kHierarchical);
  // The aliases --help and docs/bench.md list.
  EXPECT_EQ(*parse_dtype("float32"), DataType::kFp32);
  EXPECT_EQ(*parse_dtype("bfloat16"), DataType::kBf16);
  EXPECT_EQ(*parse_dtype("float16"), DataType::kFp16);
  EXPECT_FALSE(parse_op("allreduce").ok());
  EXPECT_EQ(parse_op("bogus").error().message,
            "unknown collective 'bogus' (one of: allr, allg, redsct, alltoall, sendrecv, permute; "
            "also all_reduce, all_gather, reduce_scatter, all_to_all)");
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllToAll, 4), 0.75);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kPermute, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kReduceScatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kSendRecv, 2), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::kAllReduce, 1), 0.0);
}

}  // namespace
}  // namespace sbrdma::collectives
