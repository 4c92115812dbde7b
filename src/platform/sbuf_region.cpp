#include "platform/sbuf_region.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "base/number_text.h"
#include "base/printable.h"

namespace sbrdma::platform {
namespace {

constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

/// splitmix64's output function: a bijection that spreads every input bit over the output.
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// splitmix64 (Steele, Lea, Flood 2014): advances `state`, returns the next output.
std::uint64_t splitmix64(std::uint64_t& state) {
  return mix64(state += kGolden);
}

}  // namespace

base::Result<std::uint64_t> parse_number(std::string_view text, std::string_view what) {
  const base::UnsignedText n = base::read_grouped_unsigned_text(text);
  if (n.form == base::NumberForm::kTooLarge) {
    return base::make_error(
        fmt::format("{} '{}' does not fit in 64 bits", what, base::printable_brief(text)));
  }
  if (n.form != base::NumberForm::kValue)
    return base::make_error(
        fmt::format("bad number '{}' for {}", base::printable_brief(text), what));
  return n.value;
}

base::Result<std::optional<std::uint64_t>> parse_number_at_most(std::string_view text,
                                                                std::string_view what,
                                                                std::uint64_t max) {
  const base::UnsignedText n = base::read_grouped_unsigned_text(text);
  if (n.form == base::NumberForm::kMalformed) {
    return base::make_error(
        fmt::format("bad number '{}' for {}", base::printable_brief(text), what));
  }
  if (n.form == base::NumberForm::kTooLarge || n.value > max) return std::optional<std::uint64_t>{};
  return std::optional<std::uint64_t>{n.value};
}

base::Result<std::uint32_t> parse_semaphore_value(std::string_view text, std::string_view what) {
  const bool negative = text.starts_with('-');
  const std::string_view digits = negative ? text.substr(1) : text;
  const base::UnsignedText n = base::read_grouped_unsigned_text(digits);
  // Negative numbers are decimal only, as on an instruction line (isa/text_values.cpp).
  const bool negative_hex = negative && (digits.starts_with("0x") || digits.starts_with("0X"));
  if (n.form == base::NumberForm::kMalformed || negative_hex) {
    return base::make_error(
        fmt::format("bad number '{}' for {}", base::printable_brief(text), what));
  }
  const std::uint64_t v = n.value;
  if (n.form == base::NumberForm::kTooLarge ||
      (negative ? v > std::uint64_t{1} << 31 : v > UINT32_MAX)) {
    return base::make_error(fmt::format("value {} out of range for {} (-2147483648..{})",
                                        base::printable_brief(text), what, UINT32_MAX));
  }
  return static_cast<std::uint32_t>(negative ? (std::uint64_t{1} << 32) - v : v);
}

base::Status check_region(const SbufRegion& r, const device::Topology& topology,
                          const soc::Profile& p) {
  if (r.core >= topology.num_cores()) {
    return base::make_error(device::missing_core_message(std::to_string(r.core), r.core, topology));
  }
  if (r.first_partition >= r.end_partition || r.end_partition > p.sbuf_partitions) {
    return base::make_error(fmt::format("partitions {}:{} are not a range inside 0:{}",
                                        r.first_partition, r.end_partition, p.sbuf_partitions));
  }
  if (r.offset > p.partition_active.n || r.bytes > p.partition_active.n - r.offset) {
    // Said as start and length: the end of a range past 2^64 would print below its start.
    return base::make_error(
        fmt::format("0x{:x} bytes from 0x{:x} leave the active partition (0x{:x} bytes on {})",
                    r.bytes, r.offset, p.partition_active.n, p.name));
  }
  return base::ok_status();
}

base::Result<FillPattern> parse_fill_pattern(std::string_view text) {
  FillPattern p;
  if (text == "iota") return p;
  const auto colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  if (colon == std::string_view::npos || (kind != "const" && kind != "random")) {
    return base::make_error(fmt::format("unknown pattern '{}' (iota, const:V or random:SEED)",
                                        base::printable_brief(text)));
  }
  const std::string_view digits = text.substr(colon + 1);
  if (kind == "const") {
    auto v = parse_number_at_most(digits, "pattern const", 0xff);
    if (!v) return v.error();
    if (!*v) {
      return base::make_error(
          fmt::format("const value {} out of range (0..255)", base::printable_brief(digits)));
    }
    p.value = **v;
    p.kind = FillPattern::Kind::kConst;
  } else {
    auto v = parse_number(digits, "pattern random");
    if (!v) return v.error();
    p.value = *v;
    p.kind = FillPattern::Kind::kRandom;
  }
  return p;
}

std::string format_fill_pattern(const FillPattern& p) {
  switch (p.kind) {
    case FillPattern::Kind::kIota:
      return "iota";
    case FillPattern::Kind::kConst:
      return fmt::format("const:{}", p.value);
    case FillPattern::Kind::kRandom:
      return fmt::format("random:{}", p.value);
  }
  return "?";
}

void fill_pattern_bytes(const FillPattern& p, unsigned partition, std::span<std::uint8_t> out) {
  switch (p.kind) {
    case FillPattern::Kind::kIota:
      for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = static_cast<std::uint8_t>(partition + i);
      }
      return;
    case FillPattern::Kind::kConst:
      std::fill(out.begin(), out.end(), static_cast<std::uint8_t>(p.value));
      return;
    case FillPattern::Kind::kRandom: {
      // Mixed: seeds S + (p + 1) * golden alone would differ by exactly splitmix64's step, so
      // partition p + 1's stream would be partition p's shifted by one output.
      std::uint64_t state = mix64(p.value + (std::uint64_t{partition} + 1) * kGolden);
      for (std::size_t i = 0; i < out.size(); i += 8) {
        const std::uint64_t r = splitmix64(state);
        for (std::size_t b = 0; b < 8 && i + b < out.size(); ++b) {
          out[i + b] = static_cast<std::uint8_t>(r >> (8 * b));
        }
      }
      return;
    }
  }
}

}  // namespace sbrdma::platform
