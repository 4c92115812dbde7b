#include "device/race_checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "base/check.h"
#include "base/number_runs.h"

namespace sbrdma::device {

RaceChecker::RaceChecker(std::size_t cores, std::uint64_t sbuf_partition_bytes,
                         const RaceOrigins& origins)
    : partition_bytes_(sbuf_partition_bytes),
      origins_(&origins),
      cores_(cores, kNone),
      log_(sbuf_partition_bytes) {
  snapshots_.emplace_back();
  pairs_.emplace_back();
}

RaceChecker::~RaceChecker() = default;

std::uint32_t RaceChecker::entry(const Snapshot& s, std::uint32_t actor) {
  if (actor == s.self) return s.epoch;
  std::uint32_t v = s.base != nullptr && actor < s.base->size() ? (*s.base)[actor] : 0;
  if (actor == s.extra) v = std::max(v, s.extra_epoch);
  return v;
}

std::uint32_t RaceChecker::entry(const Actor& a, std::uint32_t actor) {
  std::uint32_t v = a.base != nullptr && actor < a.base->size() ? (*a.base)[actor] : 0;
  if (actor == a.extra) v = std::max(v, a.extra_epoch);
  return v;
}

bool RaceChecker::before(const Access& a, const Snapshot& s) {
  return a.epoch <= entry(s, a.actor);
}

bool RaceChecker::covers(const std::shared_ptr<const Clock>& a,
                         const std::shared_ptr<const Clock>& b) {
  if (b == nullptr || a == b) return true;
  if (a == covers_a_ && b == covers_b_) return covers_answer_;
  bool yes = true;
  for (std::size_t i = 0; i < b->size() && yes; ++i) {
    yes = (*b)[i] <= (a != nullptr && i < a->size() ? (*a)[i] : 0);
  }
  covers_a_ = a;
  covers_b_ = b;
  covers_answer_ = yes;
  return yes;
}

void RaceChecker::join_into(Clock& c, const Snapshot& s) {
  if (s.base != nullptr) {
    if (c.size() < s.base->size()) c.resize(s.base->size());
    for (std::size_t i = 0; i < s.base->size(); ++i) c[i] = std::max(c[i], (*s.base)[i]);
  }
  for (const auto& [who, epoch] : {std::pair{s.extra, s.extra_epoch}, std::pair{s.self, s.epoch}}) {
    if (who == kNone) continue;
    if (c.size() <= who) c.resize(who + 1);
    c[who] = std::max(c[who], epoch);
  }
}

void RaceChecker::join_actor(std::uint32_t actor, const Snapshot& s) {
  Actor& a = actors_[actor];
  const auto knows = [&](std::uint32_t who, std::uint32_t epoch) {
    return who == kNone || who == actor || entry(a, who) >= epoch;
  };
  // Nothing new: the usual case for a queue whose core released nothing since.
  if (knows(s.self, s.epoch) && knows(s.extra, s.extra_epoch) && covers(a.base, s.base)) {
    return;
  }
  // What the actor knew is in `s` but for the entry of s's own actor: share s's base and keep
  // that entry as the extra one (a queue taking its core's next batch).
  if (s.extra == kNone && s.self != kNone && s.self != actor &&
      (a.extra == kNone || a.extra == s.self || entry(s, a.extra) >= a.extra_epoch) &&
      covers(s.base, a.base)) {
    const std::uint32_t mine = a.extra == s.self ? a.extra_epoch : 0;
    a.base = s.base;
    a.extra = s.self;
    a.extra_epoch = std::max(mine, s.epoch);
    return;
  }
  auto c = a.base != nullptr ? std::make_shared<Clock>(*a.base) : std::make_shared<Clock>();
  if (a.extra != kNone) {
    if (c->size() <= a.extra) c->resize(a.extra + 1);
    (*c)[a.extra] = std::max((*c)[a.extra], a.extra_epoch);
  }
  join_into(*c, s);
  a.base = std::move(c);
  a.extra = kNone;
  a.extra_epoch = 0;
}

std::uint32_t RaceChecker::snapshot_of(std::uint32_t actor) {
  Actor& a = actors_[actor];
  Snapshot s{a.base, a.extra, a.extra_epoch, actor, a.epoch, 0, ++serials_};
  ++a.epoch;  // what the actor does next is not before what it released
  if (!free_snapshots_.empty()) {
    const std::uint32_t i = free_snapshots_.back();
    free_snapshots_.pop_back();
    snapshots_[i] = std::move(s);
    return i;
  }
  snapshots_.push_back(std::move(s));
  return static_cast<std::uint32_t>(snapshots_.size() - 1);
}

void RaceChecker::drop_snapshot(std::uint32_t i) {
  if (i == 0) return;
  snapshots_[i] = Snapshot{};
  free_snapshots_.push_back(i);
}

std::uint32_t RaceChecker::core_actor(CoreId core) {
  SBRDMA_CHECK(core < cores_.size());
  if (cores_[core] == kNone) {
    cores_[core] = static_cast<std::uint32_t>(actors_.size());
    actors_.emplace_back();
  }
  return cores_[core];
}

std::uint32_t RaceChecker::queue_actor(CoreId core, unsigned engine, unsigned queue) {
  const std::uint64_t key = (std::uint64_t{core} << 16) | (std::uint64_t{engine} << 8) | queue;
  auto [it, fresh] = queue_actors_.try_emplace(key, static_cast<std::uint32_t>(actors_.size()));
  if (fresh) actors_.emplace_back();
  return it->second;
}

std::uint32_t RaceChecker::add_site(RaceAccess a) {
  sites_.push_back(a);
  return static_cast<std::uint32_t>(sites_.size() - 1);
}

void RaceChecker::on_post(CoreId issuer, std::uint64_t seq) {
  posted_[seq] = Posted{snapshot_of(core_actor(issuer)), origins_->running_word(issuer)};
}

void RaceChecker::begin_posted(std::uint64_t seq) {
  const auto it = posted_.find(seq);
  current_ = it == posted_.end() ? 0 : it->second.clock;
  current_pc_ = it == posted_.end() ? std::nullopt : it->second.pc;
  captured_ = false;
  if (it != posted_.end()) posted_.erase(it);
}

void RaceChecker::end_posted() {
  if (!captured_) drop_snapshot(current_);  // no doorbell kept it: nothing will read it
  current_ = 0;
  current_pc_.reset();
}

std::uint32_t RaceChecker::capture_release() {
  if (current_ == 0) return 0;
  captured_ = true;
  ++snapshots_[current_].holders;
  return current_;
}

void RaceChecker::join_batch(std::uint32_t q, BatchClock b, unsigned dir) {
  if (b.clock == 0) return;
  Snapshot& s = snapshots_[b.clock];
  if (actors_[q].joined[dir] != s.serial) {
    join_actor(q, s);
    actors_[q].joined[dir] = s.serial;
  }
  // The batch holds its clock until its last pair (its index names it until then).
  if (b.done && --s.holders == 0) drop_snapshot(b.clock);
}

std::uint32_t RaceChecker::on_take(CoreId core, unsigned engine, unsigned queue, unsigned slot,
                                   BatchClock m2s, BatchClock s2m, base::Tick now) {
  const std::uint32_t q = queue_actor(core, engine, queue);
  join_batch(q, m2s, 0);
  join_batch(q, s2m, 1);
  RaceAccess site;
  site.core = core;
  site.engine = engine;
  site.queue = queue;
  site.slot = slot;
  site.pc = origins_->descriptor_word(core, engine, queue, slot);
  site.time = now;
  const Pair p{snapshot_of(q), add_site(site)};
  if (!free_pairs_.empty()) {
    const std::uint32_t i = free_pairs_.back();
    free_pairs_.pop_back();
    pairs_[i] = p;
    return i;
  }
  pairs_.push_back(p);
  return static_cast<std::uint32_t>(pairs_.size() - 1);
}

void RaceChecker::end_pair(std::uint32_t pair) {
  current_ = 0;
  if (pair == 0) return;
  drop_snapshot(pairs_[pair].clock);
  pairs_[pair] = Pair{};
  free_pairs_.push_back(pair);
}

void RaceChecker::on_dma(std::uint32_t pair, CoreId src_core, bool src_sbuf, std::uint64_t src_off,
                         CoreId dst_core, bool dst_sbuf, std::uint64_t dst_off, std::uint64_t len,
                         base::Tick now) {
  if (pair == 0 || len == 0) return;
  accesses_ += 2;
  const Pair& p = pairs_[pair];
  const Snapshot& s = snapshots_[p.clock];
  sites_[p.site].time = now;  // both sides of the pair are at its landing
  const Access read{s.self, s.epoch, p.site, false};
  const Access write{s.self, s.epoch, p.site, true};
  access(src_core, src_sbuf, src_off, src_off + len, read, s);
  access(dst_core, dst_sbuf, dst_off, dst_off + len, write, s);
  // A pair that copies onto bytes it reads: a device moves it in pieces, and nothing orders
  // a piece's write before another's read of the same bytes (the simulator copies as by
  // memmove). A copy onto the very same bytes leaves them as they were. [CHOICE D49c]
  if (src_core == dst_core && src_sbuf == dst_sbuf && src_off != dst_off) {
    std::uint64_t lo = std::max(src_off, dst_off);
    const std::uint64_t hi = std::min(src_off, dst_off) + len;
    while (lo < hi) {
      const std::uint64_t end =
          src_sbuf ? std::min(hi, (lo / partition_bytes_ + 1) * partition_bytes_) : hi;
      log_.add(src_core, src_sbuf, lo, end, side(read), side(write), true);
      lo = end;
    }
  }
}

void RaceChecker::on_semaphore_write(CoreId core, soc::SemWindow w, unsigned idx,
                                     std::uint32_t before, std::uint32_t after) {
  // A direct set is before the run; an EVENTS bit is no value any wait reads.
  if (current_ == 0 || w == soc::SemWindow::kEvents) return;
  const std::uint64_t key = (std::uint64_t{core} << 32) | idx;
  std::vector<SemWrite>& pending = semaphores_[key];
  Snapshot by = snapshots_[current_];
  by.holders = 0;
  const bool additive = w == soc::SemWindow::kInc || w == soc::SemWindow::kDec;
  pending.push_back(
      SemWrite{std::move(by), before, after, additive, current_pc_, sem_serials_[key]++});
  if (pending.size() > kSemWritesKept) {
    // The two oldest become one: both clocks, the first's value before, the second's after
    // (no one writer's any more: a fence does not make it the waiter's own).
    auto c = std::make_shared<Clock>();
    join_into(*c, pending[0].by);
    join_into(*c, pending[1].by);
    Snapshot both;
    both.base = std::move(c);
    pending[1] = SemWrite{std::move(both),  pending[0].before,
                          pending[1].after, pending[0].additive && pending[1].additive,
                          std::nullopt,     pending[1].serial};
    pending.erase(pending.begin());
  }
}

void RaceChecker::on_fence(CoreId core) {
  Actor& a = actors_[core_actor(core)];
  a.fenced = a.epoch;  // every write it posted so far took an epoch below this
}

void RaceChecker::on_acquire(CoreId core, unsigned idx,
                             const std::function<bool(std::uint32_t)>& holds, base::Tick now) {
  const std::uint64_t key = (std::uint64_t{core} << 32) | idx;
  const auto it = semaphores_.find(key);
  if (it == semaphores_.end()) return;
  std::vector<SemWrite>& pending = it->second;
  const std::uint32_t actor = core_actor(core);
  Actor& a = actors_[actor];
  // The writes the wait counted: up to the last that took the condition from false to true.
  // None where it held before them all (what made it hold was joined already, or set before
  // the run). A wait looked at again as it passes finds nothing more.
  std::size_t counted = 0;
  // The waiter's own posted writes that a fence saw land are before the wait on any device,
  // wherever they landed among the others. Where all are increments and decrements (which
  // commute), each taking the value where the one before left it, they count first; with a
  // SET among them, or a value set directly in between, the order they landed in is the value.
  const auto own = [&](const SemWrite& sw) {
    return sw.by.self == actor && sw.by.epoch < a.fenced;
  };
  bool additive = true;
  for (std::size_t k = 0; k < pending.size() && additive; ++k) {
    additive = pending[k].additive && (k == 0 || pending[k].before == pending[k - 1].after);
  }
  const bool own_first = additive && std::any_of(pending.begin(), pending.end(), own);
  if (own_first) {
    std::uint32_t v = pending.front().before;
    for (const SemWrite& sw : pending) {
      if (own(sw)) v += sw.after - sw.before;
    }
    for (std::size_t k = 0; k < pending.size(); ++k) {
      if (own(pending[k])) continue;
      const std::uint32_t next = v + (pending[k].after - pending[k].before);
      if (!holds(v) && holds(next)) counted = k + 1;
      v = next;
    }
  } else {
    for (std::size_t k = 0; k < pending.size(); ++k) {
      if (!holds(pending[k].before) && holds(pending[k].after)) counted = k + 1;
    }
  }
  if (counted == 0) return;
  // Where the wait was issued (on_wait), if it was announced: the look that joins takes it (a
  // blocked wait is looked at again as it passes, and that look joins nothing more).
  std::optional<std::uint64_t> issue;
  if (const auto w = waits_.find(core); w != waits_.end()) {
    if (w->second.idx == idx) issue = w->second.serial;
    waits_.erase(w);
  }
  check_unfenced(core, idx, pending, counted, own_first, holds, issue, now);
  Clock sem;
  for (std::size_t k = 0; k < counted; ++k) join_into(sem, pending[k].by);
  pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(counted));
  bool known = true;
  for (std::size_t i = 0; i < sem.size() && known; ++i) {
    known = sem[i] <= entry(a, static_cast<std::uint32_t>(i));
  }
  if (known) return;
  auto c = a.base != nullptr ? std::make_shared<Clock>(*a.base) : std::make_shared<Clock>();
  if (c->size() < sem.size()) c->resize(sem.size());
  for (std::size_t i = 0; i < sem.size(); ++i) (*c)[i] = std::max((*c)[i], sem[i]);
  if (a.extra != kNone) {
    if (c->size() <= a.extra) c->resize(a.extra + 1);
    (*c)[a.extra] = std::max((*c)[a.extra], a.extra_epoch);
  }
  a.base = std::move(c);
  a.extra = kNone;
  a.extra_epoch = 0;
}

