#include "base/printable.h"

#include <fmt/format.h>

#include <string>

namespace sbrdma::base {
namespace {

bool is_printable(unsigned char c) {
  return c >= 0x20 && c <= 0x7e;
}

}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_printable(c)) {
      out += ch;
    } else {
      out += fmt::format("\\x{:02x}", unsigned{c});
    }
  }
  return out;
}

std::string printable_brief(std::string_view s) {
  constexpr std::size_t kMax = 40;
  constexpr std::string_view kCut = "...";
  // Each byte prints as one character or more, so the first kMax + 1 bytes decide.
  std::string head = printable(s.substr(0, kMax + 1));
  if (head.size() <= kMax) return head;
  std::string out;
  for (std::size_t i = 0;; ++i) {
    const std::string one = printable(s.substr(i, 1));
    if (out.size() + one.size() > kMax - kCut.size()) break;
    out += one;
  }
  return out += kCut;
}

std::size_t first_control_byte(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f) return i;
  }
  return std::string_view::npos;
}

std::size_t first_non_xml_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    // The sequence's length and the smallest code point it may hold (longer is overlong).
    const std::size_t n = b0 >= 0xf0 ? 4 : b0 >= 0xe0 ? 3 : b0 >= 0xc0 ? 2 : 0;
    if (n == 0 || b0 >= 0xf8 || i + n > s.size()) return i;
    char32_t cp = b0 & (0x7fU >> n);
    for (std::size_t k = 1; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xc0U) != 0x80U) return i;
      cp = (cp << 6) | (b & 0x3fU);
    }
    constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe ||
        cp == 0xffff) {
      return i;
    }
    i += n;
  }
  return std::string_view::npos;
}

std::size_t non_xml_utf8_length(std::string_view s, std::size_t at) {
  const auto b0 = static_cast<unsigned char>(s.at(at));
  const std::size_t n = b0 >= 0xf8 ? 1 : b0 >= 0xf0 ? 4 : b0 >= 0xe0 ? 3 : b0 >= 0xc0 ? 2 : 1;
  std::size_t k = 1;
  while (k < n && at + k < s.size() && (static_cast<unsigned char>(s[at + k]) & 0xc0U) == 0x80U) {
    ++k;
  }
  return k;
}

std::string json_child(const std::string& path, std::string_view key) {
  // Cut, then escape: '~' and '/' are printable, and no "~0" or "~1" is cut in half.
  std::string out = path + "/";
  for (char c : printable_brief(key)) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

}  // namespace sbrdma::base
