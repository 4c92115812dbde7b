// Kernel::run_next_inline: a chained event run in place when it would be the next event
// anyway. The order of everything, the clock, the event count and the trace must be those of
// a run that schedules each chained event, with and without a tie seed.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "sim/kernel.h"
#include "sim/trace.h"

namespace sbrdma::sim {
namespace {

using base::Tick;

/// Records what the kernel reports before each event.
class Recorder final : public TraceSink {
 public:
  void record(const TraceRecord& r) override {
    log.push_back(std::to_string(r.time.ps) + " #" + std::to_string(r.seq) + " " +
                  std::string(r.label));
  }
  std::vector<std::string> log;
};

/// Chains of items, each item due at a tick under a sequence number reserved up front (as the
/// machine's posted writes and landings are); each item's action logs, may add noise events
/// and then runs or schedules the chain's next item. Noise events log and may add more.
class World {
 public:
  World(std::uint64_t tie_seed, bool inline_next) : k(tie_seed), inline_(inline_next) {
    k.set_trace(&trace);
    std::mt19937_64 setup(42);
    chains_.resize(6);
    std::vector<std::uint64_t> t(chains_.size(), 0);
    for (int i = 0; i < 240; ++i) {  // reserve in an interleaved order, times rising per chain
      const std::size_t c = setup() % chains_.size();
      t[c] += setup() % 3;  // many ties, within and across chains
      chains_[c].push_back(Item{Tick{t[c]}, k.reserve_seq()});
    }
    for (std::size_t c = 0; c < chains_.size(); ++c) {
      if (!chains_[c].empty()) schedule(c, 0);
    }
  }

  Kernel k;
  Recorder trace;
  std::vector<std::string> log;
  std::uint64_t inlined = 0;  ///< chained items run in place

 private:
  struct Item {
    Tick at;
    std::uint64_t seq;
  };

  void schedule(std::size_t c, std::size_t i) {
    const Item& it = chains_[c][i];
    k.schedule_at(
        it.at, it.seq, [this, c, i] { run_item(c, i); }, kLabel);
  }

  void run_item(std::size_t c, std::size_t i) {
    for (;;) {
      log.push_back(std::to_string(k.now().ps) + " chain " + std::to_string(c) + " item " +
                    std::to_string(i) + " events " + std::to_string(k.events_processed()));
      if (rng_() % 2 == 0) noise(3);
      if (++i == chains_[c].size()) return;
      const Item& next = chains_[c][i];
      if (!inline_ || !k.run_next_inline(next.at, next.seq, kLabel)) return schedule(c, i);
      ++inlined;
    }
  }

  void noise(int budget) {
    const std::uint64_t id = noise_ids_++;
    k.schedule(
        Tick{rng_() % 3},
        [this, id, budget] {
          log.push_back(std::to_string(k.now().ps) + " noise " + std::to_string(id));
          if (budget > 0 && rng_() % 3 == 0) noise(budget - 1);
        },
        "noise");
  }

  static constexpr const char* kLabel = "chain";
  bool inline_;
  std::vector<std::vector<Item>> chains_;
  std::mt19937_64 rng_{7};
  std::uint64_t noise_ids_ = 0;
};

TEST(KernelInline, RunsExactlyAsScheduledEventsWouldWithAndWithoutATieSeed) {
  for (std::uint64_t seed : {0ULL, 1ULL, 99ULL}) {
    World plain(seed, false);
    const RunResult a = plain.k.run();
    World fast(seed, true);
    const RunResult b = fast.k.run();
    EXPECT_EQ(fast.log, plain.log) << "seed " << seed;
    EXPECT_EQ(fast.trace.log, plain.trace.log) << "seed " << seed;
    EXPECT_EQ(b.end_time, a.end_time) << "seed " << seed;
    EXPECT_EQ(b.events_processed, a.events_processed) << "seed " << seed;
    EXPECT_GT(a.events_processed, 240u);
    EXPECT_EQ(plain.inlined, 0u);
    EXPECT_GT(fast.inlined, 20u) << "seed " << seed;  // the runs really differ in how
  }
}

TEST(KernelInline, RefusesWhenAnotherEventComesFirst) {
  Kernel k;
  std::vector<std::string> got;
  const std::uint64_t early = k.reserve_seq();  // below `late`: first at a shared tick
  const std::uint64_t late = k.reserve_seq();
  k.schedule(
      Tick{5}, [] {}, "other");  // at tick 5, after both reserved numbers
  k.schedule(
      Tick{1},
      [&] {
        got.push_back(k.run_next_inline(Tick{6}, late, "x") ? "yes" : "no");   // 5 comes first
        got.push_back(k.run_next_inline(Tick{5}, early, "x") ? "yes" : "no");  // before "other"
        EXPECT_EQ(k.now(), Tick{5});
      },
      "first");
  k.run();
  EXPECT_EQ(got, (std::vector<std::string>{"no", "yes"}));
}

TEST(KernelInline, RefusesAfterAStopAndBeyondTheLimit) {
  Kernel k;
  std::vector<bool> got;
  const std::uint64_t s1 = k.reserve_seq();
  const std::uint64_t s2 = k.reserve_seq();
  k.schedule(
      Tick{1},
      [&] {
        got.push_back(k.run_next_inline(Tick{20}, s1, "x"));  // past run_until's limit
        k.request_stop();
        got.push_back(k.run_next_inline(Tick{2}, s2, "x"));  // the run is stopping
      },
      "a");
  k.run_until(Tick{10});
  EXPECT_EQ(got, (std::vector<bool>{false, false}));
  EXPECT_EQ(k.events_processed(), 1u);
}

TEST(KernelInline, RunsAnEventExactlyAtTheLimit) {
  // run_until(limit) runs events at `limit` itself, so an inline one at `limit` runs too.
  Kernel k;
  std::vector<bool> got;
  const std::uint64_t s = k.reserve_seq();
  k.schedule(
      Tick{1}, [&] { got.push_back(k.run_next_inline(Tick{10}, s, "x")); }, "a");
  k.run_until(Tick{10});
  EXPECT_EQ(got, (std::vector<bool>{true}));
  EXPECT_EQ(k.events_processed(), 2u);
  EXPECT_EQ(k.now(), Tick{10});
}

}  // namespace
}  // namespace sbrdma::sim
