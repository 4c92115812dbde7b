#pragma once
/// CPU reference arithmetic for the local-compute tests. It rounds with frexp/nearbyint on
/// doubles — a different method from the kernels' bit arithmetic — so that a shared mistake
/// is unlikely. Doubles hold every add and mult of two fp16/bf16 values closely enough:
/// double has >= 2p+2 significand bits for both formats, so rounding twice is harmless.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "firmware/elementwise.h"

namespace sbrdma::firmware::testing_ref {

/// Rounds `v` to the binary format with `mant` fraction bits and `exp_bits` exponent bits,
/// to nearest even, and returns its bits (sign at bit mant + exp_bits).
inline std::uint32_t ref_round(double v, int mant, int exp_bits) {
  const std::uint32_t sign_bit = 1U << (mant + exp_bits);
  const std::uint32_t exp_all = (1U << exp_bits) - 1;
  if (std::isnan(v)) return (exp_all << mant) | (1U << (mant - 1));
  const std::uint32_t sign = std::signbit(v) ? sign_bit : 0;
  double a = std::fabs(v);
  if (a == 0) return sign;
  if (std::isinf(a)) return sign | (exp_all << mant);
  const int bias = (1 << (exp_bits - 1)) - 1;
  const int emin = 1 - bias;
  int e2 = 0;
  std::frexp(a, &e2);
  int e = std::max(e2 - 1, emin);                      // a = q * 2^(e - mant)
  double q = std::nearbyint(std::ldexp(a, mant - e));  // FE_TONEAREST: ties to even
  if (q >= std::ldexp(1.0, mant + 1)) {
    q /= 2;
    ++e;
  }
  if (e > bias) return sign | (exp_all << mant);  // overflow: infinity
  const auto qi = static_cast<std::uint32_t>(q);
  if (qi < (1U << mant)) return sign | qi;  // subnormal (or rounded to zero)
  return sign | (static_cast<std::uint32_t>(e + bias) << mant) | (qi - (1U << mant));
}

inline double ref_value(std::uint16_t bits, int mant, int exp_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const std::uint32_t e = (bits >> mant) & ((1U << exp_bits) - 1);
  const std::uint32_t m = bits & ((1U << mant) - 1);
  const double sign = (bits >> (mant + exp_bits)) != 0 ? -1.0 : 1.0;
  if (e == (1U << exp_bits) - 1) {
    return m != 0 ? std::numeric_limits<double>::quiet_NaN()
                  : sign * std::numeric_limits<double>::infinity();
  }
  if (e == 0) return sign * std::ldexp(m, 1 - bias - mant);
  return sign * std::ldexp(m + (1U << mant), static_cast<int>(e) - bias - mant);
}

/// The reference op on doubles (exact for these formats' add and mult).
inline double ref_op(ArithOp op, double x, double y) {
  switch (op) {
    case ArithOp::kAdd:
      return x + y;
    case ArithOp::kMult:
      return x * y;
    case ArithOp::kMax:
      return (std::isnan(x) || std::isnan(y)) ? std::nan("") : (x > y ? x : y);
    case ArithOp::kMin:
      return (std::isnan(x) || std::isnan(y)) ? std::nan("") : (x < y ? x : y);
  }
  return 0;
}

/// Loads element `i` of type T from little-endian bytes.
template <typename T>
T load(const std::uint8_t* p, std::size_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}

/// The integer reference: element i of `a` op `b` as the signed or unsigned type `S` names,
/// computed in 64 bits and kept to the low bits, against element i of `got`.
template <typename S>
bool ref_int_matches(ArithOp op, const std::uint8_t* a, const std::uint8_t* b,
                     const std::uint8_t* got, std::size_t i) {
  using U = std::make_unsigned_t<S>;
  const std::int64_t x = load<S>(a, i);
  const std::int64_t y = load<S>(b, i);
  std::int64_t r = 0;
  switch (op) {
    case ArithOp::kAdd:
      r = x + y;
      break;
    case ArithOp::kMult:  // modulo 2^64: two uint32 may pass int64
      r = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y));
      break;
    case ArithOp::kMax:
      r = std::max(x, y);
      break;
    case ArithOp::kMin:
      r = std::min(x, y);
      break;
  }
  return static_cast<U>(r) == load<U>(got, i);
}

/// True if `got` (element i of the output) is the reference result of element i of `a` op
/// `b` in dtype `d`. A NaN result accepts any NaN; max/min of floats compare by value.
inline bool ref_matches(ArithOp op, isa::Dtype d, const std::uint8_t* a, const std::uint8_t* b,
                        const std::uint8_t* got, std::size_t i) {
  using isa::Dtype;
  switch (d) {
    case Dtype::kInt8:
      return ref_int_matches<std::int8_t>(op, a, b, got, i);
    case Dtype::kUint8:
      return ref_int_matches<std::uint8_t>(op, a, b, got, i);
    case Dtype::kInt16:
      return ref_int_matches<std::int16_t>(op, a, b, got, i);
    case Dtype::kUint16:
      return ref_int_matches<std::uint16_t>(op, a, b, got, i);
    case Dtype::kInt32:
      return ref_int_matches<std::int32_t>(op, a, b, got, i);
    case Dtype::kUint32:
      return ref_int_matches<std::uint32_t>(op, a, b, got, i);
    case Dtype::kFp32: {
      const double r = ref_op(op, load<float>(a, i), load<float>(b, i));
      const float g = load<float>(got, i);
      if (std::isnan(r)) return std::isnan(g);
      return std::bit_cast<std::uint32_t>(g) ==
                 std::bit_cast<std::uint32_t>(static_cast<float>(r)) ||
             ((op == ArithOp::kMax || op == ArithOp::kMin) && g == r);
    }
    case Dtype::kBfloat16:
    case Dtype::kFp16: {
      const int mant = d == Dtype::kFp16 ? 10 : 7;
      const int exp = d == Dtype::kFp16 ? 5 : 8;
      const double r = ref_op(op, ref_value(load<std::uint16_t>(a, i), mant, exp),
                              ref_value(load<std::uint16_t>(b, i), mant, exp));
      const std::uint16_t g = load<std::uint16_t>(got, i);
      if (std::isnan(r)) return std::isnan(ref_value(g, mant, exp));
      if (op == ArithOp::kMax || op == ArithOp::kMin) return ref_value(g, mant, exp) == r;
      return g == ref_round(r, mant, exp);
    }
    default:
      return false;
  }
}

}  // namespace sbrdma::firmware::testing_ref
