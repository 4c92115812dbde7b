#pragma once
/// RaceChecker: finds pairs of accesses to the same memory bytes, at least one a write, that
/// nothing orders: no semaphore wait, doorbell or program order puts one before the other.
/// A run gets the same bytes either way only because the simulator's timing happened to order
/// them; on a device, or with other timing, they can land the other way round. [CHOICE D49]
///
/// Who acts (each an "actor" with a vector clock, as in FastTrack):
///   a core's program (its sequencer and Q7 pair: one actor)
///   each DMA queue (core, engine, queue): its descriptor pairs, in ring order
/// What orders them (happens-before):
///   program order; a queue's pairs in take order
///   core --MMIO write issued--> its effect: a doorbell's batch (the pairs whose M2S or S2M
///         descriptor it published join the issuer's clock at the issue), a semaphore write
///         (kept by the semaphore with it)
///   DMA pair --semaphore descriptor--> the semaphore keeps the queue's clock at that pair
///   semaphore --a wait that passes--> the waiting core joins the writes it counted: those
///         not joined before, up to the last that made its condition true, the waiter's own
///         increments and decrements that a write fence saw land counted first
/// A wait that could have passed on fewer of the others' writes, had its own unfenced
/// updates of the semaphore not landed yet, is an UnfencedWait (D49d).
/// Any N increments satisfy a wait for N, so joining the first N that came can hide a race
/// (as can the oldest writes joined past kSemWritesKept). The merge past kSemWritesKept can
/// invent one (D49), folding a write that made the condition false into one that made it
/// true.
///
/// What is checked: DMA data pairs (source read, destination write, at the landing) and local
/// compute (its operand reads and its result write), against every earlier access to the
/// bytes. A write forgets the bytes' earlier accesses; a race is reported once per pair of
/// sides (a core's program or DMA, the word, read or write), with a count of the repeats.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/units.h"
#include "device/topology.h"
#include "soc/address_map.h"

namespace sbrdma::device {

/// The program words behind accesses, as the run knows them (platform/ implements it).
class RaceOrigins {
 public:
  virtual ~RaceOrigins() = default;
  /// The word core `core`'s program runs now, if known.
  [[nodiscard]] virtual std::optional<std::size_t> running_word(CoreId core) const = 0;
  /// The word that wrote the M2S descriptor at `slot` of `engine`'s queue `queue` on `core`,
  /// if known.
  [[nodiscard]] virtual std::optional<std::size_t> descriptor_word(CoreId core, unsigned engine,
                                                                   unsigned queue,
                                                                   unsigned slot) const = 0;
};

/// One side of a race.
struct RaceAccess {
  CoreId core = 0;                 ///< the actor's core
  std::optional<unsigned> engine;  ///< a DMA queue's engine (else the core's program)
  unsigned queue = 0;              ///< with engine
  unsigned slot = 0;               ///< with engine: the pair's M2S slot
  std::optional<std::size_t> pc;   ///< the program word, when known
  bool write = false;
  base::Tick time;
};

/// Two accesses to the same bytes that nothing orders; `first` took effect first. Its place
/// spans the repeats' too, where they are in the same memory (RaceChecker::where).
struct Race {
  RaceAccess first;
  RaceAccess second;
  std::uint64_t repeats = 0;          ///< further races between the same two sides
  CoreId mem_core = 0;                ///< whose memory
  bool sbuf = true;                   ///< SBUF (else another memory of the core)
  std::uint64_t first_partition = 0;  ///< SBUF: the partitions, first to last
  std::uint64_t last_partition = 0;
  std::vector<bool> partitions;  ///< SBUF: by partition, whether the race or a repeat was there
  std::uint64_t lo = 0;  ///< bytes [lo, hi) of each (of the memory if not SBUF): the hull of
  std::uint64_t hi = 0;  ///< spans
  /// The byte ranges the race and its repeats touched (in each partition), merged, ascending;
  /// past kSpansKept only the hull is known (spans is then empty).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  static constexpr std::size_t kSpansKept = 4;
  /// A DMA side whose repeats came from other descriptors of its word too (other engines,
  /// queues or slots than the one named).
  bool first_others = false;
  bool second_others = false;
  /// One DMA pair copying onto bytes it reads (its source and destination overlap in one
  /// memory): `first` is its read, `second` its write. [CHOICE D49c]
  bool self = false;
};

/// A wait that passed counting its own core's updates of the semaphore that no write fence saw
/// land. A core's semaphore update is a posted write: a device may look at the wait before it
/// lands, and there the wait passes on fewer of the other writes than it counted here, so what
/// those others order after the wait is this run's timing. Reported only where those others
/// carry something the fewer do not. [CHOICE D49d]
struct UnfencedWait {
  CoreId core = 0;
  std::optional<std::size_t> pc;  ///< the waiting word, when known
  unsigned semaphore = 0;
  base::Tick time;               ///< when it passed
  std::vector<std::size_t> own;  ///< the words of the own updates it may pass without (known)
  std::size_t counted = 0;       ///< other writes it counted here
  std::size_t fewest = 0;        ///< other writes it needs where those own ones did not land
  std::uint64_t repeats = 0;     ///< later passes of the same word found the same
};

/// The races found, one per pair of sides: a side is its core, program or DMA, word and
/// way (read or write), so the engines and partitions one word spreads over are one race,
/// whose place widens to span its repeats' (in the same memory).
class RaceLog {
 public:
  /// `sbuf_partition_bytes`: the SBUF memory's partition stride (to name places).
  explicit RaceLog(std::uint64_t sbuf_partition_bytes);
  /// `first` and `second` race on bytes [lo, hi) of memory (mem_core, sbuf), within one SBUF
  /// partition; `self`: they are one DMA pair's read and write (Race::self).
  void add(CoreId mem_core, bool sbuf, std::uint64_t lo, std::uint64_t hi, const RaceAccess& first,
           const RaceAccess& second, bool self = false);
  /// The races found, in the order found (at most kKept distinct ones).
  [[nodiscard]] const std::vector<Race>& races() const noexcept { return races_; }
  /// Every race found, repeats and those past kKept included.
  [[nodiscard]] std::uint64_t total() const noexcept { return total_; }
  static constexpr std::size_t kKept = 1000;

