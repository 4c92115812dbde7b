#include "collectives/reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "base/bits.h"

namespace sbrdma::collectives {
namespace {

std::vector<std::uint8_t> elems(DataType dt, std::initializer_list<double> vs) {
  std::vector<std::uint8_t> out(vs.size() * dtype_bytes(dt));
  std::size_t i = 0;
  for (double v : vs) store_element(dt, v, &out[i++ * dtype_bytes(dt)]);
  return out;
}

TEST(Reference, ElementsRoundTripEveryDtype) {
  for (DataType dt : all_dtypes()) {
    std::vector<std::uint8_t> b(4);
    store_element(dt, -1.0, b.data());
    const double back = element_value(dt, b.data());
    const bool is_unsigned =
        dt == DataType::kUint8 || dt == DataType::kUint16 || dt == DataType::kUint32;
    // Unsigned types wrap -1 to their largest value: 255, 65535, 2^32 - 1.
    EXPECT_EQ(back, is_unsigned ? std::ldexp(1.0, 8 * static_cast<int>(dtype_bytes(dt))) - 1 : -1.0)
        << dtype_name(dt);
  }
  std::vector<std::uint8_t> b(2);
  store_element(DataType::kBf16, 1.0 + 1.0 / 512, b.data());  // halfway: to even (1.0)
  EXPECT_EQ(element_value(DataType::kBf16, b.data()), 1.0);
  store_element(DataType::kFp16, 65520.0, b.data());  // rounds past the largest half: inf
  EXPECT_TRUE(std::isinf(element_value(DataType::kFp16, b.data())));
  store_element(DataType::kFp16, 0.375, b.data());
  EXPECT_EQ(element_value(DataType::kFp16, b.data()), 0.375);
}

TEST(Reference, HalfWidthFloatStoresRoundTiesToEven) {
  // A value halfway between two bf16 (fp16) values takes the one with an even mantissa:
  // 1 + 2^-8 rounds down to 1, 1 + 3 x 2^-8 up to 1 + 2^-6 (the reference's expected bytes).
  const auto bits = [](DataType dt, double v) {
    std::uint8_t b[2] = {};
    store_element(dt, v, b);
    return static_cast<unsigned>(b[0] | (b[1] << 8));
  };
  EXPECT_EQ(bits(DataType::kBf16, 1.0 + std::ldexp(1.0, -8)), 0x3F80U);
  EXPECT_EQ(bits(DataType::kBf16, 1.0 + 3 * std::ldexp(1.0, -8)), 0x3F82U);
  EXPECT_EQ(bits(DataType::kBf16, -(1.0 + 3 * std::ldexp(1.0, -8))), 0xBF82U);
  EXPECT_EQ(bits(DataType::kFp16, 1.0 + std::ldexp(1.0, -11)), 0x3C00U);
  EXPECT_EQ(bits(DataType::kFp16, 1.0 + 3 * std::ldexp(1.0, -11)), 0x3C02U);
}

TEST(Reference, InputsAreSeededAndAllOnesIsOne) {
  const auto a = make_input(DataType::kFp32, 100, DataFill::kRandom, 1, 0, 3);
  EXPECT_EQ(a, make_input(DataType::kFp32, 100, DataFill::kRandom, 1, 0, 3));
  EXPECT_NE(a, make_input(DataType::kFp32, 100, DataFill::kRandom, 2, 0, 3));
  EXPECT_NE(a, make_input(DataType::kFp32, 100, DataFill::kRandom, 1, 0, 4));
  EXPECT_NE(a, make_input(DataType::kFp32, 100, DataFill::kRandom, 1, 1, 3));
  for (std::size_t e = 0; e < 100; ++e) {
    const double v = element_value(DataType::kFp32, &a[e * 4]);
    EXPECT_EQ(v * 8, std::round(v * 8));
    EXPECT_LE(std::fabs(v), 1.0);
  }
  // All ones in every dtype, 1-byte ones included (4, 2 and 1 bytes an element)...
  for (const DataType dt : all_dtypes()) {
    EXPECT_EQ(make_input(dt, 3, DataFill::kAllOnes, 1, 0, 0), elems(dt, {1, 1, 1}))
        << dtype_name(dt);
  }
  // ... as their formats write 1 (little-endian bytes).
  using Bytes = std::vector<std::uint8_t>;
  EXPECT_EQ(make_input(DataType::kFp32, 1, DataFill::kAllOnes, 1, 0, 0),
            (Bytes{0x00, 0x00, 0x80, 0x3f}));
  EXPECT_EQ(make_input(DataType::kBf16, 1, DataFill::kAllOnes, 1, 0, 0), (Bytes{0x80, 0x3f}));
  EXPECT_EQ(make_input(DataType::kFp16, 1, DataFill::kAllOnes, 1, 0, 0), (Bytes{0x00, 0x3c}));
  EXPECT_EQ(make_input(DataType::kInt16, 2, DataFill::kAllOnes, 1, 0, 0),
            (Bytes{0x01, 0x00, 0x01, 0x00}));
  EXPECT_EQ(make_input(DataType::kInt8, 2, DataFill::kAllOnes, 1, 0, 0), (Bytes{0x01, 0x01}));
}

TEST(Reference, RandomInputsAreEvenAndHaveNoShortPeriod) {
  // 17 values k/8, each about 1/17 of the elements; an element matches the one d places on
  // (or another rank's at the same place) about 1/17 of the time: no pattern repeats.
  constexpr std::uint64_t kN = 1 << 16;
  const auto a = make_input(DataType::kFp32, kN, DataFill::kRandom, 3, 0, 1);
  const auto b = make_input(DataType::kFp32, kN, DataFill::kRandom, 3, 0, 2);
  std::vector<int> ks;
  std::vector<std::uint64_t> count(17, 0);
  for (std::uint64_t e = 0; e < kN; ++e) {
    const double k = element_value(DataType::kFp32, &a[e * 4]) * 8 + 8;
    ASSERT_EQ(k, std::round(k));
    ASSERT_GE(k, 0);
    ASSERT_LE(k, 16);
    ks.push_back(static_cast<int>(k));
    ++count[ks.back()];
  }
  for (std::uint64_t c : count) EXPECT_NEAR(static_cast<double>(c), kN / 17.0, kN / 17.0 * 0.1);
  const auto same_fraction = [&](std::uint64_t d) {
    std::uint64_t same = 0;
    for (std::uint64_t e = 0; e + d < kN; ++e) same += ks[e] == ks[e + d] ? 1 : 0;
    return static_cast<double>(same) / static_cast<double>(kN - d);
  };
  for (std::uint64_t d = 1; d <= 1024; ++d) EXPECT_LT(same_fraction(d), 0.08) << "shift " << d;
  std::uint64_t same_rank = 0;
  for (std::uint64_t e = 0; e < kN; ++e)
    same_rank += std::equal(&a[4 * e], &a[4 * e + 4], &b[4 * e]);
  EXPECT_LT(static_cast<double>(same_rank) / kN, 0.08);
  // Integers take their whole range.
  const auto i8 = make_input(DataType::kInt8, 4096, DataFill::kRandom, 3, 0, 1);
  std::vector<bool> seen(256, false);
  for (std::uint8_t v : i8) seen[v] = true;
  EXPECT_EQ(std::count(seen.begin(), seen.end(), true), 256);
  const auto i32 = make_input(DataType::kInt32, 4096, DataFill::kRandom, 3, 0, 1);
  std::uint32_t hi_bits = 0;
  for (std::size_t e = 0; e < 4096; ++e) hi_bits |= base::load_le<std::uint32_t>(&i32[4 * e]);
  EXPECT_EQ(hi_bits, 0xFFFFFFFFU);
  const auto u16 = make_input(DataType::kUint16, 4096, DataFill::kRandom, 3, 0, 1);
  std::uint16_t bits16 = 0;
  for (std::size_t e = 0; e < 4096; ++e) bits16 |= base::load_le<std::uint16_t>(&u16[2 * e]);
  EXPECT_EQ(bits16, 0xFFFFU);
}

TEST(Reference, RandomBytesArePinned) {
  // The random data of a seed never changes (runs, outputs and the check stay comparable):
  // FNV-1a of elements 7, 135, ... (stride 128, a partition's share) and of 4096 elements
  // whose counter wraps past 2^32, per dtype, as the first generator made them (the signed and
  // unsigned integers of one width share their bits). Every build
  // of the generator (the CPU's vector width here, the baseline under the sanitizers) must
  // give them.
  struct Case {
    std::uint64_t first, n, stride;
    std::uint64_t want[9];  // all_dtypes() order
  };
  const Case cases[] = {
      {7,
       3000,
       128,
       {0x021f1e8be81626c2ULL, 0xa4046afb23543aeaULL, 0x068ab981b094105aULL, 0xbd523b09abaebf76ULL,
        0xbd523b09abaebf76ULL, 0x4ebe053de45a3f0fULL, 0x4ebe053de45a3f0fULL, 0x73349f20bc7683edULL,
        0x73349f20bc7683edULL}},
      {0xFFFFF000ULL,
       4096,
       1,
       {0x7e72dfef509034d8ULL, 0x3e28377fc835c750ULL, 0x3695682e51ebcc8aULL, 0xc3b5256e1a392db8ULL,
        0xc3b5256e1a392db8ULL, 0x0ac6729421a5b26eULL, 0x0ac6729421a5b26eULL, 0xf6c2fee408432b76ULL,
        0xf6c2fee408432b76ULL}},
  };
  for (const Case& c : cases) {
    std::size_t k = 0;
    for (DataType dt : all_dtypes()) {
      ASSERT_LT(k, 9U);
      std::vector<std::uint8_t> out(c.n * dtype_bytes(dt));
      make_input_range(dt, DataFill::kRandom, 0x5EED, 2, 5, c.first, c.n, out.data(), c.stride);
      std::uint64_t h = 14695981039346656037ULL;
      for (std::uint8_t b : out) h = (h ^ b) * 1099511628211ULL;
      EXPECT_EQ(h, c.want[k++]) << dtype_name(dt) << " from " << c.first;
    }
  }
}

TEST(Reference, ReductionsAgreeWithElementByElementArithmetic) {
  // 1000 elements: the vector loops' full widths and their remainders, for every dtype and
  // reduction, against a scalar fold of element_value written out here.
  constexpr std::uint64_t kN = 1000;
  for (DataType dt : all_dtypes()) {
    const unsigned eb = dtype_bytes(dt);
    std::vector<std::vector<std::uint8_t>> in;
    for (unsigned r = 0; r < 3; ++r) in.push_back(make_input(dt, kN, DataFill::kRandom, 8, 0, r));
    for (ReduceOp red : {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin}) {
      const auto got = expected_outputs(Op::kAllReduce, dt, red, in, {kN, kN, kN});
      ASSERT_EQ(got[0].bytes.size(), kN * eb);
      std::uint64_t differ = 0;
      for (std::uint64_t e = 0; e < kN; ++e) {
        double v = element_value(dt, &in[0][e * eb]);
        double mag = std::fabs(v);
        for (unsigned r = 1; r < 3; ++r) {
          const double x = element_value(dt, &in[r][e * eb]);
          mag += std::fabs(x);
          v = red == ReduceOp::kSum   ? v + x
              : red == ReduceOp::kMax ? std::max(v, x)
                                      : std::min(v, x);
        }
        std::uint8_t want[4] = {};
        store_element(dt, v, want);
        if (!std::equal(want, want + eb,
                        got[0].bytes.begin() + static_cast<std::ptrdiff_t>(e * eb))) {
          ++differ;
        }
        if (!got[0].value.empty() && (got[0].value[e] != v || got[0].abs_sum[e] != mag)) ++differ;
      }
      EXPECT_EQ(differ, 0U) << dtype_name(dt) << " " << static_cast<int>(red);
    }
  }
}

TEST(Reference, AllReduceSumsAndIntegersWrap) {
  const auto want = expected_outputs(
      Op::kAllReduce, DataType::kInt8, ReduceOp::kSum,
      {elems(DataType::kInt8, {100, -3}), elems(DataType::kInt8, {100, 5})}, {2, 2});
  EXPECT_EQ(want[1].bytes, elems(DataType::kInt8, {-56, 2}));  // 200 wraps to -56
  EXPECT_TRUE(want[1].value.empty());
  const auto mx = expected_outputs(
      Op::kAllReduce, DataType::kUint8, ReduceOp::kMax,
      {elems(DataType::kUint8, {1, 250}), elems(DataType::kUint8, {9, 3})}, {2, 2});
  EXPECT_EQ(mx[0].bytes, elems(DataType::kUint8, {9, 250}));
  // 16 and 32 bits: sums wrap, max/min compare as the type's sign says.
  const auto u16 = expected_outputs(
      Op::kAllReduce, DataType::kUint16, ReduceOp::kSum,
      {elems(DataType::kUint16, {65535, 7}), elems(DataType::kUint16, {2, 9})}, {2, 2});
  EXPECT_EQ(u16[0].bytes, elems(DataType::kUint16, {1, 16}));  // 65537 wraps to 1
  const auto i16 = expected_outputs(
      Op::kAllReduce, DataType::kInt16, ReduceOp::kMax,
      {elems(DataType::kInt16, {-5, 300}), elems(DataType::kInt16, {3, -300})}, {2, 2});
  EXPECT_EQ(i16[0].bytes, elems(DataType::kInt16, {3, 300}));  // -5 < 3 signed
  const auto u32 = expected_outputs(
      Op::kAllReduce, DataType::kUint32, ReduceOp::kMin,
      {elems(DataType::kUint32, {4294967295.0, 1}), elems(DataType::kUint32, {2, 0})}, {2, 2});
  EXPECT_EQ(u32[0].bytes, elems(DataType::kUint32, {2, 0}));  // 2^32 - 1 > 2 unsigned
  const auto u32sum =
      expected_outputs(Op::kAllReduce, DataType::kUint32, ReduceOp::kSum,
                       {elems(DataType::kUint32, {4294967295.0}),
                        elems(DataType::kUint32, {4294967295.0}), elems(DataType::kUint32, {3})},
                       {1, 1, 1});
  EXPECT_EQ(u32sum[0].bytes, elems(DataType::kUint32, {1}));  // 2^33 + 1 wraps to 1
}

TEST(Reference, ReduceScatterGivesEachRankItsBlock) {
  // 5 elements on 2 ranks: blocks of 3 and 2.
  const auto want = expected_outputs(
      Op::kReduceScatter, DataType::kInt32, ReduceOp::kMin,
      {elems(DataType::kInt32, {1, 2, 3, 4, 5}), elems(DataType::kInt32, {5, 0, 7, -1, 9})},
      {3, 2});
  EXPECT_EQ(want[0].bytes, elems(DataType::kInt32, {1, 0, 3}));
  EXPECT_EQ(want[1].bytes, elems(DataType::kInt32, {-1, 5}));
}

TEST(Reference, GatherAllToAllAndPermuteMoveBlocks) {
  const auto ag =
      expected_outputs(Op::kAllGather, DataType::kUint8, ReduceOp::kSum,
                       {elems(DataType::kUint8, {1, 2}), elems(DataType::kUint8, {3})}, {3, 3});
  EXPECT_EQ(ag[1].bytes, elems(DataType::kUint8, {1, 2, 3}));
  // All-to-all, 2 ranks, 3 elements: blocks of 2 (to rank 0) and 1 (to rank 1).
  const auto a2a = expected_outputs(
      Op::kAllToAll, DataType::kUint8, ReduceOp::kSum,
      {elems(DataType::kUint8, {1, 2, 3}), elems(DataType::kUint8, {4, 5, 6})}, {4, 2});
  EXPECT_EQ(a2a[0].bytes, elems(DataType::kUint8, {1, 2, 4, 5}));
  EXPECT_EQ(a2a[1].bytes, elems(DataType::kUint8, {3, 6}));
  const auto perm = expected_outputs(
      Op::kPermute, DataType::kUint8, ReduceOp::kSum,
      {elems(DataType::kUint8, {1}), elems(DataType::kUint8, {2}), elems(DataType::kUint8, {3})},
      {1, 1, 1});
  EXPECT_EQ(perm[0].bytes, elems(DataType::kUint8, {3}));
  const auto sr = expected_outputs(
      Op::kSendRecv, DataType::kUint8, ReduceOp::kSum,
      {elems(DataType::kUint8, {1}), elems(DataType::kUint8, {2}), elems(DataType::kUint8, {3})},
      {1, 1, 1});
  EXPECT_EQ(sr[0].bytes, elems(DataType::kUint8, {2}));
  EXPECT_EQ(sr[2].bytes, elems(DataType::kUint8, {3}));  // the odd one out keeps its own
}

TEST(Reference, PermuteFollowsItsPairs) {
  // 0 -> 2, 2 -> 0, 1 keeps its own (the ring would give rank 0 rank 2's, rank 1 rank 0's).
  const std::vector<SrcTarget> pairs{{0, 2}, {1, 1}, {2, 0}};
  const std::vector<std::vector<std::uint8_t>> in{elems(DataType::kUint8, {1, 2}),
                                                  elems(DataType::kUint8, {3, 4}),
                                                  elems(DataType::kUint8, {5, 6})};
  const auto perm =
      expected_outputs(Op::kPermute, DataType::kUint8, ReduceOp::kSum, in, {2, 2, 2}, pairs);
  EXPECT_EQ(perm[0].bytes, in[2]);
  EXPECT_EQ(perm[1].bytes, in[1]);
  EXPECT_EQ(perm[2].bytes, in[0]);
  const auto src = output_sources(Op::kPermute, {2, 2, 2}, {2, 2, 2}, 2, pairs);
  ASSERT_EQ(src.size(), 1U);
  EXPECT_EQ(src[0], (OutputSource{0, 2, false, 0, 0}));
}

/// The expected all-reduce sum over 3 ranks of 1, `small` and `small` in `dt`.
Expected one_plus_twice(DataType dt, double small) {
  return expected_outputs(Op::kAllReduce, dt, ReduceOp::kSum,
                          {elems(dt, {1.0}), elems(dt, {small}), elems(dt, {small})}, {1, 1, 1})[0];
}

TEST(Reference, FloatSumsAllowTheSummationBound) {
  // bf16: 1 + 2^-8 + 2^-8 is 1.0078125; in order it rounds to 1 (each step ties to even).
  const auto want = one_plus_twice(DataType::kBf16, 1.0 / 256);
  EXPECT_EQ(count_wrong(DataType::kBf16, 3, elems(DataType::kBf16, {1.0}), want), 0u);
  EXPECT_EQ(count_wrong(DataType::kBf16, 3, elems(DataType::kBf16, {1.0078125}), want), 0u);
  EXPECT_EQ(count_wrong(DataType::kBf16, 3, elems(DataType::kBf16, {1.5}), want), 1u);
  // fp32: the bound is tiny, a missing contribution is wrong.
  const auto f =
      expected_outputs(Op::kAllReduce, DataType::kFp32, ReduceOp::kSum,
                       {elems(DataType::kFp32, {0.5}), elems(DataType::kFp32, {0.125})}, {1, 1});
  EXPECT_EQ(count_wrong(DataType::kFp32, 2, elems(DataType::kFp32, {0.625}), f[0]), 0u);
  EXPECT_EQ(count_wrong(DataType::kFp32, 2, elems(DataType::kFp32, {0.5}), f[0]), 1u);
}

TEST(Reference, TheFloatToleranceIsRanksTimesUnitRoundoffTimesTheAbsoluteSum) {
  // bf16, 1 + 2^-8 + 2^-8: the bound is 3 x 2^-8 x 1.0078125 (about 0.0118). 1 - 2^-8 (the
  // bf16 below 1) is 0.0117 off: inside 3 ranks' bound, outside 2 ranks'.
  const auto b = one_plus_twice(DataType::kBf16, 1.0 / 256);
  const auto below_one = elems(DataType::kBf16, {1.0 - 1.0 / 256});
  EXPECT_EQ(count_wrong(DataType::kBf16, 3, below_one, b), 0u);
  EXPECT_EQ(count_wrong(DataType::kBf16, 2, below_one, b), 1u);
  // fp16 (unit roundoff 2^-11), 1 + 2^-11 + 2^-11: the bound is 3 x 2^-11 x (1 + 2^-10), about
  // 0.001466. 1 - 2^-11 is 3 x 2^-11 (0.001465) off: inside; 1 - 2^-10 is outside.
  const auto h = one_plus_twice(DataType::kFp16, 1.0 / 2048);
  EXPECT_EQ(count_wrong(DataType::kFp16, 3, elems(DataType::kFp16, {1.0 - 1.0 / 2048}), h), 0u);
  EXPECT_EQ(count_wrong(DataType::kFp16, 3, elems(DataType::kFp16, {1.0 - 1.0 / 1024}), h), 1u);
}

TEST(Reference, RangesAgreeWithTheWholeBuffers) {
  for (DataType dt : all_dtypes()) {
    const auto whole = make_input(dt, 1000, DataFill::kRandom, 4, 1, 2);
    const unsigned eb = dtype_bytes(dt);
    std::vector<std::uint8_t> part(300 * eb);
    make_input_range(dt, DataFill::kRandom, 4, 1, 2, 555, 300, part.data());
    EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + 555 * eb)) << dtype_name(dt);
    std::vector<std::uint8_t> strided(7 * eb);  // elements 5, 105, ..., 605
    make_input_range(dt, DataFill::kRandom, 4, 1, 2, 5, 7, strided.data(), 100);
    for (unsigned i = 0; i < 7; ++i) {
      EXPECT_TRUE(std::equal(strided.begin() + i * eb, strided.begin() + (i + 1) * eb,
                             whole.begin() + (5 + 100 * i) * eb))
          << dtype_name(dt) << " element " << i;
    }
  }
  // Expected outputs made element by element, strided, are the whole buffers' elements.
  std::vector<std::vector<std::uint8_t>> inputs;
  for (unsigned r = 0; r < 3; ++r) {
    inputs.push_back(make_input(DataType::kBf16, 900, DataFill::kRandom, 1, 0, r));
  }
  const InputRange from = [&](unsigned rank, std::uint64_t first, std::uint64_t n,
                              std::uint64_t stride, std::uint8_t* out) {
    for (std::uint64_t i = 0; i < n; ++i) {
      std::copy_n(inputs[rank].begin() + static_cast<std::ptrdiff_t>((first + i * stride) * 2), 2,
                  out + 2 * i);
    }
  };
  for (Op op : {Op::kAllReduce, Op::kReduceScatter, Op::kAllToAll, Op::kAllGather}) {
    const std::vector<std::uint64_t> in_elems(3, op == Op::kAllGather ? 300 : 900);
    const std::vector<std::uint64_t> out_elems(3, op == Op::kReduceScatter ? 300 : 900);
    std::vector<std::vector<std::uint8_t>> in = inputs;
    if (op == Op::kAllGather) {
      for (auto& v : in) v.resize(600);
    }
    const auto want = expected_outputs(op, DataType::kBf16, ReduceOp::kSum, in, out_elems);
    for (unsigned r = 0; r < 3; ++r) {
      const auto sources = output_sources(op, in_elems, out_elems, r);
      Expected x;
      RangeScratch scratch;
      // Elements 7, 20, 33, ... (22 of them): they cross the gather's and all-to-all's blocks.
      expected_range(DataType::kBf16, ReduceOp::kSum, 3, sources, 7, 22, 13, from, x, scratch);
      ASSERT_EQ(x.bytes.size(), 44U);
      for (unsigned i = 0; i < 22; ++i) {
        const std::uint64_t e = 7 + 13 * i;
        EXPECT_EQ(x.bytes[2 * i], want[r].bytes[2 * e]) << op_name(op) << " rank " << r;
        EXPECT_EQ(x.bytes[2 * i + 1], want[r].bytes[2 * e + 1]) << op_name(op) << " rank " << r;
        if (!want[r].value.empty()) {
          EXPECT_EQ(x.value[i], want[r].value[e]);
          EXPECT_EQ(x.abs_sum[i], want[r].abs_sum[e]);
        }
      }
      EXPECT_EQ(x.value.empty(), want[r].value.empty());
      Expected bytes;
      expected_range(DataType::kBf16, ReduceOp::kSum, 3, sources, 7, 22, 13, from, bytes, scratch,
                     true);
      EXPECT_EQ(bytes.bytes, x.bytes) << "the same bytes without the sums";
      EXPECT_TRUE(bytes.value.empty());
    }
  }
}

}  // namespace
}  // namespace sbrdma::collectives
