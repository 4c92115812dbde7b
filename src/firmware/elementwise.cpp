// The arithmetic kernels of local compute. [CHOICE D28]
// Each kernel is one loop over whole elements loaded with memcpy (unaligned-safe, and the
// compiler turns it into plain vector loads); branches are written as selects so that the
// loop vectorises.
#include "firmware/elementwise.h"

#include <bit>
#include <cstring>

#include "base/check.h"

namespace sbrdma::firmware {
namespace {

static_assert(std::endian::native == std::endian::little,
              "SBUF bytes are little-endian; the kernels load them natively");

using isa::Dtype;

// ---- binary16 / bfloat16 <-> binary32 -----------------------------------------------------
//
//  binary16  | s | eeeee | mmmmmmmmmm |        bias 15
//  bfloat16  | s | eeeeeeee | mmmmmmm |       the top half of a binary32
//  binary32  | s | eeeeeeee | m x 23 |        bias 127

/// `c ? a : b` as bit masks, so that both sides are always computed. With a plain `?:` GCC
/// moves a floating-point side into a branch (it might trap, -ftrapping-math) and then cannot
/// vectorise the loop; the masks keep the loop branch-free.
inline std::uint32_t pick(bool c, std::uint32_t a, std::uint32_t b) {
  const std::uint32_t m = 0U - static_cast<std::uint32_t>(c);
  return (a & m) | (b & ~m);
}

inline float from_half(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu;
  const std::uint32_t m = h & 0x3ffu;
  const std::uint32_t normal = ((e + 112u) << 23) | (m << 13);  // rebias 15 -> 127
  const std::uint32_t inf_nan = 0x7f800000u | (m << 13);
  // A subnormal is m * 2^-24, exact in binary32.
  const std::uint32_t sub = std::bit_cast<std::uint32_t>(static_cast<float>(m) * 0x1p-24f);
  const std::uint32_t r = pick(e == 0, sub, pick(e == 31, inf_nan, normal));
  return std::bit_cast<float>(sign | r);
}

inline std::uint16_t to_half(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t a = x & 0x7fffffffu;
  // Normal range: rebias 127 -> 15 (add -112 << 23) and round to nearest even at bit 13; a
  // carry out of the mantissa steps the exponent, as it should.
  const std::uint32_t normal = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
  // Below 2^-14: adding 0.5 (whose ulp is 2^-24, the binary16 subnormal step) rounds to the
  // nearest even multiple of 2^-24 in the FPU; the low bits are then the subnormal mantissa
  // (0x400, the smallest normal, when it rounds up).
  const float af = std::bit_cast<float>(a);
  const std::uint32_t sub = std::bit_cast<std::uint32_t>(af + 0.5f) - 0x3f000000u;
  std::uint32_t r = pick(a < 0x38800000u, sub, normal);
  r = pick(a >= 0x477ff000u, 0x7c00u, r);  // >= 65520 rounds to infinity (65504 is the largest)
  r = pick(a > 0x7f800000u, 0x7e00u | ((a >> 13) & 0x3ffu), r);  // NaN stays NaN, quiet
  return static_cast<std::uint16_t>(sign | r);
}

inline float from_bf16(std::uint16_t b) {
  return std::bit_cast<float>(std::uint32_t{b} << 16);
}

inline std::uint16_t to_bf16(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;  // nearest even
  const std::uint32_t nan = (u >> 16) | 0x40u;                           // quiet NaN
  return static_cast<std::uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

// ---- the loop ------------------------------------------------------------------------------

/// out[i] = f(a[i], b[i]) over elements of type T (memcpy loads: alignment-free).
template <typename T, typename F>
void each(const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t n, F f) {
  for (std::size_t i = 0; i < n; ++i) {
    T x;
    T y;
    std::memcpy(&x, a + i * sizeof(T), sizeof(T));
    std::memcpy(&y, b + i * sizeof(T), sizeof(T));
    const T r = f(x, y);
    std::memcpy(out + i * sizeof(T), &r, sizeof(T));
  }
}

// Float max/min: NaN if either is NaN (x != x tests x), else the larger/smaller, y on a tie.
template <typename T>
T fmax_sel(T x, T y, float fx, float fy) {
  return (fx > fy || fx != fx) ? x : y;
}
template <typename T>
T fmin_sel(T x, T y, float fx, float fy) {
  return (fx < fy || fx != fx) ? x : y;
}

void run_fp32(ArithOp op, const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* o,
              std::size_t n) {
  switch (op) {
    case ArithOp::kAdd:
      return each<float>(a, b, o, n, [](float x, float y) { return x + y; });
    case ArithOp::kMult:
      return each<float>(a, b, o, n, [](float x, float y) { return x * y; });
    case ArithOp::kMax:
      return each<float>(a, b, o, n, [](float x, float y) { return fmax_sel(x, y, x, y); });
    case ArithOp::kMin:
      return each<float>(a, b, o, n, [](float x, float y) { return fmin_sel(x, y, x, y); });
  }
}

/// bf16 and fp16: widen, compute in fp32, round back (`Widen`/`Narrow` are the conversions).
template <float (*Widen)(std::uint16_t), std::uint16_t (*Narrow)(float)>
void run_f16(ArithOp op, const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* o,
             std::size_t n) {
  using U = std::uint16_t;
  switch (op) {
    case ArithOp::kAdd:
      return each<U>(a, b, o, n, [](U x, U y) { return Narrow(Widen(x) + Widen(y)); });
    case ArithOp::kMult:
      return each<U>(a, b, o, n, [](U x, U y) { return Narrow(Widen(x) * Widen(y)); });
    case ArithOp::kMax:
      return each<U>(a, b, o, n, [](U x, U y) { return fmax_sel(x, y, Widen(x), Widen(y)); });
    case ArithOp::kMin:
      return each<U>(a, b, o, n, [](U x, U y) { return fmin_sel(x, y, Widen(x), Widen(y)); });
  }
}

/// Integers: add and mult in the unsigned type of the same width (wraps, defined); max/min in
/// `S`, the signed or unsigned type the dtype names. The products are taken in `unsigned`, at
/// least as wide: uint16 operands would otherwise promote to int, and 65535 * 65535 overflows
/// it.
template <typename U, typename S>
void run_int(ArithOp op, const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* o,
             std::size_t n) {
  static_assert(sizeof(U) == sizeof(S) && sizeof(U) <= sizeof(unsigned));
  switch (op) {
    case ArithOp::kAdd:
      return each<U>(a, b, o, n, [](U x, U y) { return static_cast<U>(x + y); });
    case ArithOp::kMult:
      return each<U>(a, b, o, n, [](U x, U y) { return static_cast<U>(unsigned{x} * y); });
    case ArithOp::kMax:
      return each<S>(a, b, o, n, [](S x, S y) { return x > y ? x : y; });
    case ArithOp::kMin:
      return each<S>(a, b, o, n, [](S x, S y) { return x < y ? x : y; });
  }
}

}  // namespace

std::optional<ArithOp> arith_op_of(isa::AluOp op) {
  switch (op) {
    case isa::AluOp::kAdd:  // [HIGH] ext-tensor-tensor-arith: add or multiply
      return ArithOp::kAdd;
    case isa::AluOp::kMult:
      return ArithOp::kMult;
    case isa::AluOp::kMax:  // [CHOICE D28] public ALU_OP 0x08, beyond the header's restriction
      return ArithOp::kMax;
    default:
      break;
  }
  if (static_cast<std::uint8_t>(op) == 0x09) return ArithOp::kMin;  // ALU_OP_MIN [CHOICE D28]
  return std::nullopt;
}

std::string_view arith_op_name(ArithOp op) {
  switch (op) {
    case ArithOp::kAdd:
      return "add";
    case ArithOp::kMult:
      return "mult";
    case ArithOp::kMax:
      return "max";
    case ArithOp::kMin:
      return "min";
  }
  return "?";
}

bool elementwise_dtype_supported(isa::Dtype d) {
  switch (d) {
    case Dtype::kFp32:
    case Dtype::kBfloat16:
    case Dtype::kFp16:
    case Dtype::kInt32:
    case Dtype::kUint32:
    case Dtype::kInt16:
    case Dtype::kUint16:
    case Dtype::kInt8:
    case Dtype::kUint8:
      return true;
    default:
      return false;
  }
}

void elementwise(ArithOp op, isa::Dtype d, const std::uint8_t* a, const std::uint8_t* b,
                 std::uint8_t* out, std::size_t n) {
  switch (d) {
    case Dtype::kFp32:
      return run_fp32(op, a, b, out, n);
    case Dtype::kBfloat16:
      return run_f16<from_bf16, to_bf16>(op, a, b, out, n);
    case Dtype::kFp16:
      return run_f16<from_half, to_half>(op, a, b, out, n);
    case Dtype::kInt32:
      return run_int<std::uint32_t, std::int32_t>(op, a, b, out, n);
    case Dtype::kUint32:
      return run_int<std::uint32_t, std::uint32_t>(op, a, b, out, n);
    case Dtype::kInt16:
      return run_int<std::uint16_t, std::int16_t>(op, a, b, out, n);
    case Dtype::kUint16:
      return run_int<std::uint16_t, std::uint16_t>(op, a, b, out, n);
    case Dtype::kInt8:
      return run_int<std::uint8_t, std::int8_t>(op, a, b, out, n);
    case Dtype::kUint8:
      return run_int<std::uint8_t, std::uint8_t>(op, a, b, out, n);
    default:
      SBRDMA_CHECK_MSG(false, "elementwise: unsupported dtype (callers check first)");
  }
}

float half_to_float(std::uint16_t h) {
  return from_half(h);
}
std::uint16_t float_to_half(float f) {
  return to_half(f);
}
float bf16_to_float(std::uint16_t b) {
  return from_bf16(b);
}
std::uint16_t float_to_bf16(float f) {
  return to_bf16(f);
}

}  // namespace sbrdma::firmware
