// Local compute arithmetic (firmware/elementwise.h) against a CPU reference: every dtype and
// op, the bf16/fp16 rounding at ties, subnormals, overflow and NaN, and the integers'
// wrap-around and signed or unsigned max/min. [CHOICE D28]
#include "firmware/elementwise.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "platform/arith_ref.h"

namespace sbrdma::firmware {
namespace {

using isa::Dtype;
using testing_ref::ref_op;
using testing_ref::ref_round;
using testing_ref::ref_value;

template <typename T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<std::uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <typename T>
std::vector<T> run(ArithOp op, Dtype d, const std::vector<T>& a, const std::vector<T>& b) {
  const auto ab = bytes_of(a);
  const auto bb = bytes_of(b);
  std::vector<std::uint8_t> out(ab.size());
  elementwise(op, d, ab.data(), bb.data(), out.data(), a.size());
  std::vector<T> r(a.size());
  std::memcpy(r.data(), out.data(), out.size());
  return r;
}

constexpr ArithOp kOps[] = {ArithOp::kAdd, ArithOp::kMult, ArithOp::kMax, ArithOp::kMin};

/// Random 16-bit patterns plus the special values of the format.
std::vector<std::uint16_t> f16_inputs(std::uint32_t seed, std::size_t n,
                                      std::initializer_list<std::uint16_t> specials) {
  std::mt19937 rng(seed);
  std::vector<std::uint16_t> v(specials);
  while (v.size() < n) v.push_back(static_cast<std::uint16_t>(rng()));
  return v;
}

void check_f16(Dtype d, int mant, int exp_bits, std::initializer_list<std::uint16_t> specials) {
  const auto a = f16_inputs(1, 4000, specials);
  auto b = f16_inputs(2, 4000, specials);
  std::reverse(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(specials.size()));
  for (const ArithOp op : kOps) {
    const auto got = run(op, d, a, b);
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double x = ref_value(a[i], mant, exp_bits);
      const double y = ref_value(b[i], mant, exp_bits);
      const double r = ref_op(op, x, y);
      const double g = ref_value(got[i], mant, exp_bits);
      if (std::isnan(r)) {
        ASSERT_TRUE(std::isnan(g)) << arith_op_name(op) << " " << i;
        continue;
      }
      if (op == ArithOp::kMax || op == ArithOp::kMin) {
        // Selects an input: the value must be the reference's; on a tie either zero sign.
        ASSERT_EQ(g, r) << arith_op_name(op) << " " << std::hex << a[i] << " " << b[i];
        continue;
      }
      ASSERT_EQ(got[i], ref_round(r, mant, exp_bits))
          << arith_op_name(op) << " " << std::hex << a[i] << " " << b[i];
    }
  }
}

TEST(Elementwise, Fp16AgainstReference) {
  // 0, -0, 1, smallest subnormal, largest subnormal, smallest normal, 65504, inf, -inf, NaN
  check_f16(Dtype::kFp16, 10, 5,
            {0x0000, 0x8000, 0x3c00, 0x0001, 0x03ff, 0x0400, 0x7bff, 0x7c00, 0xfc00, 0x7e00});
}

TEST(Elementwise, Bf16AgainstReference) {
  check_f16(Dtype::kBfloat16, 7, 8,
            {0x0000, 0x8000, 0x3f80, 0x0001, 0x007f, 0x0080, 0x7f7f, 0x7f80, 0xff80, 0x7fc0});
}

TEST(Elementwise, HalfRoundingTiesToEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1). 1 + 3 * 2^-11 -> up.
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(float_to_half(1.0f + 3 * 0x1p-11f), 0x3c02);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65519.0f), 0x7bff);  // below the midpoint 65520
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // the midpoint ties to even: infinity
  EXPECT_EQ(float_to_half(0x1p-25f), 0x0000);  // half the smallest subnormal: ties to 0
  EXPECT_EQ(float_to_half(0x1.8p-25f), 0x0001);
  EXPECT_EQ(float_to_half(-0x1p-24f), 0x8001);
  // bf16: 1 + 2^-8 ties to 1 (even); 1 + 3 * 2^-8 rounds up to 1 + 2^-6.
  EXPECT_EQ(float_to_bf16(1.0f + 0x1p-8f), 0x3f80);
  EXPECT_EQ(float_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds to infinity
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(std::nanf("")))));
}

