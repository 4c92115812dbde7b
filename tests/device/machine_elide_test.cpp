// Timing-only runs give data landings no kernel event (elide_data_landings, [CHOICE D35]).
// Nothing may tell: the same workload, with and without the elision, must show the same
// completion heads to MMIO reads placed just before and just after every landing tick, the
// same end, counters, event count and final pointers, also across a queue reset mid-flight.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "machine_rig.h"
#include "sim/trace.h"

namespace sbrdma::device {
namespace {

using base::Tick;
using soc::Direction;
using testing::Channel;
using testing::Rig;

/// Collects the ticks of the engines' landing events.
class LandingTicks final : public sim::TraceSink {
 public:
  void record(const sim::TraceRecord& r) override {
    if (r.label.ends_with(".land")) ticks.push_back(r.time);
  }
  std::vector<Tick> ticks;
};

/// One completion-head read: when, which queue, what the register held.
struct Seen {
  Tick at;
  unsigned queue = 0;
  std::uint32_t reg = 0;  ///< its offset in the queue's bank
  std::uint32_t value = 0;
  bool operator==(const Seen&) const = default;
};

/// What a run showed.
struct Outcome {
  std::vector<Seen> reads;
  Tick end;
  Tick kernel_end;  ///< the kernel's last event
  std::uint64_t events = 0;
  std::uint64_t elided = 0;
  MachineStats stats;
  std::vector<QueueState> queues;
  std::vector<Tick> landing_ticks;  ///< landing events the kernel ran
  std::string errors;
};

constexpr CoreId kSrc = 0;
constexpr unsigned kEngine = 2;

/// Two queues of one engine on chip 0 copy to the same core, the other die and chip 1, in sizes
/// from 64 B to 64 KiB, so that landings interleave out of take order; queue 0 ends with a
/// semaphore pair, queue 1 with data, so the last landing has no semaphore behind it. At
/// `reset_at` (if set) queue 1 is reset while its pairs are in flight. MMIO reads of both
/// queues' completion heads run at each tick of `probe`: one read scheduled before the run
/// (it runs before that tick's landings) and one scheduled a tick earlier (after them).
Outcome run(bool elide, const std::vector<Tick>& probe, std::optional<Tick> reset_at) {
  MachineOptions o;
  o.timing_only = true;
  o.elide_data_landings = elide;
  Rig rig("trn2.48xlarge", o);
  LandingTicks lt;
  rig.kernel.set_trace(&lt);
  const CoreId same_die = 1;
  const CoreId other_die = 4;
  const CoreId other_chip = 8 + 5;
  rig.one_word(kSrc);
  std::vector<Channel> ch;
  ch.push_back(rig.open(kSrc, kEngine, 0, 32));
  ch.push_back(rig.open(kSrc, kEngine, 1, 32));
  const CoreId peers[] = {kSrc, same_die, other_die, other_chip};
  unsigned n[2] = {0, 0};
  for (unsigned i = 0; i < 12; ++i) {
    for (unsigned q = 0; q < 2; ++q) {
      const CoreId peer = peers[(i + q) % 4];
      const std::uint32_t len = 64U << ((i * 3 + q * 5) % 11);  // 64 B .. 64 KiB
      rig.copy(ch[q], rig.sbuf(kSrc, i, 0),
               rig.routed(kSrc, rig.sbuf(peer, 16 + i, q * 0x10000U), peer), len);
      ++n[q];
    }
  }
  rig.sema(ch[0], rig.sem_inc(kSrc, 7));
  ++n[0];
  // Queue 1 ends with the longest trip: 64 KiB to chip 1, the run's last landing.
  rig.copy(ch[1], rig.sbuf(kSrc, 12, 0), rig.routed(kSrc, rig.sbuf(other_chip, 40, 0), other_chip),
           65536);
  ++n[1];
  rig.start(ch[0], n[0]);
  rig.start(ch[1], n[1]);

  Outcome out;
  const soc::AddressMap& map = rig.map();
  const unsigned tpb = rig.tpb(kSrc);
  // The completion heads, the internal ones and the packet counts (D41m) of both queues.
  auto read_all = [&] {
    for (unsigned q = 0; q < 2; ++q) {
      for (Direction d : {Direction::kM2S, Direction::kS2M}) {
        const soc::QueueRegOffsets& regs = soc::queue_offsets(d);
        for (const std::uint32_t reg : {regs.comp_head, regs.comp_head_internal, regs.packets}) {
          const auto a = map.queue_reg_addr(tpb, kEngine, d, q, reg).value();
          out.reads.push_back(
              Seen{rig.kernel.now(), q * 2 + (d == Direction::kS2M), reg, rig.bus(kSrc).read32(a)});
        }
      }
    }
  };
  for (const Tick t : probe) {
    rig.kernel.schedule(t, read_all, "probe.before");
    if (t.ps > 0) {
      rig.kernel.schedule(
          t - Tick{1}, [&] { rig.kernel.schedule(Tick{1}, read_all, "probe.after"); }, "probe.arm");
    }
  }
  if (reset_at) {
    rig.kernel.schedule(
        *reset_at,
        [&] {
          for (Direction d : {Direction::kM2S, Direction::kS2M}) {
            const auto a =
                map.queue_reg_addr(tpb, kEngine, d, 1, soc::queue_offsets(d).sw_ctrl).value();
            rig.bus(kSrc).write32(a, soc::reg_field::kQSwCtrlRstQ.set(0, 1));
          }
        },
        "probe.reset");
  }
  const sim::RunResult r = rig.run();
  out.end = r.end_time;
  out.kernel_end = r.end_time;
  if (const auto last = rig.m->settle_landings()) out.end = std::max(out.end, *last);
  out.events = r.events_processed + rig.m->elided_landings();
  out.elided = rig.m->elided_landings();
  out.stats = rig.m->stats();
  for (unsigned q = 0; q < 2; ++q) {
    for (Direction d : {Direction::kM2S, Direction::kS2M})
      out.queues.push_back(rig.queue(ch[q], d));
  }
  out.landing_ticks = lt.ticks;
  out.errors = rig.m->error_report();
  return out;
}

void expect_same(const Outcome& loud, const Outcome& quiet) {
  EXPECT_EQ(quiet.reads, loud.reads);
  EXPECT_EQ(quiet.end, loud.end);
  EXPECT_EQ(quiet.events, loud.events);
  EXPECT_EQ(quiet.stats.descriptors, loud.stats.descriptors);
  EXPECT_EQ(quiet.stats.data_bytes, loud.stats.data_bytes);
  EXPECT_EQ(quiet.stats.semaphore_writes, loud.stats.semaphore_writes);
  EXPECT_EQ(quiet.stats.mmio_writes, loud.stats.mmio_writes);
  ASSERT_EQ(quiet.queues.size(), loud.queues.size());
  for (std::size_t i = 0; i < loud.queues.size(); ++i) {
    EXPECT_EQ(quiet.queues[i].completion, loud.queues[i].completion) << "queue " << i;
    EXPECT_EQ(quiet.queues[i].head, loud.queues[i].head) << "queue " << i;
    EXPECT_EQ(quiet.queues[i].packets, loud.queues[i].packets) << "queue " << i;
  }
  EXPECT_EQ(quiet.errors, loud.errors);
}

TEST(MachineElide, CompletionReadsAroundEveryLandingMatchARunWithLandingEvents) {
  const Outcome plain = run(false, {}, std::nullopt);
  ASSERT_TRUE(plain.errors.empty()) << plain.errors;
  std::vector<Tick> probe = plain.landing_ticks;
  ASSERT_EQ(probe.size(), 26U);  // 25 data pairs and the semaphore pair
  std::sort(probe.begin(), probe.end());
  probe.erase(std::unique(probe.begin(), probe.end()), probe.end());
  probe.push_back(probe.back() + Tick{1});
  const Outcome loud = run(false, probe, std::nullopt);
  const Outcome quiet = run(true, probe, std::nullopt);
  EXPECT_EQ(loud.elided, 0U);
  EXPECT_EQ(quiet.elided, 25U);
  EXPECT_EQ(quiet.landing_ticks.size(), 1U);  // the semaphore pair's event only
  // The reads see each register move: a queue's first and last read of it differ.
  ASSERT_FALSE(loud.reads.empty());
  for (const Direction d : {Direction::kM2S, Direction::kS2M}) {
    const soc::QueueRegOffsets& regs = soc::queue_offsets(d);
    for (const std::uint32_t reg : {regs.comp_head, regs.comp_head_internal, regs.packets}) {
      std::vector<std::uint32_t> seen;
      for (const Seen& s : loud.reads) {
        if (s.queue == (d == Direction::kS2M ? 1U : 0U) && s.reg == reg) seen.push_back(s.value);
      }
      ASSERT_GE(seen.size(), 2U);
      EXPECT_NE(seen.front(), seen.back()) << soc::direction_name(d) << " +" << reg;
    }
  }
  // Every pair is one packet on each side (D41m): 26 in all, over the two queues.
  std::uint32_t m2s_packets = 0;
  std::uint32_t s2m_packets = 0;
  for (std::size_t i = 0; i < plain.queues.size(); ++i) {
    (i % 2 == 0 ? m2s_packets : s2m_packets) += plain.queues[i].packets;
  }
  EXPECT_EQ(m2s_packets, 26U);
  EXPECT_EQ(s2m_packets, 26U);
  expect_same(loud, quiet);
  // Without probes the run ends with its last landing, a data pair's: the elided run's kernel
  // stops earlier, and the end comes from its elided landings.
  const Outcome alone = run(true, {}, std::nullopt);
  EXPECT_EQ(plain.end, probe[probe.size() - 2]);
  EXPECT_LT(alone.kernel_end, plain.end);
  EXPECT_EQ(alone.end, plain.end);
  EXPECT_EQ(alone.events, plain.events);
}

TEST(MachineElide, AQueueResetBetweenLandingsMatchesARunWithLandingEvents) {
  const Outcome plain = run(false, {}, std::nullopt);
  std::vector<Tick> probe = plain.landing_ticks;
  std::sort(probe.begin(), probe.end());
  // Reset queue 1 when about half its pairs have landed (its write lands an MMIO latency on).
  const Tick reset_at = probe[probe.size() / 2];
  // No probes: nothing else settles the landings due before the reset.
  const Outcome loud = run(false, {}, reset_at);
  const Outcome quiet = run(true, {}, reset_at);
  EXPECT_GT(quiet.elided, 0U);
  EXPECT_NE(loud.queues[2].completion, plain.queues[2].completion);  // the reset took effect
  expect_same(loud, quiet);
}

TEST(MachineElide, OnlyTimingOnlyRunsWithoutATieSeedElide) {
  MachineOptions o;
  o.timing_only = true;
  o.elide_data_landings = true;
  EXPECT_TRUE(Rig("trn2", o).m->options().elide_data_landings);
  EXPECT_FALSE(Rig("trn2", o, /*tie_seed=*/7).m->options().elide_data_landings);
  o.timing_only = false;
  EXPECT_FALSE(Rig("trn2", o).m->options().elide_data_landings);
}

}  // namespace
}  // namespace sbrdma::device