 private:
  /// Widens r's spans by [lo, hi).
  static void add_span(Race& r, std::uint64_t lo, std::uint64_t hi);
  std::uint64_t partition_bytes_;
  std::vector<Race> races_;
  /// (core << 2 | DMA << 1 | write, pc + 1) of each side, and self -> races_ index
  std::map<std::array<std::uint64_t, 5>, std::size_t> keys_;
  std::uint64_t total_ = 0;
};

class RaceChecker {
 public:
  /// `sbuf_partition_bytes`: the SBUF memory's partition stride (to name places).
  /// Contract: `origins` outlives the checker.
  RaceChecker(std::size_t cores, std::uint64_t sbuf_partition_bytes, const RaceOrigins& origins);
  ~RaceChecker();
  RaceChecker(const RaceChecker&) = delete;
  RaceChecker& operator=(const RaceChecker&) = delete;

  /// Core `issuer` issues the posted MMIO write of sequence number `seq`: its clock now is
  /// what the write releases; later accesses of the core are not before it.
  void on_post(CoreId issuer, std::uint64_t seq);
  /// The write of `seq` is taking effect (until end_posted): doorbells and semaphore writes
  /// in it release the issue-time clock.
  void begin_posted(std::uint64_t seq);
  void end_posted();
  /// The clock of the write taking effect now, kept by a doorbell's batch (0: none).
  std::uint32_t capture_release();

