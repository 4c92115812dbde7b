#include "base/printable.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/check.h"

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

std::string shell_word(std::string_view s) {
  constexpr std::size_t kMax = 4096;
  if (s.size() > kMax) return printable_brief(s);
  const auto plain = [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./:=@%+,-").find(static_cast<char>(c)) != std::string_view::npos;
  };
  const auto byte = [](char ch) { return static_cast<unsigned char>(ch); };
  // A leading '=' is zsh's command-path expansion.
  if (!s.empty() && s.front() != '=' &&
      std::all_of(s.begin(), s.end(), [&](char ch) { return plain(byte(ch)); })) {
    return std::string(s);
  }
  std::string out;
  if (std::all_of(s.begin(), s.end(), [&](char ch) { return is_printable(byte(ch)); })) {
    out = "'";
    for (const char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
  }
  out = "$'";
  for (const char ch : s) {
    if (ch == '\\' || ch == '\'') out += '\\';   // printable() leaves both as they are
    out += printable(std::string_view(&ch, 1));  // \xNN outside printable ASCII
  }
  return out + "'";
}

std::string printable_brief(std::string_view s) {
  constexpr std::size_t kMax = 40;
  constexpr std::string_view kCut = "...";
  // Each byte prints as one character or more, so the first kMax + 1 bytes decide.
  std::string head = printable(s.substr(0, kMax + 1));
  if (head.size() <= kMax) return head;
  std::size_t width = 0;
  std::size_t end = 0;  // the bytes kept
  for (;; ++end) {
    const std::size_t one = printable(s.substr(end, 1)).size();
    if (width + one > kMax - kCut.size()) break;
    width += one;
  }
  // Not inside a UTF-8 character: its escaped bytes would stop part way. Only a character
  // the cut splits moves it (a lead byte and its continuation bytes); other bytes stay.
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  std::size_t lead = end;
  while (lead > 0 && end - lead < 3 && (byte(lead) & 0xc0) == 0x80) --lead;
  if (lead < end) {
    const unsigned c = byte(lead);
    const std::size_t length = c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    bool whole = length != 0 && lead + length > end && lead + length <= s.size();
    for (std::size_t i = lead + 1; whole && i < lead + length; ++i) {
      whole = (byte(i) & 0xc0) == 0x80;
    }
    if (whole) end = lead;
  }
  return printable(s.substr(0, end)) += kCut;
}

std::size_t first_control_byte(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f) return i;
  }
  return std::string_view::npos;
}

namespace {

/// The code point of the well-formed UTF-8 sequence of an XML character at `at` and the bytes
/// it takes; length 0 if none starts there.
struct XmlChar {
  char32_t cp = 0;
  std::size_t length = 0;
};
XmlChar xml_char_at(std::string_view s, std::size_t at) {
  const auto b0 = static_cast<unsigned char>(s[at]);
  if (b0 < 0x80) return {b0, 1};
  // The sequence's length and the smallest code point it may hold (longer is overlong).
  const std::size_t n = b0 >= 0xf0 ? 4 : b0 >= 0xe0 ? 3 : b0 >= 0xc0 ? 2 : 0;
  if (n == 0 || b0 >= 0xf8 || at + n > s.size()) return {};
  char32_t cp = b0 & (0x7fU >> n);
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[at + k]);
    if ((b & 0xc0U) != 0x80U) return {};
    cp = (cp << 6) | (b & 0x3fU);
  }
  constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe ||
      cp == 0xffff) {
    return {};
  }
  return {cp, n};
}

}  // namespace

std::size_t first_non_xml_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const XmlChar c = xml_char_at(s, i);
    if (c.length == 0) return i;
    i += c.length;
  }
  return std::string_view::npos;
}

std::vector<char32_t> xml_code_points(std::string_view s) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    const XmlChar c = xml_char_at(s, i);
    SBRDMA_CHECK_MSG(c.length != 0, "xml_code_points: not UTF-8 text that XML allows");
    out.push_back(c.cp);
    i += c.length;
  }
  return out;
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
