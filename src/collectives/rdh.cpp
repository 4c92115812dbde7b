// Recursive halving (reduce-scatter) and doubling (all-gather) over n = 2^k positions.
// [HIGH] hw-params §3 (CC-INTRA/INTER: RDH, needs 2^p ranks); schedule [CHOICE D30d].
//
//   rs step s = 0..k-1, d = n >> (s+1), partner i ^ d: the piece range [lo, hi) halves; the
//      position with bit d clear keeps the low half and sends the high one (and the other way
//      round) into the partner's scratch of step s, then reduces what it received.
//      After k steps position i holds piece i.
//   ag step s = k-1..0: send the pieces held to the partner's same columns; ranges double.
//
// One semaphore per step and iteration parity; scratch per rs step (two sets for a lone
// reduce-scatter) — the mesh's argument (mesh.cpp) applies unchanged, and as there a range
// with no columns (fewer elements than ranks) still sends a semaphore-only leg (D30b).

#include <algorithm>
#include <bit>

#include "base/check.h"
#include "collectives/phases.h"

namespace sbrdma::collectives {
namespace {

class RdhPhase final : public Phase {
 public:
  RdhPhase(Ctx& ctx, std::vector<Group> groups, bool rs, bool ag)
      : ctx_(ctx), groups_(std::move(groups)), rs_(rs), ag_(ag) {
    SBRDMA_CHECK(!groups_.empty());
    n_ = static_cast<unsigned>(groups_[0].ranks.size());
    SBRDMA_CHECK(std::has_single_bit(n_));
    k_ = static_cast<unsigned>(std::countr_zero(n_));
    if (k_ == 0) return;
    if (rs_) {
      sets_ = ag_ ? 1 : 2;
      for (unsigned s = 0; s < k_; ++s) {
        std::uint64_t most = 0;
        for (const Group& g : groups_) {
          for (unsigned i = 0; i < n_; ++i)
            most = std::max(most, total_cols(segs(g, send_range(i, s))));
        }
        step_bytes_.push_back(most * ctx_.eb());
        step_off_.push_back(ctx_.em.alloc_bytes(sets_ * step_bytes_.back()));
      }
      rs_sems_ = ctx_.em.alloc_sems(2 * k_, "the rdh reduce-scatter steps");
    }
    if (ag_) ag_sems_ = ctx_.em.alloc_sems(2 * k_, "the rdh all-gather steps");
  }

  void emit(unsigned iter) override {
    if (k_ == 0) return;
    for (const Group& grp : groups_) {
      if (rs_) {
        for (unsigned s = 0; s < k_; ++s) rs_step(grp, iter, s);
      }
      if (ag_) {
        for (unsigned s = k_; s-- > 0;) ag_step(grp, iter, s);
      }
    }
  }

 private:
  struct Range {
    unsigned lo = 0;
    unsigned hi = 0;
  };
  /// The pieces position i holds before rs step s (after ag step s, the range it sends).
  [[nodiscard]] Range held(unsigned i, unsigned s) const {
    const unsigned width = n_ >> s;
    const unsigned lo = i / width * width;
    return Range{lo, lo + width};
  }
  [[nodiscard]] Range keep_range(unsigned i, unsigned s) const { return held(i, s + 1); }
  [[nodiscard]] Range send_range(unsigned i, unsigned s) const {
    return keep_range(i ^ (n_ >> (s + 1)), s);
  }
  [[nodiscard]] Segments segs(const Group& g, Range r) const {
    Segments out;
    for (unsigned p = r.lo; p < r.hi; ++p) {
      for (const Cols& c : g.pieces[p]) append(out, c);
    }
    return out;
  }
  [[nodiscard]] std::uint64_t scratch(unsigned iter, unsigned s) const {
    return step_off_[s] + (sets_ == 2 ? iter % 2 : 0) * step_bytes_[s];
  }

  void rs_step(const Group& grp, unsigned iter, unsigned s) {
    const unsigned sem = rs_sems_[(iter % 2) * k_ + s];
    const unsigned d = n_ >> (s + 1);
    for (unsigned i = 0; i < n_; ++i) {
      ctx_.em.step(grp.ranks[i], ctx_.em.note("rdh rs step {}", s));
      std::uint64_t packed = 0;
      for (const Cols& c : segs(grp, send_range(i, s))) {
        ctx_.em.leg(grp.ranks[i], grp.ranks[i ^ d], grp.base + c.begin * ctx_.eb(),
                    scratch(iter, s) + packed * ctx_.eb(), c.size() * ctx_.eb(), sem,
                    ctx_.em.note("rdh rs step {}: the partner's half", s));
        packed += c.size();
      }
      if (packed == 0) pace(ctx_, grp.ranks[i], grp.ranks[i ^ d], sem, "rdh rs: empty half");
    }
    for (unsigned i = 0; i < n_; ++i) {
      const CoreId core = grp.ranks[i];
      ctx_.em.wait(Arrival{core, sem, ctx_.em.expected(core, sem)},
                   ctx_.em.note("rdh rs step {}: half in", s));
      std::uint64_t packed = 0;
      for (const Cols& c : segs(grp, keep_range(i, s))) {
        ctx_.em.reduce(core, grp.base + c.begin * ctx_.eb(), scratch(iter, s) + packed * ctx_.eb(),
                       c.size(), ctx_.dt, ctx_.red, ctx_.em.note("rdh rs step {}: reduce", s));
        packed += c.size();
      }
    }
  }

  void ag_step(const Group& grp, unsigned iter, unsigned s) {
    const unsigned sem = ag_sems_[(iter % 2) * k_ + s];
    const unsigned d = n_ >> (s + 1);
    const std::vector<bool> got(n_, true);
    for (unsigned i = 0; i < n_; ++i) {
      ctx_.em.step(grp.ranks[i], ctx_.em.note("rdh ag step {}", s));
      const Segments held = segs(grp, keep_range(i, s));
      for (const Cols& c : held) {
        ctx_.em.leg(grp.ranks[i], grp.ranks[i ^ d], grp.base + c.begin * ctx_.eb(),
                    grp.base + c.begin * ctx_.eb(), c.size() * ctx_.eb(), sem,
                    ctx_.em.note("rdh ag step {}: the pieces held", s));
      }
      if (total_cols(held) == 0)
        pace(ctx_, grp.ranks[i], grp.ranks[i ^ d], sem, "rdh ag: none held");
    }
    wait_all_sent(ctx_, grp.ranks, got, sem,
                  ctx_.em.note("rdh ag step {}: partner's pieces in", s));
  }

  Ctx& ctx_;
  std::vector<Group> groups_;
  bool rs_;
  bool ag_;
  unsigned n_ = 0;
  unsigned k_ = 0;
  unsigned sets_ = 1;
  std::vector<std::uint64_t> step_bytes_;
  std::vector<std::uint64_t> step_off_;
  std::vector<unsigned> rs_sems_;
  std::vector<unsigned> ag_sems_;
};

}  // namespace

std::unique_ptr<Phase> make_rdh(Ctx& ctx, std::vector<Group> groups, bool rs, bool ag) {
  return std::make_unique<RdhPhase>(ctx, std::move(groups), rs, ag);
}

}  // namespace sbrdma::collectives
