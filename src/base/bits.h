#pragma once
/// Bit-field helpers on unsigned integers. GET = (v >> lsb) & mask, SET = clear then insert,
/// as the hardware headers' accessor macros do.

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace sbrdma::base {

/// Mask of `width` low bits (width 0..64).
constexpr std::uint64_t low_mask(unsigned width) {
  return width >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << width) - 1);
}

/// A contiguous bit field [msb:lsb] (inclusive), as the spec writes them.
struct BitField {
  unsigned msb;
  unsigned lsb;
  [[nodiscard]] constexpr unsigned width() const { return msb - lsb + 1; }
  [[nodiscard]] constexpr std::uint64_t mask() const { return low_mask(width()) << lsb; }
  [[nodiscard]] constexpr std::uint64_t get(std::uint64_t v) const {
    return (v >> lsb) & low_mask(width());
  }
  /// Contract: `field` fits in width(); extra high bits are dropped.
  [[nodiscard]] constexpr std::uint64_t set(std::uint64_t v, std::uint64_t field) const {
    return (v & ~mask()) | ((field & low_mask(width())) << lsb);
  }
  [[nodiscard]] constexpr bool fits(std::uint64_t field) const {
    return (field & ~low_mask(width())) == 0;
  }
};

/// A single bit as a field.
constexpr BitField bit(unsigned b) {
  return BitField{b, b};
}

/// A 32-bit register's bits read as two's complement (semaphore values are signed).
constexpr std::int32_t as_int32(std::uint32_t v) {
  return std::bit_cast<std::int32_t>(v);
}

constexpr bool is_pow2(std::uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}
/// ceil(a / b) without the wrap of (a + b - 1) / b near 2^64. Contract: b > 0.
constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}
constexpr unsigned popcount(std::uint64_t v) {
  return static_cast<unsigned>(std::popcount(v));
}

/// Little-endian load/store on byte buffers (the ISA words and descriptors are little-endian).
/// At run time on a little-endian host they are one memcpy (one move): GCC did not merge the
/// byte loop into one in every caller (a descriptor's encode took ~40 instructions).
template <typename T>
constexpr T load_le(const std::uint8_t* p) {
  static_assert(std::is_unsigned_v<T>);
  if (!std::is_constant_evaluated() && std::endian::native == std::endian::little) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  }
  T v = 0;
  for (unsigned i = 0; i < sizeof(T); ++i) v |= static_cast<T>(T{p[i]} << (8 * i));
  return v;
}
template <typename T>
constexpr void store_le(std::uint8_t* p, T v) {
  static_assert(std::is_unsigned_v<T>);
  if (!std::is_constant_evaluated() && std::endian::native == std::endian::little) {
    std::memcpy(p, &v, sizeof(T));
    return;
  }
  for (unsigned i = 0; i < sizeof(T); ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace sbrdma::base
