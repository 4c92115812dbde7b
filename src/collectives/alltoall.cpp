// All-to-all: block j of position s's input -> block s of position j's output, with each
// algorithm. [HIGH] hw-params §3 "Operations"; the schedules are [CHOICE D30d, D34].
//
//   mesh          exchange.cpp, one step: every block straight to its owner
//   ring          exchange.cpp, pairwise: n-1 steps, in step d position s sends to s+d only
//   rdh           Bruck's algorithm below: log2(n) steps over 2^k positions
//   hierarchical  an intra-chip exchange by lane, then an inter-chip pairwise exchange among
//                 the ranks of one lane (below)
//
// Every leg reads an input block or a scratch slot and writes an output block or a scratch
// slot; blocks keep their own column widths (uneven sizes move exactly their columns), and
// moves contiguous at both ends go as one leg (send_moves).

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <memory>

#include "base/check.h"
#include "collectives/lanes.h"
#include "collectives/phases.h"

namespace sbrdma::collectives {
namespace {

using Blocks = std::shared_ptr<const AllToAllGroup>;

/// Block j of position s's input to block s of position j's output, one move.
ExchangeGroup flat(Blocks a, unsigned eb) {
  ExchangeGroup e;
  e.ranks = a->ranks;
  e.moves = [a = std::move(a), eb](unsigned, unsigned s, unsigned j) {
    const Cols in = a->in_blocks[s][j];
    const Cols out = a->out_blocks[j][s];
    SBRDMA_CHECK(in.size() == out.size());
    return std::vector<Move>{
        Move{a->in_base + in.begin * eb, a->out_base + out.begin * eb, in.size() * eb}};
  };
  return e;
}

// Bruck's algorithm (--algorithm rdh) over n = 2^k positions. [CHOICE D34]
//
// t[i] is what position s holds for distance i: at first its block for s+i. Step m = 0..k-1
// sends every t[i] with bit m of i set to s + 2^m, which keeps it as its own t[i]. After
// step m, t[i] at s is the block of s - (i mod 2^(m+1)) for s + i - (i mod 2^(m+1)); after
// the last, the block of s - i for s. Both of Bruck's local rotations are only addressing
// here: a t[i] not yet moved is read from input block s+i, and a t[i] whose top bit is m
// lands at step m in output block s-i of the receiver. In between it waits in the scratch
// of the step that brought it. Column i below is the path of t[i] (n = 8):
//
//   i               1    2    3    4    5    6    7
//   step 0 (to +1)  out  .    S0   .    S0   .    S0      out: the receiver's output block
//   step 1 (to +2)  .    out  out  .    .    S1   S1      Sm:  the receiver's scratch of step m
//   step 2 (to +4)  .    .    .    out  out  out  out     (read back from there by the next
//                                                          step whose bit is set)
//
// Scratch of step m: one slot of the widest block's columns for each i with bit m and a
// higher bit set (n/2 - 2^m of them, by i), two sets by iteration parity. One semaphore per
// step and parity; the own block is a leg to itself on the last step's semaphore.
class BruckPhase final : public Phase {
 public:
  BruckPhase(Ctx& ctx, std::vector<AllToAllGroup> groups) : ctx_(ctx), groups_(std::move(groups)) {
    SBRDMA_CHECK(!groups_.empty());
    n_ = static_cast<unsigned>(groups_[0].ranks.size());
    SBRDMA_CHECK(std::has_single_bit(n_));
    k_ = static_cast<unsigned>(std::countr_zero(n_));
    for (const AllToAllGroup& g : groups_) {
      SBRDMA_CHECK(g.ranks.size() == n_);
      for (const auto& row : g.in_blocks) {
        for (const Cols& c : row) width_ = std::max(width_, c.size());
      }
    }
    std::uint64_t slots = 0;
    for (unsigned m = 0; m < k_; ++m) {
      first_slot_.push_back(slots);
      slots += n_ / 2 - (1U << m);
    }
    set_bytes_ = slots * width_ * ctx_.eb();
    scratch_ = ctx_.em.alloc_bytes(2 * set_bytes_);
    sems_ = ctx_.em.alloc_sems(2 * std::max(k_, 1U), "the all-to-all rdh steps");
  }

