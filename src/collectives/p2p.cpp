// The point-to-point ops (send/recv pairs, permute's ring or custom pairs). [HIGH] hw-params §3
// "Operations"; schedule [CHOICE D30e, D30j]. (All-to-all is in alltoall.cpp.)
//
// p2p: position i sends its buffer to dest[i] once per iteration. A position's iteration
// i+1 starts after it received iteration i, so on a cycle of length c of `dest` the sender's
// leg i depends on the receiver's receipt of leg i-c. Semaphore slots are used round robin;
// a slot reused at a distance < c waits for a credit from the receiver. A position that sends
// to itself (send/recv's odd last one, a permute pair [s, s]) is a cycle of length 1: a local
// copy, never credited.

#include <algorithm>
#include <map>

#include "base/check.h"
#include "collectives/phases.h"

namespace sbrdma::collectives {
namespace {

constexpr unsigned kMaxP2pSems = 32;  // semaphore slots of the p2p rotation [CHOICE D30e]

class P2pPhase final : public Phase {
 public:
  P2pPhase(Ctx& ctx, std::vector<P2pGroup> groups) : ctx_(ctx), groups_(std::move(groups)) {
    w_ = std::min(ctx_.iterations, kMaxP2pSems);
    sems_ = ctx_.em.alloc_sems(w_, "the point-to-point slots");
    credit_sem_ = ctx_.em.alloc_sem("the point-to-point credits");
    for (const P2pGroup& g : groups_) {
      std::vector<unsigned> cyc(g.ranks.size(), 0);
      for (unsigned i = 0; i < g.ranks.size(); ++i) {
        unsigned c = 1;
        for (unsigned j = g.dest[i]; j != i; j = g.dest[j]) {
          ++c;  // dest is a permutation (checked by the lowering): the walk returns to i
          SBRDMA_CHECK_MSG(c <= g.ranks.size(), "p2p destinations are not a permutation");
        }
        cyc[i] = c;
      }
      cycle_.push_back(std::move(cyc));
    }
    credits_.resize(groups_.size());
  }

  void emit(unsigned iter) override {
    if (groups_.empty() || groups_[0].cols.empty()) return;
    const unsigned sem = sems_[iter % w_];
    for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
      const P2pGroup& g = groups_[gi];
      const unsigned n = static_cast<unsigned>(g.ranks.size());
      std::vector<Arrival> arrivals(n);
      for (unsigned i = 0; i < n; ++i) {
        const unsigned j = g.dest[i];
        ctx_.em.step(g.ranks[i], "p2p");
        if (iter >= w_ && w_ < cycle_[gi][i]) {  // slot of iteration iter-w_ at j: credited
          auto it = credits_[gi].find({i, iter - w_});
          SBRDMA_CHECK(it != credits_[gi].end());
          ctx_.em.wait(it->second, "p2p: the receiver freed the slot");
          credits_[gi].erase(it);
        }
        arrivals[j] = ctx_.em.leg(g.ranks[i], g.ranks[j], g.in_base + g.cols.begin * ctx_.eb(),
                                  g.out_base + g.cols.begin * ctx_.eb(), g.cols.size() * ctx_.eb(),
                                  sem, ctx_.em.note("p2p: to position {}", j));
      }
      for (unsigned j = 0; j < n; ++j) {
        ctx_.em.wait(arrivals[j], "p2p: received");
        unsigned from = 0;
        while (g.dest[from] != j) ++from;
        if (iter + w_ < ctx_.iterations && w_ < cycle_[gi][from]) {
          credits_[gi][{from, iter}] = ctx_.em.leg(g.ranks[j], g.ranks[from], 0, 0, 0, credit_sem_,
                                                   "p2p: credit, the slot is free again");
        }
      }
    }
  }

 private:
  Ctx& ctx_;
  std::vector<P2pGroup> groups_;
  unsigned w_ = 1;
  std::vector<unsigned> sems_;
  unsigned credit_sem_ = 0;
  std::vector<std::vector<unsigned>> cycle_;
  std::vector<std::map<std::pair<unsigned, unsigned>, Arrival>> credits_;
};

}  // namespace

std::unique_ptr<Phase> make_p2p(Ctx& ctx, std::vector<P2pGroup> groups) {
  return std::make_unique<P2pPhase>(ctx, std::move(groups));
}

}  // namespace sbrdma::collectives