  /// What one doorbell's batch released, as a pair taken from it sees it: the clock
  /// (capture_release(), 0 for none) and whether this is the batch's last pair (after which
  /// the batch holds the clock no longer).
  struct BatchClock {
    std::uint32_t clock = 0;
    bool done = false;
  };
  /// An engine takes a descriptor pair of `queue` (M2S slot `slot`): the queue joins what the
  /// doorbell that published its M2S descriptor released, and the one that published its S2M
  /// descriptor, and no later doorbell's (a doorbell orders only the descriptors it
  /// publishes). Returns the pair's id for on_dma / begin_pair / end_pair.
  std::uint32_t on_take(CoreId core, unsigned engine, unsigned queue, unsigned slot, BatchClock m2s,
                        BatchClock s2m, base::Tick now);
  /// Pair `pair` lands (until end_pair, which ends the pair): a semaphore write in it
  /// releases the pair's clock.
  void begin_pair(std::uint32_t pair) {
    current_ = pairs_[pair].clock;
    current_pc_.reset();
  }
  void end_pair(std::uint32_t pair);
  /// Pair `pair`'s data landing: reads `len` bytes at `src_off` of memory (src_core,
  /// src_sbuf), writes them at `dst_off` of (dst_core, dst_sbuf).
  void on_dma(std::uint32_t pair, CoreId src_core, bool src_sbuf, std::uint64_t src_off,
              CoreId dst_core, bool dst_sbuf, std::uint64_t dst_off, std::uint64_t len,
              base::Tick now);
  /// A write of semaphore window `w`, slot `idx`, of `core` takes effect, released by the
  /// current posted write or pair (if any); the semaphore's value goes from `before` to
  /// `after` (the same for an EVENTS write).
  void on_semaphore_write(CoreId core, soc::SemWindow w, unsigned idx, std::uint32_t before,
                          std::uint32_t after);
  /// Core `core`'s write fence has passed: every posted write it issued so far has taken
  /// effect, so its increments and decrements of its own semaphores come before its later
  /// waits on any device (on_acquire counts them first).
  void on_fence(CoreId core);
  /// Core `core`'s wait on semaphore `idx`, whose condition is `holds`, passes. It joins the
  /// writes not joined before up to the last one that made the condition hold: the writes it
  /// counted. A later write it did not need (the 8th increment of a wait for 7) stays
  /// unordered, so that a wait counting too few is a race, whichever increment came last.
  /// Where every such write is an increment or a decrement, the core's own that a fence saw
  /// land count first, wherever they landed among the others: a consumer that takes one
  /// count per item with its own decrement, fenced, then waits `>= 1` again needs one more
  /// of the others each time, and joins it.
  /// Where the wait could have passed on fewer of the others' writes had the waiter's
  /// unfenced own updates of the semaphore not landed yet, it is an UnfencedWait (D49d).
  void on_acquire(CoreId core, unsigned idx, const std::function<bool(std::uint32_t)>& holds,
                  base::Tick now = {});
  /// Core `core` issues a wait on its semaphore `idx` (before it passes, at once or later):
  /// which writes had landed then, for the next on_acquire's UnfencedWait check.
  void on_wait(CoreId core, unsigned idx);
  /// Unjoined writes a semaphore keeps apart; past this, its two oldest are joined into one
  /// (a wait then joins both where it needed the first, which can hide a race; where the
  /// two were a write that made the wait's condition false and one that made it true again,
  /// the merged one changes nothing and a wait joins neither, which can invent one).
  static constexpr std::size_t kSemWritesKept = 32;
  /// Core `core`'s program accesses bytes [offset, offset + bytes) of each SBUF partition
  /// [0, partitions).
  void on_core_access(CoreId core, unsigned partitions, std::uint64_t offset, std::uint64_t bytes,
                      bool write, base::Tick now);
  /// Bytes [lo, hi) of a partition.
  using ByteRun = std::pair<std::uint64_t, std::uint64_t>;
  /// The same for each run of `runs` in turn (one word's strided operand), with the same
  /// result, in one pass over each partition's segments instead of one per run. Contract:
  /// `runs` ascending and disjoint.
  void on_core_access(CoreId core, unsigned partitions, std::span<const ByteRun> runs, bool write,
                      base::Tick now);

  /// The races found, in the order found (at most kKept distinct ones).
  [[nodiscard]] const std::vector<Race>& races() const noexcept { return log_.races(); }
  /// "core 1 SBUF partition 0 bytes [0x0, 0x100)", or "core 1 SBUF bytes [0x0, 0x100) of
  /// partitions 0-127" where the race's repeats spread over several: the partitions as ranges
  /// ("0-3 and 8-11"), a stride ("0-120 (every 8th)") or a count ("37 of partitions 0-127");
  /// the bytes as up to four ranges ("[0x0, 0x10) and [0x2000, 0x2010)"), or "bytes in
  /// [0x0, 0x2010)" where more.
  [[nodiscard]] static std::string where(const Race& r);
  /// Every race found, repeats and those past kKept included.
  [[nodiscard]] std::uint64_t total() const noexcept { return log_.total(); }
  /// The unfenced waits found, one per waiting word (at most kKept), in the order found.
  [[nodiscard]] const std::vector<UnfencedWait>& unfenced_waits() const noexcept {
    return unfenced_;
  }
  /// Every unfenced wait found, repeats included.
  [[nodiscard]] std::uint64_t unfenced_total() const noexcept { return unfenced_total_; }
  /// Accesses checked so far: a DMA pair's read and write, a core's operand reads and result
  /// write, each once.
  [[nodiscard]] std::uint64_t accesses() const noexcept { return accesses_; }
  static constexpr std::size_t kKept = RaceLog::kKept;

