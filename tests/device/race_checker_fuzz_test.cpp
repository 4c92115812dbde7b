// RaceChecker against a naive model of the same rules: a differential fuzz test.
//
// Random small programs (2-4 cores, 1-2 engines x 1-2 queues a core, 3 semaphores, bytes near
// the starts and ends of 1-3 SBUF partitions of 0x40 or 0x100 bytes, so that accesses cross
// partitions, and of one other memory a core) drive the checker and the model with the same
// calls; they must report the same races. A program is random operations (program accesses,
// posted writes issued and landing in any order, doorbells, S2M doorbells, semaphore writes,
// takes, landings with DMAs and semaphore descriptors, waits) interleaved with chains that
// order an access before a conflicting one the way a correct program does (semaphore hand-offs,
// doorbells, semaphore descriptors and waits, with a step dropped now and then) and gathers
// (several cores write and ring one queue that reads it all). The calls keep the API's
// contracts: a batch's pairs are taken in order, by the queue rung, batch_done on the last;
// semaphore writes of a pair inside begin_pair/end_pair, of a posted write inside
// begin_posted/end_posted; every taken pair ends with end_pair.
//
// The model follows the rules of race_checker.h and D49 with nothing clever in it: a full
// vector clock per actor (cores, then every queue), copied at every snapshot and join; no
// sharing, no extra entry, no cache, nothing dropped or reused; the batch, S2M and semaphore
// clocks are plain copies (a semaphore's unjoined writes each with its own clock and values,
// joined past kSemWritesKept as the checker joins them: that bound is a rule, not a cache). Shadow
// state is per byte, with the checker's retention policy (the last write; since it, each actor's
// latest read, in the order the actors first read), which the header documents ("a write forgets
// the bytes' earlier accesses") and which decides which pairs of sides meet at all.
//
// What is compared, and why it is exact. The checker reports once per segment, and its
// segments are the maximal runs of consecutive bytes in the same state: every access splits at
// its bounds and then merges every neighbour pair it touched that agrees (D49: "split where
// accesses start and end, merged again where neighbours agree"), so no two adjacent segments
// are ever equal. Within one access and one shadow (an SBUF partition, or another memory) a
// segment is therefore a maximal run of equal, already-touched bytes, clipped to the access.
// The model groups the bytes that way and reports once per run, runs in ascending address
// order, the write before the reads in their order: what access_in() does. So total(), and
// the races() list in order with every field (both sides with core, engine, queue, slot,
// word, direction and time; repeats; memory; partitions; bytes), must be equal. The model
// keys races as report() does, (core, DMA?, write, word + 1) of each side; the fake origins
// give words that are unique per access in some seeds and drawn from a pool of three (or
// unknown) in others, so that distinct sites collide into one race too. Counts are compared
// after every operation, the whole list at the end. A mismatch is shrunk (whole operations,
// then their parts) and printed as the calls that reproduce it.
//
// 5000 programs from a fixed seed take about 2 s in a Debug build; SBRDMA_RACE_FUZZ_SEEDS=n
// runs n programs instead (a longer soak).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "device/race_checker.h"

namespace sbrdma::device {
namespace {

constexpr std::uint64_t kBaseSeed = 0x5eed'2026'0049ULL;
constexpr unsigned kSeeds = 5000;  ///< SBRDMA_RACE_FUZZ_SEEDS=n runs n instead (a longer soak)
constexpr unsigned kSems = 3;
constexpr std::uint64_t kOtherBytes = 0xC0;  ///< a core's non-SBUF memory in use
constexpr std::uint64_t kMaxLen = 0x30;

struct Config {
  unsigned cores = 2;
  unsigned engines = 1;
  unsigned queues = 1;
  std::uint64_t partition = 0x40;  ///< SBUF partition bytes
  unsigned partitions = 1;         ///< SBUF partitions in use
};

// ---- operations (a program is a list of them; what an operation acts on is a target when
// that is possible when it runs, else a `pick` modulo what is possible, so that any sublist
// is a program too) ----

using QueueKey = std::tuple<CoreId, unsigned, unsigned>;  ///< core, engine, queue

struct SemRef {
  CoreId core = 0;
  soc::SemWindow window = soc::SemWindow::kInc;
  unsigned idx = 0;
};
struct Dma {
  CoreId src_core = 0;
  bool src_sbuf = true;
  std::uint64_t src_off = 0;
  CoreId dst_core = 0;
  bool dst_sbuf = true;
  std::uint64_t dst_off = 0;
  std::uint64_t len = 1;
};
struct Effect {  ///< what a landing posted write does
  enum Kind { kM2S, kS2M, kSem } kind = kM2S;
  CoreId core = 0;  ///< kM2S / kS2M: the queue's
  unsigned engine = 0;
  unsigned queue = 0;
  unsigned pairs = 1;  ///< kM2S / kS2M: the batch's descriptors
  SemRef sem;          ///< kSem
};
struct Op {
  enum Kind {
    kAccess,
    kPost,
    kLandPosted,
    kTake,
    kLandPair,
    kAcquire,
    kDirectSem,
    kFence
  } kind = kAccess;
  CoreId core = 0;  ///< kAccess, kPost, kAcquire, kFence
  unsigned partitions = 1;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 1;
  bool write = false;
  std::optional<std::size_t> word;  ///< kAccess: running word; kTake: descriptor word
  unsigned pick = 0;  ///< kLandPosted, kTake, kLandPair; kAcquire: under 4 the full count
  std::optional<CoreId> issuer;    ///< kLandPosted: the oldest in flight of this core
  std::optional<QueueKey> target;  ///< kTake, kLandPair: this queue
  bool known = true;               ///< kLandPosted: a posted write (else a seq never posted)
  bool begin = true;               ///< kLandPair: begin_pair first
  std::vector<Effect> effects;     ///< kLandPosted
  std::vector<Dma> dmas;           ///< kLandPair
  std::vector<SemRef> sems;        ///< kLandPair, kDirectSem (one)
  unsigned idx = 0;                ///< kAcquire
  bool one = false;                ///< kAcquire: a wait for at least 1 (0 if the value is)
  /// kAccess: a strided word's runs [lo, hi) of each partition (offset and bytes unused)
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
};

// ---- the model ----

using Clock = std::vector<std::uint32_t>;  ///< by model actor, all of them

void join(Clock& into, const Clock& from) {
  for (std::size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], from[i]);
}

struct Acc {
  unsigned actor = 0;
  std::uint32_t epoch = 0;
  std::uint32_t site = 0;
  bool write = false;
  bool operator==(const Acc&) const = default;
};
struct ByteState {
  std::optional<Acc> write;
  std::vector<Acc> reads;  ///< since the write: each actor's latest, in first-read order
  bool operator==(const ByteState&) const = default;
};

class Model {
 public:
  explicit Model(const Config& cfg)
      : cfg_(cfg), actors_(cfg.cores + cfg.cores * cfg.engines * cfg.queues), log_(cfg.partition) {
    clocks_.assign(actors_, Clock(actors_, 0));
    for (unsigned a = 0; a < actors_; ++a) clocks_[a][a] = 1;  // each actor's own epoch
  }