void RaceChecker::on_wait(CoreId core, unsigned idx) {
  const std::uint64_t key = (std::uint64_t{core} << 32) | idx;
  const auto it = sem_serials_.find(key);
  waits_[core] = WaitStart{idx, it == sem_serials_.end() ? 0 : it->second};
}

void RaceChecker::check_unfenced(CoreId core, unsigned idx, const std::vector<SemWrite>& pending,
                                 std::size_t counted, bool own_first,
                                 const std::function<bool(std::uint32_t)>& holds,
                                 std::optional<std::uint64_t> issue, base::Tick now) {
  const std::uint32_t actor = core_actor(core);
  const Actor& a = actors_[actor];
  // The writes that had landed when the wait was issued (on_wait), or all of them (a wait
  // that held at once, or one the caller did not announce).
  const std::size_t issued = issue ? static_cast<std::size_t>(std::count_if(
                                         pending.begin(), pending.end(),
                                         [&](const SemWrite& sw) { return sw.serial < *issue; }))
                                   : pending.size();
  const auto mine = [&](const SemWrite& sw) { return sw.by.self == actor; };
  const auto fenced = [&](const SemWrite& sw) { return mine(sw) && sw.by.epoch < a.fenced; };
  // The waiter's updates no fence saw land, in the order they landed: a core's writes to its own
  // semaphores land in the order it issued them (D26a), so a device that looks at the wait early
  // has seen some first ones of them.
  std::vector<std::size_t> unfenced;
  for (std::size_t k = 0; k < pending.size(); ++k) {
    if (mine(pending[k]) && !fenced(pending[k])) unfenced.push_back(k);
  }
  if (unfenced.empty()) return;
  // The values are worked out again without some writes: only where each write took the
  // value where the one before left it (no value set directly between).
  for (std::size_t k = 1; k < pending.size(); ++k) {
    if (pending[k].before != pending[k - 1].after) return;
  }
  const auto others_in = [&](std::size_t n) {
    return static_cast<std::size_t>(std::count_if(pending.begin(), pending.begin() + n,
                                                  [&](const SemWrite& sw) { return !mine(sw); }));
  };
  const std::size_t counted_others = others_in(counted);
  std::size_t fewest = counted_others;
  std::size_t cut = unfenced.size();  // the first own update left out where it needs fewest
  for (std::size_t j = 0; j < unfenced.size(); ++j) {
    // Only the first j of them have landed: the wait, looked at as it was issued, passes
    // then if its condition holds (joining up to the last write that made it so, as
    // on_acquire does), else at the first later write that makes it hold; or not yet.
    std::uint32_t v = pending.front().before;
    if (own_first) {
      for (const SemWrite& sw : pending) {
        if (fenced(sw)) v += sw.after - sw.before;
      }
    }
    std::size_t upto = 0;
    std::optional<std::size_t> passed;
    for (std::size_t k = 0; k <= pending.size() && !passed; ++k) {
      if (k == issued && holds(v)) passed = upto;
      if (k == pending.size()) break;
      const SemWrite& sw = pending[k];
      if ((mine(sw) && !fenced(sw) && k >= unfenced[j]) || (own_first && fenced(sw))) {
        continue;
      }
      const std::uint32_t next = sw.additive ? v + (sw.after - sw.before) : sw.after;
      if (!holds(v) && holds(next)) {
        upto = k + 1;
        if (k >= issued) passed = upto;
      }
      v = next;
    }
    if (!passed) continue;  // such a device waits on: it passes with more landed
    if (const std::size_t o = others_in(*passed); o < fewest) {
      fewest = o;
      cut = j;
    }
  }
  if (fewest == counted_others) return;
  // Past kSemWritesKept writes the oldest merge: counts of them no longer count writes.
  for (std::size_t k = 0; k < counted; ++k) {
    if (pending[k].by.self == kNone) return;
  }
  // What the other writes it may pass without carry: nothing where the fewer it needs there,
  // and the waiter itself, know it all already.
  Clock have;
  std::size_t seen = 0;
  bool more = false;
  for (std::size_t k = 0; k < counted && !more; ++k) {
    const SemWrite& sw = pending[k];
    if (mine(sw)) continue;
    if (seen++ < fewest) {
      join_into(have, sw.by);
      continue;
    }
    Clock c;
    join_into(c, sw.by);
    for (std::size_t i = 0; i < c.size() && !more; ++i) {
      if (i == actor) continue;  // what it knows of itself
      const std::uint32_t known =
          std::max(i < have.size() ? have[i] : 0, entry(a, static_cast<std::uint32_t>(i)));
      more = c[i] > known;
    }
  }
  if (!more) return;
  ++unfenced_total_;
  const std::optional<std::size_t> pc = origins_->running_word(core);
  const auto key = std::pair{core, pc ? *pc + 1 : 0};
  if (const auto it = unfenced_keys_.find(key); it != unfenced_keys_.end()) {
    ++unfenced_[it->second].repeats;
    return;
  }
  if (unfenced_.size() >= kKept) return;
  UnfencedWait w{core, pc, idx, now, {}, counted_others, fewest, 0};
  // The own updates it may pass without that it counted here.
  for (std::size_t j = cut; j < unfenced.size() && unfenced[j] < counted; ++j) {
    if (const auto& word = pending[unfenced[j]].pc) w.own.push_back(*word);
  }
  std::sort(w.own.begin(), w.own.end());
  w.own.erase(std::unique(w.own.begin(), w.own.end()), w.own.end());
  unfenced_keys_.emplace(key, unfenced_.size());
  unfenced_.push_back(std::move(w));
}

