#include "sim/event_queue.h"

#include <algorithm>

namespace sbrdma::sim {
namespace {

/// splitmix64's finaliser: a bijection on 64-bit values with good avalanche.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Children per heap node: a 4-ary heap is half as deep as a binary one, and a node's
/// children sit side by side (fewer cache misses per sift in a large queue).
constexpr std::size_t kArity = 4;

/// A freed run keeps its entries' storage for the next one, unless it grew past this (a rare
/// huge tick should not pin its memory for the rest of the run).
constexpr std::size_t kKeepEntries = 4096;

/// An index of `pool` to reuse: the last freed one, or a new default element at the end.
template <typename Pool>
std::uint32_t take_index(Pool& pool, std::vector<std::uint32_t>& free, std::size_t limit) {
  if (!free.empty()) {
    const std::uint32_t i = free.back();
    free.pop_back();
    return i;
  }
  SBRDMA_CHECK(pool.size() < limit);
  pool.emplace_back();
  return static_cast<std::uint32_t>(pool.size() - 1);
}

}  // namespace

bool EventQueue::earlier(const Key& a, const Key& b) noexcept {
  // One 128-bit comparison of (time, tie): no data-dependent branch, so the sifts' choices
  // (random by nature) compile to conditional moves instead of mispredicted jumps.
  __extension__ using U128 = unsigned __int128;
  const U128 ka = (U128{a.time} << 64) | a.tie;
  const U128 kb = (U128{b.time} << 64) | b.tie;
  return ka < kb;
}

void EventQueue::sift_up(std::size_t i, Key k, std::uint32_t ref) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!earlier(k, key(parent))) break;
    key(i) = key(parent);
    ref_at(i) = ref_at(parent);
    i = parent;
  }
  key(i) = k;
  ref_at(i) = ref;
}

std::size_t EventQueue::earliest_child(std::size_t first, std::size_t n) const noexcept {
  if (first + kArity <= n) {  // a full node: a two-round tournament, without branches
    // (Index arithmetic on the comparisons' 0/1 results: the compiler turned `?:` into a
    // jump here, mispredicted half the time.)
    static_assert(kArity == 4);
    const std::size_t a = first + std::size_t{earlier(key(first + 1), key(first))};
    const std::size_t b = first + 2 + std::size_t{earlier(key(first + 3), key(first + 2))};
    return a + (b - a) * std::size_t{earlier(key(b), key(a))};
  }
  std::size_t best = first;
  for (std::size_t c = first + 1; c < n; ++c) {
    if (earlier(key(c), key(best))) best = c;
  }
  return best;
}

void EventQueue::remove_root() {
  const Key last = keys_.back();
  const std::uint32_t last_ref = ref_at_.back();
  keys_.pop_back();
  ref_at_.pop_back();
  const std::size_t n = heap_size();
  if (n == 0) return;
  // Floyd's variant: the key that replaces the root came from the bottom and usually goes back
  // near it, so move the hole down along the earliest children to a leaf without comparing
  // against it, then let it rise from there (a step or two).
  std::size_t i = 0;
  for (;;) {
    const std::size_t first = kArity * i + 1;
    if (first >= n) break;
    const std::size_t best = earliest_child(first, n);
    key(i) = key(best);
    ref_at(i) = ref_at(best);
    i = best;
  }
  sift_up(i, last, last_ref);
}

// push_key(), current_first() and finish_pop() are inlined by force: as calls they cost the
// all-distinct-times case (every event alone in the heap) about 10% (replay, -O3).
[[gnu::always_inline]] inline void EventQueue::push_key(Key k, std::uint32_t ref) {
  keys_.emplace_back();
  ref_at_.emplace_back();
  sift_up(heap_size() - 1, k, ref);
}

void EventQueue::prefetch_slot(std::uint32_t slot) const noexcept {
  const auto* p = reinterpret_cast<const char*>(&slots_[slot]);
  __builtin_prefetch(p);
  __builtin_prefetch(p + sizeof(Slot) - 1);
}