  /// on_post: the issuer's clock now, then a new epoch.
  Clock post(CoreId c) {
    Clock s = clocks_[c];
    ++clocks_[c][c];
    return s;
  }
  /// A posted write of core `writer` (or a pair, without one), issued by word `pc`, takes
  /// effect with clock `c`.
  void begin(std::optional<Clock> c, std::optional<unsigned> writer = std::nullopt,
             std::optional<std::size_t> pc = std::nullopt) {
    current_ = std::move(c);
    writer_ = writer;
    pc_ = pc;
  }
  void end() {
    current_.reset();
    writer_.reset();
    pc_.reset();
  }
  /// on_fence: core c's posted writes so far (epochs below its own now) have landed.
  void fence(CoreId c) { fenced_[c] = clocks_[c][c]; }
  [[nodiscard]] const std::optional<Clock>& current() const { return current_; }
  /// on_take: the queue learns the clocks of the M2S and the S2M batch that published the
  /// pair's two descriptors; the pair's clock is the queue's then, and the queue's next pair is
  /// a new epoch.
  std::size_t take(CoreId c, unsigned e, unsigned q, unsigned slot, std::optional<std::size_t> pc,
                   const std::optional<Clock>& batch, const std::optional<Clock>& s2m_batch,
                   base::Tick now) {
    const unsigned a = queue_actor(c, e, q);
    if (batch) join(clocks_[a], *batch);
    if (s2m_batch) join(clocks_[a], *s2m_batch);
    RaceAccess site;
    site.core = c;
    site.engine = e;
    site.queue = q;
    site.slot = slot;
    site.pc = pc;
    site.time = now;
    sites_.push_back(site);
    pairs_.push_back(Pair{clocks_[a], a, static_cast<std::uint32_t>(sites_.size() - 1)});
    ++clocks_[a][a];
    return pairs_.size() - 1;
  }
  void begin_pair(std::size_t p) {
    current_ = pairs_[p].clock;
    writer_.reset();
    pc_.reset();
  }
  void dma(std::size_t p, const Dma& d, base::Tick now) {
    const Pair& pr = pairs_[p];
    sites_[pr.site].time = now;
    const std::uint32_t epoch = pr.clock[pr.actor];
    const Acc read{pr.actor, epoch, pr.site, false};
    const Acc write{pr.actor, epoch, pr.site, true};
    access(d.src_core, d.src_sbuf, d.src_off, d.src_off + d.len, read, pr.clock);
    access(d.dst_core, d.dst_sbuf, d.dst_off, d.dst_off + d.len, write, pr.clock);
    // One pair copying onto bytes it reads races with itself: every such byte, by partition.
    if (d.src_core != d.dst_core || d.src_sbuf != d.dst_sbuf || d.src_off == d.dst_off) return;
    std::uint64_t run = 0;  // start of the current partition's run of overlapped bytes
    bool in_run = false;
    for (std::uint64_t at = d.src_off; at <= d.src_off + d.len; ++at) {
      const bool both = at < d.src_off + d.len && at >= d.dst_off && at < d.dst_off + d.len;
      const bool new_part = in_run && d.src_sbuf && at / cfg_.partition != run / cfg_.partition;
      if (in_run && (!both || new_part)) {
        log_.add(d.src_core, d.src_sbuf, run, at, side(read), side(write), true);
        in_run = false;
      }
      if (both && !in_run) {
        run = at;
        in_run = true;
      }
    }
  }
  /// Each write's clock and values, kept apart but for the oldest past the checker's bound.
  void sem_write(const SemRef& s, std::uint32_t before, std::uint32_t after) {
    if (!current_) return;  // a direct set
    auto& list = sems_[std::tuple{s.core, s.window == soc::SemWindow::kEvents, s.idx}];
    const bool additive = s.window == soc::SemWindow::kInc || s.window == soc::SemWindow::kDec;
    const std::uint64_t serial =
        s.window == soc::SemWindow::kEvents ? 0 : serials_[{s.core, s.idx}]++;
    list.push_back(SemWrite{*current_, before, after, writer_, writer_ ? (*current_)[*writer_] : 0U,
                            additive, pc_, serial});
    if (list.size() > RaceChecker::kSemWritesKept) {
      join(list[1].clock, list[0].clock);
      list[1].before = list[0].before;
      list[1].writer.reset();
      list[1].pc.reset();
      list[1].merged = true;
      list[1].additive = list[1].additive && list[0].additive;
      list.erase(list.begin());
    }
  }
  /// A wait joins the writes up to the last that made its condition true. Where all are INC
  /// and DEC writes in an unbroken chain of values, the waiter's own that a fence saw land go
  /// first, then the rest in the order they landed; else each write's own two values decide.
  /// `pc`: the waiting word; an UnfencedWait (D49d) is found as the rule states it, each case
  /// of the waiter's unfenced writes landing worked out whole.
  void acquire(CoreId c, unsigned idx, const std::function<bool(std::uint32_t)>& holds,
               std::optional<std::size_t> pc, base::Tick now) {
    const auto it = sems_.find(std::tuple{c, false, idx});  // waits read the values, not events
    if (it == sems_.end()) return;
    std::vector<SemWrite>& list = it->second;
    const auto own = [&](const SemWrite& w) { return w.writer == c && w.epoch < fenced_[c]; };
    bool chain = true;
    for (std::size_t k = 0; k < list.size(); ++k) {
      if (!list[k].additive || (k > 0 && list[k].before != list[k - 1].after)) chain = false;
    }
    std::size_t counted = 0;
    if (chain) {
      std::vector<std::size_t> order;
      for (std::size_t k = 0; k < list.size(); ++k) order.push_back(k);
      std::stable_partition(order.begin(), order.end(),
                            [&](std::size_t k) { return own(list[k]); });
      std::uint32_t v = list.empty() ? 0 : list.front().before;
      for (const std::size_t k : order) {
        const std::uint32_t next = v + (list[k].after - list[k].before);
        if (!own(list[k]) && !holds(v) && holds(next)) counted = k + 1;
        v = next;
      }
    } else {
      for (std::size_t k = 0; k < list.size(); ++k) {
        if (!holds(list[k].before) && holds(list[k].after)) counted = k + 1;
      }
    }
    if (counted > 0) {
      std::optional<std::uint64_t> issue;
      if (const auto w = waits_.find(c); w != waits_.end()) {
        if (w->second.first == idx) issue = w->second.second;
        waits_.erase(w);
      }
      unfenced(c, idx, list, counted, chain, holds, pc, issue, now);
    }
    for (std::size_t k = 0; k < counted; ++k) join(clocks_[c], list[k].clock);
    list.erase(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(counted));
  }
  /// on_wait: core c issues a wait on semaphore idx.
  void wait(CoreId c, unsigned idx) { waits_[c] = {idx, serials_[{c, idx}]}; }
  [[nodiscard]] const std::vector<UnfencedWait>& unfenced_waits() const { return unfenced_; }
  [[nodiscard]] std::uint64_t unfenced_total() const { return unfenced_total_; }
  /// Partitions [first, partitions).
  void core_access(CoreId c, unsigned partitions, std::uint64_t offset, std::uint64_t bytes,
                   bool write, std::optional<std::size_t> pc, base::Tick now, unsigned first = 0) {
    RaceAccess site;
    site.core = c;
    site.pc = pc;
    site.time = now;
    sites_.push_back(site);
    const Acc a{c, clocks_[c][c], static_cast<std::uint32_t>(sites_.size() - 1), write};
    for (unsigned p = first; p < partitions; ++p) {
      const std::uint64_t lo = p * cfg_.partition + offset;
      access(c, true, lo, lo + bytes, a, clocks_[c]);
    }
  }

