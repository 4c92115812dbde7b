#pragma once
/// Emitter: writes the per-core programs of a lowering and keeps the books that make them
/// safe — semaphore indices, cumulative semaphore targets, the SBUF scratch bump, the window
/// of legs in flight per core, and relays around unfoldable addresses.
///
/// A leg (one SB2SB step, spec §7) is one rdma_desc_gen + one rdma_desc_start on the sender:
///
///   [wait LS[j%K] >= 16*(j/K)]   only if leg j-K may still own ring slots   [CHOICE D30c]
///   rdma_desc_gen local_sem=LS[j%K] remote_sem=S ...  hoisted to just after the previous start
///   ... the core's other words (waits, reduces) ...
///   rdma_desc_start [wait ...]   the last wait before it is folded into its events
///
/// A local write (reduce) into bytes that a leg of the same core may still be reading waits
/// first for that leg's local semaphore (the "source buffer released" signal, spec §2.1):
/// the newest overlapping leg is enough, engines finish their legs in order. [CHOICE D30c]
///
/// Every leg's remote_sem increment (n_active engines, [CHOICE D5]) is added to the
/// receiver's expected count of S, so `Arrival::target` is "everything sent to S so far has
/// landed". Algorithms decide which waits are exact (see docs/decisions.md D30).
///
/// Errors (semaphores exhausted) are sticky: emission goes on, status() reports the first.

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "base/result.h"
#include "collectives/geometry.h"
#include "collectives/program.h"
#include "collectives/types.h"
#include "isa/views.h"

namespace sbrdma::collectives {

/// A wait condition: semaphore `sem` of core `core` >= `target`.
struct Arrival {
  CoreId core = 0;
  unsigned sem = 0;
  std::uint32_t target = 0;
};

/// What a lowering emitted.
struct EmitStats {
  std::uint64_t legs = 0;            ///< gen+start pairs, relays' second hops included
  std::uint64_t semaphore_legs = 0;  ///< legs with free_dim_bytes 0
  std::uint64_t relayed_legs = 0;    ///< legs that went through a relay core [CHOICE D30g]
  std::uint64_t reduce_words = 0;
  std::uint64_t wait_words = 0;
};

class Emitter {
 public:
  /// Window of legs in flight per core (local-semaphore slots). [CHOICE D30c]
  static constexpr unsigned kWindow = 16;

  /// What the emitter keeps of the words: the programs, or only how many words each has
  /// (for the checks that throw the words away: every book, scratch slot and relay is the
  /// same, and no word is encoded or stored).
  enum class Output { kPrograms, kCountOnly };

  /// `notes`: keep a note per word (for --dump-programs; costs memory at scale).
  Emitter(const Geometry& g, bool notes, Output output = Output::kPrograms);
  // Pending relays point into relay_slots_: an emitter is not copied or moved.
  Emitter(const Emitter&) = delete;
  Emitter& operator=(const Emitter&) = delete;

  [[nodiscard]] const Geometry& geometry() const { return g_; }

  // ---- resources (the same index / offset on every core) ------------------------------
  /// A fresh semaphore index; `purpose` names it in errors. Exhaustion is a sticky error
  /// (index 0 is returned so that emission can go on).
  unsigned alloc_sem(std::string_view purpose);
  /// `n` fresh semaphores.
  std::vector<unsigned> alloc_sems(unsigned n, std::string_view purpose);
  /// Reserves `bytes` of every partition (64-byte aligned) and returns the offset.
  std::uint64_t alloc_bytes(std::uint64_t bytes);
  /// Bytes of each partition reserved so far.
  [[nodiscard]] std::uint64_t sbuf_used() const { return sbuf_used_; }
  [[nodiscard]] unsigned sems_used() const { return next_sem_; }
  /// Where the next semaphore and scratch reservations start.
  struct Reserved {
    unsigned sems = 0;
    std::uint64_t bytes = 0;
  };
  [[nodiscard]] Reserved reserved() const { return {next_sem_, sbuf_used_}; }
  /// Phases on disjoint sets of cores, none sending outside its own, may each be built from
  /// the same point (rewind to it before each) and then take the same indices and offsets:
  /// a semaphore or scratch byte is per core. reserve_past() then moves past the largest.
  /// Contract: `r` was reserved() earlier in this emitter's life, and no relay is involved
  /// (a relay core may serve several such sets: its semaphores and slots are per index).
  void rewind(Reserved r);
  /// Moves the next reservations to at least `r`.
  void reserve_past(Reserved r);
  /// Calls build(i) for i = 0..n-1; if `share`, each from the same point (rewind's contract
  /// then holds for what they build), and the next reservations come after the largest.
  template <typename Build>
  void side_by_side(std::size_t n, bool share, Build build) {
    const Reserved start = reserved();
    Reserved high = start;
    for (std::size_t i = 0; i < n; ++i) {
      if (share) rewind(start);
      build(i);
      reserve_past(high);
      high = reserved();
    }
  }

