#pragma once
/// The data side of a collective run on a Simulation: every rank's input written straight
/// into its SBUF partitions, and every rank's output compared in place against the CPU
/// reference (collectives/reference.h), chunk by chunk, so that no rank's whole buffer is
/// ever copied out.
///
///   tile block b, chunk of C columns:      partition p, column c  <->  element c*P + p
///     logical elements [c0*P, c1*P)   --(to_partitions)-->   P rows of (c1 - c0) cells
///
/// Inputs are made per chunk (each element is seeded by its index), so the check makes the
/// ones it needs again instead of keeping them. The expected output of a chunk is made once
/// per class of ranks with the same sources and layout (all-reduce: one class), laid out like
/// the SBUF once, and compared with each rank's partitions by memcmp; only a chunk that
/// differs is copied out and counted element by element (count_wrong's tolerance).

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
base::Result<CheckCount> check_outputs(Simulation& sim, const collectives::Communicator& comm,
                                       const collectives::Lowered& low,
                                       const CollectiveData& data);

}  // namespace sbrdma::platform