  [[nodiscard]] const std::vector<Race>& races() const { return log_.races(); }
  [[nodiscard]] std::uint64_t total() const { return log_.total(); }
  /// Runs of bytes where two actors' accesses conflict but an edge orders them.
  [[nodiscard]] std::uint64_t ordered() const { return ordered_; }

 private:
  struct Pair {
    Clock clock;
    unsigned actor = 0;
    std::uint32_t site = 0;
  };

  [[nodiscard]] unsigned queue_actor(CoreId c, unsigned e, unsigned q) const {
    return cfg_.cores + (c * cfg_.engines + e) * cfg_.queues + q;
  }

  void access(CoreId mem_core, bool sbuf, std::uint64_t lo, std::uint64_t hi, const Acc& a,
              const Clock& k) {
    std::vector<std::optional<ByteState>>& mem = memories_[{mem_core, sbuf}];
    if (mem.size() < hi) {
      mem.resize(std::max(hi, (sbuf ? cfg_.partitions * cfg_.partition : kOtherBytes) + kMaxLen));
    }
    const auto before = [&](const Acc& x) {
      const bool yes = x.epoch <= k[x.actor];
      ordered_ += yes ? 1 : 0;
      return yes;
    };
    while (lo < hi) {
      const std::uint64_t part = sbuf ? lo / cfg_.partition : 0;
      const std::uint64_t end = sbuf ? std::min(hi, (part + 1) * cfg_.partition) : hi;
      // Runs of equal, touched bytes, as they were before this access.
      for (std::uint64_t at = lo; at < end;) {
        if (!mem[at]) {  // untouched
          ++at;
          continue;
        }
        std::uint64_t to = at + 1;
        while (to < end && mem[to] == mem[at]) ++to;
        const ByteState& st = *mem[at];
        if (st.write && st.write->actor != a.actor && !before(*st.write)) {
          report(mem_core, sbuf, at, to, *st.write, a);
        }
        if (a.write) {
          for (const Acc& r : st.reads) {
            if (r.actor != a.actor && !before(r)) report(mem_core, sbuf, at, to, r, a);
          }
        }
        at = to;
      }
      for (std::uint64_t at = lo; at < end; ++at) {
        if (!mem[at]) mem[at].emplace();
        ByteState& st = *mem[at];
        if (a.write) {
          st.write = a;
          st.reads.clear();
        } else {
          auto mine = std::find_if(st.reads.begin(), st.reads.end(),
                                   [&](const Acc& r) { return r.actor == a.actor; });
          if (mine != st.reads.end()) {
            *mine = a;
          } else {
            st.reads.push_back(a);
          }
        }
      }
      lo = end;
    }
  }

  struct SemWrite;
  void unfenced(CoreId c, unsigned idx, const std::vector<SemWrite>& list, std::size_t counted,
                bool chain, const std::function<bool(std::uint32_t)>& holds,
                std::optional<std::size_t> pc, std::optional<std::uint64_t> issue, base::Tick now) {
    const auto mine = [&](const SemWrite& w) { return w.writer == c; };
    const auto fenced = [&](const SemWrite& w) { return mine(w) && w.epoch < fenced_[c]; };
    // The waiter's writes no fence saw land, in landing order.
    std::vector<std::size_t> late;
    for (std::size_t k = 0; k < list.size(); ++k) {
      if (mine(list[k]) && !fenced(list[k])) late.push_back(k);
    }
    if (late.empty()) return;
    for (std::size_t k = 1; k < list.size(); ++k) {
      if (list[k].before != list[k - 1].after) return;  // set directly between: no check
    }
    // Writes that had landed when the wait was issued.
    std::size_t issued = 0;
    for (const SemWrite& w : list) issued += !issue || w.serial < *issue ? 1 : 0;
    const auto others_before = [&](std::size_t n) {
      std::size_t o = 0;
      for (std::size_t k = 0; k < n; ++k) o += mine(list[k]) ? 0 : 1;
      return o;
    };
    const std::size_t here = others_before(counted);
    std::size_t fewest = here;
    std::size_t cut = late.size();
    for (std::size_t j = 0; j < late.size(); ++j) {
      // A device that looked at the wait with only late[0, j) landed: the same rule as
      // acquire()'s over the writes it saw, its values worked out from each write's effect.
      std::vector<std::size_t> order;
      for (std::size_t k = 0; k < list.size(); ++k) {
        const bool landed = !mine(list[k]) || fenced(list[k]) ||
                            std::find(late.begin(), late.begin() + static_cast<std::ptrdiff_t>(j),
                                      k) != late.begin() + static_cast<std::ptrdiff_t>(j);
        if (landed) order.push_back(k);
      }
      if (chain) {
        std::stable_partition(order.begin(), order.end(),
                              [&](std::size_t k) { return fenced(list[k]); });
      }
      // Looked at as issued: it passes if the condition holds once the writes landed by then
      // have, else at the first later write that makes it hold.
      std::uint32_t v = list.front().before;
      std::size_t upto = 0;
      std::optional<std::size_t> passed;
      bool looked = false;
      for (const std::size_t k : order) {
        const SemWrite& w = list[k];
        const bool first_ones = chain && fenced(w);  // applied before all the others
        if (!first_ones && k >= issued && !looked) {
          looked = true;
          if (holds(v)) {
            passed = upto;
            break;
          }
        }
        const std::uint32_t next = w.additive ? v + (w.after - w.before) : w.after;
        if (!first_ones && !holds(v) && holds(next)) {
          upto = k + 1;
          if (looked) {
            passed = upto;
            break;
          }
        }
        v = next;
      }
      if (!looked && holds(v)) passed = upto;
      if (!passed) continue;
      if (others_before(*passed) < fewest) {
        fewest = others_before(*passed);
        cut = j;
      }
    }
    if (fewest == here) return;
    for (std::size_t k = 0; k < counted; ++k) {
      if (list[k].merged) return;
    }
    Clock known = clocks_[c];
    std::size_t seen = 0;
    bool more = false;
    for (std::size_t k = 0; k < counted; ++k) {
      if (mine(list[k])) continue;
      if (seen++ < fewest) {
        join(known, list[k].clock);
        continue;
      }
      for (unsigned a = 0; a < actors_; ++a) more = more || (a != c && list[k].clock[a] > known[a]);
    }
    if (!more) return;
    ++unfenced_total_;
    for (UnfencedWait& w : unfenced_) {
      if (w.core == c && w.pc == pc) {
        ++w.repeats;
        return;
      }
    }
    if (unfenced_.size() >= RaceChecker::kKept) return;
    UnfencedWait w{c, pc, idx, now, {}, here, fewest, 0};
    for (std::size_t j = cut; j < late.size() && late[j] < counted; ++j) {
      if (list[late[j]].pc) w.own.push_back(*list[late[j]].pc);
    }
    std::sort(w.own.begin(), w.own.end());
    w.own.erase(std::unique(w.own.begin(), w.own.end()), w.own.end());
    unfenced_.push_back(std::move(w));
  }

  [[nodiscard]] RaceAccess side(const Acc& a) const {
    RaceAccess x = sites_[a.site];
    x.write = a.write;
    return x;
  }

