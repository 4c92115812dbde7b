#include "platform/json_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace sbrdma::platform {
namespace {

/// Larger inputs are refused rather than read: no topology or group file comes near it.
constexpr std::size_t kMaxFileBytes = 16U << 20;

/// nlohmann's message without its "[json.exception...] parse error at line L, column C: "
/// prefix (the line goes into the location instead), on one line.
std::string parse_error_text(const std::string& what) {
  std::string msg = what;
  const std::size_t col = msg.find(", column ");
  const std::size_t colon = col == std::string::npos ? msg.find("] ") : msg.find(": ", col);
  if (colon != std::string::npos) msg = msg.substr(colon + 2);
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  return msg;
}

}  // namespace

base::Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& file) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and may point one past the end.
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(end), '\n');
    return base::make_error(base::SourceLoc{file, static_cast<int>(line)},
                            "malformed JSON: " + parse_error_text(e.what()));
  }
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

std::string json_child(const std::string& path, std::string_view key) {
  std::string out = path + "/";
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

}  // namespace sbrdma::platform
