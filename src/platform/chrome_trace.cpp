#include "platform/chrome_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <utility>

#include "base/bits.h"
#include "base/check.h"
#include "platform/simulation.h"
#include "soc/udma_descriptor.h"
#include "soc/udma_regs.h"

namespace sbrdma::platform {
namespace {

constexpr unsigned kPoolTid = 0;
constexpr unsigned kQ7Tid = 1;     // + PRID
constexpr unsigned kDmaTid = 100;  // + engine, + kDmaLaneStride * lane
constexpr unsigned kDmaLaneStride = 100;
constexpr std::size_t kNoRow = SIZE_MAX;
constexpr device::CoreId kNoCore = UINT32_MAX;

/// engine_head()'s slot bits (below the ring id it keeps at bit 30).
constexpr std::uint32_t kSlotMask = (1U << 30) - 1;

/// JSON string escaping for the few texts we write (names are ASCII).
std::string quote(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

/// Parses "core<C>.dma<E>.<what>"; nullopt for other labels.
std::optional<std::pair<device::CoreId, unsigned>> engine_of(std::string_view label,
                                                             std::string_view what) {
  if (!label.starts_with("core") || !label.ends_with(what)) return std::nullopt;
  const char* p = label.data() + 4;
  const char* end = label.data() + label.size();
  device::CoreId core = 0;
  unsigned engine = 0;
  auto r1 = std::from_chars(p, end, core);
  if (r1.ec != std::errc{} || std::string_view(r1.ptr, end).substr(0, 4) != ".dma") {
    return std::nullopt;
  }
  auto r2 = std::from_chars(r1.ptr + 4, end, engine);
  if (r2.ec != std::errc{} || std::string_view(r2.ptr, end) != what) return std::nullopt;
  return std::pair{core, engine};
}

/// The thread of lane `lane` of engine `engine`: lane 0 is "DMA e" (tid 100 + e), lane k
/// "DMA e (k+1)" (tid 100 + e + 100 k).
unsigned dma_tid(unsigned engine, std::size_t lane) {
  SBRDMA_CHECK(engine < kDmaLaneStride);
  return kDmaTid + engine + kDmaLaneStride * static_cast<unsigned>(lane);
}

/// The lowest lane free at `from` (its last slice ended at or before `from`; a new lane if
/// none is), which then runs to `to`. Ticks are what the trace prints (exact picoseconds), so
/// a lane's slices never overlap in the file. Slices come in take order, the order of their
/// starts, so this greedy choice uses as few lanes as any layout can. [CHOICE D29g]
std::size_t take_lane(std::vector<base::Tick>& lane_end, base::Tick from, base::Tick to) {
  std::size_t lane = 0;
  while (lane < lane_end.size() && lane_end[lane] > from) ++lane;
  if (lane == lane_end.size()) lane_end.emplace_back();
  lane_end[lane] = to;
  return lane;
}

}  // namespace

std::string trace_us(base::Tick t) {
  return fmt::format("{}.{:06}", t.ps / 1000000, t.ps % 1000000);
}

ChromeTrace::ChromeTrace(const Simulation& sim) : sim_(sim) {}

void ChromeTrace::begin() {
  const std::vector<device::CoreId>& only = sim_.options().trace_cores;
  shown_.assign(sim_.topology().num_cores(), only.empty());
  for (const device::CoreId c : only) {
    if (c < shown_.size()) shown_[c] = true;
  }
  std::set<device::CoreId> traced;
  for (const device::CoreId c : sim_.program_cores()) {
    if (!shown_[c]) continue;
    traced.insert(c);
    CoreTrack& ct = cores_[c];
    const std::string first = sim_.word_name(c, 0);
    if (!first.empty()) ct.word = OpenSlice{first, base::Tick{}, 0, kPoolTid};
    // The peers its words name receive semaphore increments: trace their counters too.
    for (const device::CoreId p : sim_.peers_of(c)) {
      if (shown_[p]) traced.insert(p);
    }
  }
  sem_cores_.assign(traced.begin(), traced.end());
  sem_row_.assign(sim_.topology().num_cores(), kNoRow);
  for (std::size_t i = 0; i < sem_cores_.size(); ++i) sem_row_[sem_cores_[i]] = i;
  for (const auto& [core, ct] : cores_) {
    if (const auto pid = sim_.process_of(core)) {
      if (*pid >= core_of_pid_.size()) core_of_pid_.resize(*pid + 1, kNoCore);
      core_of_pid_[*pid] = core;
    }
  }
  const unsigned nsem = sim_.profile().semaphores;
  sems_.resize(sem_cores_.size() * nsem);
  sem_last_.assign(sems_.size(), LastSample{});
  for (std::size_t i = 0; i < sem_cores_.size(); ++i) {
    for (unsigned s = 0; s < nsem; ++s) {
      sems_[i * nsem + s] = sim_.machine().semaphore(sem_cores_[i], s);
    }
  }
}

void ChromeTrace::record(const sim::TraceRecord& r) {
  poll(last_);
  if (auto e = engine_of(r.label, ".step"); e && shown_[e->first]) {
    head_checks_.push_back({e->first, e->second, engine_head(e->first, e->second)});
  } else if (auto l = engine_of(r.label, ".land"); l && shown_[l->first]) {
    EngineTrack& et = engines_[*l];
    if (et.next < et.taken.size()) {
      Taken& p = et.taken[et.next++];
      const std::size_t lane = take_lane(et.lane_end, p.at, r.time);
      slice(l->first, dma_tid(l->second, lane), "descriptor", p.at, r.time, p.args);
      p.args = std::string();  // landed: its text is not needed again
    }
  }
  last_ = r.time;
}

void ChromeTrace::end(base::Tick t) {
  poll(last_);
  for (auto& [core, ct] : cores_) {
    if (ct.wait) wait_slice(core, *ct.wait, t);
    close_word(core, ct, t);
    ct.wait.reset();
    for (CoreTrack::Inner& i : ct.inner) events_.push_back(std::move(i.event));  // in no word
    ct.inner.clear();
  }
}

void ChromeTrace::poll(base::Tick t) {
  for (const HeadCheck& h : head_checks_) {
    if (engine_head(h.core, h.engine) != h.head_before) {
      EngineTrack& et = engines_[{h.core, h.engine}];
      et.taken.push_back({t, pair_args(h.core, h.engine, h.head_before & kSlotMask, et)});
    }
  }
  head_checks_.clear();
  // In core order, as a poll of every core would emit them.
  std::sort(ran_.begin(), ran_.end());
  ran_.erase(std::unique(ran_.begin(), ran_.end()), ran_.end());
  for (const device::CoreId core : ran_) poll_core(core, cores_.at(core), t);
  ran_.clear();
  if (!sem_log_.empty()) poll_semaphores(t);
}

void ChromeTrace::resumed(std::uint32_t pid) {
  if (pid < core_of_pid_.size() && core_of_pid_[pid] != kNoCore) ran_.push_back(core_of_pid_[pid]);
}

void ChromeTrace::poll_core(device::CoreId core, CoreTrack& ct, base::Tick t) {
  const firmware::PoolFirmware* fw = sim_.firmware(core);
  const CoreEnv* env = sim_.env(core);
  const sim::ProcessState st = sim_.process_state(core);
  // Waits: the latest blocking wait, open while the process waits (or is woken, not resumed).
  const auto& lw = env->last_wait();
  const bool waiting =
      st == sim::ProcessState::kWaiting || (st == sim::ProcessState::kReady && ct.wait);
  if (ct.wait && (!waiting || !lw || lw->seq != ct.wait->seq)) {
    wait_slice(core, *ct.wait, t);
    ct.closed_wait = ct.wait->seq;
    ct.wait.reset();
  }
  if (!ct.wait && waiting && lw && lw->seq != ct.closed_wait) {
    OpenSlice w;
    w.since = lw->since;
    w.seq = lw->seq;
    if (lw->semaphore) {
      w.name = fmt::format("wait sem[{}] {} {}", *lw->semaphore,
                           firmware::sem_compare_symbol(lw->compare), base::as_int32(lw->value));
      w.tid = kPoolTid;
    } else {
      w.name = "left_pop";
      w.tid = kQ7Tid + lw->prid;
    }
    ct.wait = w;
  }
  // Words: a new pc (or the end) closes the current word's slice.
  const bool finished = st == sim::ProcessState::kFinished;
  if (fw->pc() != ct.pc || finished) {
    close_word(core, ct, t);
    // The words between began and ended inside the event that moved the pc (a wait already
    // met takes no event), so no poll saw them: each gets its slice, 0 long, at that event's
    // tick. A program runs straight through (no word jumps), so they are the pcs between;
    // and a word that failed is where the sequencer stopped, so it is one of them too.
    const std::size_t end = finished && fw->halted() ? fw->pc() + 1 : fw->pc();
    for (std::size_t pc = ct.pc + 1; pc < end; ++pc) {
      std::string name = sim_.word_name(core, pc);
      if (name.empty()) continue;
      ct.pc = pc;
      ct.word = OpenSlice{std::move(name), t, 0, kPoolTid};
      close_word(core, ct, t);
    }
    ct.pc = fw->pc();
    const std::string name = sim_.word_name(core, ct.pc);
    if (!finished && !name.empty()) ct.word = OpenSlice{name, t, 0, kPoolTid};
  }
}

void ChromeTrace::close_word(device::CoreId core, CoreTrack& ct, base::Tick to) {
  if (!ct.word) return;
  slice(core, kPoolTid, ct.word->name, ct.word->since, to, fmt::format("\"pc\":{}", ct.pc));
  words_.push_back(WordSpan{core, ct.pc, ct.word->since, to});
  // Then the inner slices the word's span holds.
  const base::Tick since = ct.word->since;
  ct.word.reset();
  auto in_word = [&](const CoreTrack::Inner& i) { return i.from >= since && i.to <= to; };
  for (CoreTrack::Inner& i : ct.inner) {
    if (in_word(i)) events_.push_back(std::move(i.event));
  }
  std::erase_if(ct.inner, in_word);
}

void ChromeTrace::poll_semaphores(base::Tick t) {
  const unsigned nsem = sim_.profile().semaphores;
  // The logged changes of traced cores, in (core, index) order: the order of a full scan.
  sem_keys_.clear();
  for (const device::SemChange& c : sem_log_) {
    const std::size_t row = c.tag < sem_row_.size() ? sem_row_[c.tag] : kNoRow;
    if (row != kNoRow) sem_keys_.push_back(row * nsem + c.idx);
  }
  sem_log_.clear();
  std::sort(sem_keys_.begin(), sem_keys_.end());
  sem_keys_.erase(std::unique(sem_keys_.begin(), sem_keys_.end()), sem_keys_.end());
  for (const std::size_t k : sem_keys_) {
    const device::CoreId core = sem_cores_[k / nsem];
    const unsigned s = static_cast<unsigned>(k % nsem);
    const std::uint32_t v = sim_.machine().semaphore(core, s);
    if (v == sems_[k]) continue;
    LastSample& last = sem_last_[k];
    auto counter = [&](base::Tick at, std::uint32_t value) {
      std::string e =
          fmt::format(R"J({{"name":"sem[{}]","ph":"C","pid":{},"ts":{},"args":{{"value":{}}}}})J",
                      s, core, trace_us(at), base::as_int32(value));
      if (last.event != kNoSample && last.at == at) {
        events_[last.event] = std::move(e);
        return;
      }
      last = LastSample{events_.size(), at};
      events_.push_back(std::move(e));
    };
    if (last.event == kNoSample) counter(base::Tick{}, sems_[k]);  // the value before, at t = 0
    counter(t, v);
    tracks_.insert({core, UINT32_MAX});
    sems_[k] = v;
  }
}

std::uint32_t ChromeTrace::engine_head(device::CoreId core, unsigned engine) const {
  const device::QueueState q = sim_.machine().queue_state(core, engine, soc::Direction::kM2S,
                                                          sim_.firmware_config().ring_num);
  return q.head.offset | (q.head.ring_id << 30);
}

std::string ChromeTrace::pair_args(device::CoreId core, unsigned engine, std::uint32_t slot,
                                   EngineTrack& et) const {
  const device::Machine& m = sim_.machine();
  if (!et.ring_bases) {
    const unsigned queue = sim_.firmware_config().ring_num;
    std::array<std::uint64_t, 2> bases{};
    for (const soc::Direction dir : {soc::Direction::kM2S, soc::Direction::kS2M}) {
      const auto& o = soc::queue_offsets(dir);
      auto lo = m.peek_reg(core, engine, dir, queue, o.ring_base_low);
      auto hi = m.peek_reg(core, engine, dir, queue, o.ring_base_high);
      if (!lo || !hi) return {};
      bases[dir == soc::Direction::kM2S ? 0 : 1] = (std::uint64_t{*hi} << 32) | *lo;
    }
    et.ring_bases = bases;
  }
  // A descriptor as the engine read it: from the ring at `ring`, at `slot`.
  const auto read = [&](std::uint64_t ring) {
    std::array<std::uint8_t, soc::kDescBytes> raw{};
    const bool ok =
        m.mem_read(core, base::SocAddr{ring + std::uint64_t{slot} * soc::kDescBytes}, raw).ok();
    return ok ? std::optional(soc::decode_descriptor(raw)) : std::nullopt;
  };
  const auto src = read((*et.ring_bases)[0]);
  const auto dst = read((*et.ring_bases)[1]);
  if (!src || !dst) return {};
  // place_of's text holds no quote or backslash: it goes in as it is.
  return fmt::format(R"J("bytes":{},"from":"{}","to":"{}")J", src->length(),
                     sim_.place_of(core, src->addr()), sim_.place_of(core, dst->addr()));
}

void ChromeTrace::on_busy(device::CoreId core, base::Tick t, base::Tick d) {
  if (!shown_[core]) return;
  inner_slice(core, "q7 busy", t, t + d);
}

void ChromeTrace::on_fence(device::CoreId core, unsigned prid, base::Tick t, base::Tick until) {
  if (!shown_[core]) return;
  slice(core, kQ7Tid + prid, "drain", t, until);
}

void ChromeTrace::on_push(device::CoreId core, unsigned prid, base::Tick t, std::uint32_t value) {
  if (!shown_[core]) return;
  use_track(core, kQ7Tid + prid);
  events_.push_back(fmt::format(
      R"J({{"name":"right_push","ph":"i","s":"t","pid":{},"tid":{},"ts":{},"args":{{"value":{}}}}})J",
      core, kQ7Tid + prid, trace_us(t), value));
}

void ChromeTrace::slice(device::CoreId core, unsigned tid, const std::string& name, base::Tick from,
                        base::Tick to, const std::string& args) {
  use_track(core, tid);
  events_.push_back(slice_event(core, tid, name, from, to, args));
}

void ChromeTrace::inner_slice(device::CoreId core, const std::string& name, base::Tick from,
                              base::Tick to) {
  const auto ct = cores_.find(core);
  if (ct == cores_.end()) return slice(core, kPoolTid, name, from, to);
  use_track(core, kPoolTid);
  ct->second.inner.push_back({from, to, slice_event(core, kPoolTid, name, from, to, {})});
}

void ChromeTrace::wait_slice(device::CoreId core, const OpenSlice& wait, base::Tick to) {
  if (wait.tid == kPoolTid) return inner_slice(core, wait.name, wait.since, to);
  slice(core, wait.tid, wait.name, wait.since, to);
}

std::string ChromeTrace::slice_event(device::CoreId core, unsigned tid, const std::string& name,
                                     base::Tick from, base::Tick to, const std::string& args) {
  return fmt::format(R"J({{"name":{},"ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"args":{{{}}}}})J",
                     quote(name), core, tid, trace_us(from), trace_us(to - from), args);
}

