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

std::string json_child(const std::string& path, std::string_view key) {
  // Cut, then escape: '~' and '/' are printable, and no "~0" or "~1" is cut in half.
  std::string out = path + "/";
  for (char c : printable_brief(key)) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

}  // namespace sbrdma::base
