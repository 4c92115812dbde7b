#pragma once
/// Strong types for simulated time, sizes and SoC addresses, so that a byte count is never
/// passed where picoseconds are expected.

#include <compare>
#include <cstdint>

namespace sbrdma::base {

/// Simulated time in picoseconds. Integer, so that runs are deterministic.
struct Tick {
  std::uint64_t ps = 0;
  constexpr auto operator<=>(const Tick&) const = default;
  constexpr Tick operator+(Tick o) const { return Tick{ps + o.ps}; }
  constexpr Tick operator-(Tick o) const { return Tick{ps - o.ps}; }
  constexpr Tick& operator+=(Tick o) {
    ps += o.ps;
    return *this;
  }
  [[nodiscard]] constexpr double us() const { return static_cast<double>(ps) / 1e6; }
  [[nodiscard]] constexpr double ns() const { return static_cast<double>(ps) / 1e3; }
};
constexpr Tick picoseconds(std::uint64_t v) { return Tick{v}; }
constexpr Tick nanoseconds(std::uint64_t v) { return Tick{v * 1000}; }
constexpr Tick microseconds(std::uint64_t v) { return Tick{v * 1000 * 1000}; }

/// A size in bytes.
struct Bytes {
  std::uint64_t n = 0;
  constexpr auto operator<=>(const Bytes&) const = default;
  constexpr Bytes operator+(Bytes o) const { return Bytes{n + o.n}; }
  constexpr Bytes operator-(Bytes o) const { return Bytes{n - o.n}; }
};
constexpr Bytes kib(std::uint64_t v) { return Bytes{v << 10}; }
constexpr Bytes mib(std::uint64_t v) { return Bytes{v << 20}; }

/// A 64-bit SoC (device fabric) address. See soc/address.h for its two views.
struct SocAddr {
  std::uint64_t v = 0;
  constexpr auto operator<=>(const SocAddr&) const = default;
  constexpr SocAddr operator+(std::uint64_t off) const { return SocAddr{v + off}; }
};

}  // namespace sbrdma::base
