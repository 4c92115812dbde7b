// Hierarchical collectives: phases on sub-groups. [HIGH] hw-params §3 CC-INTER; the choice of
// sub-algorithms is [CHOICE D30d].
//
//   chips c = 0..C-1 of a group (in order of first appearance), ranks (c, l), l = 0..n-1 in
//   group order on their chip.
//   all-reduce:     intra rs of pieces P_l -> inter all-reduce of P_l among (., l)
//                   -> intra ag of P_l
//   all-gather:     inter ag of the blocks of (., l) -> intra ag of S_l = blocks of (., l)
//   reduce-scatter: intra rs of S_l -> inter rs of the blocks of (., l)
//   Each phase is RDH where its groups have 2^k ranks, ring otherwise (intra: while it fits).
#include <algorithm>
#include <bit>

#include "base/check.h"
#include "base/first_seen_groups.h"
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

std::vector<std::unique_ptr<Phase>> make_hierarchical(
    Ctx& ctx, const Geometry& g, const std::vector<std::vector<CoreId>>& groups, Op op,
    std::uint64_t base, Cols whole, const std::vector<Cols>& blocks) {
  std::vector<Group> intra;
  std::vector<Group> inter;
  for (const auto& group : groups) {
    const auto chips = ranks_by_chip(g, group);
    const auto C = static_cast<unsigned>(chips.size());
    const auto n = static_cast<unsigned>(chips.front().size());
    for (const auto& on : chips) SBRDMA_CHECK(on.size() == n);
    const std::vector<Cols> parts = split_even(whole, n);
    // Pieces of the intra-chip phases, by local index.
    std::vector<Segments> local(n);
    for (unsigned l = 0; l < n; ++l) {
      if (op == Op::kAllReduce) {
        append(local[l], parts[l]);
      } else {
        for (unsigned c = 0; c < C; ++c) append(local[l], blocks[chips[c][l]]);
      }
    }
    for (unsigned c = 0; c < C; ++c) {
      Group grp;
      grp.base = base;
      for (unsigned l = 0; l < n; ++l) grp.ranks.push_back(group[chips[c][l]]);
      grp.pieces = local;
      intra.push_back(std::move(grp));
    }
    for (unsigned l = 0; l < n; ++l) {
      Group grp;
      grp.base = base;
      for (unsigned c = 0; c < C; ++c) {
        grp.ranks.push_back(group[chips[c][l]]);
        if (op == Op::kAllReduce) {
          grp.pieces.push_back(split_piece(local[l], C, c));
        } else {
          grp.pieces.push_back(Segments{});
          append(grp.pieces.back(), blocks[chips[c][l]]);
        }
      }
      inter.push_back(std::move(grp));
    }
  }
  // Each phase RDH where its groups have 2^k ranks, ring otherwise; the intra-chip phases
  // only while ctx.intra_rdh (plan() retries with rings there when RDH's scratch does not
  // fit). [CHOICE D30d]
  const auto inter_phase = [&](std::vector<Group> sub, bool rs, bool ag) {
    return rdh_or_ring(ctx, std::move(sub), rs, ag, true);
  };
  const auto intra_phase = [&](std::vector<Group> sub, bool rs, bool ag) {
    return rdh_or_ring(ctx, std::move(sub), rs, ag, ctx.intra_rdh);
  };
  std::vector<std::unique_ptr<Phase>> phases;
  switch (op) {
    case Op::kAllReduce:
      phases.push_back(intra_phase(intra, true, false));
      phases.push_back(inter_phase(std::move(inter), true, true));
      phases.push_back(intra_phase(std::move(intra), false, true));
      break;
    case Op::kAllGather:
      phases.push_back(inter_phase(std::move(inter), false, true));
      phases.push_back(intra_phase(std::move(intra), false, true));
      break;
    case Op::kReduceScatter:
      phases.push_back(intra_phase(std::move(intra), true, false));
      phases.push_back(inter_phase(std::move(inter), true, false));
      break;
    default:
      SBRDMA_CHECK_MSG(false, "hierarchical: not a reduce or gather op");
  }
  return phases;
}

}  // namespace sbrdma::collectives