 private:
  using Clock = std::vector<std::uint32_t>;  ///< by actor; missing entries are 0
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  /// What an actor knows at one moment: `base`, raised by one `extra` entry (so that queues
  /// share their core's clock instead of copying it at every doorbell), and its own `epoch`.
  struct Snapshot {
    std::shared_ptr<const Clock> base;
    std::uint32_t extra = kNone;  ///< an actor whose entry is at least extra_epoch
    std::uint32_t extra_epoch = 0;
    std::uint32_t self = kNone;
    std::uint32_t epoch = 0;
    std::uint32_t holders = 0;  ///< batches that still hold it
    std::uint64_t serial = 0;   ///< which snapshot (an index is reused once dropped)
  };
  struct Actor {
    std::shared_ptr<const Clock> base;
    std::uint32_t extra = kNone;
    std::uint32_t extra_epoch = 0;
    std::uint32_t epoch = 1;
    /// A queue: the M2S and S2M batch clocks it joined last (serials).
    std::array<std::uint64_t, 2> joined{};
    /// A core: its posted writes of epochs below this have taken effect (on_fence).
    std::uint32_t fenced = 0;
  };
  /// A semaphore write not yet joined by a wait: its writer's clock and the value it made.
  struct SemWrite {
    Snapshot by;  ///< a copy (its base shared), not held in snapshots_
    std::uint32_t before = 0;
    std::uint32_t after = 0;
    bool additive = false;          ///< an INC or DEC window write (or two of them merged)
    std::optional<std::size_t> pc;  ///< a core's posted write: the word that issued it
    std::uint64_t serial = 0;       ///< the semaphore's writes before it (a merge: its last's)
  };
  /// A core's wait as it was issued: its semaphore and that semaphore's writes so far.
  struct WaitStart {
    unsigned idx = 0;
    std::uint64_t serial = 0;
  };
  /// A posted write not yet landed: the issuer's clock (snapshots_ index) and word.
  struct Posted {
    std::uint32_t clock = 0;
    std::optional<std::size_t> pc;
  };
  /// One recorded access: who (actor at epoch), where it came from (sites_), which way.
  struct Access {
    std::uint32_t actor = 0;
    std::uint32_t epoch = 0;
    std::uint32_t site = 0;
    bool write = false;
  };
  struct Segment {
    std::uint64_t lo = 0;  ///< bytes [lo, hi)
    std::uint64_t hi = 0;
    std::optional<Access> write;
    std::vector<Access> reads;  ///< at most one per actor, the latest
  };
  /// Disjoint segments in address order. A sorted vector, not a tree: a lookup bisects
  /// contiguous memory instead of chasing nodes, and a split moves a few neighbours.
  using Shadow = std::vector<Segment>;
  struct Pair {
    std::uint32_t clock = 0;  ///< snapshots_ index
    std::uint32_t site = 0;
  };

