// Personalized exchanges: every position sends each peer its own data (all-to-all's mesh and
// ring, and the two phases of its hierarchical form). [CHOICE D30d, D34]
//
// Mesh: position s sends to s, s+1, ..., s+n-1 (mod n) back to back; every position then
// waits once for everything sent to it.
//
// Pairwise (all-to-all's "ring", the linear shift): step 0 is the leg to itself, steps
// d = 1..n-1 send to s+d and receive from s-d; a position starts step d+1 after step d's
// arrival, so each step has one send and one receive per position:
//
//   n = 4          step 1         step 2         step 3
//   position 0     -> 1, <- 3     -> 2, <- 2     -> 3, <- 1
//   position 1     -> 2, <- 0     -> 3, <- 3     -> 0, <- 2
//   position 2     -> 3, <- 1     -> 0, <- 0     -> 1, <- 3
//   position 3     -> 0, <- 2     -> 1, <- 1     -> 2, <- 0
//
// Both use one semaphore per iteration parity. The waits of the last step (mesh: the only
// one) count every leg of the iteration: exact by D30b's parity argument, which needs every
// position's iteration to hear from every peer (a pair whose blocks are empty exchanges a
// semaphore-only leg). The pairwise steps' earlier waits only pace the schedule
// (the count reaches "d arrivals", not necessarily from s-d): no data depends on them.
//
// A pair whose legs go through a relay core (D30g) needs the relay's wait to be exact, and a
// pacing count is not: a faster sender's later hop could meet it before an earlier hop has
// landed. So the pairwise schedule leaves those pairs out of its steps and sends them after
// the last one, as a mesh of their own on a second pair of semaphores, whose one wait (and
// the relay's, which mirrors it) counts every relayed leg of the iteration. [CHOICE D30g]
#include <fmt/format.h>

#include "base/check.h"
#include "collectives/phases.h"

namespace sbrdma::collectives {

bool send_moves(Ctx& ctx, CoreId from, CoreId to, const std::vector<Move>& moves, unsigned sem,
                bool always, std::string_view note) {
  bool sent = false;
  Move run;
  auto flush = [&] {
    if (run.bytes == 0) return;
    ctx.em.leg(from, to, run.src, run.dst, run.bytes, sem, note);
    sent = true;
  };
  for (const Move& m : moves) {
    if (m.bytes == 0) continue;
    if (run.bytes > 0 && m.src == run.src + run.bytes && m.dst == run.dst + run.bytes) {
      run.bytes += m.bytes;
      continue;
    }
    flush();
    run = m;
  }
  flush();
  if (!sent && always) {
    pace(ctx, from, to, sem, note);
    sent = true;
  }
  return sent;
}

void pace(Ctx& ctx, CoreId from, CoreId to, unsigned sem, std::string_view note) {
  ctx.em.leg(from, to, 0, 0, 0, sem, note);
}

namespace {

class ExchangePhase final : public Phase {
 public:
  ExchangePhase(Ctx& ctx, std::vector<ExchangeGroup> groups, Schedule schedule, std::string name)
      : ctx_(ctx), groups_(std::move(groups)), schedule_(schedule), name_(std::move(name)) {
    SBRDMA_CHECK(!groups_.empty());
    sems_ = ctx_.em.alloc_sems(2, fmt::format("the {}", name_));
    if (schedule_ == Schedule::kPairwise) find_relayed();
  }