void RaceChecker::on_core_access(CoreId core, unsigned partitions, std::uint64_t offset,
                                 std::uint64_t bytes, bool write, base::Tick now) {
  const ByteRun run{offset, offset + bytes};
  on_core_access(core, partitions, std::span<const ByteRun>(&run, 1), write, now);
}

void RaceChecker::on_core_access(CoreId core, unsigned partitions, std::span<const ByteRun> runs,
                                 bool write, base::Tick now) {
  std::vector<ByteRun> kept;  // the non-empty runs
  kept.reserve(runs.size());
  bool within = true;  // all inside the first partition's bytes
  for (const ByteRun& r : runs) {
    if (r.second <= r.first) continue;
    SBRDMA_CHECK_MSG(kept.empty() || kept.back().second <= r.first,
                     "core access runs must ascend without overlapping");
    within = within && r.second <= partition_bytes_;
    kept.push_back(r);
  }
  if (kept.empty()) return;
  accesses_ += kept.size();
  const std::uint32_t actor = core_actor(core);
  const Actor& a = actors_[actor];
  const Snapshot s{a.base, a.extra, a.extra_epoch, actor, a.epoch, 0, 0};
  RaceAccess site;
  site.core = core;
  site.pc = origins_->running_word(core);
  site.time = now;
  const Access acc{actor, a.epoch, add_site(site), write};
  std::vector<Shadow>& shadows = memories_[(std::uint64_t{core} << 1) | 1U];
  for (unsigned p = 0; p < partitions; ++p) {
    const std::uint64_t at = std::uint64_t{p} * partition_bytes_;
    if (kept.size() == 1 || !within) {
      for (const ByteRun& r : kept) access(core, true, at + r.first, at + r.second, acc, s);
      continue;
    }
    if (shadows.size() <= p) shadows.resize(p + 1);
    access_runs_in(shadows[p], core, at, kept, acc, s);
  }
}

