#pragma once
/// A communicator: replica groups of ranks, one rank = one NeuronCore (global core id).
/// Groups run the same collective at the same time and must not share cores (hw-params §3:
/// "sub-groups must not overlap"). Rank r of a group is the group's r-th core.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "collectives/geometry.h"

namespace sbrdma::collectives {

struct Communicator {
  std::vector<std::vector<CoreId>> groups;
  /// Ranks per group. Contract: at least one group.
  [[nodiscard]] unsigned ranks() const { return static_cast<unsigned>(groups.front().size()); }
};

/// One group of the first `ranks` cores in chip-major order. Errors: 0 ranks, more ranks
/// than the topology has cores.
base::Result<Communicator> default_communicator(const Geometry& g, unsigned ranks);

/// The first `ranks` cores (default_communicator's order) as ranks / `per` groups of `per`,
/// group k holding positions k, k + G, k + 2G ... (G groups): one rank from each G-rank
/// slice, as nccom-test's --data-parallel-dimension means it for one rank per node.
/// [CHOICE D30i] Errors: default_communicator's. Contract: per >= 1 and divides ranks.
base::Result<Communicator> data_parallel_communicator(const Geometry& g, unsigned ranks,
                                                      unsigned per);

/// Checks `c` on `g`: at least one group, no empty group, every group the same size, every
/// core on the topology, no core twice.
base::Status check_communicator(const Geometry& g, const Communicator& c);

/// The first problem check_communicator reports, and where it is: `where` is {} for the list
/// of groups, {k} for group k, {k, i} for rank i of group k (the second of two equal ranks).
struct CommunicatorProblem {
  std::vector<std::size_t> where;
  std::string message;
};

/// check_communicator's checks, in its order, keeping the place of the first problem so that a
/// file's reader can name it (`/1/0: ...`). nullopt: `c` is fine on `g`.
std::optional<CommunicatorProblem> find_communicator_problem(const Geometry& g,
                                                             const Communicator& c);

/// Number of distinct chips the ranks of `group` sit on.
unsigned chips_spanned(const Geometry& g, const std::vector<CoreId>& group);

}  // namespace sbrdma::collectives
