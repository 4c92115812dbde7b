#include "platform/collective_groups.h"

#include <array>
#include <nlohmann/json.hpp>
#include <utility>

#include "platform/json_file.h"

namespace sbrdma::platform {
namespace {

/// The groups of a file and the JSON path of their list ("" for a list at the root,
/// "/replica_groups" for the object form).
struct GroupsFile {
  collectives::Communicator comm;
  std::string at;
};

base::Result<GroupsFile> read_groups(std::string_view text, const std::string& file) {
  using nlohmann::json;
  auto list = parse_json_list(text, file, "replica_groups", "groups");
  if (!list) return list.error();
  const json& groups = list->list;
  GroupsFile out;
  const std::string& at = out.at = list->at;
  collectives::Communicator& c = out.comm;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const json& grp = groups[g];
    if (!grp.is_array()) {
      return json_error(file, json_index_path(at, std::array{g}), "expected a list of ranks");
    }
    c.groups.emplace_back();
    for (std::size_t k = 0; k < grp.size(); ++k) {
      auto rank = json_unsigned(grp[k], file, json_index_path(at, std::array{g, k}),
                                "a rank (a core id, 0 or more)", "rank");
      if (!rank) return rank.error();
      c.groups.back().push_back(*rank);
    }
  }
  return out;
}

}  // namespace

base::Result<collectives::Communicator> parse_replica_groups(std::string_view text,
                                                             const std::string& file) {
  auto f = read_groups(text, file);
  if (!f) return f.error();
  return std::move(f->comm);
}

base::Result<collectives::Communicator> parse_replica_groups(std::string_view text,
                                                             const std::string& file,
                                                             const collectives::Geometry& g) {
  auto f = read_groups(text, file);
  if (!f) return f.error();
  if (auto problem = collectives::find_communicator_problem(g, f->comm)) {
    return json_error(file, json_index_path(f->at, problem->where), problem->message);
  }
  return std::move(f->comm);
}

base::Result<collectives::Communicator> load_replica_groups(const std::string& path,
                                                            const collectives::Geometry& g) {
  auto text = read_json_file(path);
  if (!text) return text.error();
  return parse_replica_groups(*text, input_name(path), g);
}

}  // namespace sbrdma::platform
