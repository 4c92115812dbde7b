// Mesh: one step per half of the job, every pair directly. [HIGH] hw-params §3 (CC-INTRA:
// "Mesh (one step, relies on inter-chip routing ...; 2-step RS/AG on 16 chips x 4 ranks)");
// the 2-step all-reduce and the parity sets are [CHOICE D30d].
//
//   rs: position s sends piece j to scratch slot (s-j-1) % n of position j, for every j != s;
//       j waits for all n-1 (one semaphore, one joint wait) and reduces the slots in order.
//   ag: position s sends its piece s to the same columns of every other position.
//
// Exactness: a position sends iteration i+2's legs only after finishing iteration i+1, which
// needed every position's iteration-i+1 legs (an empty piece still sends its arrival, a
// semaphore-only leg), sent after they finished iteration i. So the
// semaphores of iterations of one parity never overlap; a lone reduce-scatter keeps two
// scratch sets for the same reason (an all-reduce's scratch is free before its all-gather).

#include <algorithm>

#include "base/check.h"
#include "collectives/phases.h"

namespace sbrdma::collectives {
namespace {

class MeshPhase final : public Phase {
 public:
  MeshPhase(Ctx& ctx, std::vector<Group> groups, bool rs, bool ag)
      : ctx_(ctx), groups_(std::move(groups)), rs_(rs), ag_(ag) {
    SBRDMA_CHECK(!groups_.empty());
    n_ = static_cast<unsigned>(groups_[0].ranks.size());
    if (n_ < 2) return;
    if (rs_) {
      std::uint64_t max_piece = 0;
      for (const Group& g : groups_) {
        for (const Segments& p : g.pieces) max_piece = std::max(max_piece, total_cols(p));
      }
      slot_bytes_ = max_piece * ctx_.eb();
      sets_ = ag_ ? 1 : 2;
      scratch_ = ctx_.em.alloc_bytes(sets_ * (n_ - 1) * slot_bytes_);
      rs_sems_ = ctx_.em.alloc_sems(2, "the mesh reduce-scatter");
    }
    if (ag_) ag_sems_ = ctx_.em.alloc_sems(2, "the mesh all-gather");
  }

  void emit(unsigned iter) override {
    if (n_ < 2) return;
    if (rs_) emit_rs(iter);
    if (ag_) emit_ag(iter);
  }

 private:
  [[nodiscard]] std::uint64_t slot(unsigned iter, unsigned from, unsigned to) const {
    const std::uint64_t set = sets_ == 2 ? iter % 2 : 0;
    return scratch_ + (set * (n_ - 1) + (from + n_ - to - 1) % n_) * slot_bytes_;
  }

  void emit_rs(unsigned iter) {
    const unsigned sem = rs_sems_[iter % 2];
    for (const Group& grp : groups_) {
      std::vector<bool> got(n_, false);
      for (unsigned s = 0; s < n_; ++s) {
        ctx_.em.step(grp.ranks[s], "mesh rs");
        for (unsigned d = 1; d < n_; ++d) {
          const unsigned j = (s + d) % n_;
          std::uint64_t packed = 0;
          for (const Cols& c : grp.pieces[j]) {
            ctx_.em.leg(grp.ranks[s], grp.ranks[j], grp.base + c.begin * ctx_.eb(),
                        slot(iter, s, j) + packed * ctx_.eb(), c.size() * ctx_.eb(), sem,
                        ctx_.em.note("mesh rs: piece {} to its owner", j));
            packed += c.size();
          }
          if (packed == 0) pace(ctx_, grp.ranks[s], grp.ranks[j], sem, "mesh rs: empty piece");
          got[j] = true;
        }
      }
      for (unsigned j = 0; j < n_; ++j) {
        if (!got[j]) continue;
        const CoreId core = grp.ranks[j];
        ctx_.em.wait(Arrival{core, sem, ctx_.em.expected(core, sem)}, "mesh rs: all pieces in");
        for (unsigned d = 1; d < n_; ++d) {
          const unsigned s = (j + n_ - d) % n_;
          std::uint64_t packed = 0;
          for (const Cols& c : grp.pieces[j]) {
            ctx_.em.reduce(core, grp.base + c.begin * ctx_.eb(),
                           slot(iter, s, j) + packed * ctx_.eb(), c.size(), ctx_.dt, ctx_.red,
                           ctx_.em.note("mesh rs: reduce the piece from position {}", s));
            packed += c.size();
          }
        }
      }
    }
  }

  void emit_ag(unsigned iter) {
    const unsigned sem = ag_sems_[iter % 2];
    for (const Group& grp : groups_) {
      std::vector<bool> got(n_, false);
      for (unsigned s = 0; s < n_; ++s) {
        ctx_.em.step(grp.ranks[s], "mesh ag");
        for (unsigned d = 1; d < n_; ++d) {
          const unsigned j = (s + d) % n_;
          for (const Cols& c : grp.pieces[s]) {
            ctx_.em.leg(grp.ranks[s], grp.ranks[j], grp.base + c.begin * ctx_.eb(),
                        grp.base + c.begin * ctx_.eb(), c.size() * ctx_.eb(), sem,
                        ctx_.em.note("mesh ag: piece {}", s));
          }
          if (total_cols(grp.pieces[s]) == 0)
            pace(ctx_, grp.ranks[s], grp.ranks[j], sem, "mesh ag: empty piece");
          got[j] = true;
        }
      }
      wait_all_sent(ctx_, grp.ranks, got, sem, "mesh ag: all pieces in");
    }
  }

  Ctx& ctx_;
  std::vector<Group> groups_;
  bool rs_;
  bool ag_;
  unsigned n_ = 0;
  unsigned sets_ = 1;
  std::uint64_t slot_bytes_ = 0;
  std::uint64_t scratch_ = 0;
  std::vector<unsigned> rs_sems_;
  std::vector<unsigned> ag_sems_;
};

}  // namespace

std::unique_ptr<Phase> make_mesh(Ctx& ctx, std::vector<Group> groups, bool rs, bool ag) {
  return std::make_unique<MeshPhase>(ctx, std::move(groups), rs, ag);
}

}  // namespace sbrdma::collectives