void EventQueue::prefetch_free_slot() const noexcept {
  if (!free_.empty()) prefetch_slot(free_.back());
}

std::uint64_t EventQueue::tie_of(std::uint64_t seq) const noexcept {
  if (seed_ == 0) return seq;
  // XOR with a mixed seed, then mix: still a bijection of seq for a fixed seed.
  return mix64(seq ^ mix64(seed_));
}

std::uint64_t EventQueue::push(base::Tick when, Callback&& fn, std::string_view label) {
  const std::uint64_t seq = next_seq_++;
  push_reserved(when, seq, std::move(fn), label);
  return seq;
}

void EventQueue::push_reserved(base::Tick when, std::uint64_t seq, Callback&& fn,
                               std::string_view label) {
  const std::uint32_t slot = take_slot(seq, label);
  slots_[slot].fn = std::move(fn);
  enter(when, seq, slot);
}

std::uint32_t EventQueue::take_slot(std::uint64_t seq, std::string_view label) {
  SBRDMA_CHECK(seq < next_seq_);
  const std::uint32_t slot = take_index(slots_, free_, kRunBit);  // kRunBit clear in a slot
  Slot& s = slots_[slot];
  s.label = label;
  s.seq = seq;
  return slot;
}

EventQueue::Recent& EventQueue::recent(std::uint64_t time) noexcept {
  return recent_[(time * 0x9e3779b97f4a7c15ULL) >> (64 - kRecentBits)];
}

std::uint32_t EventQueue::start_run(std::uint64_t time, Entry e) {
  const std::uint32_t id = take_index(runs_, free_runs_, kRunBit);
  Run& r = runs_[id];
  r.time = time;
  r.head = 0;
  r.entries.push_back(e);
  push_key(Key{time, e.tie}, kRunBit | id);
  return id;
}

void EventQueue::enter(base::Tick when, std::uint64_t seq, std::uint32_t slot) {
  prefetch_free_slot();
  ++size_;
  const Entry e{tie_of(seq), slot};
  Recent& line = recent(when.ps);
  if (line.time == when.ps && line.run != kNoRun) {
    if (line.run == kLone) {  // the time's second event: it starts the time's run
      line.run = start_run(when.ps, e);
      return;
    }
    Run& r = runs_[line.run];
    if (e.tie > r.entries.back().tie) {  // after the run's last: the key is unchanged
      r.entries.push_back(e);
      return;
    }
    if (line.run == cur_ && r.head > 0 && e.tie < r.entries[r.head].tie) {
      // Before the first pending event of the current run (a reserved seq entered at the time
      // being popped): it takes the place just popped.
      r.entries[--r.head] = e;
      return;
    }
  } else {
    line = Recent{when.ps, kLone};
  }
  push_key(Key{when.ps, e.tie}, slot);
}

std::uint32_t EventQueue::slot_of_ref(std::uint32_t ref) const noexcept {
  if ((ref & kRunBit) == 0) return ref;
  const Run& r = runs_[ref & ~kRunBit];
  return r.entries[r.head].slot;
}

[[gnu::always_inline]] inline bool EventQueue::current_first() const noexcept {
  if (cur_ == kNoRun) return false;
  if (heap_size() == 0) return true;
  return earlier(run_key(runs_[cur_]), key(0));
}

EventQueue::Key EventQueue::next_key() const noexcept {
  return current_first() ? run_key(runs_[cur_]) : key(0);
}

void EventQueue::free_run(std::uint32_t id) {
  Run& r = runs_[id];
  Recent& line = recent(r.time);
  if (line.run == id) line.run = kNoRun;
  if (r.entries.capacity() > kKeepEntries) {
    std::vector<Entry>().swap(r.entries);
  } else {
    r.entries.clear();
  }
  free_runs_.push_back(id);
}