  void emit(unsigned iter) override {
    for (const AllToAllGroup& grp : groups_) {
      for (unsigned s = 0; s < n_; ++s) {
        ctx_.em.step(grp.ranks[s], k_ == 0 ? "all-to-all rdh" : "all-to-all rdh step 0");
        const Cols in = grp.in_blocks[s][s];
        const Cols out = grp.out_blocks[s][s];
        send_moves(ctx_, grp.ranks[s], grp.ranks[s],
                   {Move{grp.in_base + in.begin * ctx_.eb(), grp.out_base + out.begin * ctx_.eb(),
                         in.size() * ctx_.eb()}},
                   sem(iter, std::max(k_, 1U) - 1), false, "all-to-all rdh: own block");
      }
      if (k_ == 0) wait_all(grp, iter, 0, "all-to-all rdh: own block in");
      for (unsigned m = 0; m < k_; ++m) {
        for (unsigned s = 0; s < n_; ++s) {
          if (m > 0) ctx_.em.step(grp.ranks[s], ctx_.em.note("all-to-all rdh step {}", m));
          const unsigned r = (s + (1U << m)) % n_;
          send_moves(ctx_, grp.ranks[s], grp.ranks[r], moves(grp, iter, s, m), sem(iter, m), true,
                     ctx_.em.note("all-to-all rdh step {}: the blocks with bit {} set", m, m));
        }
        wait_all(grp, iter, m, ctx_.em.note("all-to-all rdh step {}: blocks in", m));
      }
    }
  }

 private:
  [[nodiscard]] unsigned sem(unsigned iter, unsigned m) const {
    return sems_[(iter % 2) * std::max(k_, 1U) + m];
  }
  /// Byte offset of t[i]'s slot in the scratch of step m. Contract: bit m of i and a higher
  /// bit are set.
  [[nodiscard]] std::uint64_t slot(unsigned iter, unsigned m, unsigned i) const {
    const std::uint64_t index =
        first_slot_[m] + ((i >> (m + 1)) - 1) * (1U << m) + (i & ((1U << m) - 1));
    return scratch_ + (iter % 2) * set_bytes_ + index * width_ * ctx_.eb();
  }
  /// What position s sends in step m.
  [[nodiscard]] std::vector<Move> moves(const AllToAllGroup& grp, unsigned iter, unsigned s,
                                        unsigned m) const {
    const unsigned r = (s + (1U << m)) % n_;
    std::vector<Move> out;
    for (unsigned i = 1; i < n_; ++i) {
      if ((i >> m & 1U) == 0) continue;
      const unsigned low = i & ((1U << m) - 1);
      const unsigned from = (s + n_ - low) % n_;  // t[i]: from's block for `to`
      const unsigned to = (s + i - low) % n_;
      Move mv;
      mv.bytes = grp.in_blocks[from][to].size() * ctx_.eb();
      mv.src = low == 0 ? grp.in_base + grp.in_blocks[s][to].begin * ctx_.eb()
                        : slot(iter, static_cast<unsigned>(std::bit_width(low)) - 1, i);
      mv.dst = i >> (m + 1) == 0 ? grp.out_base + grp.out_blocks[r][from].begin * ctx_.eb()
                                 : slot(iter, m, i);
      out.push_back(mv);
    }
    return out;
  }
  void wait_all(const AllToAllGroup& grp, unsigned iter, unsigned m, std::string_view note) {
    const unsigned sm = sem(iter, m);
    for (CoreId core : grp.ranks) {
      if (ctx_.em.expected(core, sm) > 0)
        ctx_.em.wait(Arrival{core, sm, ctx_.em.expected(core, sm)}, note);
    }
  }

