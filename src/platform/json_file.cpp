#include "platform/json_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <vector>

#include "base/printable.h"

namespace sbrdma::platform {
namespace {

/// Larger inputs are refused rather than read: no topology or group file comes near it.
constexpr std::size_t kMaxFileBytes = 16U << 20;

/// `msg` with the token nlohmann quotes after "last read: '" (a whole 10 MB key, unclosed or
/// followed by a bad value) as base::printable_brief gives it. Its quote ends the message or
/// comes before "; expected " and a token name (at most 22 characters: "'[', '{', or a
/// literal"), so a quote in the token cannot leave more than that uncut.
std::string cut_last_read(const std::string& msg) {
  constexpr std::string_view kRead = "; last read: '";
  constexpr std::string_view kExpected = "'; expected ";
  constexpr std::size_t kLongestName = 22;
  const std::size_t read = msg.find(kRead);
  if (read == std::string::npos) return msg;
  const std::size_t from = read + kRead.size();
  std::size_t to = msg.rfind(kExpected);
  if (to == std::string::npos || to < from || msg.size() - to > kExpected.size() + kLongestName) {
    to = std::max(from, msg.size() - 1);  // the closing quote
  }
  return msg.substr(0, from) +
         base::printable_brief(std::string_view(msg).substr(from, to - from)) + msg.substr(to);
}

/// nlohmann's message without its "[json.exception...] parse error at line L, column C: "
/// prefix (the line goes into the location instead), on one line, the token it quotes cut.
std::string parse_error_text(const std::string& what) {
  std::string msg = what;
  const std::size_t col = msg.find(", column ");
  const std::size_t colon = col == std::string::npos ? msg.find("] ") : msg.find(": ", col);
  if (colon != std::string::npos) msg = msg.substr(colon + 2);
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  return cut_last_read(msg);
}

/// A SAX pass over a well-formed document that stops at the first key an object already has,
/// keeping the JSON path of where it is. Only keys matter; values are passed over.
class DuplicateKeyFinder : public nlohmann::json::json_sax_t {
 public:
  /// After a parse that stopped early: the path of the repeated member and its key.
  std::string repeated_path;
  std::string repeated_key;

  bool null() override { return element_done(); }
  bool boolean(bool /*val*/) override { return element_done(); }
  bool number_integer(number_integer_t /*val*/) override { return element_done(); }
  bool number_unsigned(number_unsigned_t /*val*/) override { return element_done(); }
  bool number_float(number_float_t /*val*/, const string_t& /*s*/) override {
    return element_done();
  }
  bool string(string_t& /*val*/) override { return element_done(); }
  bool binary(binary_t& /*val*/) override { return element_done(); }
  bool start_object(std::size_t /*elements*/) override {
    frames_.push_back(Frame{true, {}, {}, 0});
    return true;
  }
  bool key(string_t& val) override {
    Frame& f = frames_.back();
    f.key = val;
    if (f.keys.insert(val).second) return true;
    repeated_path = current_path();
    repeated_key = val;
    return false;  // stops the parse
  }
  bool end_object() override { return end_container(); }
  bool start_array(std::size_t /*elements*/) override {
    frames_.push_back(Frame{false, {}, {}, 0});
    return true;
  }
  bool end_array() override { return end_container(); }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::json::exception& /*ex*/) override {
    return false;  // not reached: the document parsed before this pass
  }

 private:
  /// An open object (its keys so far, the current one) or array (the current index).
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;
    std::size_t index;
  };

  /// A value ended: in an array, the next one has the next index.
  bool element_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    return true;
  }
  bool end_container() {
    frames_.pop_back();
    return element_done();
  }
  std::string current_path() const {
    std::string out;
    for (const Frame& f : frames_) {
      if (f.object) {
        out = json_child(out, f.key);
      } else {
        out += '/';
        out += std::to_string(f.index);
      }
    }
    return out;
  }

  std::vector<Frame> frames_;
};

