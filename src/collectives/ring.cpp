// Ring reduce-scatter / all-gather. [HIGH] hw-params §3 (CC-INTRA: "Ring ... reduce-scatter
// chunks split in two slices so reduction of one overlaps sending the other"); the schedule,
// slots and credits are [CHOICE D30d].
//
// n positions, T steps per iteration (n-1 for rs, n-1 for ag), H halves per step. Leg
// g = (iter * T + t) * H + h on channel (i-1 -> i). Position i:
//
//   rs step t:  send piece (i-t-1) % n, receive piece (i-t-2) % n into scratch, reduce it
//   ag step s:  send piece (i-s)   % n, receive piece (i-s-1) % n into the buffer
//
//   per step, per half h:  wait leg (t-1,h) -> reduce it -> [credit] -> send leg (t,h)
//
// Chain: within an iteration a position sends leg g only after it received leg g-H (the same
// piece), so leg g from i-1 depends on i's receipt of leg g-nH. A semaphore slot (W_sem per
// iteration parity) or scratch slot (W_scr, numbered across iterations) reused at a distance
// < nH needs a credit: a semaphore-only leg i -> i-1 after i consumed the leg (the slot's
// last leg actually sent: an empty piece sends none, so it can be several widths back). Across
// iterations every rank's iteration needs every other rank's previous one (all-reduce: their
// all-gather follows their reduce-scatter), so the parity sets and an all-reduce's scratch
// are safe; a lone reduce-scatter credits scratch reused across an iteration's end.

#include <algorithm>
#include <map>
#include <optional>

#include "base/check.h"
#include "collectives/phases.h"

namespace sbrdma::collectives {
namespace {

constexpr unsigned kMaxRingSems = 32;  // semaphore slots per ring [CHOICE D30d]

class RingPhase final : public Phase {
 public:
  RingPhase(Ctx& ctx, std::vector<Group> groups, bool rs, bool ag)
      : ctx_(ctx), groups_(std::move(groups)), rs_(rs), ag_(ag) {
    SBRDMA_CHECK(!groups_.empty());
    n_ = static_cast<unsigned>(groups_[0].ranks.size());
    for (const Group& g : groups_) SBRDMA_CHECK(g.ranks.size() == n_ && g.pieces.size() == n_);
    steps_ = (rs_ ? n_ - 1 : 0) + (ag_ ? n_ - 1 : 0);
    std::uint64_t max_piece = 0;
    for (const Group& g : groups_) {
      for (const Segments& p : g.pieces) max_piece = std::max(max_piece, total_cols(p));
    }
    halves_ = max_piece * ctx_.eb() / 2 >= ctx_.ring_halves_from ? 2 : 1;
    chain_ = static_cast<std::uint64_t>(n_) * halves_;
    if (steps_ == 0) return;
    w_sem_ = static_cast<unsigned>(std::min<std::uint64_t>(chain_, kMaxRingSems));
    sems_ = ctx_.em.alloc_sems(2 * w_sem_, "the ring's arrival slots");
    credit_sem_ = ctx_.em.alloc_sem("the ring's credits");
    if (rs_) {
      slot_bytes_ = (max_piece + halves_ - 1) / halves_ * ctx_.eb();
      const std::uint64_t room = ctx_.em.geometry().partition_bytes - ctx_.em.sbuf_used();
      w_scr_ = 2 * halves_;  // the least that works; more slots, fewer credits
      for (std::uint64_t w : {chain_, std::uint64_t{4} * halves_}) {
        if (!ctx_.lean_rings && w > w_scr_ && w * slot_bytes_ <= room) {
          w_scr_ = static_cast<unsigned>(w);
          break;
        }
      }
      scratch_ = ctx_.em.alloc_bytes(w_scr_ * slot_bytes_);
    }
    channels_.resize(groups_.size() * n_);
    for (const Group& g : groups_) {
      for (const Segments& p : g.pieces) piece_cols_.push_back(total_cols(p));
    }
  }

