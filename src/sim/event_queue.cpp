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

}  // namespace

bool EventQueue::earlier(const Key& a, const Key& b) noexcept {
  // One 128-bit comparison of (time, tie): no data-dependent branch, so the sifts' choices
  // (random by nature) compile to conditional moves instead of mispredicted jumps.
  __extension__ using U128 = unsigned __int128;
  const U128 ka = (U128{a.time} << 64) | a.tie;
  const U128 kb = (U128{b.time} << 64) | b.tie;
  return ka < kb;
}

void EventQueue::sift_up(std::size_t i, Key k, std::uint32_t slot) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!earlier(k, key(parent))) break;
    key(i) = key(parent);
    slot_at(i) = slot_at(parent);
    i = parent;
  }
  key(i) = k;
  slot_at(i) = slot;
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

void EventQueue::sift_down(Key k, std::uint32_t slot) {
  // Floyd's variant: the key that replaces the root came from the bottom and usually goes back
  // near it, so move the hole down along the earliest children to a leaf without comparing
  // against `k`, then let `k` rise from there (a step or two).
  const std::size_t n = size();
  std::size_t i = 0;
  for (;;) {
    const std::size_t first = kArity * i + 1;
    if (first >= n) break;
    const std::size_t best = earliest_child(first, n);
    key(i) = key(best);
    slot_at(i) = slot_at(best);
    i = best;
  }
  sift_up(i, k, slot);
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
  std::uint32_t slot = 0;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    SBRDMA_CHECK(slots_.size() < UINT32_MAX);
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.label = label;
  s.seq = seq;
  return slot;
}

void EventQueue::enter(base::Tick when, std::uint64_t seq, std::uint32_t slot) {
  prefetch_free_slot();
  keys_.emplace_back();
  slot_at_.emplace_back();
  sift_up(size() - 1, Key{when.ps, tie_of(seq)}, slot);
}

base::Tick EventQueue::next_time() const {
  SBRDMA_CHECK(!empty());
  return base::Tick{key(0).time};
}

Event EventQueue::pop() {
  SBRDMA_CHECK(!empty());
  const Key k = key(0);
  const std::uint32_t k_slot = slot_at(0);
  const Key last = keys_.back();
  const std::uint32_t last_slot = slot_at_.back();
  keys_.pop_back();
  slot_at_.pop_back();
  if (!empty()) sift_down(last, last_slot);
  Slot& s = slots_[k_slot];
  Event ev{base::Tick{k.time}, s.seq, s.label, std::move(s.fn)};
  free_.push_back(k_slot);
  if (!empty()) {
    // The next event's slot was written when it was pushed, often long ago: its callable
    // starts loading what it will touch (Callback::hint) while this event runs. The one after
    // it is one of the root's children (unless this event schedules an earlier one): fetch
    // their slots now, so that the next pop finds its slot cached.
    const Slot& next = slots_[slot_at(0)];
    __builtin_prefetch(reinterpret_cast<const char*>(&next) + sizeof(Slot) - 1);
    next.fn.hint();
    const std::size_t children_end = std::min(size(), kArity + 1);
    for (std::size_t c = 1; c < children_end; ++c) prefetch_slot(slot_at(c));
  }
  // This event's slot is cached and is the first a push takes; the one after it may not be.
  if (free_.size() >= 2) prefetch_slot(free_[free_.size() - 2]);
  return ev;
}

void EventQueue::clear() {
  keys_.resize(kPad);
  slot_at_.resize(kPad);
  slots_.clear();
  free_.clear();
}

}  // namespace sbrdma::sim