  Ctx& ctx_;
  std::vector<AllToAllGroup> groups_;
  unsigned n_ = 0;
  unsigned k_ = 0;
  std::uint64_t width_ = 0;  // columns of the widest block: one scratch slot
  std::vector<std::uint64_t> first_slot_;
  std::uint64_t set_bytes_ = 0;
  std::uint64_t scratch_ = 0;
  std::vector<unsigned> sems_;
};

// Hierarchical all-to-all over C chips, chip c holding n_c ranks (c, l) (ranks_by_chip), and
// the lanes of those chips (lanes.h): the blocks for target t travel in t's lane, q(t) =
// lane_of_block(t), through that lane's rank on each chip. [HIGH] hw-params §3 CC-INTER:
// hierarchical = any intra- plus any inter-chip algorithm; the all-to-all form is
// [CHOICE D34].
//
//   1. intra-chip mesh exchange: (c, l) sends (c, l2) its blocks for every target t whose
//      lane's rank on chip c is (c, l2); a target on chip c is (c, l2) itself and gets its
//      block in its output directly, the others in the staging slots of (c, l2) (slot (t, l),
//      targets by chip distance d = c2 - c mod C, then local index).
//   2. inter-chip pairwise exchange among the ranks of lane q: (c, .) sends (c2, .) its
//      staging slots (t, 0..n_c-1) for t = the lane's rank on chip c2, if q is t's lane
//      (else nothing), into the output blocks of (c, 0..n_c-1): one leg when those ranks
//      follow each other in the group. Lanes that share a rank run in rounds, one exchange
//      after another.
//
//        chip 0: (0,0) (0,1)          (0,0) holds: its blocks for chip 0 (from (0,0),(0,1))
//        chip 1: (1,0) (1,1)          in its output, and chip 0's blocks for (1,0) in staging
//                                     -> step 2: those two, in one leg, to (1,0)
//
// With equal chips lane q is local index q and there is one round. The last intra-chip step
// of the published order (scatter) is folded into step 1: the blocks are grouped by
// destination lane before they cross chips (why not three phases: D34c). Staging slots have
// their block's own width, two sets by iteration parity (D34d). A group spans two chips or
// more (resolve_algorithm).
struct HierarchicalGroup {
  Blocks a;
  std::vector<std::vector<unsigned>> chips;  // [c][l] -> index in the group
  Lanes lanes;
  /// [via][t]: index in staged[via] of target t's first slot (source l = 0), or kNone.
  std::vector<std::vector<std::uint32_t>> slot_of;
  std::vector<std::vector<std::uint64_t>> staged;  // [via][slot] -> column
  std::uint64_t staging = 0;                       // byte offset of set 0
  std::uint64_t set_bytes = 0;
  unsigned eb = 1;
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  HierarchicalGroup(std::vector<std::vector<unsigned>> by_chip, std::vector<unsigned> sizes)
      : chips(std::move(by_chip)), lanes(std::move(sizes)) {}

