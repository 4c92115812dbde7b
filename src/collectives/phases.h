#pragma once
/// The building blocks of every collective: phases that run the same step pattern on several
/// disjoint groups of cores at once (the replica groups of a flat algorithm, or the chips /
/// columns of a hierarchical one). A phase reserves its semaphores and scratch when it is
/// built (the same indices and offsets on every core) and writes one iteration's words per
/// emit() call. Memory is therefore known before any word is written.
///
/// Safety rules the phases follow ([CHOICE D30b-f]):
///  - a wait is exact: when a semaphore reaches its target, every leg it counts has landed
///    and no later leg to it can have been sent yet;
///  - a buffer or scratch slot is written again only after its reader is done with it;
///  - both follow either from a causal chain in the algorithm or from a credit leg.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/emitter.h"
#include "collectives/layout.h"
#include "collectives/types.h"

namespace sbrdma::collectives {

/// What every phase of one lowering shares.
struct Ctx {
  Emitter& em;
  DataType dt = DataType::kFp32;
  ReduceOp red = ReduceOp::kSum;
  unsigned iterations = 1;
  std::uint64_t ring_halves_from = 16 << 10;  ///< see LowerRequest
  /// Rings take the fewest scratch slots (2 x halves) instead of as many as the room left
  /// holds: plan() retries with it when a greedy ring left a later phase too little.
  bool lean_rings = false;
  /// Hierarchical's intra-chip phases run RDH where a chip holds 2^k ranks (else ring):
  /// plan() retries with rings there when RDH's scratch does not fit. [CHOICE D30d]
  bool intra_rdh = true;
  [[nodiscard]] unsigned eb() const { return dtype_bytes(dt); }
};

/// One group of a phase: its cores in algorithm order and, per position, the piece of the
/// buffer that position owns (ends with after a reduce-scatter, starts with before an
/// all-gather). Pieces are column ranges of a buffer at byte `base`.
struct Group {
  std::vector<CoreId> ranks;
  std::vector<Segments> pieces;
  std::uint64_t base = 0;
};

/// A semaphore-only leg from `from` to `to` on `sem`, in place of a piece with no columns:
/// every position then hears from its peers in every iteration, which the per-parity
/// semaphores need (a position that waited for nobody could run iterations ahead and meet a
/// slower one's same-parity wait early). [CHOICE D30b]
void pace(Ctx& ctx, CoreId from, CoreId to, unsigned sem, std::string_view note);

/// The end of a one-step exchange: every position in `got` waits until everything sent to
/// its semaphore `sem` has landed (one joint wait).
void wait_all_sent(Ctx& ctx, const std::vector<CoreId>& ranks, const std::vector<bool>& got,
                   unsigned sem, std::string_view note);

/// A phase of a lowering.
class Phase {
 public:
  virtual ~Phase() = default;
  /// Writes iteration `iter`'s words. Contract: iterations are emitted in order 0, 1, ...
  virtual void emit(unsigned iter) = 0;
};

/// Ring reduce-scatter (rs) and/or all-gather (ag); both = all-reduce. Each piece moves in
/// one or two halves so that reducing one half overlaps receiving the other. [CHOICE D30d]
std::unique_ptr<Phase> make_ring(Ctx& ctx, std::vector<Group> groups, bool rs, bool ag);

/// Mesh: every position sends each peer its piece directly, in one step per half of the
/// job (rs: pieces to their owners' scratch, then reduce; ag: own piece to every peer).
std::unique_ptr<Phase> make_mesh(Ctx& ctx, std::vector<Group> groups, bool rs, bool ag);

/// Recursive halving (rs) and doubling (ag) over 2^k positions. [CHOICE D30d]
std::unique_ptr<Phase> make_rdh(Ctx& ctx, std::vector<Group> groups, bool rs, bool ag);

/// One contiguous range a leg moves: [src, src + bytes) of every partition of the sender to
/// [dst, dst + bytes) of the receiver.
struct Move {
  std::uint64_t src = 0;
  std::uint64_t dst = 0;
  std::uint64_t bytes = 0;
};

/// Sends `moves` from `from` to `to`, incrementing `sem`: one leg per run of moves that are
/// contiguous at both ends (empty moves vanish). When nothing is left to send and `always`,
/// one semaphore-only leg, so that the receiver still has an arrival to wait for. Returns
/// true if a leg went out.
bool send_moves(Ctx& ctx, CoreId from, CoreId to, const std::vector<Move>& moves, unsigned sem,
                bool always, std::string_view note);

/// A personalized exchange: in iteration `iter` position s sends moves(iter, s, j) to
/// position j (j == s: a leg to itself).
struct ExchangeGroup {
  std::vector<CoreId> ranks;
  std::function<std::vector<Move>(unsigned iter, unsigned s, unsigned j)> moves;
};

/// The order of an exchange's legs.
enum class Schedule : std::uint8_t {
  kMesh,      ///< every position sends to every peer at once; one joint wait
  kPairwise,  ///< steps d = 1..n-1: position s sends to s+d only, after step d-1's arrival
};

/// An exchange over `groups` (disjoint, of any sizes). A pair of distinct positions whose moves
/// are all empty still exchanges a semaphore-only leg: it keeps every wait of the schedule,
/// which all-to-all's exactness argument needs (D34d). `name` names its steps and notes.
std::unique_ptr<Phase> make_exchange(Ctx& ctx, std::vector<ExchangeGroup> groups, Schedule schedule,
                                     std::string name);

/// All-to-all: block j of position s's input (`in` at in_base) goes to block s of position
/// j's output (at out_base). in_blocks[s][j] / out_blocks[j][s] are column ranges.
struct AllToAllGroup {
  std::vector<CoreId> ranks;
  std::vector<std::vector<Cols>> in_blocks;   ///< [s][j]
  std::vector<std::vector<Cols>> out_blocks;  ///< [j][s]
  std::uint64_t in_base = 0;
  std::uint64_t out_base = 0;
};
/// The phases of an all-to-all with `alg`: mesh (one step), ring (pairwise, n-1 steps), rdh
/// (Bruck's algorithm, 2^k positions) or hierarchical (every group on several chips; chips of
/// different sizes by lanes, lanes.h). See alltoall.cpp. [CHOICE D34]
std::vector<std::unique_ptr<Phase>> make_all_to_all(Ctx& ctx, const Geometry& g,
                                                    std::vector<AllToAllGroup> groups,
                                                    Algorithm alg);

/// Point to point: position i sends `cols` of its buffer at in_base to position dest[i]'s
/// buffer at out_base (send/recv pairs, permute's ring or pairs: p2p_dest). Contract: dest is
/// a permutation.
struct P2pGroup {
  std::vector<CoreId> ranks;
  std::vector<unsigned> dest;
  Cols cols;
  std::uint64_t in_base = 0;
  std::uint64_t out_base = 0;
};
std::unique_ptr<Phase> make_p2p(Ctx& ctx, std::vector<P2pGroup> groups);

/// Hierarchical all-reduce, all-gather or reduce-scatter over `groups` (each spanning
/// several chips, all with the ranks per chip of the first, chip by chip: chip_sizes()):
/// intra-chip, then inter-chip among the ranks of one lane, then intra-chip, each phase RDH
/// where its groups have 2^k ranks, ring otherwise. [HIGH] hw-params §3 CC-INTER (AR = intra
/// RS + inter AR + intra AG; AG = inter then intra; RS = intra then inter). With the same
/// number of ranks on every chip a lane is a local index; chips of fewer ranks give each rank
/// several lanes (hierarchical.cpp). `whole` is the all-reduce buffer, `blocks[r]` rank r's
/// block of an all-gather / reduce-scatter buffer at byte `base`. `share`: the in-chip
/// phases of chips of different sizes may take the same semaphores and scratch (no relays,
/// Emitter::rewind).
std::vector<std::unique_ptr<Phase>> make_hierarchical(
    Ctx& ctx, const Geometry& g, const std::vector<std::vector<CoreId>>& groups, Op op,
    std::uint64_t base, Cols whole, const std::vector<Cols>& blocks, bool share);

/// Ring order for `ranks` that avoids unfoldable hops where it can: chips in order of first
/// appearance, each chip's ranks by tpb, every other chip reversed (a snake), so that a hop
/// between chips stays on one die. [CHOICE D30g]
std::vector<CoreId> snake_order(const Geometry& g, const std::vector<CoreId>& ranks);

/// The ranks of `group` by chip: [chip][local index] -> index of the rank in the group, chips
/// in order of first appearance, each chip's ranks in group order.
std::vector<std::vector<unsigned>> ranks_by_chip(const Geometry& g,
                                                 const std::vector<CoreId>& group);

/// The number of ranks of `group` on each chip it spans, chips in order of first appearance.
std::vector<unsigned> chip_sizes(const Geometry& g, const std::vector<CoreId>& group);

}  // namespace sbrdma::collectives