// "NaNs stay NaN (quiet)": a binary32 NaN whose payload lies in the low 16 bits alone, which
// truncation to bf16 would leave an infinity.
TEST(Elementwise, ANanWithALowPayloadStaysAQuietNanInBf16) {
  for (const std::uint32_t bits : {0x7f800001u, 0xff800001u, 0x7f80ffffu}) {
    const std::uint16_t b = float_to_bf16(std::bit_cast<float>(bits));
    EXPECT_TRUE(std::isnan(bf16_to_float(b))) << std::hex << bits << " -> " << b;
    EXPECT_NE(b & 0x40u, 0u) << std::hex << bits << " -> " << b;         // quiet
    EXPECT_EQ(b & 0x8000u, (bits >> 16) & 0x8000u) << std::hex << bits;  // its sign kept
  }
}

// Float max and min on a tie, +0 against -0 included, give the second operand (elementwise.h).
TEST(Elementwise, FloatMaxAndMinGiveTheSecondOperandOnATie) {
  const std::vector<float> pos_neg{0.0f, -0.0f, 1.5f};
  const std::vector<float> neg_pos{-0.0f, 0.0f, 1.5f};
  for (const ArithOp op : {ArithOp::kMax, ArithOp::kMin}) {
    const auto r1 = run(op, Dtype::kFp32, pos_neg, neg_pos);
    const auto r2 = run(op, Dtype::kFp32, neg_pos, pos_neg);
    for (std::size_t i = 0; i < pos_neg.size(); ++i) {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(r1[i]), std::bit_cast<std::uint32_t>(neg_pos[i]))
          << arith_op_name(op) << " fp32 " << i;
      EXPECT_EQ(std::bit_cast<std::uint32_t>(r2[i]), std::bit_cast<std::uint32_t>(pos_neg[i]))
          << arith_op_name(op) << " fp32 " << i;
    }
    // bf16 and fp16: +0 is 0x0000, -0 is 0x8000 in both.
    for (const Dtype d : {Dtype::kBfloat16, Dtype::kFp16}) {
      const std::vector<std::uint16_t> a{0x0000, 0x8000};
      const std::vector<std::uint16_t> b{0x8000, 0x0000};
      EXPECT_EQ(run(op, d, a, b), b) << arith_op_name(op);
      EXPECT_EQ(run(op, d, b, a), a) << arith_op_name(op);
    }
  }
}

TEST(Elementwise, HalfConversionRoundTripsEveryValue) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float f = half_to_float(bits);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f))));
      continue;
    }
    ASSERT_EQ(static_cast<double>(f), ref_value(bits, 10, 5)) << std::hex << h;
    ASSERT_EQ(float_to_half(f), bits) << std::hex << h;
  }
}

TEST(Elementwise, Fp32IsIeee) {
  std::mt19937 rng(3);
  std::vector<float> a;
  std::vector<float> b;
  for (int i = 0; i < 1000; ++i) {
    a.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
    b.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
  }
  a.push_back(0x1p-149f);  // subnormals are kept (no flush to zero)
  b.push_back(0x1p-149f);
  const auto add = run(ArithOp::kAdd, Dtype::kFp32, a, b);
  const auto mult = run(ArithOp::kMult, Dtype::kFp32, a, b);
  const auto mx = run(ArithOp::kMax, Dtype::kFp32, a, b);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const float s = a[i] + b[i];
    const float p = a[i] * b[i];
    EXPECT_TRUE(std::bit_cast<std::uint32_t>(add[i]) == std::bit_cast<std::uint32_t>(s) ||
                (std::isnan(s) && std::isnan(add[i])));
    EXPECT_TRUE(std::bit_cast<std::uint32_t>(mult[i]) == std::bit_cast<std::uint32_t>(p) ||
                (std::isnan(p) && std::isnan(mult[i])));
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      EXPECT_TRUE(std::isnan(mx[i]));
    } else {
      EXPECT_EQ(mx[i], std::max(a[i], b[i]));
    }
  }
  EXPECT_EQ(add.back(), 0x1p-148f);
}

