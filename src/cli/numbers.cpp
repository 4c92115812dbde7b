#include "cli/numbers.h"

#include <fmt/format.h>

#include <string>

#include "base/number_text.h"
#include "base/printable.h"

namespace sbrdma::cli {

namespace {

std::string too_large(std::string_view text) {
  return "'" + base::printable_brief(text) + "' does not fit in 64 bits";
}

}  // namespace

base::Result<std::uint64_t> parse_u64(std::string_view text) {
  const base::UnsignedText n = base::read_grouped_unsigned_text(text);
  if (n.form == base::NumberForm::kMalformed) {
    return base::make_error("'" + base::printable_brief(text) +
                            "' is not a whole number (0 or more, decimal or 0x-hex)");
  }
  if (n.form == base::NumberForm::kTooLarge) return base::make_error(too_large(text));
  return n.value;
}

base::Result<std::uint64_t> parse_flag_u64(std::string_view flag, std::string_view text) {
  auto n = parse_u64(text);
  if (!n) return base::make_error(fmt::format("{}: {}", flag, n.error().message));
  return n;
}

base::Result<std::uint64_t> parse_flag_number(std::string_view flag, std::string_view text,
                                              std::string_view what, std::uint64_t min,
                                              std::uint64_t max) {
  const base::UnsignedText n = base::read_grouped_unsigned_text(text);
  // With no upper bound, a number past 64 bits is in range: only its size is at fault.
  if (n.form == base::NumberForm::kTooLarge && max == kNoMax) {
    return base::make_error(fmt::format("{}: {}", flag, too_large(text)));
  }
  if (n.form != base::NumberForm::kValue || n.value < min || n.value > max) {
    const std::string range =
        max == kNoMax ? fmt::format("{} or more", min) : fmt::format("{} to {}", min, max);
    return base::make_error(fmt::format("{}: '{}' is not {} (a whole number, {})", flag,
                                        base::printable_brief(text), what, range));
  }
  return n.value;
}

base::Result<std::uint64_t> parse_count(std::string_view flag, std::string_view text,
                                        std::string_view what, std::uint64_t min,
                                        std::uint64_t max) {
  return parse_flag_number(flag, text, fmt::format("a number of {}", what), min, max);
}

}  // namespace sbrdma::cli
