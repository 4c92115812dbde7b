#include "isa/binary_io.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/printable.h"

namespace sbrdma::isa {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

base::Result<std::vector<Word>> words_from_bytes(std::span<const std::uint8_t> bytes) {
  // Lines of printable ASCII are text, whatever their length: an assembled word's byte 1 is
  // its length, 0x10, and a text file of 64 bytes read as a word gave an 'illegal opcode'.
  const bool lines_of_ascii =
      std::any_of(bytes.begin(), bytes.end(),
                  [](std::uint8_t b) { return b == '\n' || b == '\r'; }) &&  // a line break
      std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) {
        return (b >= 0x20 && b < 0x7f) || b == '\n' || b == '\r' || b == '\t';
      });
  if (lines_of_ascii && bytes.size() % kWordBytes == 0) {
    return base::make_error(fmt::format(
        "{} bytes of text lines, not binary words: hex words need --hex, assembly 'sbrdma asm'",
        bytes.size()));
  }
  if (bytes.size() % kWordBytes != 0) {
    // Input with no control byte at all is likely text (hex words or assembly) given to the
    // binary reader: most words hold zero bytes. A whole number of words is read as words all
    // the same (64 bytes of 0xff are one, a .raw line, as `decode word` shows it).
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    const bool text_only = base::first_control_byte(text) == std::string_view::npos;
    return base::make_error(fmt::format(
        "truncated: {} bytes is not a multiple of {}{}", bytes.size(), kWordBytes,
        text_only ? " (the input is text: hex words need --hex, assembly 'sbrdma asm')" : ""));
  }
  std::vector<Word> words(bytes.size() / kWordBytes);
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(i * kWordBytes), kWordBytes,
                words[i].begin());
  }
  return words;
}

std::vector<std::uint8_t> words_to_bytes(std::span<const Word> words) {
  std::vector<std::uint8_t> out;
  out.reserve(words.size() * kWordBytes);
  for (const Word& w : words) out.insert(out.end(), w.begin(), w.end());
  return out;
}

std::string word_to_hex(const Word& word) {
  std::string out;
  out.reserve(2 * kWordBytes);
  for (std::uint8_t b : word) out += fmt::format("{:02x}", b);
  return out;
}

base::Result<Word> parse_hex_word(std::string_view text) {
  text = trim(text);
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
  }
  std::string digits;
  for (char c : text) {
    if (is_blank(c)) continue;
    if (hex_digit_value(c) < 0) {
      return base::make_error(fmt::format("bad hex digit '{}'", base::printable({&c, 1})));
    }
    digits += c;
  }
  if (digits.size() != 2 * kWordBytes) {
    return base::make_error(
        fmt::format("expected {} hex digits, got {}", 2 * kWordBytes, digits.size()));
  }
  Word w{};
  for (std::size_t i = 0; i < kWordBytes; ++i) {
    w[i] = static_cast<std::uint8_t>(hex_digit_value(digits[2 * i]) * 16 +
                                     hex_digit_value(digits[2 * i + 1]));
  }
  return w;
}

WordsResult words_from_hex(std::string_view text, std::string_view file) {
  WordsResult out;
  const std::vector<std::string_view> lines = split_lines(text);
  if (auto e = binary_input_error(lines, file, "raw 64-byte words are read without --hex")) {
    out.errors.push_back(std::move(*e));
    return out;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view body = strip_comment(lines[i]);
    if (body.empty()) continue;
    auto w = parse_hex_word(body);
    if (w.ok()) {
      out.words.push_back(*w);
    } else {
      out.errors.push_back(base::make_error(
          base::SourceLoc{std::string(file), static_cast<int>(i + 1)}, w.error().message));
    }
  }
  return out;
}

std::string words_to_hex(std::span<const Word> words) {
  std::string out;
  for (const Word& w : words) {
    out += word_to_hex(w);
    out += '\n';
  }
  return out;
}

int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<base::Error> binary_input_error(std::span<const std::string_view> lines,
                                              std::string_view file, std::string_view hint) {
  // Line by line, comments left out: a comment may hold any byte (a form feed, say).
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view code = lines[i].substr(0, lines[i].find('#'));
    if (const std::size_t at = base::first_control_byte(code); at != std::string_view::npos) {
      return base::make_error(
          base::SourceLoc{std::string(file), static_cast<int>(i + 1)},
          fmt::format("byte {:#04x} at column {} is not text (binary input? {})",
                      static_cast<unsigned>(static_cast<unsigned char>(code[at])), at + 1, hint));
    }
  }
  return std::nullopt;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find_first_of("\r\n");
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    // CRLF is one break; a lone CR (classic Mac text) is one too, so line numbers stay right.
    const bool crlf = text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n';
    text.remove_prefix(end + (crlf ? 2 : 1));
  }
  return lines;
}

std::string_view strip_comment(std::string_view line) {
  const std::size_t hash = line.find('#');
  return trim(line.substr(0, hash));
}

}  // namespace sbrdma::isa
