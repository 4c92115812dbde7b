#include "cli/numbers.h"

#include <fmt/format.h>

#include <charconv>
#include <string>

#include "base/printable.h"

namespace sbrdma::cli {

base::Result<std::uint64_t> parse_u64(std::string_view text) {
  std::string s;
  for (char c : text) {
    if (c != '_') s += c;
  }
  int radix = 10;
  std::string_view digits = s;
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    radix = 16;
    digits.remove_prefix(2);
  }
  std::uint64_t v = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, v, radix);
  if (digits.empty() || ec == std::errc::invalid_argument || ptr != end) {
    return base::make_error("'" + std::string(text) + "' is not a number (decimal or 0x-hex)");
  }
  if (ec == std::errc::result_out_of_range) {
    return base::make_error("'" + std::string(text) + "' does not fit in 64 bits");
  }
  return v;
}

base::Result<std::uint64_t> parse_flag_number(std::string_view flag, std::string_view text,
                                              std::string_view what, std::uint64_t min,
                                              std::uint64_t max) {
  auto v = parse_u64(text);
  if (!v || *v < min || *v > max) {
    return base::make_error(fmt::format("{}: '{}' is not {} (a whole number, {} to {})", flag,
                                        base::printable(text), what, min, max));
  }
  return v;
}

base::Result<std::uint64_t> parse_count(std::string_view flag, std::string_view text,
                                        std::string_view what, std::uint64_t min,
                                        std::uint64_t max) {
  return parse_flag_number(flag, text, fmt::format("a number of {}", what), min, max);
}

}  // namespace sbrdma::cli
