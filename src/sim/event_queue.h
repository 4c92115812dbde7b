#pragma once
/// The pending-event set of the kernel: events ordered by (time, sequence number).
///
/// Every push gets the next sequence number, or one reserved for it earlier (reserve_seq(),
/// push_reserved()): an event can then take its place in the order when it is decided and enter the
/// heap later. Events at the same time pop in sequence order, so a run is deterministic. With a
/// non-zero tie seed, same-time events pop in an order shuffled by the seed instead (to hunt
/// ordering bugs); the shuffle is a fixed function of (seed, sequence), so a seed reproduces its
/// run, and it never reorders different times.
///
/// Layout, chosen for the hot path (no allocation per event once warm). A run's events crowd
/// onto few distinct times (a 512-rank allreduce: ~200 times pending, ~50 events per time, and
/// nearly every push goes to the time of the push before, in sequence order), so events that
/// arrive at one time in tie order are kept as a run, and the heap orders runs, not events:
///
///   keys_   : 4-ary min-heap of 16-byte keys {time, tie}: a lone event's, or a run's first
///             pending event's; a node's four children fill one aligned 64-byte line
///   ref_at_ : beside each key, what it stands for: an event's slot, or kRunBit | run number
///   runs_   : {time, head, entries [{tie, slot}...]}: events of one time in tie order, popping
///             from `head`; the run whose next event comes first leaves the heap (cur_) and pops
///             from outside it, one comparison with the root per event, until it is done or
///             another run comes first (then it goes back in under its next event's key)
///   recent_ : a small direct-mapped cache, time -> run (or "a lone event"), for the pushes
///   slots_  : pool of {Callback, label, seq}, recycled through free_
///
/// A push joins the run of its time if its tie comes after that run's last one (the usual case
/// with seed 0), or before the first pending one of the current run (a reserved sequence number
/// at the time being popped); otherwise it enters the heap alone. The second event of a time
/// starts its run. Every key in the heap is the smallest of what it stands for, so the next
/// event is the root's or the current run's; with all times distinct this is the plain heap.
///
/// `tie` is the sequence number, or with a seed a bijective mix of it (distinct sequence
/// numbers give distinct ties, so the order is total).

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/units.h"
#include "sim/callback.h"
#include "sim/mapped_allocator.h"

namespace sbrdma::sim {

/// One executed (or executable) event, as popped.
struct Event {
  base::Tick time;
  std::uint64_t seq = 0;
  /// Short static-ish text for traces. Contract: points to storage that outlives the event
  /// (a string literal or a name owned by a long-lived object).
  std::string_view label;
  Callback fn;
};

class EventQueue {
 public:
  /// `tie_seed` 0 keeps same-time events in insertion order; any other value shuffles them.
  explicit EventQueue(std::uint64_t tie_seed = 0) : seed_(tie_seed), keys_(kPad), ref_at_(kPad) {}

  /// Adds an event at absolute time `when`; returns its sequence number. The callables here
  /// and in push_reserved() are taken by reference and moved into the queue's slot once (a
  /// by-value hop costs an indirect relocation each).
  std::uint64_t push(base::Tick when, Callback&& fn, std::string_view label);
  /// push() for a callable that is not yet a Callback: it is built in the queue's slot.
  template <EventAction F>
  std::uint64_t push(base::Tick when, F&& fn, std::string_view label) {
    const std::uint64_t seq = next_seq_++;
    push_reserved(when, seq, std::forward<F>(fn), label);
    return seq;
  }

  /// Hands out the next sequence number without pushing an event: push_reserved() adds the
  /// event later, and it pops exactly where a push() made now at the same time would have.
  std::uint64_t reserve_seq() noexcept { return next_seq_++; }
  /// Adds an event at `when` under the sequence number `seq`.
  /// Contract: `seq` came from reserve_seq() and has not been pushed yet.
  void push_reserved(base::Tick when, std::uint64_t seq, Callback&& fn, std::string_view label);
  /// push_reserved() for a callable that is not yet a Callback: it is built in the slot.
  template <EventAction F>
  void push_reserved(base::Tick when, std::uint64_t seq, F&& fn, std::string_view label) {
    const std::uint32_t slot = take_slot(seq, label);
    slots_[slot].fn.emplace(std::forward<F>(fn));
    enter(when, seq, slot);
  }

  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Sequence numbers handed out so far (events pushed plus numbers reserved).
  [[nodiscard]] std::uint64_t pushed() const noexcept { return next_seq_; }
  /// True if an event at `when` under `seq` (pushed or only reserved) would pop before every
  /// pending event.
  [[nodiscard]] bool comes_first(base::Tick when, std::uint64_t seq) const noexcept;
  /// True if same-time events pop in a shuffled order (a non-zero tie seed).
  [[nodiscard]] bool shuffled() const noexcept { return seed_ != 0; }
  /// True if an event at (a, seq_a) pops before one at (b, seq_b): the pop order of two
  /// events, whether or not either was pushed.
  [[nodiscard]] bool pops_before(base::Tick a, std::uint64_t seq_a, base::Tick b,
                                 std::uint64_t seq_b) const noexcept;

  /// Time of the earliest event. Contract: !empty().
  [[nodiscard]] base::Tick next_time() const;

  /// Removes and returns the earliest event. Contract: !empty().
  Event pop();