  // ---- words --------------------------------------------------------------------------
  /// A leg moving [src_off, src_off + bytes) of every partition of `src` to dst_off of `dst`,
  /// incrementing `remote_sem` on `dst`. bytes 0: a semaphore-only leg on one engine. Legs
  /// that cannot be folded go through relay_core() (forwarded at the next flush_relays()).
  /// Returns the receiver's wait for everything sent to remote_sem so far.
  Arrival leg(CoreId src, CoreId dst, std::uint64_t src_off, std::uint64_t dst_off,
              std::uint64_t bytes, unsigned remote_sem, std::string_view note);
  /// A wait word on a.core (folded into the next start when nothing comes in between).
  void wait(const Arrival& a, std::string_view note);
  /// The current cumulative expected count of `sem` on `core`.
  [[nodiscard]] std::uint32_t expected(CoreId core, unsigned sem) const;
  /// dst = dst op src over `cols` columns of every partition (TENSOR_TENSOR_ARITH words).
  void reduce(CoreId core, std::uint64_t dst_off, std::uint64_t src_off, std::uint64_t cols,
              DataType dt, ReduceOp op, std::string_view note);
  /// Emits the pending relays: on each relay core, one wait per relay semaphore for all that
  /// was sent to it, then the forwarding legs. wait() calls it first. [CHOICE D30g]
  void flush_relays();
  /// Marks the end of an iteration on every program.
  void end_iteration();
  /// From now on, keeps the books fence_forwards() needs: in each iteration, which bytes of
  /// each core other cores' legs write, and which of those the core's own legs read again
  /// (forward) in that iteration. `sem` carries the fences' credits. [CHOICE D49b]
  void track_forwards(unsigned sem);
  /// Before an iteration (none before the first): every core that forwarded bytes another
  /// core wrote in the iteration before waits until its own legs are done reading them,
  /// then credits each such writer on the tracked semaphore; each writer waits for all its
  /// credits so far before its first word of this iteration, which may write those bytes
  /// again. Nothing without track_forwards(), or where nothing was forwarded. [CHOICE D49b]
  void fence_forwards();
  /// fmt::format(f, args...) if the notes are kept, else "" without formatting anything.
  template <class... Args>
  [[nodiscard]] std::string note(fmt::format_string<Args...> f, Args&&... args) const {
    if (!notes_) return {};
    return fmt::format(f, std::forward<Args>(args)...);
  }
  /// Marks the start of a step of `core`'s program (kept with the notes only).
  void step(CoreId core, std::string_view name);

  [[nodiscard]] const EmitStats& stats() const { return stats_; }
  [[nodiscard]] const base::Status& status() const { return status_; }
  /// Records an error (the first one sticks, as the emitter's own): for a phase that finds
  /// the request is one it cannot lower.
  void fail(std::string message);
  /// The cores that have sent a leg, and whether each of them has sent a window's worth
  /// (kWindow or fewer, see the constructor): then every leg it sends from now on waits for
  /// its window slot.
  struct Windows {
    std::size_t senders = 0;
    bool full = true;
    bool operator==(const Windows&) const = default;
  };
  [[nodiscard]] Windows windows() const;
  /// Words emitted so far, all programs together.
  [[nodiscard]] std::uint64_t words() const;
  /// Makes room in each program for `more` iterations like the ones after its first (their
  /// mean), so that a long run's programs grow without copying. No-op with kCountOnly.
  void reserve_iterations(std::uint64_t more);
  /// The programs of every core that has words, by core id. Flushes relays first. Not with
  /// Output::kCountOnly.
  std::vector<CoreProgram> take_programs();