  [[nodiscard]] unsigned chip_count() const { return lanes.chips(); }
  /// The rank (index in the group) of lane q on chip c.
  [[nodiscard]] unsigned lane_rank(unsigned q, unsigned c) const {
    return chips[c][lanes.owner(c, q)];
  }
  /// Calls f(t, l2) for every target t off chip c, by chip distance then local index, with
  /// the local index l2 on chip c its blocks go through.
  template <typename F>
  void each_target_off(unsigned c, F f) const {
    for (unsigned d = 1; d < chip_count(); ++d) {
      const unsigned c2 = (c + d) % chip_count();
      for (unsigned k = 0; k < lanes.size(c2); ++k) {
        f(chips[c2][k], lanes.owner(c, lanes.lane_of_block(c2, k)));
      }
    }
  }
  [[nodiscard]] std::uint64_t slot(unsigned iter, unsigned via, unsigned t, unsigned l) const {
    return staging + (iter % 2) * set_bytes + staged[via][slot_of[via][t] + l] * eb;
  }
  /// Step 1: (c, l) -> (c, l2).
  [[nodiscard]] std::vector<Move> intra(unsigned iter, unsigned c, unsigned l, unsigned l2) const {
    const unsigned from = chips[c][l];
    const unsigned via = chips[c][l2];
    std::vector<Move> out;
    auto move = [&](unsigned to, std::uint64_t dst) {
      const Cols in = a->in_blocks[from][to];
      out.push_back(Move{a->in_base + in.begin * eb, dst, in.size() * eb});
    };
    // Its own block: the target on chip c whose lane goes through (c, l2) is (c, l2).
    move(via, a->out_base + a->out_blocks[via][from].begin * eb);
    each_target_off(c, [&](unsigned t, unsigned through) {
      if (through == l2) move(t, slot(iter, via, t, l));
    });
    return out;
  }
  /// Step 2 in lane q: (c, .) -> (c2, .).
  [[nodiscard]] std::vector<Move> inter(unsigned iter, unsigned q, unsigned c, unsigned c2) const {
    const unsigned to = lane_rank(q, c2);
    if (c == c2 || lanes.lane_of_block(c2, lanes.owner(c2, q)) != q) return {};
    const unsigned via = lane_rank(q, c);
    std::vector<Move> out;
    for (unsigned l = 0; l < lanes.size(c); ++l) {
      const Cols o = a->out_blocks[to][chips[c][l]];
      out.push_back(Move{slot(iter, via, to, l), a->out_base + o.begin * eb, o.size() * eb});
    }
    return out;
  }
};

std::vector<std::unique_ptr<Phase>> hierarchical(Ctx& ctx, const Geometry& g,
                                                 std::vector<AllToAllGroup> groups) {
  std::vector<std::shared_ptr<HierarchicalGroup>> hs;
  std::uint64_t set_cols = 0;
  unsigned rounds = 0;
  for (AllToAllGroup& a : groups) {
    auto h = std::make_shared<HierarchicalGroup>(ranks_by_chip(g, a.ranks), chip_sizes(g, a.ranks));
    h->eb = ctx.eb();
    const auto R = static_cast<unsigned>(a.ranks.size());
    const unsigned C = h->chip_count();
    rounds = std::max(rounds, h->lanes.rounds());
    h->staged.resize(R);
    h->slot_of.assign(R, std::vector<std::uint32_t>(R, HierarchicalGroup::kNone));
    std::vector<std::uint64_t> col(R, 0);  // staging columns of each rank so far
    for (unsigned c = 0; c < C; ++c) {
      h->each_target_off(c, [&](unsigned t, unsigned l2) {  // slots (t, l) of (c, l2)
        const unsigned x = h->chips[c][l2];
        h->slot_of[x][t] = static_cast<std::uint32_t>(h->staged[x].size());
        for (unsigned l = 0; l < h->lanes.size(c); ++l) {
          h->staged[x].push_back(col[x]);
          col[x] += a.in_blocks[h->chips[c][l]][t].size();
        }
      });
    }
    set_cols = std::max(set_cols, *std::max_element(col.begin(), col.end()));
    h->a = std::make_shared<const AllToAllGroup>(std::move(a));
    hs.push_back(std::move(h));
  }
  const std::uint64_t set_bytes = set_cols * ctx.eb();
  const std::uint64_t staging = ctx.em.alloc_bytes(2 * set_bytes);
  std::vector<ExchangeGroup> intra;
  std::vector<std::vector<ExchangeGroup>> inter(rounds);  // [round]
  for (const auto& h : hs) {
    h->staging = staging;
    h->set_bytes = set_bytes;
    for (unsigned c = 0; c < h->chip_count(); ++c) {
      ExchangeGroup e;
      for (unsigned x : h->chips[c]) e.ranks.push_back(h->a->ranks[x]);
      e.moves = [h, c](unsigned iter, unsigned l, unsigned l2) { return h->intra(iter, c, l, l2); };
      intra.push_back(std::move(e));
    }
    for (unsigned q = 0; q < h->lanes.count(); ++q) {
      ExchangeGroup e;
      for (unsigned c = 0; c < h->chip_count(); ++c)
        e.ranks.push_back(h->a->ranks[h->lane_rank(q, c)]);
      e.moves = [h, q](unsigned iter, unsigned c, unsigned c2) { return h->inter(iter, q, c, c2); };
      inter[h->lanes.round(q)].push_back(std::move(e));
    }
  }
  std::vector<std::unique_ptr<Phase>> out;
  out.push_back(
      make_exchange(ctx, std::move(intra), Schedule::kMesh, "all-to-all hierarchical intra-chip"));
  for (unsigned r = 0; r < rounds; ++r) {
    out.push_back(
        make_exchange(ctx, std::move(inter[r]), Schedule::kPairwise,
                      r == 0 ? std::string("all-to-all hierarchical inter-chip")
                             : fmt::format("all-to-all hierarchical inter-chip, round {}", r + 1)));
  }
  return out;
}

}  // namespace

std::vector<std::unique_ptr<Phase>> make_all_to_all(Ctx& ctx, const Geometry& g,
                                                    std::vector<AllToAllGroup> groups,
                                                    Algorithm alg) {
  std::vector<std::unique_ptr<Phase>> out;
  switch (alg) {
    case Algorithm::kMesh:
    case Algorithm::kRing: {
      std::vector<ExchangeGroup> ex;
      for (AllToAllGroup& a : groups) {
        ex.push_back(flat(std::make_shared<const AllToAllGroup>(std::move(a)), ctx.eb()));
      }
      const bool mesh = alg == Algorithm::kMesh;
      out.push_back(make_exchange(ctx, std::move(ex), mesh ? Schedule::kMesh : Schedule::kPairwise,
                                  mesh ? "all-to-all" : "all-to-all ring"));
      break;
    }
    case Algorithm::kRdh:
      out.push_back(std::make_unique<BruckPhase>(ctx, std::move(groups)));
      break;
    case Algorithm::kHierarchical:
      out = hierarchical(ctx, g, std::move(groups));
      break;
    default:
      SBRDMA_CHECK_MSG(false, "all-to-all: auto must be resolved before lowering");
  }
  return out;
}

}  // namespace sbrdma::collectives
