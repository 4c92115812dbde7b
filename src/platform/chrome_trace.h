#pragma once
/// ChromeTrace: a Chrome / Perfetto trace (JSON "traceEvents") of one Simulation run, for
/// chrome://tracing or ui.perfetto.dev. Deterministic: the same run gives the same bytes.
///
///   process "core N (chip c tpb t)"          one per traced core (pid = global core id)
///     thread 0     "POOL"         one slice per instruction word (its mnemonic, from the
///                                 tick the sequencer reaches it to the tick it moves on;
///                                 0 long for a word that takes no event, e.g. a met wait),
///                                 nested: "wait sem[i] >= v" and "q7 busy" (desc gen cost,
///                                 local compute)
///     thread 1+p   "Q7 Pp (RX|TX)" the Q7 roles: "drain" (write fence), "left_pop" waits,
///                                 "right_push" instants
///     thread 100+e "DMA e"        one slice per descriptor pair, from the engine taking it
///                                 to its landing; pairs in flight at once would overlap,
///     thread 100+e+100k           so each goes to the lowest lane free at its take: lane 0
///            "DMA e (k+1)"        is "DMA e", lane k a thread of its own, sorted right
///                                 after "DMA e" [CHOICE D29g]
///     counters     "sem[i]"       a semaphore's value after each tick that changed it
///                                 (and its value before the first change, at t = 0)
///   Times are microseconds with 6 decimals (exact picoseconds).
///
/// How it learns: the kernel calls record() before each event; state the previous event
/// changed (a sequencer's pc, a process's wait, a queue's head, semaphores) is polled then and
/// dated at that previous event's tick. Only what can have changed is read: the cores whose
/// process ran (resumed()), the engines that stepped, the semaphores the machine logged
/// (semaphore_log()), so a traced run costs about the same per event at any scale. The
/// environments report delays, fences and pushes.
/// Traced cores: those with a program and the peers their gen / SB2SB words name, all of them
/// or those SimOptions::trace_cores lists (a core's engines and Q7 roles show with it).

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/units.h"
#include "device/semaphore_bank.h"
#include "device/topology.h"
#include "sim/trace.h"

namespace sbrdma::platform {

class Simulation;

/// A trace time: microseconds with 6 decimals, exact from picoseconds.
std::string trace_us(base::Tick t);

/// When a core ran one instruction word: its POOL slice, as numbers.
struct WordSpan {
  device::CoreId core = 0;
  std::size_t pc = 0;
  base::Tick from;
  base::Tick to;
};

class ChromeTrace final : public sim::TraceSink {
 public:
  /// Contract: `sim` outlives the trace; begin() is called after the programs are loaded.
  explicit ChromeTrace(const Simulation& sim);

  /// Before the run: picks the traced cores, opens each sequencer's first word.
  void begin();
  /// sim::TraceSink: polls what the previous event changed.
  void record(const sim::TraceRecord& r) override;
  /// sim::TraceSink: notes the core whose process runs, to poll it.
  void resumed(std::uint32_t pid) override;
  /// Where the machine logs semaphore changes (Machine::watch_semaphores) during the run.
  [[nodiscard]] std::vector<device::SemChange>& semaphore_log() noexcept { return sem_log_; }
  /// After the run (at its end time): the last poll; closes open slices.
  void end(base::Tick t);

  // From the environments (EnvObserver calls, forwarded by the Simulation).
  void on_busy(device::CoreId core, base::Tick t, base::Tick d);
  void on_fence(device::CoreId core, unsigned prid, base::Tick t, base::Tick until);
  void on_push(device::CoreId core, unsigned prid, base::Tick t, std::uint32_t value);

  /// The whole trace document.
  [[nodiscard]] std::string json() const;
  /// The POOL word slices of json(), in the order they were written.
  [[nodiscard]] const std::vector<WordSpan>& word_spans() const noexcept { return words_; }

