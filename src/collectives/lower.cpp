#include "collectives/lower.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <memory>

#include "base/check.h"
#include "base/first_seen_groups.h"
#include "collectives/lanes.h"
#include "collectives/phases.h"

namespace sbrdma::collectives {
namespace {

// [HIGH] hw-params §2 CC-INTRA: "Mesh < 1 MB; RDH 1-56 MB; KangaRing > 56 MB; Ring fallback".
constexpr std::uint64_t kMeshBelow = 1'000'000;
constexpr std::uint64_t kRdhUpTo = 56'000'000;
// [HIGH] hw-params §2 CC-INTRA: those sweet spots are measured inside one Trn2 node of 16 chips.
constexpr unsigned kNodeChips = 16;
constexpr std::uint64_t kAlign = 64;
/// Programs of more words than this, all cores together, are refused: a simulated word and
/// what it schedules take a few hundred bytes, and -n 4294967295 would never end.
constexpr std::uint64_t kMaxProgramWords = 1ULL << 25;

std::uint64_t align_up(std::uint64_t v) {
  return (v + kAlign - 1) / kAlign * kAlign;
}

/// Buffers and phases of one request, before any word is written.
struct Plan {
  std::unique_ptr<Emitter> em;
  std::unique_ptr<Ctx> ctx;
  std::vector<std::vector<RankBuffers>> buffers;
  std::vector<std::unique_ptr<Phase>> phases;
};

/// Index of each core of `group` in it.
std::vector<unsigned> positions_in(const std::vector<CoreId>& group,
                                   const std::vector<CoreId>& order) {
  std::vector<unsigned> out;
  for (CoreId r : order) {
    out.push_back(static_cast<unsigned>(std::find(group.begin(), group.end(), r) - group.begin()));
  }
  return out;
}

/// Lays out the buffers of every rank; returns the bytes of each partition they use.
std::uint64_t layout(const Geometry& g, const Communicator& c, const LowerRequest& req,
                     std::uint64_t count, std::vector<std::vector<RankBuffers>>& out) {
  const unsigned eb = dtype_bytes(req.dtype);
  const unsigned R = c.ranks();
  const unsigned P = g.partitions;
  const std::vector<std::uint64_t> blocks = even_counts(count, R);
  std::uint64_t used = 0;
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {
    std::vector<RankBuffers> ranks(R);
    for (unsigned r = 0; r < R; ++r) {
      RankBuffers& b = ranks[r];
      switch (req.op) {
        case Op::kAllReduce:
          b.in = tile_blocks(0, eb, P, {count});
          b.out = b.in;
          break;
        case Op::kAllGather:
          b.out = tile_blocks(0, eb, P, blocks);
          b.in = b.out.block(r);
          break;
        case Op::kReduceScatter:
          b.in = tile_blocks(0, eb, P, blocks);
          b.out = b.in.block(r);
          break;
        case Op::kAllToAll: {
          b.in = tile_blocks(0, eb, P, blocks);
          const std::uint64_t out_base = align_up(b.in.end_col() * eb);
          b.out = tile_blocks(out_base, eb, P, std::vector<std::uint64_t>(R, blocks[r]));
          break;
        }
        case Op::kSendRecv:
        case Op::kPermute:
          b.in = tile_blocks(0, eb, P, {count});
          b.out = tile_blocks(align_up(b.in.end_col() * eb), eb, P, {count});
          break;
      }
      used = std::max({used, b.in.byte_of(b.in.end_col()), b.out.byte_of(b.out.end_col())});
    }
    out.push_back(std::move(ranks));
  }
  return used;
}

/// The flat reduce/gather phase of `alg` over every group.
void flat_phase(Plan& p, const Geometry& g, const Communicator& c, const LowerRequest& req,
                Algorithm alg) {
  const bool rs = req.op == Op::kAllReduce || req.op == Op::kReduceScatter;
  const bool ag = req.op == Op::kAllReduce || req.op == Op::kAllGather;
  const unsigned R = c.ranks();
  std::vector<Group> groups;
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {
    const auto& group = c.groups[gi];
    const RankBuffers& b0 = p.buffers[gi][0];
    const Tiled& whole = req.op == Op::kAllGather ? b0.out : b0.in;
    Group grp;
    grp.base = whole.base;
    grp.ranks = alg == Algorithm::kRing ? snake_order(g, group) : group;
    const std::vector<unsigned> pos = positions_in(group, grp.ranks);
    const std::vector<Cols> parts =
        req.op == Op::kAllReduce ? split_even(Cols{0, whole.end_col()}, R) : std::vector<Cols>{};
    for (unsigned i = 0; i < R; ++i) {
      Segments s;
      append(s, req.op == Op::kAllReduce ? parts[i] : whole.block_cols(pos[i]));
      grp.pieces.push_back(std::move(s));
    }
    groups.push_back(std::move(grp));
  }
  switch (alg) {
    case Algorithm::kRing:
      p.phases.push_back(make_ring(*p.ctx, std::move(groups), rs, ag));
      break;
    case Algorithm::kMesh:
      p.phases.push_back(make_mesh(*p.ctx, std::move(groups), rs, ag));
      break;
    case Algorithm::kRdh:
      p.phases.push_back(make_rdh(*p.ctx, std::move(groups), rs, ag));
      break;
    default:
      SBRDMA_CHECK_MSG(false, "flat_phase: not a flat algorithm");
  }
}

void point_phases(Plan& p, const Geometry& g, const Communicator& c, const LowerRequest& req,
                  Algorithm alg) {
  const unsigned R = c.ranks();
  if (req.op == Op::kAllToAll) {
    std::vector<AllToAllGroup> groups;
    for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {
      AllToAllGroup a;
      a.ranks = c.groups[gi];
      a.in_base = p.buffers[gi][0].in.base;
      a.out_base = p.buffers[gi][0].out.base;
      a.in_blocks.resize(R);
      a.out_blocks.resize(R);
      for (unsigned s = 0; s < R; ++s) {
        for (unsigned j = 0; j < R; ++j) {
          a.in_blocks[s].push_back(p.buffers[gi][s].in.block_cols(j));
          a.out_blocks[s].push_back(p.buffers[gi][s].out.block_cols(j));
        }
      }
      groups.push_back(std::move(a));
    }
    p.phases = make_all_to_all(*p.ctx, g, std::move(groups), alg);
    return;
  }
  std::vector<P2pGroup> groups;
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {
    P2pGroup q;
    q.ranks = c.groups[gi];
    q.in_base = p.buffers[gi][0].in.base;
    q.out_base = p.buffers[gi][0].out.base;
    q.cols = p.buffers[gi][0].in.block_cols(0);
    q.dest = p2p_dest(req.op, R, pairs_of(req.pairs, gi));
    groups.push_back(std::move(q));
  }
  p.phases.push_back(make_p2p(*p.ctx, std::move(groups)));
}

/// True if a leg between two ranks of a group goes through a relay core (D30g).
bool needs_relays(const Geometry& g, const Communicator& c) {
  return std::any_of(c.groups.begin(), c.groups.end(),
                     [&](const auto& group) { return has_relayed_pair(g, group); });
}

/// True if `req`'s iterations are fenced (Emitter::fence_forwards()): a lone all-gather whose
/// ranks forward what they receive (all but mesh, from 3 ranks), run more than once. Every
/// other operation's next iteration waits, through its own semaphores, for what this one's
/// peers read; an all-gather's writes into a peer are followed by nothing of that peer's
/// but its forwards. [CHOICE D49b]
bool fenced(const Communicator& c, const LowerRequest& req, Algorithm alg) {
  return req.op == Op::kAllGather && alg != Algorithm::kMesh && c.ranks() > 2 && req.iterations > 1;
}

/// plan() with rings as greedy (for scratch slots) as `lean` allows, and hierarchical's
/// intra-chip phases RDH where they can be if `intra_rdh`.
Plan plan_rings(const Geometry& g, const Communicator& c, const LowerRequest& req,
                std::uint64_t count, Algorithm alg, Emitter::Output out, bool lean,
                bool intra_rdh) {
  Plan p;
  p.em = std::make_unique<Emitter>(g, req.notes, out);
  p.ctx = std::make_unique<Ctx>(
      Ctx{*p.em, req.dtype, req.reduce, req.iterations, req.ring_halves_from, lean, intra_rdh});
  p.em->alloc_bytes(layout(g, c, req, count, p.buffers));
  if (c.ranks() == 1 && is_reduction(req.op)) return p;  // one rank: nothing moves
  if (fenced(c, req, alg)) p.em->track_forwards(p.em->alloc_sem("the all-gather's fences"));
  if (req.op == Op::kAllToAll || req.op == Op::kSendRecv || req.op == Op::kPermute) {
    point_phases(p, g, c, req, alg);
  } else if (alg == Algorithm::kHierarchical) {
    const RankBuffers& b0 = p.buffers[0][0];
    const Tiled& whole = req.op == Op::kAllGather ? b0.out : b0.in;
    std::vector<Cols> blocks;
    for (std::size_t k = 0; k < whole.blocks(); ++k) blocks.push_back(whole.block_cols(k));
    // One set of phases per layout (the ranks on each chip spanned, chip by chip), each over
    // the groups laid out so, in order of first appearance; their steps interleave, a
    // group's in its own order (each core is in one group). The sets run on disjoint cores,
    // so without relays they take the same semaphores and scratch. [CHOICE D30d]
    const auto layouts = base::first_seen_groups(
        c.groups.size(), [&](std::size_t k) { return chip_sizes(g, c.groups[k]); });
    const bool share = !needs_relays(g, c);
    std::vector<std::vector<std::unique_ptr<Phase>>> sets;
    p.em->side_by_side(layouts.size(), share, [&](std::size_t i) {
      std::vector<std::vector<CoreId>> groups;
      for (const std::size_t k : layouts[i]) groups.push_back(c.groups[k]);
      sets.push_back(make_hierarchical(*p.ctx, g, groups, req.op, whole.base,
                                       Cols{0, whole.end_col()}, blocks, share));
    });
    // Layouts with chips of different sizes have more phases (hierarchical.cpp).
    std::size_t most = 0;
    for (const auto& set : sets) most = std::max(most, set.size());
    for (std::size_t i = 0; i < most; ++i) {
      for (auto& set : sets) {
        if (i < set.size()) p.phases.push_back(std::move(set[i]));
      }
    }
  } else if (c.ranks() > 1) {
    flat_phase(p, g, c, req, alg);
  }
  return p;
}

/// True if what `em` has planned or emitted so far holds: no emitter error, and buffers,
/// scratch and relay slots within a partition.
bool holds(const Geometry& g, const Emitter& em) {
  return em.status().ok() && em.sbuf_used() <= g.partition_bytes;
}

/// Builds buffers and phases (reserving memory and semaphores) for `alg`. A ring takes more
/// scratch slots than it needs where they fit (fewer credits), which can leave a later phase
/// (hierarchical's inter-chip one) too little room: then the plan is made again with lean
/// rings, so that whether a size fits does not depend on that greed (a larger size, whose
/// ring could not be greedy, would fit where a smaller one did not). Hierarchical's intra-chip
/// phases run RDH first (a scratch area per step), and rings where that does not fit.
/// [CHOICE D30d] `out`: Output::kCountOnly for a plan whose words are thrown away.
Plan plan(const Geometry& g, const Communicator& c, const LowerRequest& req, std::uint64_t count,
          Algorithm alg, Emitter::Output out) {
  if (alg == Algorithm::kHierarchical && req.op != Op::kAllToAll) {
    for (const bool lean : {false, true}) {
      Plan p = plan_rings(g, c, req, count, alg, out, lean, true);
      if (holds(g, *p.em)) return p;
    }
  }
  Plan p = plan_rings(g, c, req, count, alg, out, false, false);
  if (holds(g, *p.em)) return p;
  // also what a refusal reports it needs
  return plan_rings(g, c, req, count, alg, out, true, false);
}

/// Emits iteration `it` of every phase of `p`.
void emit_phases(Plan& p, unsigned it) {
  if (it > 0) p.em->fence_forwards();
  for (auto& ph : p.phases) ph->emit(it);
  p.em->end_iteration();
}

bool fits(const Geometry& g, const Communicator& c, const LowerRequest& req, std::uint64_t count,
          Algorithm alg) {
  return holds(g, *plan(g, c, req, count, alg, Emitter::Output::kCountOnly).em);
}

/// The iterations to emit to see every relay slot of `req`: a ring's rotating scratch slots
/// (w_scr <= n x halves of them) relay through new slots until their pattern repeats, after
/// at most n iterations; mesh's and RDH's two parity sets after 2.
unsigned relay_iterations(const Geometry& g, const Communicator& c, const LowerRequest& req) {
  return needs_relays(g, c) ? std::min(req.iterations, c.ranks() + 1) : 1;
}

/// What emit_later_iterations() emits.
enum class Later {
  kRelays,  ///< the relay_iterations()
  /// Those, and on until an iteration that began with every sending core's window of legs
  /// full, and in which no core sent its first leg, has been emitted (iteration 1 at least,
  /// so a fenced all-gather's first fence too): the iterations before it take fewer words, as
  /// a core's first legs wait for no earlier leg (D30c; a relay core can send its first in
  /// iteration 1, for a fence's credit).
  kWords,
};

/// Iterations 0 .. iterations - 1 emitted, the largest of them `largest` words (WordWatch's
/// count, which emit_later_iterations() returns).
struct Emitted {
  unsigned iterations = 1;
  std::uint64_t largest = 0;
};

/// Follows iterations 1, 2, ... as they are emitted (iteration 0 is): the largest so far, and
/// whether those emitted tell the words of the rest (Later::kWords's rule).
class WordWatch {
 public:
  WordWatch(const Emitter& em, unsigned relays) : em_(em), relays_(relays), e_{1, em.words()} {}
  /// Before iteration emitted().iterations is emitted.
  void begin() {
    at_start_ = em_.windows();
    before_ = em_.words();
  }
  /// After it.
  void end() {
    e_.largest = std::max(e_.largest, em_.words() - before_);
    steady_ = steady_ || (at_start_.full && em_.windows() == at_start_);
    ++e_.iterations;
  }
  [[nodiscard]] const Emitted& emitted() const { return e_; }
  /// Every relay slot is seen (relay_iterations()).
  [[nodiscard]] bool relays_seen() const { return e_.iterations >= relays_; }
  /// Those, and an iteration (1 or later) began with full windows and added no sender.
  [[nodiscard]] bool settled() const { return relays_seen() && steady_; }