TEST(Elementwise, IntegersWrapAndCompareBySignedness) {
  const std::vector<std::int32_t> a{INT32_MAX, -5, 7, INT32_MIN};
  const std::vector<std::int32_t> b{1, 3, -9, -1};
  EXPECT_EQ(run(ArithOp::kAdd, Dtype::kInt32, a, b),
            (std::vector<std::int32_t>{INT32_MIN, -2, -2, INT32_MAX}));
  EXPECT_EQ(run(ArithOp::kMult, Dtype::kInt32, a, b),
            (std::vector<std::int32_t>{INT32_MAX, -15, -63, INT32_MIN}));
  EXPECT_EQ(run(ArithOp::kMax, Dtype::kInt32, a, b),
            (std::vector<std::int32_t>{INT32_MAX, 3, 7, -1}));
  EXPECT_EQ(run(ArithOp::kMin, Dtype::kInt32, a, b),
            (std::vector<std::int32_t>{1, -5, -9, INT32_MIN}));

  const std::vector<std::uint8_t> x{200, 0x80, 16, 3};
  const std::vector<std::uint8_t> y{100, 0x01, 16, 0xff};
  EXPECT_EQ(run(ArithOp::kAdd, Dtype::kUint8, x, y), (std::vector<std::uint8_t>{44, 0x81, 32, 2}));
  EXPECT_EQ(run(ArithOp::kMult, Dtype::kInt8, x, y),
            (std::vector<std::uint8_t>{32, 0x80, 0, 0xfd}));
  // uint8 compares unsigned (200 > 100), int8 signed (200 = -56 < 100).
  EXPECT_EQ(run(ArithOp::kMax, Dtype::kUint8, x, y),
            (std::vector<std::uint8_t>{200, 0x80, 16, 0xff}));
  EXPECT_EQ(run(ArithOp::kMax, Dtype::kInt8, x, y), (std::vector<std::uint8_t>{100, 0x01, 16, 3}));
  EXPECT_EQ(run(ArithOp::kMin, Dtype::kInt8, x, y),
            (std::vector<std::uint8_t>{200, 0x80, 16, 0xff}));
}

/// Expects `x` op `y` in dtype `d` to be want[k] for the k-th op of kOps (add, mult, max, min).
template <typename T>
void expect_ops(Dtype d, const std::vector<T>& x, const std::vector<T>& y,
                const std::vector<T> (&want)[4]) {
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(run(kOps[k], d, x, y), want[k])
        << isa::enum_name(isa::kDtypeEnum, static_cast<std::uint8_t>(d)) << " "
        << arith_op_name(kOps[k]);
  }
}

TEST(Elementwise, SixteenBitIntegersWrapAndCompareBySignedness) {
  // The same bits as uint16 and int16: 0xfff0 is 65520 or -16, 0x8000 32768 or -32768. Add
  // and mult keep the low 16 bits either way; 0xffff * 0xffff = 0xfffe0001 is past int, which
  // uint16 operands promote to. uint16 compares unsigned (65520 > 32), int16 signed (-16 < 32).
  const std::vector<std::uint16_t> x{0xfff0, 0x8000, 0x7fff, 0xffff, 300};
  const std::vector<std::uint16_t> y{0x0020, 0x8000, 0x0001, 0xffff, 300};
  const std::vector<std::uint16_t> sum{0x0010, 0x0000, 0x8000, 0xfffe, 600};
  const std::vector<std::uint16_t> product{0xfe00, 0x0000, 0x7fff, 0x0001, 0x5f90};
  expect_ops(
      Dtype::kUint16, x, y,
      {sum, product, {0xfff0, 0x8000, 0x7fff, 0xffff, 300}, {0x0020, 0x8000, 0x0001, 0xffff, 300}});
  expect_ops(
      Dtype::kInt16, x, y,
      {sum, product, {0x0020, 0x8000, 0x7fff, 0xffff, 300}, {0xfff0, 0x8000, 0x0001, 0xffff, 300}});
}