  // The reporting rules (one race per pair of sides, its place widened) are RaceLog's, shared
  // with the checker: what this model checks is which accesses race.
  void report(CoreId mem_core, bool sbuf, std::uint64_t lo, std::uint64_t hi, const Acc& first,
              const Acc& second) {
    log_.add(mem_core, sbuf, lo, hi, side(first), side(second));
  }

  Config cfg_;
  unsigned actors_;
  std::vector<Clock> clocks_;
  std::optional<Clock> current_;
  std::optional<unsigned> writer_;  ///< current_'s core, for a posted write
  std::map<CoreId, std::uint32_t> fenced_;
  std::vector<Pair> pairs_;
  std::vector<RaceAccess> sites_;
  struct SemWrite {
    Clock clock;
    std::uint32_t before = 0;
    std::uint32_t after = 0;
    std::optional<unsigned> writer;  ///< the core that posted it
    std::uint32_t epoch = 0;         ///< the writer's, at the post
    bool additive = false;
    std::optional<std::size_t> pc;  ///< the word that posted it
    std::uint64_t serial = 0;       ///< the semaphore's writes before it
    bool merged = false;            ///< two or more joined past the bound
  };
  std::map<std::pair<CoreId, unsigned>, std::uint64_t> serials_;
  std::map<CoreId, std::pair<unsigned, std::uint64_t>> waits_;  ///< on_wait: idx, serial
  std::map<std::tuple<CoreId, bool, unsigned>, std::vector<SemWrite>> sems_;
  std::optional<std::size_t> pc_;  ///< current_'s posting word
  std::vector<UnfencedWait> unfenced_;
  std::uint64_t unfenced_total_ = 0;
  /// (core, SBUF?) -> by byte, nothing where nothing touched it
  std::map<std::pair<CoreId, bool>, std::vector<std::optional<ByteState>>> memories_;
  RaceLog log_;
  std::uint64_t ordered_ = 0;
};

// ---- running a program on both ----

/// The words the driver sets before each call that asks.
class FakeOrigins final : public RaceOrigins {
 public:
  [[nodiscard]] std::optional<std::size_t> running_word(CoreId core) const override {
    const auto it = running.find(core);
    return it == running.end() ? std::nullopt : it->second;
  }
  [[nodiscard]] std::optional<std::size_t> descriptor_word(CoreId, unsigned, unsigned,
                                                           unsigned) const override {
    return descriptor;
  }
  std::map<CoreId, std::optional<std::size_t>> running;
  std::optional<std::size_t> descriptor;
};

std::string str(const std::optional<std::size_t>& w) {
  return w ? std::to_string(*w) : std::string("nullopt");
}

std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

std::string str(const RaceAccess& a) {
  std::ostringstream os;
  os << "core " << a.core;
  if (a.engine) {
    os << " dma e" << *a.engine << " q" << a.queue << " slot " << a.slot;
  } else {
    os << " program";
  }
  os << " word " << str(a.pc) << (a.write ? " write" : " read") << " t" << a.time.ps;
  return os.str();
}

std::string str(const UnfencedWait& w) {
  std::ostringstream os;
  os << "core " << w.core << " word " << str(w.pc) << " sem " << w.semaphore << " t" << w.time.ps
     << " own [";
  for (std::size_t pc : w.own) os << pc << " ";
  os << "] counted " << w.counted << " fewest " << w.fewest << " repeats " << w.repeats;
  return os.str();
}

std::string str(const Race& r) {
  std::ostringstream os;
  os << "[" << str(r.first) << "] then [" << str(r.second) << "] repeats " << r.repeats
     << " mem core " << r.mem_core << (r.sbuf ? " sbuf" : " other") << " partitions "
     << r.first_partition << "-" << r.last_partition << " bytes [0x" << std::hex << r.lo << ", 0x"
     << r.hi << ")" << (r.self ? " self" : "") << (r.first_others ? " first+others" : "")
     << (r.second_others ? " second+others" : "");
  return os.str();
}

const char* window_name(soc::SemWindow w) {
  switch (w) {
    case soc::SemWindow::kEvents:
      return "kEvents";
    case soc::SemWindow::kRead:
      return "kRead";
    case soc::SemWindow::kSet:
      return "kSet";
    case soc::SemWindow::kInc:
      return "kInc";
    case soc::SemWindow::kDec:
      return "kDec";
  }
  return "?";
}

struct Stats {
  std::uint64_t races = 0;     ///< distinct races found, all seeds
  std::uint64_t unfenced = 0;  ///< unfenced waits found, all seeds
  std::uint64_t takes = 0;     ///< pairs taken
  std::uint64_t acquires = 0;  ///< waits that passed
  std::uint64_t clean = 0;     ///< programs with no race
  std::uint64_t ordered = 0;   ///< conflicts an edge ordered (Model::ordered)
};

class Harness {
 public:
  Harness(const Config& cfg, std::vector<std::string>* log)
      : cfg_(cfg), rc_(cfg.cores, cfg.partition, origins_), model_(cfg), log_(log) {}

  /// Runs the program; the first difference, if any.
  std::optional<std::string> run(const std::vector<Op>& ops, Stats* stats) {
    for (std::size_t i = 0; i < ops.size(); ++i) {
      now_ = base::Tick{1000 * (i + 1)};
      exec(ops[i], stats);
      if (rc_.total() != model_.total() || rc_.races().size() != model_.races().size()) {
        std::ostringstream os;
        os << "after operation " << i << ": checker total " << rc_.total() << " with "
           << rc_.races().size() << " races, model total " << model_.total() << " with "
           << model_.races().size() << " races" << list_diff();
        return os.str();
      }
    }
    for (std::size_t i = 0; i < rc_.races().size(); ++i) {
      if (str(rc_.races()[i]) != str(model_.races()[i])) return "at the end:" + list_diff();
    }
    {
      const auto& a = rc_.unfenced_waits();
      const auto& b = model_.unfenced_waits();
      std::ostringstream os;
      for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
        const std::string x = i < a.size() ? str(a[i]) : "(none)";
        const std::string y = i < b.size() ? str(b[i]) : "(none)";
        if (x != y)
          os << "\n  unfenced wait " << i << ":\n    checker " << x << "\n    model   " << y;
      }
      if (rc_.unfenced_total() != model_.unfenced_total() || !os.str().empty()) {
        return "at the end: checker " + std::to_string(rc_.unfenced_total()) +
               " unfenced waits, model " + std::to_string(model_.unfenced_total()) + os.str();
      }
    }
    if (stats != nullptr) {
      stats->unfenced += rc_.unfenced_total();
      stats->races += rc_.races().size();
      stats->ordered += model_.ordered();
      if (rc_.total() == 0) ++stats->clean;
    }
    return std::nullopt;
  }

 private:
  struct Batch {
    std::uint32_t handle = 0;
    std::optional<Clock> clock;
    unsigned remaining = 0;
  };
  struct InFlight {
    std::uint32_t id = 0;
    std::size_t model = 0;
  };
  struct Queue {
    std::deque<Batch> batches;
    std::deque<Batch> s2m_batches;  ///< S2M doorbells' descriptors, not yet taken
    std::deque<InFlight> pairs;     ///< taken, not landed
    unsigned slot = 0;
  };