std::size_t RaceChecker::cover(Shadow& shadow, std::uint64_t lo, std::uint64_t hi) {
  // The first segment that ends past lo; one that starts before lo is split there.
  std::size_t i = static_cast<std::size_t>(
      std::partition_point(shadow.begin(), shadow.end(),
                           [lo](const Segment& seg) { return seg.hi <= lo; }) -
      shadow.begin());
  if (i < shadow.size() && shadow[i].lo < lo) {
    Segment tail = shadow[i];
    tail.lo = lo;
    shadow[i].hi = lo;
    shadow.insert(shadow.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(tail));
    ++i;
  }
  const std::size_t first = i;
  // Walk [lo, hi): fill each gap with a fresh segment, split the one that crosses hi.
  std::uint64_t at = lo;
  while (at < hi) {
    if (i == shadow.size() || shadow[i].lo >= hi) {
      shadow.insert(shadow.begin() + static_cast<std::ptrdiff_t>(i),
                    Segment{at, hi, std::nullopt, {}});
      break;
    }
    if (shadow[i].lo > at) {
      const std::uint64_t next = shadow[i].lo;
      shadow.insert(shadow.begin() + static_cast<std::ptrdiff_t>(i),
                    Segment{at, next, std::nullopt, {}});
      at = next;
      ++i;
      continue;
    }
    if (shadow[i].hi > hi) {
      Segment tail = shadow[i];
      tail.lo = hi;
      shadow[i].hi = hi;
      shadow.insert(shadow.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(tail));
    }
    at = shadow[i].hi;
    ++i;
  }
  return first;
}

