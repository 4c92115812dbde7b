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

void EventQueue::sift_up(std::size_t i, Key k) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!earlier(k, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = k;
}

std::size_t EventQueue::earliest_child(std::size_t first, std::size_t n) const noexcept {
  if (first + kArity <= n) {  // a full node: a two-round tournament, without branches
    // (Index arithmetic on the comparisons' 0/1 results: the compiler turned `?:` into a
    // jump here, mispredicted half the time.)
    static_assert(kArity == 4);
    const std::size_t a = first + std::size_t{earlier(heap_[first + 1], heap_[first])};
    const std::size_t b = first + 2 + std::size_t{earlier(heap_[first + 3], heap_[first + 2])};
    return a + (b - a) * std::size_t{earlier(heap_[b], heap_[a])};
  }
  std::size_t best = first;
  for (std::size_t c = first + 1; c < n; ++c) {
    if (earlier(heap_[c], heap_[best])) best = c;
  }
  return best;
}

void EventQueue::sift_down(Key k) {
  // Floyd's variant: the key that replaces the root came from the bottom and usually goes back
  // near it, so move the hole down along the earliest children to a leaf without comparing
  // against `k`, then let `k` rise from there (a step or two).
  const std::size_t n = heap_.size();
  std::size_t i = 0;
  for (;;) {
    const std::size_t first = kArity * i + 1;
    if (first >= n) break;
    const std::size_t best = earliest_child(first, n);
    heap_[i] = heap_[best];
    i = best;
  }
  sift_up(i, k);
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
  heap_.emplace_back();
  sift_up(heap_.size() - 1, Key{when.ps, tie_of(seq), slot});
}

base::Tick EventQueue::next_time() const {
  SBRDMA_CHECK(!heap_.empty());
  return base::Tick{heap_.front().time};
}

Event EventQueue::pop() {
  SBRDMA_CHECK(!heap_.empty());
  const Key k = heap_.front();
  const Key last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(last);
  Slot& s = slots_[k.slot];
  Event ev{base::Tick{k.time}, s.seq, s.label, std::move(s.fn)};
  free_.push_back(k.slot);
  if (!heap_.empty()) {
    // The next event's slot was written when it was pushed, often long ago: its callable
    // starts loading what it will touch (Callback::hint) while this event runs. The one after
    // it is one of the root's children (unless this event schedules an earlier one): fetch
    // their slots now, so that the next pop finds its slot cached.
    const Slot& next = slots_[heap_.front().slot];
    __builtin_prefetch(reinterpret_cast<const char*>(&next) + sizeof(Slot) - 1);
    next.fn.hint();
    const std::size_t children_end = std::min(heap_.size(), kArity + 1);
    for (std::size_t c = 1; c < children_end; ++c) prefetch_slot(heap_[c].slot);
  }
  // This event's slot is cached and is the first a push takes; the one after it may not be.
  if (free_.size() >= 2) prefetch_slot(free_[free_.size() - 2]);
  return ev;
}

void EventQueue::clear() {
  heap_.clear();
  slots_.clear();
  free_.clear();
}

}  // namespace sbrdma::sim