  std::string list_diff() const {
    std::ostringstream os;
    const auto& a = rc_.races();
    const auto& b = model_.races();
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      const std::string x = i < a.size() ? str(a[i]) : "(none)";
      const std::string y = i < b.size() ? str(b[i]) : "(none)";
      if (x != y) os << "\n  race " << i << ":\n    checker " << x << "\n    model   " << y;
    }
    return os.str();
  }

  /// Logs a line of the calls made (only when a log is kept: the shrunk failing program).
  template <typename... Args>
  void say(const Args&... args) {
    if (log_ == nullptr) return;
    std::ostringstream os;
    os << "  ";
    (os << ... << args);
    log_->push_back(os.str());
  }

  /// The semaphore's value moves as the device's would: INC up one, DEC down one, SET to
  /// idx + 1, EVENTS not at all.
  void sem_write(const SemRef& s) {
    std::uint32_t& v = values_[{s.core, s.idx}];
    const std::uint32_t before = v;
    switch (s.window) {
      case soc::SemWindow::kInc:
        ++v;
        break;
      case soc::SemWindow::kDec:
        --v;
        break;
      case soc::SemWindow::kSet:
        v = s.idx + 1;
        break;
      default:
        break;
    }
    say("rc.on_semaphore_write(", s.core, ", SemWindow::", window_name(s.window), ", ", s.idx, ", ",
        before, ", ", v, ");");
    rc_.on_semaphore_write(s.core, s.window, s.idx, before, v);
    model_.sem_write(s, before, v);
  }

  template <typename Pred>
  std::optional<QueueKey> choose(const Op& op, Pred ready) {
    if (op.target) {
      const auto it = queues_.find(*op.target);
      if (it != queues_.end() && ready(it->second)) return *op.target;
    }
    std::vector<QueueKey> ok;
    for (const auto& [k, q] : queues_) {
      if (ready(q)) ok.push_back(k);
    }
    if (ok.empty()) return std::nullopt;
    return ok[op.pick % ok.size()];
  }

  void exec(const Op& op, Stats* stats) {
    switch (op.kind) {
      case Op::kAccess: {
        say("now = base::Tick{", now_.ps, "};");
        say("origins.running[", op.core, "] = ", str(op.word), ";");
        if (op.runs.empty()) {
          say("rc.on_core_access(", op.core, ", ", op.partitions, ", ", hex(op.offset), ", ",
              hex(op.bytes), ", ", op.write ? "true" : "false", ", now);");
        }
        origins_.running[op.core] = op.word;
        if (!op.runs.empty()) {  // the checker's one pass against the model's run by run
          std::ostringstream runs;
          for (const auto& [lo, hi] : op.runs) runs << "{" << hex(lo) << ", " << hex(hi) << "}, ";
          say("rc.on_core_access(", op.core, ", ", op.partitions, ", runs{", runs.str(), "}, ",
              op.write ? "true" : "false", ", now);");
          rc_.on_core_access(op.core, op.partitions, op.runs, op.write, now_);
          for (unsigned p = 0; p < op.partitions; ++p) {  // partition by partition
            for (const auto& [lo, hi] : op.runs) {
              model_.core_access(op.core, p + 1, lo, hi - lo, op.write, op.word, now_, p);
            }
          }
          return;
        }
        rc_.on_core_access(op.core, op.partitions, op.offset, op.bytes, op.write, now_);
        model_.core_access(op.core, op.partitions, op.offset, op.bytes, op.write, op.word, now_);
        return;
      }
      case Op::kPost: {
        const std::uint64_t seq = ++seq_;
        say("rc.on_post(", op.core, ", ", seq, ");");
        rc_.on_post(op.core, seq);
        posted_.push_back(Posted{seq, op.core, model_.post(op.core), origins_.running[op.core]});
        return;
      }
      case Op::kLandPosted: {
        std::uint64_t seq = 0;
        std::optional<Clock> clock;
        std::optional<unsigned> writer;
        std::optional<std::size_t> pc;
        if (op.known) {
          if (posted_.empty()) return;
          std::size_t i = op.pick % posted_.size();
          for (std::size_t j = 0; op.issuer && j < posted_.size(); ++j) {
            if (posted_[j].issuer == *op.issuer) {
              i = j;
              break;
            }
          }
          seq = posted_[i].seq;
          clock = std::move(posted_[i].clock);
          writer = posted_[i].issuer;
          pc = posted_[i].pc;
          posted_.erase(posted_.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
          seq = 1'000'000 + ++unknown_;  // never posted: releases nothing
        }
        say("rc.begin_posted(", seq, ");", op.known ? "" : "  // never posted");
        rc_.begin_posted(seq);
        model_.begin(std::move(clock), writer, pc);
        for (const Effect& e : op.effects) {
          switch (e.kind) {
            case Effect::kM2S:
            case Effect::kS2M: {  // a doorbell: its batch keeps the clock it released
              const bool s2m = e.kind == Effect::kS2M;
              const std::uint32_t h = rc_.capture_release();
              say("rc.capture_release();  // ", h, ": the ", s2m ? "S2M" : "M2S",
                  " batch clock of ", e.pairs, " descriptor(s) of queue (", e.core, ", ", e.engine,
                  ", ", e.queue, ")");
              Queue& q = queues_[{e.core, e.engine, e.queue}];
              (s2m ? q.s2m_batches : q.batches).push_back(Batch{h, model_.current(), e.pairs});
              break;
            }
            case Effect::kSem:
              sem_write(e.sem);
              break;
          }
        }
        say("rc.end_posted();");
        rc_.end_posted();
        model_.end();
        return;
      }
      case Op::kTake: {
        const auto k = choose(op, [](const Queue& q) { return !q.batches.empty(); });
        if (!k) return;
        Queue& q = queues_[*k];
        Batch& b = q.batches.front();
        const bool done = b.remaining == 1;
        const unsigned slot = q.slot++;
        const auto [c, e, qi] = *k;
        origins_.descriptor = op.word;
        // The S2M side: the oldest S2M batch's next descriptor, or none rung (no clock).
        Batch none;
        Batch& sb = q.s2m_batches.empty() ? none : q.s2m_batches.front();
        const bool s2m_done = sb.remaining == 1;
        const std::uint32_t id =
            rc_.on_take(c, e, qi, slot, {b.handle, done}, {sb.handle, s2m_done}, now_);
        say("now = base::Tick{", now_.ps, "};");
        say("origins.descriptor = ", str(op.word), ";");
        say("rc.on_take(", c, ", ", e, ", ", qi, ", ", slot, ", {", b.handle, ", ",
            done ? "true" : "false", "}, {", sb.handle, ", ", s2m_done ? "true" : "false",
            "}, now);  // pair ", id);
        const std::size_t m = model_.take(c, e, qi, slot, op.word, b.clock, sb.clock, now_);
        q.pairs.push_back(InFlight{id, m});
        if (--b.remaining == 0) q.batches.pop_front();
        if (!q.s2m_batches.empty() && --sb.remaining == 0) q.s2m_batches.pop_front();
        if (stats != nullptr) ++stats->takes;
        return;
      }
      case Op::kLandPair: {
        const auto k = choose(op, [](const Queue& q) { return !q.pairs.empty(); });
        if (!k) return;
        Queue& q = queues_[*k];
        const InFlight p = q.pairs.front();
        q.pairs.pop_front();
        if (op.begin) {
          say("rc.begin_pair(", p.id, ");");
          rc_.begin_pair(p.id);
          model_.begin_pair(p.model);
        }
        for (const Dma& d : op.dmas) {
          say("now = base::Tick{", now_.ps, "};");
          say("rc.on_dma(", p.id, ", ", d.src_core, ", ", d.src_sbuf ? "true" : "false", ", ",
              hex(d.src_off), ", ", d.dst_core, ", ", d.dst_sbuf ? "true" : "false", ", ",
              hex(d.dst_off), ", ", hex(d.len), ", now);");
          rc_.on_dma(p.id, d.src_core, d.src_sbuf, d.src_off, d.dst_core, d.dst_sbuf, d.dst_off,
                     d.len, now_);
          model_.dma(p.model, d, now_);
        }
        for (const SemRef& s : op.sems) sem_write(s);
        say("rc.end_pair(", p.id, ");");
        rc_.end_pair(p.id);
        model_.end();
        return;
      }
      case Op::kAcquire: {
        // A wait for at least n passes now: n is the value (all counted) or, now and then,
        // less (a wait that counts too few).
        const std::uint32_t v = values_[{op.core, op.idx}];
        const std::uint32_t n = op.one                  ? std::min<std::uint32_t>(v, 1)
                                : v == 0 || op.pick < 4 ? v
                                                        : 1 + op.pick % v;
        const auto holds = [n](std::uint32_t x) { return x >= n; };
        say("rc.on_acquire(", op.core, ", ", op.idx, ", at_least(", n, "));");
        rc_.on_acquire(op.core, op.idx, holds, now_);
        model_.acquire(op.core, op.idx, holds, origins_.running[op.core], now_);
        if (op.pick % 2 == 0) {  // its next wait is issued now, on the same semaphore
          say("rc.on_wait(", op.core, ", ", op.idx, ");");
          rc_.on_wait(op.core, op.idx);
          model_.wait(op.core, op.idx);
        }
        if (stats != nullptr) ++stats->acquires;
        return;
      }
      case Op::kDirectSem:
        sem_write(op.sems.front());  // no write or pair taking effect: a direct set
        return;
      case Op::kFence: {
        // A fence passes once the core's posted writes have landed: none may be in flight.
        for (const Posted& p : posted_) {
          if (p.issuer == op.core) return;
        }
        say("rc.on_fence(", op.core, ");");
        rc_.on_fence(op.core);
        model_.fence(op.core);
        return;
      }
    }
  }

  Config cfg_;
  FakeOrigins origins_;
  RaceChecker rc_;
  Model model_;
  std::map<std::pair<CoreId, unsigned>, std::uint32_t> values_;  ///< semaphore values
  std::vector<std::string>* log_;
  base::Tick now_;
  std::uint64_t seq_ = 0;
  std::uint64_t unknown_ = 0;
  struct Posted {
    std::uint64_t seq = 0;
    CoreId issuer = 0;
    Clock clock;                    ///< the model's
    std::optional<std::size_t> pc;  ///< the issuer's word at the post
  };
  std::vector<Posted> posted_;  ///< in flight, in issue order
  std::map<QueueKey, Queue> queues_;
};