/// A SAX pass that builds nothing: it finds where the parse fails, or stops where arrays and
/// objects nest deeper than `limit`.
class Scan : public nlohmann::json::json_sax_t {
 public:
  explicit Scan(std::size_t limit = SIZE_MAX) : limit_(limit) {}
  std::size_t byte = 0;   ///< where the parse failed, 1-based as parse_error's; 0: nowhere
  bool too_deep = false;  ///< the pass stopped at the nesting limit

  bool null() override { return true; }
  bool boolean(bool /*val*/) override { return true; }
  bool number_integer(number_integer_t /*val*/) override { return true; }
  bool number_unsigned(number_unsigned_t /*val*/) override { return true; }
  bool number_float(number_float_t /*val*/, const string_t& /*s*/) override { return true; }
  bool string(string_t& /*val*/) override { return true; }
  bool binary(binary_t& /*val*/) override { return true; }
  bool start_object(std::size_t /*elements*/) override { return open(); }
  bool key(string_t& /*val*/) override { return true; }
  bool end_object() override { return close(); }
  bool start_array(std::size_t /*elements*/) override { return open(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::json::exception& /*ex*/) override {
    byte = position;
    return false;
  }

 private:
  bool open() {
    too_deep = ++depth_ > limit_;
    return !too_deep;
  }
  bool close() {
    --depth_;
    return true;
  }
  std::size_t limit_;
  std::size_t depth_ = 0;
};

/// The 1-based line of 1-based byte `byte` of `text` (one past the end: the last line; 0: the
/// first).
int line_at(std::string_view text, std::size_t byte) {
  const std::size_t end = std::min<std::size_t>(byte == 0 ? 0 : byte - 1, text.size());
  return static_cast<int>(1 +
                          std::count(text.begin(), text.begin() + static_cast<long>(end), '\n'));
}

}  // namespace

base::Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& file) {
  // nlohmann's lexer takes a NUL byte for the end of the input and ignores what follows.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(nul), '\n');
    return base::make_error(base::SourceLoc{file, static_cast<int>(line)},
                            "malformed JSON: a NUL byte (JSON text has none)");
  }
  // The document the parser builds for a 10 MB file of nested brackets takes over 1 GB; no
  // input of sbrdma nests past 4 levels, so a first pass refuses such a file before it is
  // built.
  Scan nesting(kMaxJsonNesting);  // a malformed text is told by the parse below, with its line
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &nesting) && nesting.too_deep) {
    return base::make_error(
        base::SourceLoc{file},
        fmt::format("arrays and objects nest deeper than {} levels (a topology, replica-group or "
                    "pairs file needs at most 4)",
                    kMaxJsonNesting));
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    return base::make_error(base::SourceLoc{file, line_at(text, e.byte)},
                            "malformed JSON: " + parse_error_text(e.what()));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number past a double's range (1e400): the DOM parser throws without a position; a
    // SAX pass stops at the same token and gives it.
    Scan where;
    nlohmann::json::sax_parse(text.begin(), text.end(), &where);
    return base::make_error(base::SourceLoc{file, line_at(text, where.byte)},
                            "malformed JSON: " + parse_error_text(e.what()));
  }
  // nlohmann keeps the last of two equal keys; a second pass over the (well-formed) text
  // finds the first repeat, so that a typo or a pasted line does not pass silently.
  DuplicateKeyFinder dup;
  if (!nlohmann::json::sax_parse(text.begin(), text.end(), &dup)) {
    return base::make_error(
        base::SourceLoc{file},
        fmt::format("{}: duplicate key {}", dup.repeated_path,
                    base::printable_brief(
                        nlohmann::json(dup.repeated_key)
                            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))));
  }
  return doc;
}

base::Error json_error(const std::string& file, const std::string& path, std::string_view what) {
  return base::make_error(base::SourceLoc{file},
                          fmt::format("{}: {}", path.empty() ? "/" : path, what));
}