  /// `s`'s entry for `actor`.
  [[nodiscard]] static std::uint32_t entry(const Snapshot& s, std::uint32_t actor);
  [[nodiscard]] static std::uint32_t entry(const Actor& a, std::uint32_t actor);
  [[nodiscard]] static bool before(const Access& a, const Snapshot& s);
  /// True if every entry of `b` is at most `a`'s (null: all zero); remembers the last answer
  /// (holding both, so that neither address can be reused for another clock meanwhile).
  [[nodiscard]] bool covers(const std::shared_ptr<const Clock>& a,
                            const std::shared_ptr<const Clock>& b);
  static void join_into(Clock& c, const Snapshot& s);
  /// Actor `actor` learns what `s` knows.
  void join_actor(std::uint32_t actor, const Snapshot& s);
  /// Queue actor `q` joins batch clock `b` (the batch of direction `dir`: 0 M2S, 1 S2M), once
  /// per batch; the batch's last pair lets it go.
  void join_batch(std::uint32_t q, BatchClock b, unsigned dir);
  /// on_acquire's check for an UnfencedWait: `pending` before the wait joins the first
  /// `counted` of them.
  /// `issue`: the semaphore's serial when the wait was issued, if known.
  void check_unfenced(CoreId core, unsigned idx, const std::vector<SemWrite>& pending,
                      std::size_t counted, bool own_first,
                      const std::function<bool(std::uint32_t)>& holds,
                      std::optional<std::uint64_t> issue, base::Tick now);
  /// A snapshot of what actor `actor` knows now (its next accesses are not in it).
  std::uint32_t snapshot_of(std::uint32_t actor);
  /// Marks snapshot `i` unused (its index is reused).
  void drop_snapshot(std::uint32_t i);
  std::uint32_t core_actor(CoreId core);
  std::uint32_t queue_actor(CoreId core, unsigned engine, unsigned queue);
  std::uint32_t add_site(RaceAccess a);
  /// Splits `shadow` so that segments start at lo and hi, and fills its gaps within [lo, hi):
  /// returns the index of the first of the segments that then cover [lo, hi) exactly.
  static std::size_t cover(Shadow& shadow, std::uint64_t lo, std::uint64_t hi);
  void access(CoreId mem_core, bool sbuf, std::uint64_t lo, std::uint64_t hi, const Access& a,
              const Snapshot& s);
  /// access() within one shadow.
  void access_in(Shadow& shadow, CoreId mem_core, bool sbuf, std::uint64_t lo, std::uint64_t hi,
                 const Access& a, const Snapshot& s);
  /// access_in() of each of `runs`, ascending and disjoint, each offset by `base`.
  void access_runs_in(Shadow& shadow, CoreId mem_core, std::uint64_t base,
                      std::span<const ByteRun> runs, const Access& a, const Snapshot& s);
  /// One segment covered by access `a` of an actor knowing `s`: reports what races it,
  /// then records it.
  void touch(Segment& seg, CoreId mem_core, bool sbuf, const Access& a, const Snapshot& s);
  /// Merges neighbours in [from, to) of `shadow` that say the same thing.
  static void merge_alike(Shadow& shadow, std::size_t from, std::size_t to);
  void report(CoreId mem_core, bool sbuf, std::uint64_t lo, std::uint64_t hi, const Access& first,
              const Access& second);
  [[nodiscard]] RaceAccess side(const Access& a) const;

  std::uint64_t partition_bytes_;
  const RaceOrigins* origins_;
  std::vector<Actor> actors_;         ///< cores and queues, as they first act
  std::vector<std::uint32_t> cores_;  ///< core -> actor, kNone until it acts
  std::unordered_map<std::uint64_t, std::uint32_t> queue_actors_;
  std::vector<Snapshot> snapshots_;  ///< [0] is none
  std::vector<std::uint32_t> free_snapshots_;
  std::uint64_t serials_ = 0;
  std::uint64_t accesses_ = 0;
  std::unordered_map<std::uint64_t, Posted> posted_;  ///< by seq
  std::uint32_t current_ = 0;
  std::optional<std::size_t> current_pc_;  ///< the word of the posted write taking effect
  bool captured_ = false;    ///< the posted write taking effect was kept by a doorbell
  std::vector<Pair> pairs_;  ///< [0] is none
  std::vector<std::uint32_t> free_pairs_;
  std::vector<RaceAccess> sites_;
  /// (core, idx) -> the writes of that semaphore's value no wait joined yet, in the order they
  /// took effect
  std::unordered_map<std::uint64_t, std::vector<SemWrite>> semaphores_;
  /// (core, idx) -> writes of that semaphore so far
  std::unordered_map<std::uint64_t, std::uint64_t> sem_serials_;
  /// core -> its wait issued and not yet passed (on_wait)
  std::unordered_map<CoreId, WaitStart> waits_;
  /// (core << 1 | SBUF) -> a shadow per SBUF partition (one for another memory)
  std::unordered_map<std::uint64_t, std::vector<Shadow>> memories_;
  RaceLog log_;
  std::vector<UnfencedWait> unfenced_;
  /// (core, waiting word + 1) -> unfenced_ index
  std::map<std::pair<CoreId, std::size_t>, std::size_t> unfenced_keys_;
  std::uint64_t unfenced_total_ = 0;
  /// covers()'s last question and answer.
  std::shared_ptr<const Clock> covers_a_;
  std::shared_ptr<const Clock> covers_b_;
  bool covers_answer_ = false;
};

}  // namespace sbrdma::device