void RaceChecker::access(CoreId mem_core, bool sbuf, std::uint64_t lo, std::uint64_t hi,
                         const Access& a, const Snapshot& s) {
  // One shadow per SBUF partition (small trees), one for each other memory.
  std::vector<Shadow>& shadows = memories_[(std::uint64_t{mem_core} << 1) | (sbuf ? 1U : 0U)];
  while (lo < hi) {
    const std::uint64_t part = sbuf ? lo / partition_bytes_ : 0;
    const std::uint64_t end = sbuf ? std::min(hi, (part + 1) * partition_bytes_) : hi;
    if (shadows.size() <= part) shadows.resize(part + 1);
    access_in(shadows[part], mem_core, sbuf, lo, end, a, s);
    lo = end;
  }
}

void RaceChecker::access_in(Shadow& shadow, CoreId mem_core, bool sbuf, std::uint64_t lo,
                            std::uint64_t hi, const Access& a, const Snapshot& s) {
  const std::size_t first = cover(shadow, lo, hi);
  std::size_t end = first;
  for (; end < shadow.size() && shadow[end].lo < hi; ++end)
    touch(shadow[end], mem_core, sbuf, a, s);
  // The touched segments and the one on each side.
  merge_alike(shadow, first == 0 ? 0 : first - 1, std::min(shadow.size(), end + 1));
}