std::string json_brief(const nlohmann::json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  return base::printable_brief(v.dump(-1, ' ', true));  // ASCII already: only the cut applies
}

std::string json_brief_not_whole(const nlohmann::json& v) {
  if (!v.is_number_float()) return json_brief(v);
  return json_brief(v) + ", written with a fraction or an exponent";
}

std::optional<std::uint64_t> json_whole_number(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() == 0) return 0;  // -0
  return std::nullopt;
}

bool json_whole_past_64_bits(const nlohmann::json& v) {
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return d >= 18446744073709551616.0 && std::isfinite(d) && std::floor(d) == d;
}

base::Result<unsigned> json_unsigned(const nlohmann::json& v, const std::string& file,
                                     const std::string& path, std::string_view expected,
                                     std::string_view noun) {
  const auto whole = json_whole_number(v);
  if (!whole && json_whole_past_64_bits(v)) {
    return json_error(file, path, fmt::format("{} {} is too large", noun, json_brief(v)));
  }
  if (!whole) {
    return json_error(file, path,
                      fmt::format("expected {}, got {}", expected, json_brief_not_whole(v)));
  }
  const std::uint64_t n = *whole;
  if (n > std::numeric_limits<unsigned>::max()) {
    return json_error(file, path, fmt::format("{} {} is too large", noun, n));
  }
  return static_cast<unsigned>(n);
}

std::string unknown_field_text(std::string_view key) {
  return key.empty() ? "unknown field \"\" (an empty key)" : "unknown field";
}

base::Result<JsonList> parse_json_list(std::string_view text, const std::string& file,
                                       std::string_view key, std::string_view items) {
  auto parsed = parse_json_text(text, file);
  if (!parsed) return parsed.error();
  JsonList out{std::move(*parsed), ""};
  if (out.list.is_object()) {
    if (!out.list.contains(key)) {
      return json_error(file, "",
                        fmt::format("expected a list of {} or an object with \"{}\"", items, key));
    }
    for (const auto& [k, value] : out.list.items()) {
      if (k != key) return json_error(file, json_child("", k), unknown_field_text(k));
    }
    nlohmann::json list = std::move(out.list[std::string(key)]);
    out.list = std::move(list);
    out.at = json_child("", key);
  }
  if (!out.list.is_array() || out.list.empty()) {
    return json_error(file, out.at, fmt::format("expected a non-empty list of {}", items));
  }
  return out;
}

std::string input_name(const std::string& path) {
  return path == "-" ? "<stdin>" : path;
}

base::Result<std::string> read_bounded(const std::string& path, std::size_t max_bytes) {
  // stdio rather than iostreams: a stream's read failure (a directory: EISDIR) throws from
  // inside its buffer instead of setting badbit.
  const bool is_stdin = path == "-";
  const std::string name = input_name(path);
  std::FILE* f = is_stdin ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return base::make_error(base::SourceLoc{path},
                            std::string("cannot open: ") + std::strerror(errno));
  }
  std::string text;
  char buf[65536];
  std::size_t n = 0;
  errno = 0;
  while (text.size() <= max_bytes && (n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    text.append(buf, n);
  }
  const int err = std::ferror(f) == 0 ? 0 : errno != 0 ? errno : EIO;
  if (!is_stdin) std::fclose(f);
  if (err != 0) {
    return base::make_error(base::SourceLoc{name},
                            std::string("cannot read: ") + std::strerror(err));
  }
  if (text.size() > max_bytes) {
    return base::make_error(base::SourceLoc{name},
                            fmt::format("file too large (over {} MiB)", max_bytes >> 20));
  }
  return text;
}

base::Result<std::string> read_json_file(const std::string& path) {
  return read_bounded(path, kMaxFileBytes);
}

std::string json_index_path(const std::string& path, std::span<const std::size_t> indices) {
  std::string out = path;
  for (std::size_t i : indices) out += "/" + std::to_string(i);
  return out;
}

}  // namespace sbrdma::platform