 private:
  struct OpenSlice {
    std::string name;
    base::Tick since;
    std::uint64_t seq = 0;  ///< waits: the CoreWait sequence number
    unsigned tid = 0;
  };
  struct CoreTrack {
    std::optional<OpenSlice> word;  ///< the instruction being executed
    std::size_t pc = 0;
    std::optional<OpenSlice> wait;
    std::uint64_t closed_wait = 0;
    /// POOL slices inside a word (waits, q7 busy), held until the word whose span holds
    /// theirs is written, then written right after it: a viewer makes the first of two equal
    /// slices the parent, and the word must be. (A busy can come before its word opens: the
    /// trace sees a new pc only at the next event.)
    struct Inner {
      base::Tick from;
      base::Tick to;
      std::string event;
    };
    std::vector<Inner> inner;
  };
  struct Taken {  ///< a pair taken: when, and its slice's args (what it moves where)
    base::Tick at;
    std::string args;
  };
  struct EngineTrack {
    std::vector<Taken> taken;          ///< pairs not landed yet (FIFO)
    std::size_t next = 0;              ///< index of the oldest in `taken`
    std::vector<base::Tick> lane_end;  ///< per lane (thread), the end of its last slice
    /// Its M2S and S2M rings' bases, read from their registers at its first pair (boot set
    /// them, and nothing moves them after).
    std::optional<std::array<std::uint64_t, 2>> ring_bases;
  };
  struct HeadCheck {  ///< an engine step ran: did it take a pair?
    device::CoreId core;
    unsigned engine;
    std::uint32_t head_before;
  };

  void poll(base::Tick t);
  void poll_core(device::CoreId core, CoreTrack& ct, base::Tick t);
  void poll_semaphores(base::Tick t);
  /// Writes the slice of `ct`'s open word, ending at `to`, and closes it.
  void close_word(device::CoreId core, CoreTrack& ct, base::Tick to);
  void engine_event(std::string_view label, base::Tick t);
  [[nodiscard]] std::uint32_t engine_head(device::CoreId core, unsigned engine) const;
  /// The args of the slice of the pair an engine took from slot `slot` of its two rings (a
  /// pair's descriptors share a slot, D21): its bytes and where they come from and go to
  /// (D29g).
  [[nodiscard]] std::string pair_args(device::CoreId core, unsigned engine, std::uint32_t slot,
                                      EngineTrack& et) const;
  void slice(device::CoreId core, unsigned tid, const std::string& name, base::Tick from,
             base::Tick to, const std::string& args = {});
  /// A slice on `core`'s POOL thread inside one of its words (written after the word's own).
  void inner_slice(device::CoreId core, const std::string& name, base::Tick from, base::Tick to);
  /// A wait's slice: inside the word on the POOL thread, else on its Q7 thread.
  void wait_slice(device::CoreId core, const OpenSlice& wait, base::Tick to);
  [[nodiscard]] static std::string slice_event(device::CoreId core, unsigned tid,
                                               const std::string& name, base::Tick from,
                                               base::Tick to, const std::string& args);
  void use_track(device::CoreId core, unsigned tid);

  const Simulation& sim_;
  std::map<device::CoreId, CoreTrack> cores_;  // the programmed cores
  std::vector<device::CoreId> core_of_pid_;    // sequencer process -> its core
  std::vector<device::CoreId> ran_;            // cores whose process ran since the last poll
  std::vector<bool> shown_;                    // core -> SimOptions::trace_cores lets it show
  std::vector<device::CoreId> sem_cores_;      // traced cores (semaphore counters), ascending
  std::vector<std::size_t> sem_row_;           // core -> its index in sem_cores_ (or kNoRow)
  std::vector<std::uint32_t> sems_;            // [i * semaphores + idx], last value seen
  /// Per counter, its last sample: where it is in events_ (kNoSample before the first) and
  /// its tick. A later sample at the same tick replaces it (several landings in one tick are
  /// events of their own, and a viewer shows only the last value of a tick).
  struct LastSample {
    std::size_t event = kNoSample;
    base::Tick at;
  };
  static constexpr std::size_t kNoSample = SIZE_MAX;
  std::vector<LastSample> sem_last_;
  std::vector<device::SemChange> sem_log_;  // changes since the last poll
  std::vector<std::size_t> sem_keys_;       // scratch: the log's [i * semaphores + idx]
  std::map<std::pair<device::CoreId, unsigned>, EngineTrack> engines_;
  std::vector<HeadCheck> head_checks_;
  base::Tick last_;
  std::set<std::pair<device::CoreId, unsigned>> tracks_;  // (pid, tid) used
  std::vector<std::string> events_;
  std::vector<WordSpan> words_;
};

}  // namespace sbrdma::platform
