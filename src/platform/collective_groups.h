#pragma once
/// `--custom-replica-groups FILE.json`: the replica groups of a bench run, as a JSON list of
/// groups of ranks (global core ids), e.g. `[[0, 1, 2, 3], [4, 5, 6, 7]]`; an object
/// `{"replica_groups": [[...], ...]}` is read the same way. [CHOICE D30i]

#include <string>
#include <string_view>

#include "base/result.h"
#include "collectives/communicator.h"

namespace sbrdma::platform {

/// Parses the text of a replica-group file. Errors carry `file` (and a line for malformed
/// JSON) and name the offending element by its JSON path (`/1/2: ...`).
base::Result<collectives::Communicator> parse_replica_groups(std::string_view text,
                                                             const std::string& file);

/// The same, then collectives::check_communicator's checks on `g`, whose errors also name
/// the offending group (`/1: replica group 1 has 1 ranks, ...`) or rank
/// (`/1/0: replica groups 0 and 1 overlap at rank 1`), under `/replica_groups` in the
/// object form.
base::Result<collectives::Communicator> parse_replica_groups(std::string_view text,
                                                             const std::string& file,
                                                             const collectives::Geometry& g);

/// Reads the file at `path` and parses and checks it on `g`.
base::Result<collectives::Communicator> load_replica_groups(const std::string& path,
                                                            const collectives::Geometry& g);

}  // namespace sbrdma::platform
