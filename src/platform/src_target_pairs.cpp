#include "platform/src_target_pairs.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "platform/json_file.h"

namespace sbrdma::platform {

base::Result<collectives::SrcTargetPairs> parse_src_target_pairs(std::string_view text,
                                                                 const std::string& file,
                                                                 std::size_t groups,
                                                                 unsigned ranks) {
  using nlohmann::json;
  auto list = parse_json_list(text, file, "src_target_pairs", "pair lists");
  if (!list) return list.error();
  const json& lists = list->list;
  const std::string& at = list->at;
  collectives::SrcTargetPairs out;
  for (std::size_t k = 0; k < lists.size(); ++k) {
    const json& pairs = lists[k];
    if (!pairs.is_array()) {
      return json_error(file, json_index_path(at, std::array{k}),
                        "expected a list of pairs [source, target]");
    }
    // [[0,1],[1,0]]: pairs where the lists of pairs should be, one level short.
    if (!pairs.empty() &&
        std::all_of(pairs.begin(), pairs.end(), [](const json& v) { return v.is_number(); })) {
      return json_error(file, json_index_path(at, std::array{k}),
                        "expected a list of pairs [source, target], got a pair: the outer list "
                        "holds one list of pairs per replica group (one group: [[[0,1],[1,0]]])");
    }
    out.emplace_back();
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const json& pair = pairs[i];
      if (!pair.is_array() || pair.size() != 2) {
        return json_error(file, json_index_path(at, std::array{k, i}),
                          "expected a pair [source, target] of positions in the group");
      }
      unsigned pos[2] = {};
      for (std::size_t end = 0; end < 2; ++end) {
        auto p = json_unsigned(pair[end], file, json_index_path(at, std::array{k, i, end}),
                               "a position in the group (0 or more)", "position");
        if (!p) return p.error();
        pos[end] = *p;
      }
      out.back().push_back(collectives::SrcTarget{pos[0], pos[1]});
    }
  }
  if (out.size() != 1 && out.size() != groups) {
    return json_error(file, at,
                      fmt::format("{} pair lists for {} replica group{}: give one list per "
                                  "group, or one for every group",
                                  out.size(), groups, groups == 1 ? "" : "s"));
  }
  if (auto problem = collectives::find_pairs_problem(out, ranks)) {
    return json_error(file, json_index_path(at, problem->where), problem->message);
  }
  out.resize(groups, out.front());  // one list: every group's [CHOICE D30j]
  return out;
}

base::Result<collectives::SrcTargetPairs> load_src_target_pairs(const std::string& path,
                                                                std::size_t groups,
                                                                unsigned ranks) {
  auto text = read_json_file(path);
  if (!text) return text.error();
  return parse_src_target_pairs(*text, input_name(path), groups, ranks);
}

}  // namespace sbrdma::platform