// ---- random programs ----

class Gen {
 public:
  explicit Gen(std::uint64_t seed) : rng_(seed) {}

  std::uint64_t below(std::uint64_t n) { return rng_() % n; }
  bool chance(unsigned percent) { return below(100) < percent; }

  Config config() {
    Config c;
    c.cores = 2 + static_cast<unsigned>(below(3));
    c.engines = 1 + static_cast<unsigned>(below(2));
    c.queues = 1 + static_cast<unsigned>(below(2));
    c.partition = chance(70) ? 0x40 : 0x100;
    c.partitions = 1 + static_cast<unsigned>(below(3));
    pooled_ = chance(35);
    hot_ = {any_queue(c), any_queue(c)};
    return c;
  }

  /// Random operations interleaved with 0-3 chains and gathers.
  std::vector<Op> program(const Config& c) {
    std::vector<std::deque<Op>> threads(1);
    for (std::uint64_t n = 10 + below(40); n > 0; --n) threads[0].push_back(one(c));
    for (std::uint64_t n = below(4); n > 0; --n) {
      const std::uint64_t k = below(100);
      std::vector<Op> ch = k < 55 ? chain(c) : k < 80 ? gather(c) : consume(c);
      if (!ch.empty()) {
        threads.emplace_back(std::make_move_iterator(ch.begin()),
                             std::make_move_iterator(ch.end()));
      }
    }
    std::vector<Op> ops;
    while (!threads.empty()) {
      const std::size_t t = below(threads.size());
      ops.push_back(std::move(threads[t].front()));
      threads[t].pop_front();
      if (threads[t].empty()) threads.erase(threads.begin() + static_cast<std::ptrdiff_t>(t));
    }
    return ops;
  }

 private:
  std::optional<std::size_t> word() {
    if (chance(8)) return std::nullopt;
    if (pooled_) return below(3);
    return next_word_++;
  }
  CoreId core(const Config& c) { return static_cast<CoreId>(below(c.cores)); }
  /// An SBUF offset near the start or the end of a partition in use.
  std::uint64_t sbuf_offset(const Config& c) {
    const std::uint64_t in = chance(60) ? below(0x30) : c.partition - 1 - below(0x30);
    return below(c.partitions) * c.partition + in;
  }
  std::uint64_t len() { return chance(30) ? 1 + below(4) : 1 + below(kMaxLen); }
  SemRef sem(const Config& c) {
    static constexpr soc::SemWindow kWindows[] = {soc::SemWindow::kInc, soc::SemWindow::kInc,
                                                  soc::SemWindow::kSet, soc::SemWindow::kDec,
                                                  soc::SemWindow::kEvents};
    return SemRef{core(c), kWindows[below(5)], static_cast<unsigned>(below(kSems))};
  }
  Dma dma(const Config& c) {
    Dma d;
    d.len = len();
    d.src_core = core(c);
    d.src_sbuf = chance(80);
    d.src_off = d.src_sbuf ? sbuf_offset(c) : below(kOtherBytes);
    d.dst_core = core(c);
    d.dst_sbuf = chance(80);
    d.dst_off = d.dst_sbuf ? sbuf_offset(c) : below(kOtherBytes);
    return d;
  }