  /// Drops every pending event (their callables are destroyed, not called).
  void clear();

 private:
  struct Key {
    std::uint64_t time;
    std::uint64_t tie;
  };
  /// Heap node i is keys_[i + kPad]: node i's children 4i+1..4i+4 then sit at 4(i+1)..,
  /// one aligned group of four 16-byte keys (64 bytes).
  static constexpr std::size_t kPad = 3;
  [[nodiscard]] Key& key(std::size_t i) { return keys_[i + kPad]; }
  [[nodiscard]] const Key& key(std::size_t i) const { return keys_[i + kPad]; }
  /// Keys in the heap (events alone plus runs).
  [[nodiscard]] std::size_t heap_size() const noexcept { return keys_.size() - kPad; }
  /// ref_at_ values: kRunBit set means a run's number, clear an event's slot.
  static constexpr std::uint32_t kRunBit = 0x80000000U;
  [[nodiscard]] std::uint32_t& ref_at(std::size_t i) { return ref_at_[i + kPad]; }
  [[nodiscard]] std::uint32_t ref_at(std::size_t i) const { return ref_at_[i + kPad]; }
  struct Slot {
    Callback fn;
    std::string_view label;
    std::uint64_t seq = 0;
  };
  /// One event of a run.
  struct Entry {
    std::uint64_t tie;
    std::uint32_t slot;
  };
  /// Events pending at one time, in tie order from `head` on; in the heap while any is left.
  struct Run {
    std::uint64_t time = 0;
    std::uint32_t head = 0;
    std::vector<Entry> entries;
  };
  /// A recent_ line: `time`'s run, kLone (an event of `time` entered the heap alone), or kNoRun.
  struct Recent {
    std::uint64_t time = 0;
    std::uint32_t run = kNoRun;
  };
  static constexpr std::uint32_t kNoRun = UINT32_MAX;
  static constexpr std::uint32_t kLone = UINT32_MAX - 1;
  /// 256 lines (4 KiB): about one per pending time in the 512-rank allreduce. With 16 lines,
  /// 1.6x as many pushes entered the heap.
  static constexpr std::size_t kRecentBits = 8;

  /// A free slot for the event `seq` (label and seq stored, callable empty).
  /// Contract: `seq` was handed out.
  std::uint32_t take_slot(std::uint64_t seq, std::string_view label);
  /// Puts the event of `slot` (filled) into the queue at `when`.
  void enter(base::Tick when, std::uint64_t seq, std::uint32_t slot);
  std::uint64_t tie_of(std::uint64_t seq) const noexcept;
  /// The recent_ line for `time`.
  [[nodiscard]] Recent& recent(std::uint64_t time) noexcept;
  /// Adds `e` at `time` to the heap as the first event of a new run; returns the run's number.
  std::uint32_t start_run(std::uint64_t time, Entry e);
  /// Adds `k` standing for `ref` to the heap.
  void push_key(Key k, std::uint32_t ref);
  /// Pop order: time, then tie.
  static bool earlier(const Key& a, const Key& b) noexcept;
  /// Moves `k` (standing for `ref`) from position i towards the root to its place.
  void sift_up(std::size_t i, Key k, std::uint32_t ref);
  /// Of the children first.. of a node (heap size n), the earliest. Contract: first < n.
  [[nodiscard]] std::size_t earliest_child(std::size_t first, std::size_t n) const noexcept;
  /// Removes the root: the last key takes its place and moves down (Floyd's order).
  void remove_root();
  /// True if the current run's next event comes before the heap's root (and there is one).
  [[nodiscard]] bool current_first() const noexcept;
  /// The key of run `r`'s next event (the key it has in the heap). Contract: events left.
  [[nodiscard]] static Key run_key(const Run& r) noexcept {
    return Key{r.time, r.entries[r.head].tie};
  }
  /// The key of the event pop() returns next. Contract: !empty().
  [[nodiscard]] Key next_key() const noexcept;
  /// Returns run `id` (drained) to the pool.
  void free_run(std::uint32_t id);
  /// The rest of pop() once the event is chosen: takes it out of its slot, issues the hints.
  Event finish_pop(std::uint64_t time, std::uint32_t slot);
  /// The slot of the next event of what `ref` stands for (an event, or a run with events left).
  [[nodiscard]] std::uint32_t slot_of_ref(std::uint32_t ref) const noexcept;
  /// CPU cache hints (no effect on the order): start loading slot `slot`, or the slot the
  /// next push takes.
  void prefetch_slot(std::uint32_t slot) const noexcept;
  void prefetch_free_slot() const noexcept;

  std::uint64_t seed_;
  std::uint64_t next_seq_ = 0;
  std::size_t size_ = 0;
  std::vector<Key, MappedAllocator<Key, 64>> keys_;                    // kPad unused first
  std::vector<std::uint32_t, MappedAllocator<std::uint32_t>> ref_at_;  // beside keys_
  std::vector<Run> runs_;
  std::vector<std::uint32_t> free_runs_;
  std::uint32_t cur_ = kNoRun;  // the current run: out of the heap, popping
  Recent recent_[std::size_t{1} << kRecentBits];
  std::vector<Slot, MappedAllocator<Slot>> slots_;
  std::vector<std::uint32_t> free_;
};

}  // namespace sbrdma::sim