  void emit(unsigned iter) override {
    if (steps_ == 0) return;
    for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
      for (unsigned t = 0; t <= steps_; ++t) {
        for (unsigned i = 0; i < n_; ++i) {
          if (t < steps_) {
            ctx_.em.step(groups_[gi].ranks[i],
                         t < rs_steps() ? ctx_.em.note("ring rs step {}", t)
                                        : ctx_.em.note("ring ag step {}", t - rs_steps()));
          }
          for (unsigned h = 0; h < halves_; ++h) {
            if (t > 0) consume(gi, i, leg_index(iter, t - 1, h));
            if (t < steps_) send(gi, i, leg_index(iter, t, h));
          }
        }
      }
    }
  }

 private:
  struct Channel {                              // (i-1 -> i), kept by the receiver's position
    std::map<std::uint64_t, Arrival> arrivals;  // leg -> wait at i
    std::map<std::uint64_t, Arrival> credits;   // leg -> wait at i-1 for i's credit
    std::optional<std::uint64_t> waited;        // the latest leg whose credit i-1 waited for
  };
  struct LegInfo {
    unsigned piece = 0;
    unsigned half = 0;
    bool rs = false;
    std::uint64_t rs_index = 0;  // count of rs legs before it on the channel
    Segments segs;
  };

  [[nodiscard]] std::uint64_t legs_per_iter() const {
    return static_cast<std::uint64_t>(steps_) * halves_;
  }
  [[nodiscard]] std::uint64_t total_legs() const { return legs_per_iter() * ctx_.iterations; }
  [[nodiscard]] std::uint64_t leg_index(unsigned iter, unsigned t, unsigned h) const {
    return iter * legs_per_iter() + static_cast<std::uint64_t>(t) * halves_ + h;
  }
  [[nodiscard]] unsigned rs_steps() const { return rs_ ? n_ - 1 : 0; }

  /// The leg g arriving at position i of group gi; `segs` only when `with_segs`.
  [[nodiscard]] LegInfo info(std::size_t gi, unsigned i, std::uint64_t g,
                             bool with_segs = true) const {
    const std::uint64_t iter = g / legs_per_iter();
    const unsigned t = static_cast<unsigned>(g % legs_per_iter() / halves_);
    LegInfo li;
    li.half = static_cast<unsigned>(g % halves_);
    li.rs = t < rs_steps();
    const unsigned back = li.rs ? t + 2 : t - rs_steps() + 1;  // piece (i - back) % n
    li.piece = static_cast<unsigned>((i + 2 * n_ - back % n_) % n_);
    li.rs_index = iter * rs_steps() * halves_ + static_cast<std::uint64_t>(t) * halves_ + li.half;
    if (with_segs) li.segs = split_piece(groups_[gi].pieces[li.piece], halves_, li.half);
    return li;
  }
  /// Leg index of the rs leg number q on a channel.
  [[nodiscard]] std::uint64_t rs_leg(std::uint64_t q) const {
    const std::uint64_t per = static_cast<std::uint64_t>(rs_steps()) * halves_;
    return q / per * legs_per_iter() + q % per;
  }
  [[nodiscard]] bool nonempty(std::size_t gi, unsigned i, std::uint64_t g) const {
    if (g >= total_legs()) return false;
    const LegInfo li = info(gi, i, g, false);
    const std::uint64_t cols = piece_cols_[gi * n_ + li.piece];  // half h of cols: split_piece's
    return cols / halves_ + (li.half < cols % halves_ ? 1 : 0) > 0;
  }
  /// True if the chain (or the iteration order) already orders i's consumption of leg x
  /// before the sender's leg g. Contract: x < g.
  [[nodiscard]] bool covered(std::uint64_t x, std::uint64_t g) const {
    if (x / legs_per_iter() != g / legs_per_iter()) return rs_ && ag_;
    return g - x >= chain_;
  }
  /// The semaphore slot of leg g: parity of its iteration, then its place in the iteration.
  [[nodiscard]] unsigned sem_of(std::uint64_t g) const {
    const std::uint64_t iter = g / legs_per_iter();
    return sems_[(iter % 2) * w_sem_ + (g % legs_per_iter()) % w_sem_];
  }