  /// A core's program touches bytes near the start or the end of its SBUF partitions.
  Op access(const Config& c) {
    Op op;
    op.kind = Op::kAccess;
    op.core = core(c);
    op.partitions = 1 + static_cast<unsigned>(below(c.partitions));
    op.offset = chance(60) ? below(0x30) : c.partition - 1 - below(0x30);
    op.bytes = std::min(len(), c.partition - op.offset);
    op.write = chance(50);
    op.word = word();
    return op;
  }
  // Single operations of a chain.
  static Op post(CoreId issuer) {
    Op op;
    op.kind = Op::kPost;
    op.core = issuer;
    return op;
  }
  static Op land(CoreId issuer, Effect e) {
    Op op;
    op.kind = Op::kLandPosted;
    op.issuer = issuer;
    op.effects.push_back(e);
    return op;
  }
  static Op take(const QueueKey& q) {
    Op op;
    op.kind = Op::kTake;
    op.target = q;
    return op;
  }
  static Op acquire(CoreId core, unsigned idx) {
    Op op;
    op.kind = Op::kAcquire;
    op.core = core;
    op.idx = idx;
    return op;
  }
  QueueKey any_queue(const Config& c) {
    return {core(c), static_cast<unsigned>(below(c.engines)),
            static_cast<unsigned>(below(c.queues))};
  }
  /// Half the time one of two queues of the program, so that queues learn from several
  /// cores' doorbells (the checker's shared, adopted and joined queue clocks).
  QueueKey queue(const Config& c) { return chance(50) ? hot_[below(2)] : any_queue(c); }
  Effect m2s(const QueueKey& q) {
    Effect e;
    e.kind = Effect::kM2S;
    std::tie(e.core, e.engine, e.queue) = q;
    e.pairs = chance(80) ? 1 : 2;
    return e;
  }
  /// A semaphore that orders: mostly an increment, sometimes the events window (which
  /// does not), sometimes another index than the wait's.
  std::pair<SemRef, unsigned> handoff(CoreId to) {
    const auto idx = static_cast<unsigned>(below(kSems));
    SemRef s{to, chance(90) ? soc::SemWindow::kInc : soc::SemWindow::kEvents, idx};
    return {s, chance(94) ? idx : static_cast<unsigned>(below(kSems))};
  }
  /// Core `from` rings queue `q` (an M2S batch, or an S2M doorbell after a batch rung by
  /// some core and maybe another core's S2M doorbell) and the queue takes a pair.
  void ring(const Config& c, CoreId from, const QueueKey& q, std::vector<Op>& ops) {
    if (chance(75)) {
      ops.push_back(post(from));
      ops.push_back(land(from, m2s(q)));
    } else {
      const CoreId z = core(c);
      ops.push_back(post(z));
      ops.push_back(land(z, m2s(q)));
      Effect e;
      e.kind = Effect::kS2M;
      std::tie(e.core, e.engine, e.queue) = q;
      if (chance(50)) {  // another core's S2M doorbell first (which pair's side each publishes
                         // depends on the S2M batches still queued)
        const CoreId y = core(c);
        ops.push_back(post(y));
        ops.push_back(land(y, e));
      }
      ops.push_back(post(from));
      ops.push_back(land(from, e));
    }
    ops.push_back(take(q));
  }

  /// What a correct program does to order an access of core a's program before a later
  /// access to the same bytes by another actor: a's program touches bytes of its SBUF; the
  /// knowledge hops over 0-3 edges (a posted semaphore write and a wait; a doorbell, the
  /// queue's pair and its semaphore descriptor, and a wait); the last core touches the bytes
  /// itself (if it is a) or by a DMA of a queue it rings, which may then tell a core b that
  /// touches the DMA's other end. Each step is dropped now and then, so some chains race.
  std::vector<Op> chain(const Config& c) {
    std::vector<Op> ops;
    const CoreId a = core(c);
    Op first = access(c);
    first.core = a;
    first.write = chance(60);
    ops.push_back(first);
    // The bytes of one partition of it, give or take a few at each end.
    const std::uint64_t part = below(first.partitions) * c.partition;
    const std::uint64_t lo = part + first.offset - std::min<std::uint64_t>(below(3), first.offset);
    const std::uint64_t longer = first.bytes + below(3);
    const std::uint64_t span = longer > 2 ? longer - below(3) : longer;
    CoreId cur = a;
    for (std::uint64_t hops = chance(40) ? 0 : 1 + below(3); hops > 0; --hops) {
      const CoreId n = core(c);
      const auto [sem, wait] = handoff(n);
      if (chance(50)) {
        ops.push_back(post(cur));
        Effect e;
        e.kind = Effect::kSem;
        e.sem = sem;
        ops.push_back(land(cur, e));
      } else {
        const QueueKey q = queue(c);
        ring(c, cur, q, ops);
        Op lp;
        lp.kind = Op::kLandPair;
        lp.target = q;
        if (chance(30)) lp.dmas.push_back(dma(c));
        lp.sems.push_back(sem);
        ops.push_back(lp);
      }
      ops.push_back(acquire(n, wait));
      cur = n;
    }
    if (cur == a && chance(50)) {
      Op last = first;
      last.write = chance(50);
      last.word = word();
      ops.push_back(last);
    } else {
      const QueueKey q = queue(c);
      ring(c, cur, q, ops);
      const CoreId b = core(c);
      Dma d = dma(c);
      d.src_core = d.dst_core = b;
      d.src_sbuf = d.dst_sbuf = true;
      d.len = span;
      (chance(50) ? std::tie(d.src_core, d.src_off) : std::tie(d.dst_core, d.dst_off)) =
          std::tuple{a, lo};
      Op lp;
      lp.kind = Op::kLandPair;
      lp.target = q;
      lp.dmas.push_back(d);
      const bool tell = chance(60);
      const auto [sem, wait] = handoff(b);
      if (tell) lp.sems.push_back(sem);
      ops.push_back(lp);
      if (tell) {
        ops.push_back(acquire(b, wait));
        // b's program touches the DMA's end in b's SBUF.
        const std::uint64_t other = d.src_core == a ? d.dst_off : d.src_off;
        Op last;
        last.kind = Op::kAccess;
        last.core = b;
        last.partitions = static_cast<unsigned>(other / c.partition) + 1;
        last.offset = other % c.partition;
        last.bytes = std::min(d.len, c.partition - last.offset);
        last.write = chance(50);
        last.word = word();
        ops.push_back(last);
      }
    }
    std::vector<Op> kept;
    for (Op& op : ops) {
      if (!chance(5)) kept.push_back(std::move(op));
    }
    return kept;
  }

  /// Several cores (some after a wait) write bytes of their SBUFs and ring one queue, whose
  /// pairs then read those bytes: the queue's clock learns from each core in turn.
  std::vector<Op> gather(const Config& c) {
    std::vector<Op> ops;
    const QueueKey q = queue(c);
    std::vector<Dma> reads;
    for (std::uint64_t n = 2 + below(2); n > 0; --n) {
      Op w = access(c);
      w.write = true;
      ops.push_back(w);
      if (chance(40)) ops.push_back(acquire(w.core, static_cast<unsigned>(below(kSems))));
      ops.push_back(post(w.core));
      ops.push_back(land(w.core, m2s(q)));
      Dma d = dma(c);
      d.src_core = w.core;
      d.src_sbuf = true;
      d.src_off = below(w.partitions) * c.partition + w.offset;
      d.len = w.bytes;
      reads.push_back(d);
    }
    for (const Dma& d : reads) {
      ops.push_back(take(q));
      Op lp;
      lp.kind = Op::kLandPair;
      lp.target = q;
      lp.dmas.push_back(d);
      ops.push_back(lp);
    }
    std::vector<Op> kept;
    for (Op& op : ops) {
      if (!chance(5)) kept.push_back(std::move(op));
    }
    return kept;
  }