void RaceChecker::access_runs_in(Shadow& shadow, CoreId mem_core, std::uint64_t base,
                                 std::span<const ByteRun> runs, const Access& a,
                                 const Snapshot& s) {
  // A new vector, built in one walk: the old segments moved over, split at each run's ends,
  // fresh ones in a run's gaps. (cover() per run would shift the vector's tail once each.)
  Shadow out;
  out.reserve(shadow.size() + 2 * runs.size() + 1);
  std::vector<std::pair<std::size_t, std::size_t>> touched;  // out indices, per run
  touched.reserve(runs.size());
  std::size_t j = 0;
  const std::size_t n = shadow.size();
  for (const auto& [run_lo, run_hi] : runs) {
    const std::uint64_t lo = base + run_lo;
    const std::uint64_t hi = base + run_hi;
    while (j < n && shadow[j].hi <= lo) out.push_back(std::move(shadow[j++]));
    if (j < n && shadow[j].lo < lo) {  // crosses lo: its head stays outside
      Segment head = shadow[j];
      head.hi = lo;
      out.push_back(std::move(head));
      shadow[j].lo = lo;
    }
    const std::size_t first = out.size();
    for (std::uint64_t at = lo; at < hi;) {
      if (j == n || shadow[j].lo >= hi) {
        out.push_back(Segment{at, hi, std::nullopt, {}});
        break;
      }
      if (shadow[j].lo > at) {
        out.push_back(Segment{at, shadow[j].lo, std::nullopt, {}});
        at = shadow[j].lo;
        continue;
      }
      if (shadow[j].hi > hi) {  // crosses hi: its tail stays for what comes next
        Segment head = shadow[j];
        head.hi = hi;
        out.push_back(std::move(head));
        shadow[j].lo = hi;
        break;
      }
      at = shadow[j].hi;
      out.push_back(std::move(shadow[j++]));
    }
    touched.emplace_back(first, out.size());
  }
  while (j < n) out.push_back(std::move(shadow[j++]));
  shadow = std::move(out);
  for (const auto& [first, end] : touched) {
    for (std::size_t k = first; k < end; ++k) touch(shadow[k], mem_core, true, a, s);
  }
  // Segments the runs did not touch were distinct from their neighbours already: one pass
  // from before the first run to after the last merges as a pass per run would have.
  if (!touched.empty()) {
    const std::size_t first = touched.front().first;
    merge_alike(shadow, first == 0 ? 0 : first - 1,
                std::min(shadow.size(), touched.back().second + 1));
  }
}

