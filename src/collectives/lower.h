#pragma once
/// Lowering: a collective on a communicator -> one POOL program per core, plus where each
/// rank's input and output live in SBUF (for whoever fills and checks them).
///
///   auto r = lower(geometry, comm, LowerRequest{Op::kAllReduce, DataType::kFp32, ...});
///   r->programs      one CoreProgram per core that has work
///   r->buffers[g][k] rank k of group g: its input and output tiles
///
/// Buffers (count = bytes / element size, blocks = count cut into `ranks` near-equal parts):
///   all-reduce       one tile of count elements, in place (input = output)
///   all-gather       output: one block per rank; input: the rank's own block (in place)
///   reduce-scatter   input: one block per rank; output: the rank's own block (in place)
///   all-to-all       input: one block per destination; output: `ranks` blocks of the size
///                    of this rank's input block, one from each source
///   send/recv, permute  input tile, output tile of count elements (who sends to whom:
///                    src_target_pairs.h)
/// Scratch follows the buffers in every partition. [CHOICE D30a]

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "collectives/communicator.h"
#include "collectives/emitter.h"
#include "collectives/layout.h"
#include "collectives/program.h"
#include "collectives/src_target_pairs.h"
#include "collectives/types.h"

namespace sbrdma::collectives {

/// What to lower.
struct LowerRequest {
  Op op = Op::kAllReduce;
  DataType dtype = DataType::kFp32;
  ReduceOp reduce = ReduceOp::kSum;
  std::uint64_t bytes = 0;  ///< nccom-test's size(B)
  Algorithm algorithm = Algorithm::kAuto;
  unsigned iterations = 1;  ///< back-to-back repetitions in one program
  bool notes = false;       ///< keep a note per word (for --dump-programs)
  /// Ring: a piece moves in two halves when each half has at least this many bytes per
  /// partition (a half then streams longer than its gen takes). [CHOICE D30d]
  std::uint64_t ring_halves_from = 16 << 10;
  /// Permute: who sends to whom, one list per group (none: the ring). [CHOICE D30j]
  SrcTargetPairs pairs;
};

/// Where one rank's data lives.
struct RankBuffers {
  Tiled in;
  Tiled out;
};

/// What a plan occupies in the SBUF of every core that takes part.
struct Footprint {
  std::vector<std::vector<RankBuffers>> buffers;  ///< [group][rank]
  std::uint64_t sbuf_bytes = 0;                   ///< bytes of each partition used
  std::uint64_t words = 0;  ///< program words of all cores, the largest iteration emitted
};

/// The lowered collective.
struct Lowered {
  Algorithm algorithm = Algorithm::kRing;  ///< the one used (auto resolved)
  std::uint64_t count = 0;                 ///< elements (bytes / element size)
  std::vector<CoreProgram> programs;
  std::vector<std::vector<RankBuffers>> buffers;  ///< [group][rank]
  std::uint64_t sbuf_bytes = 0;                   ///< bytes of each partition used
  unsigned semaphores = 0;                        ///< semaphore indices used (0 .. n-1)
  EmitStats stats;
};

/// Elements of `req` (bytes / element size). Error: a size of 0, or one that holds no
/// element of the dtype.
base::Result<std::uint64_t> element_count(const LowerRequest& req);

/// The algorithm `req` runs with (auto resolved by size [HIGH] hw-params §2 CC-INTRA), or an
/// error when the requested one does not apply (RDH on 6 ranks, hierarchical on one chip,
/// anything but ring for send/recv and permute). All-to-all's auto is mesh.
base::Result<Algorithm> resolve_algorithm(const Geometry& g, const Communicator& c,
                                          const LowerRequest& req);

/// Lowers `req` on `c`. Errors: bad size, pairs check_src_target_pairs refuses, an algorithm
/// that does not apply, a size whose buffers and scratch do not fit a partition (saying how
/// much fits), semaphores exhausted, relay slots that do not fit, programs past 2^25 words.
/// Every refusal is check_request()'s, word for word; one near the word limit is found by a
/// count-only check_request() first, so it costs no stored words.
base::Result<Lowered> lower(const Geometry& g, const Communicator& c, const LowerRequest& req);

/// The checks lower() runs, with the same errors, for a caller that wants to refuse a whole
/// sweep before running any of it: bad size, bad pairs, an algorithm that does not apply, no
/// iteration, buffers and scratch that do not fit a partition, and, from emitted iterations
/// (counted, thrown away), semaphores exhausted, relay slots that do not fit and iterations
/// whose programs would pass the word limit. It emits the first iteration and the later ones
/// that differ: a core's first legs wait for no earlier leg, so iterations grow until every
/// core that sends has a full window of legs (D30c; a relay core can start sending in a later
/// iteration); a fenced all-gather's iterations after the first begin with a fence (D49b);
/// where a group needs relays, a ring's later iterations can relay through new slots (up to
/// the ranks + 1th, when the slot pattern has repeated). The word limit is checked against
/// those words and, past them, the largest iteration's each: refused from the iteration
/// lower() would refuse where later iterations keep that size, a little earlier where they
/// shrink (a lone ring reduce-scatter's credits thin out), never later. Returns the
/// footprint, its words the largest iteration's.
base::Result<Footprint> check_request(const Geometry& g, const Communicator& c,
                                      const LowerRequest& req);

/// The largest size of `req` (same op, dtype, algorithm) that fits, in bytes, relay slots
/// around unroutable addresses included (those of every iteration up to the ranks + 1th: a
/// ring's scratch slots rotate across iterations, so a later one can relay through a new
/// slot, until the pattern repeats); 0 if none.
/// Where relays decide, it is a size that fits, not always the largest (a larger size can
/// take fewer ring scratch slots and so fit again).
std::uint64_t max_fitting_bytes(const Geometry& g, const Communicator& c, const LowerRequest& req);

}  // namespace sbrdma::collectives
