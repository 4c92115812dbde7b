#include "platform/json_file.h"

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

base::Result<std::string> read_json_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return base::make_error(base::SourceLoc{path},
                            std::string("cannot open: ") + std::strerror(errno));
  }
  std::string text;
  char buf[65536];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0 && text.size() <= kMaxFileBytes) {
    text.append(buf, n);
  }
  const bool read_error = std::ferror(f) != 0;
  std::fclose(f);
  if (read_error) return base::make_error(base::SourceLoc{path}, "read error");
  if (text.size() > kMaxFileBytes) {
    return base::make_error(base::SourceLoc{path}, "file too large (over 16 MiB)");
  }
  return text;
}

}  // namespace sbrdma::platform
