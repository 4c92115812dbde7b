#include "platform/collective_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace sbrdma::platform {

base::Result<collectives::Communicator> parse_replica_groups(std::string_view text,
                                                             const std::string& file) {
  using nlohmann::json;
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    const std::size_t end = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(end), '\n');
    std::string msg = e.what();
    const std::size_t col = msg.find(", column ");
    if (col != std::string::npos && msg.find(": ", col) != std::string::npos) {
      msg = msg.substr(msg.find(": ", col) + 2);
    }
    return base::make_error(base::SourceLoc{file, static_cast<int>(line)},
                            "malformed JSON: " + msg);
  }
  auto bad = [&](std::string path, std::string what) {
    return base::make_error(base::SourceLoc{file}, fmt::format("{}: {}", path, what));
  };
  const json* groups = &root;
  std::string at;
  if (root.is_object()) {
    if (!root.contains("replica_groups"))
      return bad("/", "expected a list of groups or an object with \"replica_groups\"");
    groups = &root["replica_groups"];
    at = "/replica_groups";
  }
  if (!groups->is_array() || groups->empty())
    return bad(at.empty() ? "/" : at, "expected a non-empty list of groups");
  collectives::Communicator c;
  for (std::size_t g = 0; g < groups->size(); ++g) {
    const json& grp = (*groups)[g];
    if (!grp.is_array()) return bad(fmt::format("{}/{}", at, g), "expected a list of ranks");
    c.groups.emplace_back();
    for (std::size_t k = 0; k < grp.size(); ++k) {
      if (!grp[k].is_number_unsigned()) {
        return bad(fmt::format("{}/{}/{}", at, g, k), "expected a rank (a core id, 0 or more)");
      }
      c.groups.back().push_back(grp[k].get<unsigned>());
    }
  }
  return c;
}

base::Result<collectives::Communicator> load_replica_groups(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return base::make_error(base::SourceLoc{path},
                            std::string("cannot open: ") + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_replica_groups(ss.str(), path);
}

}  // namespace sbrdma::platform
