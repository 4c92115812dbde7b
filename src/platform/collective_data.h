#pragma once
/// The data side of a collective run on a Simulation: every rank's input made partition by
/// partition into SBUF, and every rank's output compared partition by partition against the
/// CPU reference (collectives/reference.h), a small chunk of cells at a time, so that no
/// rank's whole buffer is ever copied out or transposed.
///
///   tile block, P partitions:   partition p holds elements p, p + P, p + 2P, ... back to back
///   fill:   partition p's cells = make_input_range(first = p, stride = P)
///   check:  expected_range(first = p, stride = P) == partition p's cells   (memcmp first)
///
/// Inputs are made where they are needed (each element is seeded by its index), so the check
/// makes the ones it needs again instead of keeping them. The expected cells are made once
/// per class of ranks with the same sources and layout (all-reduce: one class) and compared
/// with each rank's partition; count_wrong looks at single elements only where the bytes
/// differ, and its tolerance does not depend on the order of the elements.

#include <cstdint>

#include "base/result.h"
#include "collectives/communicator.h"
#include "collectives/lower.h"
#include "collectives/reference.h"
#include "platform/simulation.h"

namespace sbrdma::platform {

/// What the data of a collective is.
struct CollectiveData {
  collectives::Op op = collectives::Op::kAllReduce;
  collectives::DataType dtype = collectives::DataType::kFp32;
  collectives::ReduceOp reduce = collectives::ReduceOp::kSum;
  collectives::DataFill fill = collectives::DataFill::kRandom;
  std::uint64_t seed = 0;
  collectives::SrcTargetPairs pairs;  ///< permute: one list per group (none: the ring)
};

/// Writes every rank's input into its SBUF (padding cells of a block's last column get 0).
/// Errors: a tile outside a core's partitions.
base::Status fill_inputs(Simulation& sim, const collectives::Communicator& comm,
                         const collectives::Lowered& low, const CollectiveData& data);

/// Output elements checked and found wrong.
struct CheckCount {
  std::uint64_t wrong = 0;
  std::uint64_t checked = 0;
};

/// Compares every rank's output in SBUF with the reference for inputs fill_inputs wrote.
/// Errors: a tile outside a core's partitions.
base::Result<CheckCount> check_outputs(const Simulation& sim, const collectives::Communicator& comm,
                                       const collectives::Lowered& low, const CollectiveData& data);

}  // namespace sbrdma::platform
