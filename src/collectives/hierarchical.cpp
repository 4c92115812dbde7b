// Hierarchical collectives: phases on sub-groups. [HIGH] hw-params §3 CC-INTER; the choice of
// sub-algorithms and of the lanes for chips of different sizes is [CHOICE D30d].
//
//   chips c = 0..C-1 of a group (in order of first appearance) hold n_c ranks (c, j),
//   j = 0..n_c-1 in group order on their chip; lanes p = 0..N-1 (lanes.h) cut the work.
//   all-reduce:     intra rs of the parts P_p a rank holds lanes of
//                   -> inter all-reduce of P_p among lane p's ranks -> intra ag
//   all-gather:     inter ag among lane p's ranks, of the blocks going with lane p
//                   -> intra ag of the blocks a rank received for its lanes
//   reduce-scatter: intra rs of those blocks -> inter rs among lane p's ranks
//   With the same number of ranks on every chip, lane p is local index p: the intra, inter,
//   intra phases of CC-INTER. A rank holding several lanes is in several lane groups; those
//   run one after another, as rounds (each a phase of groups that share no rank).
//   Each phase is RDH where its groups have 2^k ranks, ring otherwise (intra: while it fits).
#include <algorithm>
#include <bit>

#include "base/check.h"
#include "base/first_seen_groups.h"
#include "collectives/lanes.h"
#include "collectives/phases.h"

namespace sbrdma::collectives {
namespace {

/// RDH where the phase's groups have 2^k ranks (and `rdh_ok`), ring otherwise.
std::unique_ptr<Phase> rdh_or_ring(Ctx& ctx, std::vector<Group> groups, bool rs, bool ag,
                                   bool rdh_ok) {
  const auto n = static_cast<unsigned>(groups.front().ranks.size());
  if (rdh_ok && std::has_single_bit(n)) return make_rdh(ctx, std::move(groups), rs, ag);
  return make_ring(ctx, std::move(groups), rs, ag);
}

}  // namespace

std::vector<std::vector<unsigned>> ranks_by_chip(const Geometry& g,
                                                 const std::vector<CoreId>& group) {
  std::vector<std::vector<unsigned>> out;
  for (const auto& on_chip : base::first_seen_groups(
           group.size(), [&](std::size_t r) { return g.locate(group[r]).chip; })) {
    out.emplace_back(on_chip.begin(), on_chip.end());
  }
  return out;
}

std::vector<unsigned> chip_sizes(const Geometry& g, const std::vector<CoreId>& group) {
  std::vector<unsigned> sizes;
  for (const auto& on : ranks_by_chip(g, group)) sizes.push_back(static_cast<unsigned>(on.size()));
  return sizes;
}

std::vector<std::unique_ptr<Phase>> make_hierarchical(
    Ctx& ctx, const Geometry& g, const std::vector<std::vector<CoreId>>& groups, Op op,
    std::uint64_t base, Cols whole, const std::vector<Cols>& blocks, bool share) {
  const Lanes lanes(chip_sizes(g, groups.front()));
  const unsigned C = lanes.chips();
  const unsigned N = lanes.count();
  // The distinct chip sizes, in order of first appearance: one intra-chip phase each.
  const auto by_size = base::first_seen_groups(C, [&](std::size_t c) { return lanes.sizes()[c]; });

  std::vector<std::vector<Group>> intra(by_size.size());  // [size class]
  std::vector<std::vector<Group>> inter(lanes.rounds());  // [round]
  const std::vector<Cols> parts = split_even(whole, N);
  for (const auto& group : groups) {
    const auto chips = ranks_by_chip(g, group);
    SBRDMA_CHECK(chips.size() == C);
    for (unsigned c = 0; c < C; ++c) SBRDMA_CHECK(chips[c].size() == lanes.size(c));
    // What lane p carries: all-reduce, part P_p; else the blocks that go with it, from each
    // chip (`from[p][c]`: one block or none).
    std::vector<std::vector<Segments>> from(N, std::vector<Segments>(C));
    std::vector<Segments> carried(N);  // all of lane p's blocks, in group order
    if (op != Op::kAllReduce) {
      std::vector<unsigned> lane(group.size());
      for (unsigned c = 0; c < C; ++c) {
        for (unsigned j = 0; j < lanes.size(c); ++j) {
          lane[chips[c][j]] = lanes.lane_of_block(c, j);
          append(from[lane[chips[c][j]]][c], blocks[chips[c][j]]);
        }
      }
      for (unsigned r = 0; r < group.size(); ++r) append(carried[lane[r]], blocks[r]);
    }
    // Intra-chip pieces: rank (c, j) holds every lane p with o_c(p) == j. They depend on the
    // chip only through its size: once a size, the same for each chip of it.
    for (std::size_t s = 0; s < by_size.size(); ++s) {
      const auto first = static_cast<unsigned>(by_size[s].front());
      std::vector<Segments> pieces(lanes.size(first));
      for (unsigned p = 0; p < N; ++p) {
        Segments& piece = pieces[lanes.owner(first, p)];
        if (op == Op::kAllReduce) {
          append(piece, parts[p]);
        } else {
          for (const Cols& cols : carried[p]) append(piece, cols);
        }
      }
      for (const std::size_t c : by_size[s]) {
        Group grp;
        grp.base = base;
        for (const unsigned r : chips[c]) grp.ranks.push_back(group[r]);
        grp.pieces = pieces;
        intra[s].push_back(std::move(grp));
      }
    }
    // Inter-chip groups: lane p's rank on each chip.
    for (unsigned p = 0; p < N; ++p) {
      Group grp;
      grp.base = base;
      for (unsigned c = 0; c < C; ++c) {
        grp.ranks.push_back(group[chips[c][lanes.owner(c, p)]]);
        if (op == Op::kAllReduce) {
          Segments part;
          append(part, parts[p]);
          grp.pieces.push_back(split_piece(part, C, c));
        } else {
          grp.pieces.push_back(from[p][c]);
        }
      }
      inter[lanes.round(p)].push_back(std::move(grp));
    }
  }
  // Each phase RDH where its groups have 2^k ranks, ring otherwise; the intra-chip phases
  // only while ctx.intra_rdh (plan() retries with rings there when RDH's scratch does not
  // fit). [CHOICE D30d]
  std::vector<std::unique_ptr<Phase>> phases;
  // Chips of different sizes are different cores: their phases may share reservations.
  const auto intra_phases = [&](bool rs, bool ag) {
    ctx.em.side_by_side(intra.size(), share, [&](std::size_t s) {
      phases.push_back(rdh_or_ring(ctx, intra[s], rs, ag, ctx.intra_rdh));
    });
  };
  const auto inter_phases = [&](bool rs, bool ag) {
    for (auto& sub : inter) phases.push_back(rdh_or_ring(ctx, std::move(sub), rs, ag, true));
  };
  switch (op) {
    case Op::kAllReduce:
      intra_phases(true, false);
      inter_phases(true, true);
      intra_phases(false, true);
      break;
    case Op::kAllGather:
      inter_phases(false, true);
      intra_phases(false, true);
      break;
    case Op::kReduceScatter:
      intra_phases(true, false);
      inter_phases(true, false);
      break;
    default:
      SBRDMA_CHECK_MSG(false, "hierarchical: not a reduce or gather op");
  }
  return phases;
}

}  // namespace sbrdma::collectives