TEST(Elementwise, Uint32WrapsAndComparesUnsigned) {
  // 10^10 mod 2^32 = 0x540be400. Unsigned, 0xfffffff0 is the larger; as int32 (-16) it is
  // the smaller.
  const std::vector<std::uint32_t> a{0xfffffff0, 0x80000000, 0x7fffffff, 0xffffffff, 100000};
  const std::vector<std::uint32_t> b{0x00000020, 0x80000000, 0x00000001, 0xffffffff, 100000};
  expect_ops(Dtype::kUint32, a, b,
             {{0x10, 0, 0x80000000, 0xfffffffe, 200000},
              {0xfffffe00, 0, 0x7fffffff, 1, 0x540be400},
              {0xfffffff0, 0x80000000, 0x7fffffff, 0xffffffff, 100000},
              {0x20, 0x80000000, 1, 0xffffffff, 100000}});
  EXPECT_EQ(run(ArithOp::kMax, Dtype::kInt32, a, b),
            (std::vector<std::uint32_t>{0x20, 0x80000000, 0x7fffffff, 0xffffffff, 100000}));
}

TEST(Elementwise, InPlaceOutputEqualsInput) {
  std::vector<std::uint8_t> a(4 * 1000);
  std::vector<std::uint8_t> b(4 * 1000);
  for (std::size_t i = 0; i < 1000; ++i) {
    const auto fa = static_cast<float>(i);
    const auto fb = static_cast<float>(2 * i);
    std::memcpy(&a[4 * i], &fa, 4);
    std::memcpy(&b[4 * i], &fb, 4);
  }
  elementwise(ArithOp::kAdd, Dtype::kFp32, a.data(), b.data(), a.data(), 1000);
  for (std::size_t i = 0; i < 1000; ++i) {
    float r = 0;
    std::memcpy(&r, &a[4 * i], 4);
    ASSERT_EQ(r, static_cast<float>(3 * i));
  }
}

TEST(Elementwise, OpsAndDtypes) {
  EXPECT_EQ(arith_op_of(isa::AluOp::kAdd), ArithOp::kAdd);
  EXPECT_EQ(arith_op_of(isa::AluOp::kMult), ArithOp::kMult);
  EXPECT_EQ(arith_op_of(isa::AluOp::kMax), ArithOp::kMax);
  EXPECT_EQ(arith_op_of(static_cast<isa::AluOp>(0x09)), ArithOp::kMin);
  EXPECT_FALSE(arith_op_of(isa::AluOp::kBypass).has_value());
  EXPECT_FALSE(arith_op_of(isa::AluOp::kAddInt).has_value());
  EXPECT_TRUE(elementwise_dtype_supported(Dtype::kBfloat16));
  EXPECT_TRUE(elementwise_dtype_supported(Dtype::kInt16));
  EXPECT_TRUE(elementwise_dtype_supported(Dtype::kUint16));
  EXPECT_TRUE(elementwise_dtype_supported(Dtype::kUint32));
  EXPECT_FALSE(elementwise_dtype_supported(Dtype::kInt64));
  EXPECT_FALSE(elementwise_dtype_supported(Dtype::kUint64));
  EXPECT_FALSE(elementwise_dtype_supported(Dtype::kFp8Exp4));
}

}  // namespace
}  // namespace sbrdma::firmware