void RaceChecker::touch(Segment& seg, CoreId mem_core, bool sbuf, const Access& a,
                        const Snapshot& s) {
  if (seg.write && seg.write->actor != a.actor && !before(*seg.write, s)) {
    report(mem_core, sbuf, seg.lo, seg.hi, *seg.write, a);
  }
  if (a.write) {
    for (const Access& r : seg.reads) {
      if (r.actor != a.actor && !before(r, s)) report(mem_core, sbuf, seg.lo, seg.hi, r, a);
    }
    seg.write = a;
    seg.reads.clear();
    return;
  }
  auto mine = std::find_if(seg.reads.begin(), seg.reads.end(),
                           [&](const Access& r) { return r.actor == a.actor; });
  if (mine != seg.reads.end()) {
    *mine = a;
  } else {
    seg.reads.push_back(a);
  }
}

void RaceChecker::merge_alike(Shadow& shadow, std::size_t from, std::size_t to) {
  // Neighbours that now say the same thing merge, so a buffer written whole stays one segment.
  const auto same = [](const std::optional<Access>& p, const std::optional<Access>& q) {
    return p.has_value() == q.has_value() && (!p || (p->actor == q->actor && p->epoch == q->epoch &&
                                                     p->site == q->site && p->write == q->write));
  };
  const auto alike = [&](const Segment& x, const Segment& y) {
    return x.hi == y.lo && same(x.write, y.write) && x.reads.size() == y.reads.size() &&
           std::equal(x.reads.begin(), x.reads.end(), y.reads.begin(),
                      [&](const Access& p, const Access& q) { return same(p, q); });
  };
  std::size_t kept = from;  // the segment the next may merge into
  for (std::size_t k = from + 1; k < to; ++k) {
    if (alike(shadow[kept], shadow[k])) {
      shadow[kept].hi = shadow[k].hi;
    } else if (++kept != k) {
      shadow[kept] = std::move(shadow[k]);
    }
  }
  if (kept + 1 < to) {
    shadow.erase(shadow.begin() + static_cast<std::ptrdiff_t>(kept) + 1,
                 shadow.begin() + static_cast<std::ptrdiff_t>(to));
  }
}

RaceAccess RaceChecker::side(const Access& a) const {
  RaceAccess x = sites_[a.site];
  x.write = a.write;
  return x;
}

void RaceChecker::report(CoreId mem_core, bool sbuf, std::uint64_t lo, std::uint64_t hi,
                         const Access& first, const Access& second) {
  log_.add(mem_core, sbuf, lo, hi, side(first), side(second));
}

RaceLog::RaceLog(std::uint64_t sbuf_partition_bytes) : partition_bytes_(sbuf_partition_bytes) {
  SBRDMA_CHECK(partition_bytes_ != 0);
}

void RaceLog::add(CoreId mem_core, bool sbuf, std::uint64_t lo, std::uint64_t hi,
                  const RaceAccess& first, const RaceAccess& second, bool self) {
  ++total_;
  const auto key_of = [](const RaceAccess& x) {
    return (std::uint64_t{x.core} << 2) | (x.engine ? 2U : 0U) | (x.write ? 1U : 0U);
  };
  const auto word = [](const RaceAccess& x) { return x.pc ? *x.pc + 1 : 0; };
  const std::array<std::uint64_t, 5> key{key_of(first), word(first), key_of(second), word(second),
                                         self ? 1U : 0U};
  const std::uint64_t part = sbuf ? lo / partition_bytes_ : 0;
  const std::uint64_t base = part * partition_bytes_;
  if (auto it = keys_.find(key); it != keys_.end()) {
    Race& r = races_[it->second];
    ++r.repeats;
    const auto other = [](const RaceAccess& kept, const RaceAccess& x) {
      return kept.engine != x.engine || kept.queue != x.queue || kept.slot != x.slot;
    };
    r.first_others = r.first_others || other(r.first, first);
    r.second_others = r.second_others || other(r.second, second);
    if (r.mem_core == mem_core && r.sbuf == sbuf) {
      r.first_partition = std::min(r.first_partition, part);
      r.last_partition = std::max(r.last_partition, part);
      if (sbuf) {
        if (r.partitions.size() <= part) r.partitions.resize(part + 1);
        r.partitions[part] = true;
      }
      r.lo = std::min(r.lo, lo - base);
      r.hi = std::max(r.hi, hi - base);
      add_span(r, lo - base, hi - base);
    }
    return;
  }
  if (races_.size() >= kKept) return;
  keys_.emplace(key, races_.size());
  Race r{first, second,    0,         mem_core, sbuf,  part,  part,
         {},    lo - base, hi - base, {},       false, false, self};
  if (sbuf) {
    r.partitions.resize(part + 1);
    r.partitions[part] = true;
  }
  r.spans.emplace_back(lo - base, hi - base);
  races_.push_back(std::move(r));
}