  void emit(unsigned iter) override {
    const unsigned sem = sems_[iter % 2];
    for (const ExchangeGroup& grp : groups_) {
      const auto n = static_cast<unsigned>(grp.ranks.size());
      std::vector<bool> got(n, false);  // sent to j since j's last wait
      if (schedule_ == Schedule::kMesh) {
        for (unsigned s = 0; s < n; ++s) {
          ctx_.em.step(grp.ranks[s], name_);
          for (unsigned d = 0; d < n; ++d) {
            if (send(grp, iter, s, (s + d) % n, sem)) got[(s + d) % n] = true;
          }
        }
        wait_all_sent(ctx_, grp.ranks, got, sem, ctx_.em.note("{}: all blocks in", name_));
        continue;
      }
      const std::vector<bool>& far = relayed_[&grp - groups_.data()];
      for (unsigned d = 0; d < n; ++d) {
        for (unsigned s = 0; s < n; ++s) {
          const unsigned j = (s + d) % n;
          ctx_.em.step(grp.ranks[s], ctx_.em.note("{} step {}", name_, d));
          if (!far.empty() && far[s * n + j]) continue;  // sent after the last step
          if (send(grp, iter, s, j, sem)) got[j] = true;
        }
        if (d == 0 && n > 1) continue;  // the leg to itself: waited for with step 1
        // A position that receives nothing here got its last pairwise leg at an earlier
        // step, whose wait already counted every one of the iteration.
        wait_all_sent(ctx_, grp.ranks, got, sem, ctx_.em.note("{} step {}: block in", name_, d));
        got.assign(n, false);
      }
      if (!far.empty()) send_relayed(grp, far, iter);
    }
  }

 private:
  bool send(const ExchangeGroup& grp, unsigned iter, unsigned s, unsigned j, unsigned sem) {
    return send_moves(ctx_, grp.ranks[s], grp.ranks[j], grp.moves(iter, s, j), sem, s != j,
                      ctx_.em.note("{}: block {} to position {}", name_, j, j));
  }

  /// Marks, per group with a pair that goes through a relay core, which ordered pairs do
  /// (row s, column j), and takes the semaphores their own mesh counts on.
  void find_relayed() {
    const Geometry& g = ctx_.em.geometry();
    relayed_.resize(groups_.size());
    for (std::size_t k = 0; k < groups_.size(); ++k) {
      const std::vector<CoreId>& ranks = groups_[k].ranks;
      const std::size_t n = ranks.size();
      std::vector<bool> far(n * n, false);
      bool any = false;
      for (std::size_t s = 0; s < n; ++s) {
        for (std::size_t j = 0; j < n; ++j) {
          far[s * n + j] = s != j && !foldable(g, ranks[s], ranks[j]);
          any = any || far[s * n + j];
        }
      }
      if (!any) continue;
      relayed_[k] = std::move(far);
      if (relay_sems_.empty()) {
        relay_sems_ = ctx_.em.alloc_sems(2, fmt::format("the {}'s relayed pairs", name_));
      }
    }
  }

  /// The relayed pairs of one group, after its pairwise steps: every one sends (a
  /// semaphore-only leg if its blocks are empty), then each receiver waits once for all of
  /// them. That wait, and the relay's wait flushed with it, count every relayed leg of the
  /// iteration on this parity's semaphore: exact, as mesh's are.
  void send_relayed(const ExchangeGroup& grp, const std::vector<bool>& far, unsigned iter) {
    const unsigned sem = relay_sems_[iter % 2];
    const auto n = static_cast<unsigned>(grp.ranks.size());
    std::vector<bool> got(n, false);
    for (unsigned s = 0; s < n; ++s) {
      ctx_.em.step(grp.ranks[s], ctx_.em.note("{} relayed pairs", name_));
      for (unsigned d = 1; d < n; ++d) {
        const unsigned j = (s + d) % n;
        if (far[s * n + j] && send(grp, iter, s, j, sem)) got[j] = true;
      }
    }
    wait_all_sent(ctx_, grp.ranks, got, sem, ctx_.em.note("{}: relayed blocks in", name_));
  }

  Ctx& ctx_;
  std::vector<ExchangeGroup> groups_;
  Schedule schedule_;
  std::string name_;
  std::vector<unsigned> sems_;
  std::vector<std::vector<bool>> relayed_;  // per group: [s * n + j], empty if none is
  std::vector<unsigned> relay_sems_;        // by iteration parity, if any pair is relayed
};

}  // namespace

std::unique_ptr<Phase> make_exchange(Ctx& ctx, std::vector<ExchangeGroup> groups, Schedule schedule,
                                     std::string name) {
  return std::make_unique<ExchangePhase>(ctx, std::move(groups), schedule, std::move(name));
}

}  // namespace sbrdma::collectives
