// The engine's scheduler: pick() looks only at queues that got a batch (a bit mask) and tests
// "can run" without building text; it must choose exactly what a plain round robin over every
// queue with blocked_reason() chooses, whatever the pointers, stops, enables and resets do.
#include "device/udma_engine.h"

#include <gtest/gtest.h>

#include <random>

namespace sbrdma::device {
namespace {

using soc::Direction;
namespace rf = soc::reg_field;

constexpr unsigned kQueues = 16;

/// The scheduler as a plain loop over every queue (what pick() must equal).
UdmaEngine::Pick reference_pick(const UdmaEngine& e, unsigned rr, base::Tick now) {
  UdmaEngine::Pick p;
  for (unsigned i = 0; i < e.queues(); ++i) {
    const unsigned q = (rr + i) % e.queues();
    const UdmaQueue& uq = e.queue(Direction::kM2S, q);
    if (uq.batches.empty() || uq.posted() == 0) continue;
    if (!e.blocked_reason(Direction::kM2S, q).empty()) continue;
    const base::Tick ready = std::max(uq.batches.front().ready, uq.not_before);
    if (ready <= now) {
      p.queue = q;
      return p;
    }
    if (!p.next || ready < *p.next) p.next = ready;
  }
  return p;
}

/// Sets a queue's cfg enables (en_pref and en_scheduling / en_stream) on or off.
void enable(UdmaEngine& e, Direction d, unsigned q, bool on) {
  const std::uint32_t mask = soc::queue_enables(d);
  const std::uint32_t off = soc::queue_offsets(d).cfg;
  const std::uint32_t cfg = e.queue(d, q).regs().get(off);
  ASSERT_TRUE(e.queue(d, q).write_reg(off, on ? cfg | mask : cfg & ~mask).ok());
}

/// An engine in NORMAL state with every queue's ring of `len` programmed and enabled.
void bring_up(UdmaEngine& e, std::uint32_t len) {
  for (Direction d : {Direction::kM2S, Direction::kS2M}) {
    e.change_state(d, static_cast<std::uint32_t>(rf::kChangeStateNormal.mask()));
    ASSERT_TRUE(e.engine_regs(d).write(soc::engine_offsets(d).pref_queue_en, 0xFFFF).ok());
    for (unsigned q = 0; q < e.queues(); ++q) {
      ASSERT_TRUE(e.queue(d, q).write_reg(soc::queue_offsets(d).ring_len, len).ok());
      enable(e, d, q, true);
    }
  }
}

TEST(UdmaEngine, CanRunAgreesWithBlockedReason) {
  UdmaEngine e(0, 0, kQueues);
  EXPECT_FALSE(e.can_run(Direction::kM2S, 3));  // disabled engine
  bring_up(e, 8);
  EXPECT_TRUE(e.can_run(Direction::kM2S, 3));
  EXPECT_TRUE(e.blocked_reason(Direction::kM2S, 3).empty());
  enable(e, Direction::kS2M, 3, false);
  EXPECT_FALSE(e.can_run(Direction::kS2M, 3));
  EXPECT_FALSE(e.blocked_reason(Direction::kS2M, 3).empty());
  EXPECT_TRUE(e.can_run(Direction::kM2S, 3));
  e.queue(Direction::kM2S, 3).stop("test");
  EXPECT_FALSE(e.can_run(Direction::kM2S, 3));
  ASSERT_TRUE(e.engine_regs(Direction::kM2S)
                  .write(soc::engine_offsets(Direction::kM2S).pref_queue_en, 0xFFFF & ~(1U << 4))
                  .ok());
  EXPECT_FALSE(e.can_run(Direction::kM2S, 4));
  EXPECT_TRUE(e.can_run(Direction::kM2S, 5));
  e.change_state(Direction::kM2S, static_cast<std::uint32_t>(rf::kChangeStateAbort.mask()));
  EXPECT_FALSE(e.can_run(Direction::kM2S, 5));
}

TEST(UdmaEngine, PickFollowsTheRoundRobinFromTheLastServedQueue) {
  UdmaEngine e(0, 0, kQueues);
  bring_up(e, 8);
  for (unsigned q : {2U, 9U, 14U}) {
    ASSERT_TRUE(e.queue(Direction::kM2S, q).add_tail(1).ok());
    e.post_batch(q, Batch{1, base::Tick{}});
  }
  EXPECT_EQ(e.pick(base::Tick{}).queue, 2U);
  e.served(9);  // next turn starts at 10: 14, then wraps to 2
  EXPECT_EQ(e.pick(base::Tick{}).queue, 14U);
  e.served(14);
  EXPECT_EQ(e.pick(base::Tick{}).queue, 2U);
  // Not ready yet: pick names the earliest ready time instead.
  e.queue(Direction::kM2S, 2).not_before = base::Tick{500};
  e.queue(Direction::kM2S, 9).not_before = base::Tick{300};
  e.queue(Direction::kM2S, 14).not_before = base::Tick{700};
  const UdmaEngine::Pick p = e.pick(base::Tick{100});
  EXPECT_FALSE(p.queue.has_value());
  EXPECT_EQ(p.next, base::Tick{300});
  EXPECT_TRUE(e.has_work());
}

// Random operations on the queues (doorbells, taking descriptors, pointer resets, stops,
// enables, pref_queue_en, engine state); after each, pick() and has_work() must equal the
// plain round robin.
TEST(UdmaEngine, PickEqualsThePlainRoundRobinUnderRandomChanges) {
  std::mt19937 rng(12345);
  UdmaEngine e(7, 3, kQueues);
  bring_up(e, 8);
  unsigned rr = 0;
  const std::uint32_t pref_off = soc::engine_offsets(Direction::kM2S).pref_queue_en;
  const std::uint32_t sw_off = soc::queue_offsets(Direction::kM2S).sw_ctrl;
  unsigned picked = 0;
  for (int step = 0; step < 4000; ++step) {
    const unsigned q = rng() % kQueues;
    UdmaQueue& uq = e.queue(Direction::kM2S, q);
    switch (rng() % 10) {
      case 0:
      case 1:
      case 2: {  // a doorbell of 1..3
        const std::uint32_t n = 1 + rng() % 3;
        if (uq.add_tail(n).ok()) e.post_batch(q, Batch{n, base::Tick{rng() % 1000}});
        break;
      }
      case 3:
      case 4: {  // the engine takes one descriptor (as process_pair does)
        if (!uq.batches.empty() && uq.posted() != 0) {
          uq.advance_head();
          if (--uq.batches.front().remaining == 0) uq.batches.pop_front();
        }
        break;
      }
      case 5: {  // a pointer reset: one pointer, or the whole queue
        const unsigned bits[] = {1U << 1, 1U << 2, 1U << 3, 1U << 8};
        const std::uint32_t v = bits[rng() % 4];
        ASSERT_TRUE(uq.write_reg(sw_off, v).ok());
        uq.sw_ctrl(v);
        break;
      }
      case 6:
        uq.stop("random stop");
        break;
      case 7:
        enable(e, Direction::kM2S, q, rng() % 3 != 0);
        break;
      case 8:
        ASSERT_TRUE(e.engine_regs(Direction::kM2S).write(pref_off, rng() & 0xFFFF).ok());
        break;
      default:
        if (rng() % 8 == 0) {
          const auto cmd = rng() % 2 == 0 ? rf::kChangeStateNormal : rf::kChangeStateDis;
          e.change_state(Direction::kM2S, static_cast<std::uint32_t>(cmd.mask()));
        } else {
          uq.not_before = base::Tick{rng() % 1000};
        }
        break;
    }
    const base::Tick now{rng() % 1200};
    const UdmaEngine::Pick want = reference_pick(e, rr, now);
    const UdmaEngine::Pick got = e.pick(now);
    ASSERT_EQ(got.queue, want.queue) << "step " << step;
    ASSERT_EQ(got.next, want.next) << "step " << step;
    ASSERT_EQ(e.has_work(), reference_pick(e, rr, base::Tick{UINT64_MAX}).queue.has_value())
        << "step " << step;
    if (got.queue && rng() % 2 == 0) {
      e.served(*got.queue);
      rr = (*got.queue + 1) % kQueues;
      ++picked;
    }
  }
  EXPECT_GT(picked, 100U);  // the sequence did exercise the choice
}

TEST(UdmaEngine, AnUntouchedQueueReadsAsResetAndComesToLifeOnFirstWrite) {
  UdmaEngine e(0, 0, kQueues);
  const UdmaEngine& view = e;
  const std::uint32_t cfg = soc::queue_offsets(Direction::kS2M).cfg;
  const std::uint32_t reset = view.queue(Direction::kS2M, 5).regs().get(cfg);
  EXPECT_EQ(reset, UdmaQueue(Direction::kS2M).regs().get(cfg));
  EXPECT_EQ(view.queue(Direction::kM2S, 5).head(), (RingPos{0, 1}));
  ASSERT_TRUE(e.queue(Direction::kS2M, 5).write_reg(cfg, reset ^ 0x30000).ok());
  EXPECT_EQ(view.queue(Direction::kS2M, 5).regs().get(cfg), reset ^ 0x30000);  // the live one
  EXPECT_EQ(view.queue(Direction::kS2M, 6).regs().get(cfg), reset);            // others untouched
  EXPECT_EQ(view.queue(Direction::kM2S, 5).regs().get(soc::queue_offsets(Direction::kM2S).cfg),
            UdmaQueue(Direction::kM2S).regs().get(soc::queue_offsets(Direction::kM2S).cfg));
}

TEST(BatchFifo, KeepsOrderAcrossItsCompactionAndTrimsFromTheBack) {
  BatchFifo f;
  EXPECT_TRUE(f.empty());
  std::uint32_t next_in = 0;
  std::uint32_t next_out = 0;
  // Never drained: 3 in, 2 out per round, so the taken prefix must be dropped on the way.
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < 3; ++i) f.push_back(Batch{next_in++, base::Tick{}});
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(f.front().remaining, next_out++);
      f.pop_front();
    }
  }
  EXPECT_EQ(f.size(), 200U);
  std::uint32_t expect = next_out;
  for (const Batch& b : f) EXPECT_EQ(b.remaining, expect++);
  EXPECT_EQ(f.back().remaining, next_in - 1);
  f.pop_back();
  EXPECT_EQ(f.size(), 199U);
  while (!f.empty()) f.pop_back();
  f.push_back(Batch{7, base::Tick{}});
  EXPECT_EQ(f.front().remaining, 7U);
  f.pop_front();
  EXPECT_TRUE(f.empty());
}

}  // namespace
}  // namespace sbrdma::device