void RaceLog::add_span(Race& r, std::uint64_t lo, std::uint64_t hi) {
  if (r.spans.empty()) return;  // past kSpansKept: the hull only
  auto& spans = r.spans;
  // Merge [lo, hi) with the spans it overlaps or touches.
  auto it = std::lower_bound(spans.begin(), spans.end(), lo,
                             [](const auto& sp, std::uint64_t x) { return sp.second < x; });
  auto last = it;
  while (last != spans.end() && last->first <= hi) {
    lo = std::min(lo, last->first);
    hi = std::max(hi, last->second);
    ++last;
  }
  it = spans.erase(it, last);
  spans.insert(it, {lo, hi});
  if (spans.size() > Race::kSpansKept) spans.clear();
}

namespace {

/// "2nd", "3rd", "8th", "11th", "21st".
std::string ordinal(std::uint64_t n) {
  const std::uint64_t tens = n % 100;
  const char* suffix = tens >= 11 && tens <= 13 ? "th"
                       : n % 10 == 1            ? "st"
                       : n % 10 == 2            ? "nd"
                       : n % 10 == 3            ? "rd"
                                                : "th";
  return fmt::format("{}{}", n, suffix);
}

std::string range_text(std::uint64_t lo, std::uint64_t hi) {
  return fmt::format("[{:#x}, {:#x})", lo, hi);
}

/// "bytes [0x0, 0x100)", "bytes [0x0, 0x10) and [0x2000, 0x2010)", "bytes in [0x0, 0x9000)".
std::string bytes_text(const Race& r) {
  if (r.spans.empty()) return "bytes in " + range_text(r.lo, r.hi);
  std::vector<std::string> parts;
  for (const auto& [lo, hi] : r.spans) parts.push_back(range_text(lo, hi));
  return "bytes " + base::listed(parts);
}

/// "partitions 0-127", "partitions 0-3 and 8-11", "partitions 0-120 (every 8th)",
/// "37 of partitions 0-127".
std::string partitions_text(const Race& r) {
  std::vector<std::uint64_t> hit;
  for (std::uint64_t p = 0; p < r.partitions.size(); ++p) {
    if (r.partitions[p]) hit.push_back(p);
  }
  // where() asks only for a race over two partitions or more.
  const auto runs = base::consecutive_runs(hit);
  if (runs.size() <= 3) {
    std::vector<std::string> parts;
    for (const auto& x : runs) parts.push_back(base::run_text(x));
    return "partitions " + base::listed(parts);
  }
  bool strided = true;  // single partitions a step apart
  const std::uint64_t step = runs[1].first - runs[0].first;
  for (std::size_t i = 0; i < runs.size() && strided; ++i) {
    strided =
        runs[i].first == runs[i].second && (i == 0 || runs[i].first - runs[i - 1].first == step);
  }
  if (strided) {
    return fmt::format("partitions {}-{} (every {})", runs.front().first, runs.back().second,
                       ordinal(step));
  }
  return fmt::format("{} of partitions {}-{}", hit.size(), runs.front().first, runs.back().second);
}

}  // namespace

std::string RaceChecker::where(const Race& r) {
  if (!r.sbuf) return fmt::format("core {} memory {}", r.mem_core, bytes_text(r));
  if (r.first_partition == r.last_partition) {
    return fmt::format("core {} SBUF partition {} {}", r.mem_core, r.first_partition,
                       bytes_text(r));
  }
  return fmt::format("core {} SBUF {} of {}", r.mem_core, bytes_text(r), partitions_text(r));
}

}  // namespace sbrdma::device
