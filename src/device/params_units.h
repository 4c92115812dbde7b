#pragma once
/// Data rates for the timing model, as integers so that transfer times are deterministic.

#include <compare>
#include <cstdint>

#include "base/check.h"
#include "base/units.h"

namespace sbrdma::device {

/// A data rate, stored in bytes per microsecond (1 B/us = 1 MB/s). 1 B/ns = 1 GB/s = 1000 B/us,
/// so the published figures (23 B/ns, 256 GB/s) and fractional ones (12.5 GB/s) are exact.
struct Bandwidth {
  std::uint64_t bytes_per_us = 0;
  constexpr auto operator<=>(const Bandwidth&) const = default;
  /// The rate in B/ns, which is also its value in GB/s.
  [[nodiscard]] constexpr double bytes_per_ns() const {
    return static_cast<double>(bytes_per_us) / 1000.0;
  }
};

/// `v` bytes per nanosecond (= `v` GB/s, decimal).
constexpr Bandwidth bytes_per_ns(std::uint64_t v) {
  return Bandwidth{v * 1000};
}

/// Time to move `n` bytes at `bw`, rounded up to a whole picosecond.
/// Contract: bw.bytes_per_us > 0.
constexpr base::Tick transfer_time(base::Bytes n, Bandwidth bw) {
  SBRDMA_CHECK(bw.bytes_per_us > 0);
  constexpr std::uint64_t kPsPerUs = 1000 * 1000;
  // ps = n * 1e6 / rate, split so that n * 1e6 cannot overflow: q whole, r < rate remainder.
  const std::uint64_t q = n.n / bw.bytes_per_us;
  const std::uint64_t r = n.n % bw.bytes_per_us;
  return base::Tick{q * kPsPerUs + (r * kPsPerUs + bw.bytes_per_us - 1) / bw.bytes_per_us};
}

}  // namespace sbrdma::device
