#pragma once
/// SBUF regions and fill patterns: how `sbrdma run` programs (`.init`, `.expect sbuf`), the
/// benchmarks and the collectives' tests name bytes of a core's SBUF.
///
///   region = core, offset, bytes, partitions [first, end)
///            the same byte range [offset, offset + bytes) in each of those partitions,
///            as the RDMA primitives address it (DESIGN.md "CLI contract")
///
/// Region data is exchanged partition-major: partition `first` bytes, then `first + 1`, ...
///
/// Patterns (byte i counts from the region's offset, p is the partition number):
///   iota       byte = (p + i) mod 256
///   const:V    byte = V (0..255)
///   random:S   partition p's bytes are the little-endian bytes of the splitmix64 sequence
///              seeded with mix64(S + (p + 1) * 0x9E3779B97F4A7C15), mix64 being splitmix64's
///              output function: output k fills bytes 8k..8k+7.
///              The same seed and partition give the same bytes whatever the core or offset.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "device/topology.h"
#include "soc/profile.h"

namespace sbrdma::platform {

/// The same byte range in a run of partitions of one core's SBUF.
struct SbufRegion {
  device::CoreId core = 0;
  std::uint64_t offset = 0;  ///< byte offset inside each partition
  std::uint64_t bytes = 0;   ///< bytes per partition
  unsigned first_partition = 0;
  unsigned end_partition = 128;  ///< one past the last partition

  [[nodiscard]] unsigned partitions() const { return end_partition - first_partition; }
  /// Bytes over all partitions.
  [[nodiscard]] std::uint64_t total_bytes() const { return bytes * partitions(); }
};

/// Errors unless `r` names a core of `topology` and lies inside the partitions' active bytes
/// of `profile` (partitions a non-empty range inside 0..sbuf_partitions).
base::Status check_region(const SbufRegion& r, const device::Topology& topology,
                          const soc::Profile& profile);

/// How a region is filled.
struct FillPattern {
  enum class Kind : std::uint8_t { kIota, kConst, kRandom };
  Kind kind = Kind::kIota;
  std::uint64_t value = 0;  ///< the byte of const, the seed of random
};

/// Parses `iota`, `const:V` (V 0..255) or `random:SEED` (numbers decimal or 0x hex).
base::Result<FillPattern> parse_fill_pattern(std::string_view text);
/// The text parse_fill_pattern reads.
std::string format_fill_pattern(const FillPattern& p);

/// The pattern's bytes of `partition`, from the region's start, into `out`.
void fill_pattern_bytes(const FillPattern& p, unsigned partition, std::span<std::uint8_t> out);

/// Parses a number: decimal or 0x hex, no sign; errors name it as `what`.
base::Result<std::uint64_t> parse_number(std::string_view text, std::string_view what);
/// parse_number for a value that may not pass `max`: nullopt for a well-formed number above
/// it, 64 bits or more included, whose error the caller words with the text (as for any
/// other value out of range); errors for text that is no number.
base::Result<std::optional<std::uint64_t>> parse_number_at_most(std::string_view text,
                                                                std::string_view what,
                                                                std::uint64_t max);
/// Parses a semaphore value, signed 32-bit [CHOICE D11]: parse_number's forms, or one of them
/// after '-' down to -2^31 (-1 is 0xffffffff). A well-formed number outside the range is out of
/// range, anything else a bad number; errors name it as `what`.
base::Result<std::uint32_t> parse_semaphore_value(std::string_view text, std::string_view what);

}  // namespace sbrdma::platform
