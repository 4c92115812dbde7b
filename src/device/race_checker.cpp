#include "device/race_checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "base/check.h"

namespace sbrdma::device {

RaceChecker::RaceChecker(std::size_t cores, std::uint64_t sbuf_partition_bytes,
                         const RaceOrigins& origins)
    : cores_(cores), partition_bytes_(sbuf_partition_bytes), origins_(&origins) {
  SBRDMA_CHECK(partition_bytes_ != 0);
  actors_.resize(cores);
  snapshots_.emplace_back();
  pairs_.emplace_back();
}

RaceChecker::~RaceChecker() = default;

bool RaceChecker::before(const Access& a, const Snapshot& s) {
  if (a.actor == s.self) return a.epoch <= s.epoch;
  return s.base != nullptr && a.actor < s.base->size() && a.epoch <= (*s.base)[a.actor];
}

void RaceChecker::join_into(Clock& c, const Snapshot& s) {
  if (s.base != nullptr) {
    if (c.size() < s.base->size()) c.resize(s.base->size());
    for (std::size_t i = 0; i < s.base->size(); ++i) c[i] = std::max(c[i], (*s.base)[i]);
  }
  if (c.size() <= s.self) c.resize(s.self + 1);
  c[s.self] = std::max(c[s.self], s.epoch);
}

void RaceChecker::join_actor(std::uint32_t actor, const Snapshot& s) {
  Actor& a = actors_[actor];
  auto c = a.base != nullptr ? std::make_shared<Clock>(*a.base) : std::make_shared<Clock>();
  join_into(*c, s);
  a.base = std::move(c);
}

std::uint32_t RaceChecker::snapshot_of(std::uint32_t actor) {
  Actor& a = actors_[actor];
  snapshots_.push_back(Snapshot{a.base, actor, a.epoch});
  ++a.epoch;  // what the actor does next is not before what it released
  return static_cast<std::uint32_t>(snapshots_.size() - 1);
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
  SBRDMA_CHECK(issuer < cores_);
  posted_[seq] = snapshot_of(issuer);
}

void RaceChecker::begin_posted(std::uint64_t seq) {
  const auto it = posted_.find(seq);
  current_ = it == posted_.end() ? 0 : it->second;
  if (it != posted_.end()) posted_.erase(it);
}

void RaceChecker::end_posted() {
  current_ = 0;
}

void RaceChecker::on_s2m_doorbell(CoreId core, unsigned engine, unsigned queue) {
  if (current_ != 0) actors_[queue_actor(core, engine, queue)].s2m = current_;
}

std::uint32_t RaceChecker::on_take(CoreId core, unsigned engine, unsigned queue, unsigned slot,
                                   std::uint32_t batch_clock, base::Tick now) {
  const std::uint32_t q = queue_actor(core, engine, queue);
  if (batch_clock != 0 && actors_[q].joined != batch_clock) {
    join_actor(q, snapshots_[batch_clock]);
    actors_[q].joined = batch_clock;
  }
  if (const std::uint32_t s = actors_[q].s2m; s != 0 && actors_[q].s2m_joined != s) {
    join_actor(q, snapshots_[s]);
    actors_[q].s2m_joined = s;
  }
  RaceAccess site;
  site.core = core;
  site.engine = engine;
  site.queue = queue;
  site.slot = slot;
  site.pc = origins_->descriptor_word(core, engine, queue, slot);
  site.time = now;
  pairs_.push_back(Pair{snapshot_of(q), add_site(site)});
  return static_cast<std::uint32_t>(pairs_.size() - 1);
}

void RaceChecker::on_dma(std::uint32_t pair, CoreId src_core, bool src_sbuf, std::uint64_t src_off,
                         CoreId dst_core, bool dst_sbuf, std::uint64_t dst_off, std::uint64_t len,
                         base::Tick now) {
  if (pair == 0 || len == 0) return;
  const Pair& p = pairs_[pair];
  const Snapshot& s = snapshots_[p.clock];
  // The landing's two sides, each its own site (the time is the landing's).
  RaceAccess read = sites_[p.site];
  read.time = now;
  RaceAccess write = read;
  write.write = true;
  const Access r{s.self, s.epoch, add_site(read)};
  access(src_core, src_sbuf, src_off, src_off + len, r, s, false);
  const Access w{s.self, s.epoch, add_site(write)};
  access(dst_core, dst_sbuf, dst_off, dst_off + len, w, s, true);
}

void RaceChecker::on_semaphore_write(CoreId core, soc::SemWindow w, unsigned idx) {
  if (current_ == 0) return;  // a direct set: before the run
  const std::uint64_t key =
      (std::uint64_t{core} << 32) | (std::uint64_t{w == soc::SemWindow::kEvents} << 31) | idx;
  join_into(semaphores_[key], snapshots_[current_]);
}

void RaceChecker::on_acquire(CoreId core, unsigned idx) {
  SBRDMA_CHECK(core < cores_);
  const auto it = semaphores_.find((std::uint64_t{core} << 32) | idx);
  if (it == semaphores_.end()) return;
  // The semaphore's clock as a snapshot of no actor's own (entry 0 is never beyond a join).
  Snapshot s{std::make_shared<const Clock>(it->second), 0, 0};
  join_actor(core, s);
}

void RaceChecker::on_core_access(CoreId core, unsigned partitions, std::uint64_t offset,
                                 std::uint64_t bytes, bool write, base::Tick now) {
  SBRDMA_CHECK(core < cores_);
  if (bytes == 0) return;
  const Actor& a = actors_[core];
  const Snapshot s{a.base, core, a.epoch};
  RaceAccess site;
  site.core = core;
  site.pc = origins_->running_word(core);
  site.write = write;
  site.time = now;
  const Access acc{core, a.epoch, add_site(site)};
  for (unsigned p = 0; p < partitions; ++p) {
    const std::uint64_t lo = std::uint64_t{p} * partition_bytes_ + offset;
    access(core, true, lo, lo + bytes, acc, s, write);
  }
}

void RaceChecker::cover(Shadow& shadow, std::uint64_t lo, std::uint64_t hi) {
  // Split the segment that holds a bound, so that one starts there.
  for (const std::uint64_t at : {lo, hi}) {
    auto it = shadow.upper_bound(at);
    if (it == shadow.begin()) continue;
    --it;
    if (it->first == at || it->second.hi <= at) continue;
    Segment tail = it->second;
    it->second.hi = at;
    shadow.emplace(at, std::move(tail));
  }
  // Fill the gaps inside [lo, hi) with fresh segments.
  std::uint64_t at = lo;
  auto it = shadow.lower_bound(lo);
  while (at < hi) {
    if (it == shadow.end() || it->first >= hi) {
      shadow.emplace_hint(it, at, Segment{hi, std::nullopt, {}});
      return;
    }
    if (it->first > at) shadow.emplace_hint(it, at, Segment{it->first, std::nullopt, {}});
    at = it->second.hi;
    ++it;
  }
}

void RaceChecker::access(CoreId mem_core, bool sbuf, std::uint64_t lo, std::uint64_t hi,
                         const Access& a, const Snapshot& s, bool write) {
  Shadow& shadow = memories_[{mem_core, sbuf}];
  cover(shadow, lo, hi);
  for (auto it = shadow.find(lo); it != shadow.end() && it->first < hi; ++it) {
    Segment& seg = it->second;
    const std::uint64_t seg_lo = it->first;
    if (seg.write && seg.write->actor != a.actor && !before(*seg.write, s)) {
      report(mem_core, sbuf, seg_lo, seg.hi, *seg.write, a);
    }
    if (write) {
      for (const Access& r : seg.reads) {
        if (r.actor != a.actor && !before(r, s)) report(mem_core, sbuf, seg_lo, seg.hi, r, a);
      }
      seg.write = a;
      seg.reads.clear();
    } else {
      auto mine = std::find_if(seg.reads.begin(), seg.reads.end(),
                               [&](const Access& r) { return r.actor == a.actor; });
      if (mine != seg.reads.end()) {
        *mine = a;
      } else {
        seg.reads.push_back(a);
      }
    }
  }
  // Neighbours that now say the same thing merge, so a buffer written whole stays one segment.
  auto it = shadow.find(lo);
  if (it != shadow.begin()) --it;
  while (it != shadow.end() && it->first < hi) {
    auto next = std::next(it);
    if (next == shadow.end()) break;
    const Segment& x = it->second;
    const Segment& y = next->second;
    const auto same = [](const std::optional<Access>& p, const std::optional<Access>& q) {
      return p.has_value() == q.has_value() &&
             (!p || (p->actor == q->actor && p->epoch == q->epoch && p->site == q->site));
    };
    const bool reads_same =
        x.reads.size() == y.reads.size() &&
        std::equal(x.reads.begin(), x.reads.end(), y.reads.begin(),
                   [&](const Access& p, const Access& q) { return same(p, q); });
    if (x.hi == next->first && same(x.write, y.write) && reads_same) {
      it->second.hi = y.hi;
      shadow.erase(next);
    } else {
      it = next;
    }
  }
}

void RaceChecker::report(CoreId mem_core, bool sbuf, std::uint64_t lo, std::uint64_t hi,
                         const Access& first, const Access& second) {
  ++total_;
  const RaceAccess& f = sites_[first.site];
  const RaceAccess& g = sites_[second.site];
  // A side is its core, program or DMA, and word: the engines and partitions one word
  // spreads over are one race.
  const auto side = [](const RaceAccess& x) {
    return (std::uint64_t{x.core} << 2) | (x.engine ? 2U : 0U) | (x.write ? 1U : 0U);
  };
  const auto word = [](const RaceAccess& x) { return x.pc ? *x.pc + 1 : 0; };
  const std::array<std::uint64_t, 4> key{side(f), word(f), side(g), word(g)};
  if (auto it = race_keys_.find(key); it != race_keys_.end()) {
    ++races_[it->second].repeats;
    return;
  }
  if (races_.size() >= kKept) return;
  race_keys_.emplace(key, races_.size());
  races_.push_back(Race{place(mem_core, sbuf, lo, hi), f, g, 0});
}

std::string RaceChecker::place(CoreId core, bool sbuf, std::uint64_t lo, std::uint64_t hi) const {
  if (!sbuf) return fmt::format("core {} memory bytes [{:#x}, {:#x})", core, lo, hi);
  const std::uint64_t part = lo / partition_bytes_;
  const std::uint64_t base = part * partition_bytes_;
  if (hi - base <= partition_bytes_) {
    return fmt::format("core {} SBUF partition {} bytes [{:#x}, {:#x})", core, part, lo - base,
                       hi - base);
  }
  return fmt::format("core {} SBUF bytes [{:#x}, {:#x}) (partition {} on)", core, lo, hi, part);
}

}  // namespace sbrdma::device
