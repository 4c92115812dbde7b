#include "base/number_text.h"

#include <cctype>
#include <charconv>
#include <string>
#include <system_error>

namespace sbrdma::base {

UnsignedText read_unsigned_text(std::string_view text) noexcept {
  int radix = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    radix = 16;
  }
  // from_chars takes no sign for an unsigned type; an empty text is no number.
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [stop, ec] = std::from_chars(text.data(), end, v, radix);
  // The whole text first: a number with a stray character after it is no number.
  if (text.empty() || stop != end || (ec != std::errc{} && ec != std::errc::result_out_of_range)) {
    return {};
  }
  if (ec == std::errc::result_out_of_range) return {NumberForm::kTooLarge, 0};
  return {NumberForm::kValue, v};
}

UnsignedText read_grouped_unsigned_text(std::string_view text) {
  const auto digit = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  if (text.find('_') == std::string_view::npos) return read_unsigned_text(text);
  std::string s;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool grouping =
        text[i] == '_' && i > 0 && i + 1 < text.size() && digit(text[i - 1]) && digit(text[i + 1]);
    if (!grouping) s += text[i];
  }
  return read_unsigned_text(s);
}

}  // namespace sbrdma::base