 private:
  struct RelaySlot {  // where a relay core holds one kind of first hop
    std::uint64_t offset = 0;
    /// Its last second hop is emitted, and no credit since says that the relay's engines are
    /// done reading it: the sender must not write it again before one. [CHOICE D30g]
    bool uncredited = false;
  };
  using SlotKey = std::tuple<CoreId, CoreId, std::uint64_t, std::uint64_t>;
  struct Pending {  // a relayed leg waiting for its second hop
    CoreId relay;
    CoreId dst;
    RelaySlot* slot;  ///< in relay_slots_ (a map: its nodes stay put); none for 0 bytes
    std::uint64_t relay_off;
    std::uint64_t dst_off;
    std::uint64_t bytes;
    unsigned remote_sem;
    unsigned relay_sem;
    std::string note;
  };
  struct Reading {  // a leg of this core that may still read [lo, hi) of every partition
    std::uint64_t lo;
    std::uint64_t hi;
    std::uint64_t leg;
  };
  struct CoreBook {
    CoreProgram prog;             ///< empty with Output::kCountOnly
    std::size_t length = 0;       ///< words in the program
    bool ends_with_wait = false;  ///< its last word is a pure wait (a start can fold it)
    std::size_t after_start = 0;  ///< index just after the last start word
    std::uint64_t legs = 0;       ///< legs issued (window position)
    bool touched = false;
    std::vector<Reading> reading;  ///< at most the window's legs
  };

  CoreBook& book(CoreId core);
  /// Adds a word at index `at` of `core`'s program (`wait`: a pure wait); `make` encodes it,
  /// called only if the programs are kept.
  template <class Make>
  void put(CoreId core, std::size_t at, bool wait, Make&& make, std::string_view note);
  /// A pure wait word at the end of `core`'s program.
  void put_wait(CoreId core, unsigned sem, std::uint32_t target, std::string_view note);
  /// gen + start, no relay check; `count` adds the increment to the receiver's books.
  void direct_leg(CoreId src, CoreId dst, std::uint64_t src_off, std::uint64_t dst_off,
                  std::uint64_t bytes, unsigned remote_sem, std::string_view note);
  unsigned relay_sem(unsigned remote_sem);
  /// Before `src` writes `slot` on `relay` again: once the relay's engines are done with its
  /// last second hop, the relay increments src's credit semaphore for that relay (one per
  /// relay, so that a wait for all its credits so far is exact), and src waits for it.
  void credit_relay_slot(CoreId src, CoreId relay, const SlotKey& key, RelaySlot& slot);
  /// Before a local write of [lo, hi): wait until the core's legs reading it are done.
  void release(CoreId core, std::uint64_t lo, std::uint64_t hi);

  Geometry g_;
  bool notes_;
  bool keep_;  // the programs' words, not only their count
  std::vector<CoreBook> books_;
  std::vector<std::uint32_t> expected_;  // [core * semaphores + sem]
  std::vector<unsigned> window_;         // the local-semaphore slots
  unsigned next_sem_ = 0;
  std::uint64_t sbuf_used_ = 0;
  std::vector<Pending> pending_;
  std::map<unsigned, unsigned> relay_sems_;   // remote_sem -> relay's semaphore
  std::map<SlotKey, RelaySlot> relay_slots_;  // (sender, target, target offset, bytes)
  std::map<CoreId, unsigned> credit_sems_;    // relay -> its credits' semaphore, on the senders
  struct Written {  // bytes [lo, hi) of every partition of a core, written by `writer`'s leg
    std::uint64_t hi;
    CoreId writer;
  };
  struct Landed {  // what other cores' legs wrote into one core in this iteration
    std::multimap<std::uint64_t, Written> by_lo;
    std::uint64_t longest = 0;  // the longest range in by_lo (how far back a reader looks)
  };
  /// Notes a data leg for the forward books (after track_forwards()).
  void note_forward(CoreId src, CoreId dst, std::uint64_t src_off, std::uint64_t dst_off,
                    std::uint64_t bytes);
  std::optional<unsigned> forward_sem_;           // set by track_forwards()
  std::map<CoreId, Landed> landed_;               // by receiving core, this iteration's
  std::set<std::pair<CoreId, CoreId>> forwards_;  // (forwarder, writer) since the last fence
  EmitStats stats_;
  base::Status status_ = base::ok_status();
};

}  // namespace sbrdma::collectives
