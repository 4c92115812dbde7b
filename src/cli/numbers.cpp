#include "cli/numbers.h"

#include <fmt/format.h>

#include <string>

#include "base/number_text.h"
#include "base/printable.h"

namespace sbrdma::cli {

base::Result<std::uint64_t> parse_u64(std::string_view text) {
  std::string s;
  for (char c : text) {
    if (c != '_') s += c;
  }
  const base::UnsignedText n = base::read_unsigned_text(s);
  if (n.form == base::NumberForm::kMalformed) {
    return base::make_error("'" + base::printable_brief(text) +
                            "' is not a whole number (0 or more, decimal or 0x-hex)");
  }
  if (n.form == base::NumberForm::kTooLarge) {
    return base::make_error("'" + base::printable_brief(text) + "' does not fit in 64 bits");
  }
  return n.value;
}

base::Result<std::uint64_t> parse_flag_number(std::string_view flag, std::string_view text,
                                              std::string_view what, std::uint64_t min,
                                              std::uint64_t max) {
  auto v = parse_u64(text);
  constexpr std::uint64_t kNoMax = ~std::uint64_t{0};
  if (!v && max == kNoMax && v.error().message.ends_with("does not fit in 64 bits")) {
    return base::make_error(fmt::format("{}: {}", flag, v.error().message));
  }
  if (!v || *v < min || *v > max) {
    const std::string range =
        max == kNoMax ? fmt::format("{} or more", min) : fmt::format("{} to {}", min, max);
    return base::make_error(fmt::format("{}: '{}' is not {} (a whole number, {})", flag,
                                        base::printable_brief(text), what, range));
  }
  return v;
}

base::Result<std::uint64_t> parse_count(std::string_view flag, std::string_view text,
                                        std::string_view what, std::uint64_t min,
                                        std::uint64_t max) {
  return parse_flag_number(flag, text, fmt::format("a number of {}", what), min, max);
}

}  // namespace sbrdma::cli
