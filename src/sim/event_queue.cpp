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

/// Heap order: std::*_heap build a max-heap, so "less" means "later".
struct Later {
  template <typename K>
  bool operator()(const K& a, const K& b) const noexcept {
    if (a.time != b.time) return a.time > b.time;
    return a.tie > b.tie;
  }
};

}  // namespace

std::uint64_t EventQueue::tie_of(std::uint64_t seq) const noexcept {
  if (seed_ == 0) return seq;
  // XOR with a mixed seed, then mix: still a bijection of seq for a fixed seed.
  return mix64(seq ^ mix64(seed_));
}

std::uint64_t EventQueue::push(base::Tick when, Callback fn, std::string_view label) {
  const std::uint64_t seq = next_seq_++;
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
  s.fn = std::move(fn);
  s.label = label;
  s.seq = seq;
  heap_.push_back(Key{when.ps, tie_of(seq), slot});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  return seq;
}

base::Tick EventQueue::next_time() const {
  SBRDMA_CHECK(!heap_.empty());
  return base::Tick{heap_.front().time};
}

Event EventQueue::pop() {
  SBRDMA_CHECK(!heap_.empty());
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  const Key k = heap_.back();
  heap_.pop_back();
  Slot& s = slots_[k.slot];
  Event ev{base::Tick{k.time}, s.seq, s.label, std::move(s.fn)};
  free_.push_back(k.slot);
  return ev;
}

void EventQueue::clear() {
  heap_.clear();
  slots_.clear();
  free_.clear();
}

}  // namespace sbrdma::sim