  /// Earlier legs on channel (i-1 -> i) whose consumption leg g must wait for: the last leg
  /// sent before g on its semaphore slot (in its iteration) and on its scratch slot, unless
  /// the chain orders it. Empty legs are not sent and so do not count as a slot's user: the
  /// user before g may be several slot-widths back (tiny sizes on many ranks).
  [[nodiscard]] std::vector<std::uint64_t> needs(std::size_t gi, unsigned i,
                                                 std::uint64_t g) const {
    std::vector<std::uint64_t> out;
    if (auto x = prev_sem_user(gi, i, g); x && !covered(*x, g)) out.push_back(*x);
    if (auto x = prev_scr_user(gi, i, g); x && !covered(*x, g)) out.push_back(*x);
    return out;
  }
  /// True if a later leg needs i's credit for consuming leg x (the mirror of needs()).
  [[nodiscard]] bool credited(std::size_t gi, unsigned i, std::uint64_t x) const {
    if (auto g = next_sem_user(gi, i, x); g && !covered(x, *g)) return true;
    auto g = next_scr_user(gi, i, x);
    return g && !covered(x, *g);
  }
  /// The last leg sent before g on g's semaphore slot in g's iteration.
  [[nodiscard]] std::optional<std::uint64_t> prev_sem_user(std::size_t gi, unsigned i,
                                                           std::uint64_t g) const {
    for (std::uint64_t x = g; x % legs_per_iter() >= w_sem_;) {
      x -= w_sem_;
      if (nonempty(gi, i, x)) return x;
    }
    return std::nullopt;
  }
  /// The first leg sent after x on x's semaphore slot in x's iteration.
  [[nodiscard]] std::optional<std::uint64_t> next_sem_user(std::size_t gi, unsigned i,
                                                           std::uint64_t x) const {
    for (std::uint64_t g = x + w_sem_; g / legs_per_iter() == x / legs_per_iter(); g += w_sem_) {
      if (nonempty(gi, i, g)) return g;
    }
    return std::nullopt;
  }
  /// The last reduce-scatter leg sent before g into g's scratch slot (any iteration).
  [[nodiscard]] std::optional<std::uint64_t> prev_scr_user(std::size_t gi, unsigned i,
                                                           std::uint64_t g) const {
    const LegInfo li = info(gi, i, g, false);
    if (!li.rs) return std::nullopt;
    for (std::uint64_t q = li.rs_index; q >= w_scr_;) {
      q -= w_scr_;
      if (nonempty(gi, i, rs_leg(q))) return rs_leg(q);
    }
    return std::nullopt;
  }
  /// The first reduce-scatter leg sent after x into x's scratch slot (any iteration).
  [[nodiscard]] std::optional<std::uint64_t> next_scr_user(std::size_t gi, unsigned i,
                                                           std::uint64_t x) const {
    const LegInfo li = info(gi, i, x, false);
    if (!li.rs) return std::nullopt;
    for (std::uint64_t q = li.rs_index + w_scr_; rs_leg(q) < total_legs(); q += w_scr_) {
      if (nonempty(gi, i, rs_leg(q))) return rs_leg(q);
    }
    return std::nullopt;
  }

  Channel& channel(std::size_t gi, unsigned i) { return channels_[gi * n_ + i]; }