 private:
  const Emitter& em_;
  unsigned relays_;
  Emitted e_;
  bool steady_ = false;
  Emitter::Windows at_start_;
  std::uint64_t before_ = 0;
};

/// True if another iteration of `p` may be emitted: the request has more, and what is emitted
/// holds and is within the word limit. check_request()'s emission and lower()'s both stop
/// here, so that they refuse the same requests with the same words.
bool more_to_emit(const Geometry& g, const LowerRequest& req, const Plan& p, const WordWatch& w) {
  return w.emitted().iterations < req.iterations && holds(g, *p.em) &&
         p.em->words() <= kMaxProgramWords;
}

/// Emits iterations 1, 2, ... of `p` (iteration 0 is emitted) as `later` says, stopping
/// where more_to_emit() does.
Emitted emit_later_iterations(const Geometry& g, const Communicator& c, const LowerRequest& req,
                              Plan& p, Later later) {
  WordWatch w(*p.em, relay_iterations(g, c, req));
  while (more_to_emit(g, req, p, w)) {
    if (later == Later::kRelays ? w.relays_seen() : w.settled()) break;
    w.begin();
    emit_phases(p, w.emitted().iterations);
    w.end();
  }
  return w.emitted();
}

/// fits(), and the relay slots fit too: only emission shows them, and a ring's rotating
/// scratch slots can add some in later iterations (relay_iterations()).
bool fits_emitted(const Geometry& g, const Communicator& c, const LowerRequest& req,
                  std::uint64_t count, Algorithm alg) {
  Plan p = plan(g, c, req, count, alg, Emitter::Output::kCountOnly);  // no notes, no words
  if (!holds(g, *p.em)) return false;
  emit_phases(p, 0);
  emit_later_iterations(g, c, req, p, Later::kRelays);
  return holds(g, *p.em);
}

std::string bytes_text(std::uint64_t b) {
  if (b % (1 << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b % (1 << 10) == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

}  // namespace

base::Result<std::uint64_t> element_count(const LowerRequest& req) {
  if (req.bytes == 0) return base::make_error("size 0: a collective needs at least one element");
  const std::uint64_t count = req.bytes / dtype_bytes(req.dtype);
  if (count == 0) {
    return base::make_error(fmt::format("size {} B holds no {} element ({} B)", req.bytes,
                                        dtype_name(req.dtype), dtype_bytes(req.dtype)));
  }
  return count;
}

namespace {

/// Whether every group spans more than one chip with the same number of ranks on each, more
/// than one, and hierarchical applies to them. One rank a chip would make it flat RDH by
/// another name; chips of different sizes run the inter-chip phase in rounds, which lost to
/// flat RDH in most layouts measured. [D46]
bool two_level_applies(const Geometry& g, const Communicator& c, const LowerRequest& req) {
  if (!std::all_of(c.groups.begin(), c.groups.end(), [&](const auto& group) {
        const auto sizes = chip_sizes(g, group);
        return sizes.size() > 1 && sizes.front() > 1 &&
               std::all_of(sizes.begin(), sizes.end(),
                           [&](unsigned n) { return n == sizes.front(); });
      })) {
    return false;
  }
  LowerRequest two = req;
  two.algorithm = Algorithm::kHierarchical;
  return resolve_algorithm(g, c, two).ok();
}

}  // namespace

base::Result<Algorithm> resolve_algorithm(const Geometry& g, const Communicator& c,
                                          const LowerRequest& req) {
  const Algorithm a = req.algorithm;
  auto not_for = [&](std::string_view only) {
    return base::make_error(fmt::format("--algorithm {} does not apply to {} (use {})",
                                        algorithm_name(a), op_long_name(req.op), only));
  };
  if (req.op == Op::kSendRecv || req.op == Op::kPermute) {
    if (a == Algorithm::kAuto || a == Algorithm::kRing) return Algorithm::kRing;
    return not_for("ring or auto");
  }
  // All-to-all runs every algorithm; auto keeps mesh at every size. [CHOICE D34]
  if (req.op == Op::kAllToAll && a == Algorithm::kAuto) return Algorithm::kMesh;
  const unsigned R = c.ranks();
  if (a == Algorithm::kRdh && !std::has_single_bit(R)) {
    return base::make_error(
        fmt::format("--algorithm rdh needs a power-of-2 number of ranks per group, got {}", R));
  }
  if (a == Algorithm::kHierarchical) {
    for (std::size_t k = 0; k < c.groups.size(); ++k) {
      if (chips_spanned(g, c.groups[k]) < 2) {
        return base::make_error(fmt::format(
            "--algorithm hierarchical needs groups on more than one chip (group {} is on one)", k));
      }
    }
  }
  if (a != Algorithm::kAuto) return a;
  auto count = element_count(req);
  if (!count) return count.error();
  // [HIGH] hw-params §2 CC-INTRA thresholds; an algorithm whose scratch does not fit yields.
  // Mesh only inside one node: a group spanning more chips skips it. [CHOICE D32] The same
  // thresholds for every operation, all-gather and reduce-scatter included. [CHOICE D41a]
  const bool one_node = std::all_of(c.groups.begin(), c.groups.end(), [&](const auto& group) {
    return chips_spanned(g, group) <= kNodeChips;
  });
  // Relay slots count too (an algorithm that fits only without them yields as well).
  const bool relays = needs_relays(g, c);
  const auto fit = [&](Algorithm candidate) {
    return relays ? fits_emitted(g, c, req, *count, candidate) : fits(g, c, req, *count, candidate);
  };
  if (one_node && req.bytes < kMeshBelow && fit(Algorithm::kMesh)) return Algorithm::kMesh;
  if (std::has_single_bit(R) && req.bytes <= kRdhUpTo) {
    // Neuron's RDH on Trn2 is two-level: "inter-chip recursive doubling/halving plus an
    // intra-chip stage" [HIGH hw-params §3 CC-INTRA]. Wherever auto runs RDH (1-56 MB, and
    // below 1 MB past one node, D32), an all-reduce whose groups span several chips, laid out
    // so that hierarchical applies, runs that form (hierarchical: RDH inside each chip, then
    // across); flat RDH across every rank stays `--algorithm rdh`. [CHOICE D46]
    if (req.op == Op::kAllReduce && two_level_applies(g, c, req) && fit(Algorithm::kHierarchical)) {
      return Algorithm::kHierarchical;
    }
    if (fit(Algorithm::kRdh)) return Algorithm::kRdh;
  }
  return Algorithm::kRing;  // also above 56 MB: KangaRing is not lowered [CHOICE D41b]
}

namespace {

/// "{op} of {bytes} B ({dtype}, {ranks} ranks, {alg}){what}; {partition} fit: at most {n} B":
/// a request that does not fit a partition, and the largest size of it that does.
/// Under --algorithm auto (`req`), the largest size auto runs with an algorithm other than
/// `alg` (the one it gave this size) when that is more than `alg_most`, else 0: auto gives
/// mesh below 1 MB and RDH up to 56 MB when they fit, and those can hold more than ring.
struct AutoMost {
  std::uint64_t bytes = 0;
  Algorithm algorithm = Algorithm::kAuto;
};
AutoMost auto_most(const Geometry& g, const Communicator& c, const LowerRequest& req, Algorithm alg,
                   std::uint64_t alg_most) {
  AutoMost best;
  if (req.algorithm != Algorithm::kAuto) return best;
  const unsigned eb = dtype_bytes(req.dtype);
  for (const auto& [other, cap] :
       {std::pair{Algorithm::kMesh, kMeshBelow - 1}, std::pair{Algorithm::kRdh, kRdhUpTo},
        std::pair{Algorithm::kHierarchical, kRdhUpTo}}) {
    LowerRequest fixed = req;
    fixed.algorithm = other;
    if (other == alg || !resolve_algorithm(g, c, fixed)) continue;
    // Searched only if auto gives `other` to the smallest size that would beat `alg_most`
    // (above mesh's threshold for RDH): all-to-all, groups past one node and sizes `other`
    // does not fit end here, before a search of some 30 plans.
    LowerRequest probe = req;
    probe.bytes = std::max(std::max(alg_most, best.bytes) / eb * eb + eb,
                           other != Algorithm::kMesh ? kMeshBelow / eb * eb + eb : 0);
    if (probe.bytes > cap) continue;
    if (auto chosen = resolve_algorithm(g, c, probe); !chosen || *chosen != other) continue;
    const std::uint64_t most = std::min(max_fitting_bytes(g, c, fixed), cap / eb * eb);
    if (most <= std::max(alg_most, best.bytes)) continue;
    LowerRequest at = req;  // does auto really give `other` there?
    at.bytes = most;
    if (auto chosen = resolve_algorithm(g, c, at); chosen && *chosen == other) {
      best = AutoMost{most, other};
    }
  }
  return best;
}

base::Error does_not_fit(const Geometry& g, const Communicator& c, const LowerRequest& req,
                         Algorithm alg, std::string_view what) {
  LowerRequest fixed = req;
  fixed.algorithm = alg;
  const std::uint64_t most = max_fitting_bytes(g, c, fixed);
  const AutoMost by_auto = auto_most(g, c, req, alg, most);
  return base::make_error(
      fmt::format("{} of {} B ({}, {} rank{}, {}){}; {} fit: at most {} B{}", op_long_name(req.op),
                  req.bytes, dtype_name(req.dtype), c.ranks(), c.ranks() == 1 ? "" : "s",
                  algorithm_name(alg), what, bytes_text(g.partition_bytes), most,
                  by_auto.bytes == 0
                      ? std::string()
                      : fmt::format(" with {}; auto runs up to {} B (with {})", algorithm_name(alg),
                                    by_auto.bytes, algorithm_name(by_auto.algorithm))));
}

/// A request's plan, made after the checks lower() runs before emitting anything.
struct Checked {
  Plan plan;
  Algorithm algorithm;
  std::uint64_t count;
};

/// `status` with, for hierarchical over chips of different sizes whose cross-chip phase runs
/// in rounds (lanes.h), how many: each round takes its own semaphores. [CHOICE D30d]
base::Status with_rounds_hint(const Geometry& g, const Communicator& c, Algorithm alg,
                              base::Status status) {
  if (status.ok() || alg != Algorithm::kHierarchical) return status;
  unsigned most = 1;
  std::vector<unsigned> sizes;  // of the group with the most rounds
  for (const auto& group : c.groups) {
    const Lanes lanes(chip_sizes(g, group));
    if (lanes.rounds() > most) {
      most = lanes.rounds();
      sizes = lanes.sizes();
    }
  }
  if (most == 1) return status;
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  const unsigned last = sizes.back();
  sizes.pop_back();
  return base::make_error(
      fmt::format("{} (hierarchical over chips of {} and {} ranks runs its cross-chip phase in "
                  "{} rounds, each with its own semaphores, D30d; --algorithm ring takes fewer)",
                  status.error().message, fmt::join(sizes, ", "), last, most));
}

base::Result<Checked> check_and_plan(const Geometry& g, const Communicator& c,
                                     const LowerRequest& req, Emitter::Output out) {
  SBRDMA_TRY(check_communicator(g, c));
  SBRDMA_TRY(check_src_target_pairs(c, req.op, req.pairs));
  auto count = element_count(req);
  if (!count) return count.error();
  auto alg = resolve_algorithm(g, c, req);
  if (!alg) return alg.error();
  if (req.iterations == 0) return base::make_error("-n: at least one iteration");
  Plan p = plan(g, c, req, *count, *alg, out);
  SBRDMA_TRY(with_rounds_hint(g, c, *alg, p.em->status()));
  if (p.em->sbuf_used() > g.partition_bytes) {
    return does_not_fit(g, c, req, *alg,
                        fmt::format(" needs {} per SBUF partition for buffers and scratch",
                                    bytes_text(p.em->sbuf_used())));
  }
  return Checked{std::move(p), *alg, *count};
}

/// Refuses, from the iterations emitted so far (`words` in all; check_request()'s, or lower()'s
/// as they come), a request whose programs would pass kMaxProgramWords, counting e.largest
/// words for each iteration after those: where the whole emission would pass it, or a little
/// earlier where later iterations shrink.
base::Status check_later_words(std::uint64_t words, const Emitted& e, unsigned iterations) {
  unsigned most = e.iterations;  // the iterations that fit
  if (words > kMaxProgramWords) {
    most = e.iterations - 1;  // emission stops at the iteration that passes the limit
  } else if (e.largest > 0) {
    const std::uint64_t more = (kMaxProgramWords - words) / e.largest;
    most = static_cast<unsigned>(std::min<std::uint64_t>(e.iterations + more, iterations));
  } else {
    most = iterations;
  }
  if (iterations <= most) return base::ok_status();
  return base::make_error(fmt::format(
      "{} iterations (-n plus -w): their programs would pass {} words in all at iteration {}, "
      "up to {} words an iteration (at most {} iterations at this size)",
      iterations, kMaxProgramWords, most + 1, e.largest, most));
}

/// The checks that need emitted words: the emitter's own errors (semaphores) and relay slots
/// around unroutable addresses past the partition (saying how much fits, with `alg`).
base::Status check_emitted(const Geometry& g, const Communicator& c, const LowerRequest& req,
                           Algorithm alg, const Emitter& em) {
  SBRDMA_TRY(with_rounds_hint(g, c, alg, em.status()));
  if (em.sbuf_used() > g.partition_bytes) {  // relay slots come during emission
    return does_not_fit(g, c, req, alg,
                        fmt::format(": the relays around unroutable addresses need {} per SBUF "
                                    "partition",
                                    bytes_text(em.sbuf_used())));
  }
  return base::ok_status();
}

}  // namespace

base::Result<Footprint> check_request(const Geometry& g, const Communicator& c,
                                      const LowerRequest& req) {
  // The words emitted here are thrown away: counted only, with no notes.
  auto checked = check_and_plan(g, c, req, Emitter::Output::kCountOnly);
  if (!checked) return checked.error();
  Plan& p = checked->plan;
  emit_phases(p, 0);
  // Later iterations can relay through new slots, and take more words than the first (none is
  // emitted past an error: check_emitted() then reports iteration 0's).
  const Emitted e = emit_later_iterations(g, c, req, p, Later::kWords);
  SBRDMA_TRY(check_emitted(g, c, req, checked->algorithm, *p.em));
  SBRDMA_TRY(check_later_words(p.em->words(), e, req.iterations));
  return Footprint{std::move(p.buffers), p.em->sbuf_used(), e.largest};
}

base::Result<Lowered> lower(const Geometry& g, const Communicator& c, const LowerRequest& req) {
  auto checked = check_and_plan(g, c, req, Emitter::Output::kPrograms);
  if (!checked) return checked.error();
  Plan& p = checked->plan;
  emit_phases(p, 0);
  SBRDMA_TRY(check_emitted(g, c, req, checked->algorithm, *p.em));
  // Near the word limit (a quarter of it at the first iteration's size: later ones can take
  // more, relay credits and fences), the count-only check first. A request the loop below
  // would refuse only after storing up to 2^25 words (before its words settle, a relayed
  // group's after up to ranks + 1 iterations) is refused at once, with the same message.
  if (p.em->words() > kMaxProgramWords / 4 / req.iterations) {
    if (auto fp = check_request(g, c, req); !fp) return fp.error();
  }
  // The rest stop where check_request()'s emission would (what does not hold, the word
  // limit), and once the words are settled they are checked as it checks them: a request it
  // refuses fails here, before the rest are emitted, with the same message.
  WordWatch w(*p.em, relay_iterations(g, c, req));
  bool words_checked = false;
  while (more_to_emit(g, req, p, w)) {
    // Room for the rest once they are known to fit the limit, then again at each power of
    // two: a program that outgrows its room is copied once per doubling at most.
    const unsigned it = w.emitted().iterations;
    if (!words_checked && w.settled()) {
      SBRDMA_TRY(check_later_words(p.em->words(), w.emitted(), req.iterations));
      words_checked = true;
      p.em->reserve_iterations(req.iterations - it);
    } else if (words_checked && std::has_single_bit(it)) {
      p.em->reserve_iterations(req.iterations - it);
    }
    w.begin();
    emit_phases(p, it);
    w.end();
  }
  SBRDMA_TRY(check_emitted(g, c, req, checked->algorithm, *p.em));
  // Past the limit before the words settled, or after (a later iteration larger than those).
  SBRDMA_TRY(check_later_words(p.em->words(), w.emitted(), req.iterations));
  Lowered out;
  out.algorithm = checked->algorithm;
  out.count = checked->count;
  out.buffers = std::move(p.buffers);
  out.sbuf_bytes = p.em->sbuf_used();
  out.semaphores = p.em->sems_used();
  out.stats = p.em->stats();
  out.programs = p.em->take_programs();
  return out;
}

std::uint64_t max_fitting_bytes(const Geometry& g, const Communicator& c, const LowerRequest& req) {
  const unsigned eb = dtype_bytes(req.dtype);
  auto alg = resolve_algorithm(g, c, req);
  if (!alg) return 0;
  // Search in whole elements; the footprint grows with the size (up to a slot-count change).
  // The plan's buffers and scratch first; then, only if the relay slots of that size do not
  // fit (trn2u's unroutable addresses), again with an iteration emitted at every probe.
  auto search = [&](std::uint64_t hi, auto&& fit) {
    std::uint64_t lo = 0;  // fits (0 trivially); hi does not
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      LowerRequest r = req;
      r.bytes = mid * eb;
      (fit(r, mid) ? lo : hi) = mid;
    }
    return lo;
  };
  const std::uint64_t most =
      search(g.partition_bytes * g.partitions / eb * c.ranks() + 1,
             [&](const LowerRequest& r, std::uint64_t n) { return fits(g, c, r, n, *alg); });
  LowerRequest at_most = req;
  at_most.bytes = most * eb;
  if (most == 0 || fits_emitted(g, c, at_most, most, *alg)) return most * eb;
  return search(most, [&](const LowerRequest& r,
                          std::uint64_t n) { return fits_emitted(g, c, r, n, *alg); }) *
         eb;
}

}  // namespace sbrdma::collectives