  /// Items DMAed into core b's SBUF, each followed by an increment of its semaphore; b takes
  /// them one at a time: a wait for 1, a read of the item, its own decrement, a fence (mostly).
  /// Steps dropped now and then, and other threads' operations in between, make some race.
  std::vector<Op> consume(const Config& c) {
    std::vector<Op> ops;
    const CoreId b = core(c);
    const auto idx = static_cast<unsigned>(below(kSems));
    const QueueKey q = queue(c);
    std::vector<Dma> items;
    for (std::uint64_t n = 2 + below(3); n > 0; --n) {
      ring(c, core(c), q, ops);
      Dma d = dma(c);
      d.dst_core = b;
      d.dst_sbuf = true;
      d.dst_off = sbuf_offset(c);
      d.len = std::min(d.len, c.partition - d.dst_off % c.partition);
      items.push_back(d);
      Op lp;
      lp.kind = Op::kLandPair;
      lp.target = q;
      lp.dmas.push_back(d);
      lp.sems.push_back(SemRef{b, soc::SemWindow::kInc, idx});
      ops.push_back(lp);
    }
    for (const Dma& d : items) {
      Op w = acquire(b, idx);
      w.one = true;
      ops.push_back(w);
      Op read;
      read.kind = Op::kAccess;
      read.core = b;
      read.partitions = static_cast<unsigned>(d.dst_off / c.partition) + 1;
      read.offset = d.dst_off % c.partition;
      read.bytes = d.len;
      read.word = word();
      ops.push_back(read);
      ops.push_back(post(b));
      Effect e;
      e.kind = Effect::kSem;
      e.sem = SemRef{b, soc::SemWindow::kDec, idx};
      ops.push_back(land(b, e));
      if (chance(85)) {
        Op f;
        f.kind = Op::kFence;
        f.core = b;
        ops.push_back(f);
      }
    }
    std::vector<Op> kept;
    for (Op& op : ops) {
      if (!chance(4)) kept.push_back(std::move(op));
    }
    return kept;
  }

  Op one(const Config& c) {
    Op op;
    const std::uint64_t r = below(100);
    if (r < 28) {
      op = access(c);
      if (chance(30)) {  // a strided word: runs of each partition with gaps between them
        std::uint64_t at = below(0x10);
        for (std::uint64_t n = 2 + below(4); n > 0 && at < c.partition; --n) {
          const std::uint64_t hi = std::min(at + 1 + below(6), c.partition);
          op.runs.emplace_back(at, hi);
          at = hi + 1 + below(c.partition / 4);
        }
      }
    } else if (r < 43) {
      op.kind = Op::kPost;
      op.core = core(c);
    } else if (r < 58) {
      op.kind = Op::kLandPosted;
      op.pick = static_cast<unsigned>(below(8));
      op.known = !chance(3);
      const std::uint64_t n = 1 + (chance(25) ? below(3) : 0);
      for (std::uint64_t i = 0; i < n; ++i) {
        Effect e;
        const std::uint64_t k = below(100);
        e.kind = k < 45 ? Effect::kM2S : k < 75 ? Effect::kS2M : Effect::kSem;
        std::tie(e.core, e.engine, e.queue) = queue(c);
        e.pairs = 1 + static_cast<unsigned>(below(3));
        e.sem = sem(c);
        op.effects.push_back(e);
      }
    } else if (r < 74) {
      op.kind = Op::kTake;
      op.pick = static_cast<unsigned>(below(8));
      op.word = word();
    } else if (r < 90) {
      op.kind = Op::kLandPair;
      op.pick = static_cast<unsigned>(below(8));
      op.begin = chance(90);
      const std::uint64_t n = chance(15) ? 0 : chance(80) ? 1 : 2;
      for (std::uint64_t i = 0; i < n; ++i) op.dmas.push_back(dma(c));
      if (chance(35)) {
        for (std::uint64_t i = 0, m = 1 + below(2); i < m; ++i) op.sems.push_back(sem(c));
      }
    } else if (r < 96) {
      op.kind = Op::kAcquire;
      op.core = core(c);
      op.idx = static_cast<unsigned>(below(kSems));
      op.pick = static_cast<unsigned>(below(8));
    } else if (r < 98) {
      op.kind = Op::kFence;
      op.core = core(c);
    } else {
      op.kind = Op::kDirectSem;
      op.sems.push_back(sem(c));
    }
    return op;
  }

  std::mt19937_64 rng_;
  bool pooled_ = false;
  std::array<QueueKey, 2> hot_;
  std::size_t next_word_ = 0;
};

// ---- shrinking a failing program ----

bool fails(const Config& cfg, const std::vector<Op>& ops) {
  return Harness(cfg, nullptr).run(ops, nullptr).has_value();
}

/// Drops operations one at a time, then effects, DMAs and semaphore writes of those left,
/// while it still fails (greedy, to a fixed point).
std::vector<Op> shrink(const Config& cfg, std::vector<Op> ops) {
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t i = ops.size(); i-- > 0;) {
      std::vector<Op> t = ops;
      t.erase(t.begin() + static_cast<std::ptrdiff_t>(i));
      if (fails(cfg, t)) {
        ops = std::move(t);
        progress = true;
      }
    }
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const auto try_parts = [&](auto member) {
        for (std::size_t j = (ops[i].*member).size(); j-- > 0;) {
          std::vector<Op> t = ops;
          (t[i].*member).erase((t[i].*member).begin() + static_cast<std::ptrdiff_t>(j));
          if (fails(cfg, t)) {
            ops = std::move(t);
            progress = true;
          }
        }
      };
      try_parts(&Op::effects);
      try_parts(&Op::dmas);
      try_parts(&Op::runs);
      if (ops[i].kind != Op::kDirectSem) try_parts(&Op::sems);
    }
  }
  return ops;
}

TEST(RaceCheckerFuzz, MatchesANaiveVectorClockModel) {
  Stats stats;
  unsigned failures = 0;
  const char* env = std::getenv("SBRDMA_RACE_FUZZ_SEEDS");
  const unsigned seeds =
      env != nullptr ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : kSeeds;
  for (unsigned s = 0; s < seeds; ++s) {
    const std::uint64_t seed = kBaseSeed + s;
    Gen gen(seed);
    const Config cfg = gen.config();
    const std::vector<Op> ops = gen.program(cfg);
    const auto diff = Harness(cfg, nullptr).run(ops, &stats);
    if (!diff) continue;
    const std::vector<Op> small = shrink(cfg, ops);
    std::vector<std::string> log;
    const auto small_diff = Harness(cfg, &log).run(small, nullptr);
    std::ostringstream os;
    os << "seed " << seed << " (" << cfg.cores << " cores, " << cfg.engines << " engines x "
       << cfg.queues << " queues, partition " << hex(cfg.partition) << "): " << *diff
       << "\nshrunk to " << small.size() << " operations:\n"
       << "  FakeOrigins origins;\n  RaceChecker rc{" << cfg.cores << ", " << hex(cfg.partition)
       << ", origins};\n  base::Tick now;\n";
    for (const std::string& line : log) os << line << "\n";
    os << (small_diff ? *small_diff : std::string("(the shrunk program passes?)"));
    ADD_FAILURE() << os.str();
    if (++failures == 3) break;
  }
  // The programs do exercise both outcomes.
  if (seeds == kSeeds) {
    EXPECT_GT(stats.races, 10000U);
    EXPECT_GT(stats.clean, 800U);
    EXPECT_GT(stats.ordered, 6000U);
    EXPECT_GT(stats.takes, 10000U);
    EXPECT_GT(stats.unfenced, 20U);
  }
  RecordProperty("races", std::to_string(stats.races));
  RecordProperty("clean_programs", std::to_string(stats.clean));
  RecordProperty("ordered", std::to_string(stats.ordered));
  RecordProperty("acquires", std::to_string(stats.acquires));
  RecordProperty("unfenced_waits", std::to_string(stats.unfenced));
  RecordProperty("takes", std::to_string(stats.takes));
}

}  // namespace
}  // namespace sbrdma::device