void ChromeTrace::use_track(device::CoreId core, unsigned tid) {
  tracks_.insert({core, tid});
}

std::string ChromeTrace::json() const {
  // Sort the lanes of "DMA e" right after it: sort index 100 + e * lanes + lane, where
  // lanes is the most any engine of the core needed (with one, the index is the tid).
  std::map<device::CoreId, std::size_t> lanes;
  for (const auto& [key, et] : engines_) {
    std::size_t& n = lanes[key.first];
    n = std::max({n, et.lane_end.size(), std::size_t{1}});
  }
  std::vector<std::string> meta;
  std::optional<device::CoreId> last_core;
  for (const auto& [core, tid] : tracks_) {
    if (core != last_core) {
      const device::CoreLoc loc = sim_.topology().locate(core);
      meta.push_back(fmt::format(
          R"J({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"core {} (chip {} tpb {})"}}}})J",
          core, core, loc.chip, loc.tpb));
      meta.push_back(fmt::format(
          R"J({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}})J", core,
          core));
      last_core = core;
    }
    if (tid == UINT32_MAX) continue;  // counters only
    std::string name;
    std::size_t sort = tid;
    if (tid == kPoolTid) {
      name = "POOL";
    } else if (tid >= kDmaTid) {
      const unsigned engine = (tid - kDmaTid) % kDmaLaneStride;
      const unsigned lane = (tid - kDmaTid) / kDmaLaneStride;
      name =
          lane == 0 ? fmt::format("DMA {}", engine) : fmt::format("DMA {} ({})", engine, lane + 1);
      const auto n = lanes.find(core);
      sort = kDmaTid + engine * (n == lanes.end() ? 1 : n->second) + lane;
    } else {
      const unsigned prid = tid - kQ7Tid;
      name = fmt::format("Q7 P{} ({})", prid, prid % 2 == 0 ? "RX" : "TX");
    }
    meta.push_back(fmt::format(
        R"J({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"{}"}}}})J", core,
        tid, name));
    meta.push_back(fmt::format(
        R"J({{"name":"thread_sort_index","ph":"M","pid":{},"tid":{},"args":{{"sort_index":{}}}}})J",
        core, tid, sort));
  }
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  for (const std::vector<std::string>* list : {&std::as_const(meta), &events_}) {
    for (const std::string& e : *list) {
      if (!first) out += ",\n";
      out += e;
      first = false;
    }
  }
  out += "\n]}\n";
  return out;
}

}  // namespace sbrdma::platform