  void send(std::size_t gi, unsigned i, std::uint64_t g) {
    const Group& grp = groups_[gi];
    const unsigned to = (i + 1) % n_;
    const LegInfo li = info(gi, to, g);
    if (li.segs.empty()) return;
    Channel& ch = channel(gi, to);
    const std::vector<std::uint64_t> need = needs(gi, to, g);
    // Credits count up on one semaphore in consumption order, so a wait for one covers every
    // earlier one: a leg whose latest need is at or before the last credit waited for (a
    // semaphore slot's credit, needed by the first all-gather legs, can be older than the
    // scratch slot's credit the last reduce-scatter legs waited for) waits for nothing more.
    const auto latest = std::max_element(need.begin(), need.end());
    if (latest != need.end() && (!ch.waited || *latest > *ch.waited)) {
      const std::uint64_t x = *latest;
      auto it = ch.credits.find(x);
      SBRDMA_CHECK_MSG(it != ch.credits.end(), "ring: credit not emitted before it is needed");
      ctx_.em.wait(it->second, "ring: the peer freed the slot");
      ch.credits.erase(ch.credits.begin(), ++it);
      ch.waited = x;
    }
    const unsigned sem = sem_of(g);
    std::uint64_t packed = 0;
    Arrival a;
    for (const Cols& c : li.segs) {
      const std::uint64_t dst =
          li.rs ? scratch_ + (li.rs_index % w_scr_) * slot_bytes_ + packed * ctx_.eb()
                : grp.base + c.begin * ctx_.eb();
      a = ctx_.em.leg(
          grp.ranks[i], grp.ranks[to], grp.base + c.begin * ctx_.eb(), dst, c.size() * ctx_.eb(),
          sem, ctx_.em.note("ring {} piece {} half {}", li.rs ? "rs" : "ag", li.piece, li.half));
      packed += c.size();
    }
    ch.arrivals[g] = a;
  }

  void consume(std::size_t gi, unsigned i, std::uint64_t g) {
    const Group& grp = groups_[gi];
    const LegInfo li = info(gi, i, g);
    if (li.segs.empty()) return;
    Channel& ch = channel(gi, i);
    auto it = ch.arrivals.find(g);
    SBRDMA_CHECK(it != ch.arrivals.end());
    ctx_.em.wait(it->second, ctx_.em.note("ring: piece {} half {} arrived", li.piece, li.half));
    ch.arrivals.erase(it);
    if (li.rs) {
      std::uint64_t packed = 0;
      for (const Cols& c : li.segs) {
        ctx_.em.reduce(grp.ranks[i], grp.base + c.begin * ctx_.eb(),
                       scratch_ + (li.rs_index % w_scr_) * slot_bytes_ + packed * ctx_.eb(),
                       c.size(), ctx_.dt, ctx_.red, "ring: reduce the received piece");
        packed += c.size();
      }
    }
    if (credited(gi, i, g)) {
      const unsigned from = (i + n_ - 1) % n_;
      ch.credits[g] = ctx_.em.leg(grp.ranks[i], grp.ranks[from], 0, 0, 0, credit_sem_,
                                  "ring: credit, the slot is free again");
    }
  }

  Ctx& ctx_;
  std::vector<Group> groups_;
  bool rs_;
  bool ag_;
  unsigned n_ = 0;
  unsigned steps_ = 0;
  unsigned halves_ = 1;
  std::uint64_t chain_ = 0;
  unsigned w_sem_ = 1;
  unsigned w_scr_ = 1;
  std::vector<unsigned> sems_;
  unsigned credit_sem_ = 0;
  std::uint64_t slot_bytes_ = 0;
  std::uint64_t scratch_ = 0;
  std::vector<Channel> channels_;
  std::vector<std::uint64_t> piece_cols_;  // [group * n + piece]
};

}  // namespace

std::unique_ptr<Phase> make_ring(Ctx& ctx, std::vector<Group> groups, bool rs, bool ag) {
  return std::make_unique<RingPhase>(ctx, std::move(groups), rs, ag);
}

std::vector<CoreId> snake_order(const Geometry& g, const std::vector<CoreId>& ranks) {
  std::vector<unsigned> chips;
  for (CoreId r : ranks) {
    const unsigned c = g.locate(r).chip;
    if (std::find(chips.begin(), chips.end(), c) == chips.end()) chips.push_back(c);
  }
  std::vector<CoreId> out;
  out.reserve(ranks.size());
  for (std::size_t k = 0; k < chips.size(); ++k) {
    std::vector<CoreId> on;
    for (CoreId r : ranks) {
      if (g.locate(r).chip == chips[k]) on.push_back(r);
    }
    std::sort(on.begin(), on.end());
    if (k % 2 == 1) std::reverse(on.begin(), on.end());
    out.insert(out.end(), on.begin(), on.end());
  }
  return out;
}

}  // namespace sbrdma::collectives
