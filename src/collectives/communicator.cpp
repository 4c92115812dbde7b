#include "collectives/communicator.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace sbrdma::collectives {

base::Result<Communicator> default_communicator(const Geometry& g, unsigned ranks) {
  if (ranks == 0) return base::make_error("-r: the number of ranks must be at least 1");
  if (ranks > g.num_cores()) {
    return base::make_error(
        fmt::format("-r {}: the topology has only {} cores (ranks)", ranks, g.num_cores()));
  }
  Communicator c;
  c.groups.emplace_back();
  for (CoreId r = 0; r < ranks; ++r) c.groups.back().push_back(r);
  return c;
}

base::Result<Communicator> data_parallel_communicator(const Geometry& g, unsigned ranks,
                                                      unsigned per) {
  SBRDMA_CHECK(per >= 1 && ranks % per == 0);
  auto all = default_communicator(g, ranks);
  if (!all) return all.error();
  const std::vector<CoreId>& order = all->groups.front();
  const unsigned groups = ranks / per;
  Communicator c;
  c.groups.resize(groups);
  for (unsigned k = 0; k < groups; ++k) {
    for (unsigned j = 0; j < per; ++j) c.groups[k].push_back(order[k + j * groups]);
  }
  return c;
}

std::optional<CommunicatorProblem> find_communicator_problem(const Geometry& g,
                                                             const Communicator& c) {
  if (c.groups.empty()) return CommunicatorProblem{{}, "replica groups: no group given"};
  std::vector<int> owner(g.num_cores(), -1);
  for (std::size_t k = 0; k < c.groups.size(); ++k) {
    const auto& grp = c.groups[k];
    if (grp.empty()) return CommunicatorProblem{{k}, fmt::format("replica group {} is empty", k)};
    if (grp.size() != c.groups.front().size()) {
      return CommunicatorProblem{
          {k},
          fmt::format("replica group {} has {} rank{}, group 0 has {} (all groups must be the "
                      "same size)",
                      k, grp.size(), grp.size() == 1 ? "" : "s", c.groups.front().size())};
    }
    for (std::size_t i = 0; i < grp.size(); ++i) {
      const CoreId r = grp[i];
      if (r >= g.num_cores()) {
        return CommunicatorProblem{{k, i},
                                   fmt::format("replica group {}: rank {} is not a core of the "
                                               "topology (cores 0..{})",
                                               k, r, g.num_cores() - 1)};
      }
      if (owner[r] >= 0) {
        return CommunicatorProblem{
            {k, i},
            owner[r] == static_cast<int>(k)
                ? fmt::format("replica group {}: rank {} appears twice", k, r)
                : fmt::format("replica groups {} and {} overlap at rank {}", owner[r], k, r)};
      }
      owner[r] = static_cast<int>(k);
    }
  }
  return std::nullopt;
}

base::Status check_communicator(const Geometry& g, const Communicator& c) {
  auto problem = find_communicator_problem(g, c);
  if (problem) return base::make_error(std::move(problem->message));
  return base::ok_status();
}

unsigned chips_spanned(const Geometry& g, const std::vector<CoreId>& group) {
  std::vector<unsigned> chips;
  for (CoreId r : group) chips.push_back(g.locate(r).chip);
  std::sort(chips.begin(), chips.end());
  return static_cast<unsigned>(std::unique(chips.begin(), chips.end()) - chips.begin());
}

}  // namespace sbrdma::collectives