bool EventQueue::pops_before(base::Tick a, std::uint64_t seq_a, base::Tick b,
                             std::uint64_t seq_b) const noexcept {
  return earlier(Key{a.ps, tie_of(seq_a)}, Key{b.ps, tie_of(seq_b)});
}

bool EventQueue::comes_first(base::Tick when, std::uint64_t seq) const noexcept {
  return empty() || earlier(Key{when.ps, tie_of(seq)}, next_key());
}

base::Tick EventQueue::next_time() const {
  SBRDMA_CHECK(!empty());
  return base::Tick{next_key().time};
}

Event EventQueue::pop() {
  SBRDMA_CHECK(!empty());
  --size_;
  if (!current_first()) {
    const Key k = key(0);
    const std::uint32_t ref = ref_at(0);
    remove_root();
    if ((ref & kRunBit) == 0) return finish_pop(k.time, ref);
    // A run comes first: it leaves the heap and pops from outside it (one comparison with the
    // root per event) until it is done or something earlier comes. The run it replaces, if
    // any, goes back into the heap under its next event's key.
    if (cur_ != kNoRun) push_key(run_key(runs_[cur_]), kRunBit | cur_);
    cur_ = ref & ~kRunBit;
  }
  Run& r = runs_[cur_];
  const std::uint64_t time = r.time;
  const std::uint32_t slot = r.entries[r.head++].slot;
  if (r.head == r.entries.size()) {
    free_run(cur_);
    cur_ = kNoRun;
  } else if (r.head > kKeepEntries && 2 * std::size_t{r.head} >= r.entries.size()) {
    // A run that keeps growing as it pops (events pushed at the time being popped, on and on)
    // gives back its popped prefix now and then: memory stays bounded, each entry moves O(1)
    // times on average.
    r.entries.erase(r.entries.begin(), r.entries.begin() + r.head);
    r.head = 0;
  }
  return finish_pop(time, slot);
}

[[gnu::always_inline]] inline Event EventQueue::finish_pop(std::uint64_t time, std::uint32_t slot) {
  Slot& s = slots_[slot];
  Event ev{base::Tick{time}, s.seq, s.label, std::move(s.fn)};
  free_.push_back(slot);
  if (!empty()) {
    // The next event's slot was written when it was pushed, often long ago: its callable
    // starts loading what it will touch (Callback::hint) while this event runs. The events
    // after it are the next of its run, or the root's children (unless this event schedules an
    // earlier one): fetch their slots now, so that the next pops find them cached.
    const std::uint32_t next_ref = current_first() ? (kRunBit | cur_) : ref_at(0);
    const Slot& next = slots_[slot_of_ref(next_ref)];
    __builtin_prefetch(reinterpret_cast<const char*>(&next) + sizeof(Slot) - 1);
    next.fn.hint();
    if ((next_ref & kRunBit) != 0) {
      const Run& r = runs_[next_ref & ~kRunBit];
      const std::size_t end = std::min<std::size_t>(r.entries.size(), r.head + kArity + 1);
      for (std::size_t j = r.head + 1; j < end; ++j) prefetch_slot(r.entries[j].slot);
    } else {
      const std::size_t children_end = std::min(heap_size(), kArity + 1);
      for (std::size_t c = 1; c < children_end; ++c) {
        if ((ref_at(c) & kRunBit) == 0) prefetch_slot(ref_at(c));
      }
    }
  }
  // This event's slot is cached and is the first a push takes; the one after it may not be.
  if (free_.size() >= 2) prefetch_slot(free_[free_.size() - 2]);
  return ev;
}

void EventQueue::clear() {
  keys_.resize(kPad);
  ref_at_.resize(kPad);
  runs_.clear();
  free_runs_.clear();
  cur_ = kNoRun;
  std::fill(std::begin(recent_), std::end(recent_), Recent{});
  size_ = 0;
  slots_.clear();
  free_.clear();
}

}  // namespace sbrdma::sim
