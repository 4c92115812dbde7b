// The POOL sequencer: waits, _READ/_COMPLETE updates through EVT_SEM writes, dispatch and the
// firmware's own errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <tuple>

#include "firmware/fixtures.h"

namespace sbrdma::firmware {
namespace {

using isa::UpdateMode;
using isa::WaitMode;
using testing::Action;
using testing::Core;
using testing::make_gen;
using Kind = Action::Kind;

// Core 0's EVT_SEM windows. [HIGH] wiki-facts §5
constexpr std::uint64_t kEvtSem = 0x2000000000 + 0x802700000;
constexpr std::uint64_t kInc = kEvtSem + 0x1800;
constexpr std::uint64_t kDec = kEvtSem + 0x1C00;
constexpr std::uint64_t kSet = kEvtSem + 0x1400;
constexpr std::uint64_t kBcastM2sInc = 0x1002000000 + 0x80000 + 0x1038;

isa::Word gen_word(std::uint32_t mask = 0x3) {
  return isa::encode(make_gen(mask, 256, 0x100, 0x200, 4, 0));
}

isa::Word start_word(isa::Events ev = {}) {
  isa::RdmaDescStart s;
  s.events = ev;
  return isa::encode(s);
}

isa::Events events(WaitMode wm, std::uint8_t wi, UpdateMode um, std::uint8_t ui, std::uint32_t v) {
  return isa::Events{wm, wi, um, ui, v};
}

/// Index of the first action matching `pred` at or after `from`, or npos.
template <typename Pred>
std::size_t find(const std::vector<Action>& acts, Pred pred, std::size_t from = 0) {
  for (std::size_t i = from; i < acts.size(); ++i) {
    if (pred(acts[i])) return i;
  }
  return std::string::npos;
}

auto write_to(std::uint64_t addr) {
  return [addr](const Action& a) { return a.kind == Kind::kWrite32 && a.addr == addr; };
}

TEST(Sequencer, StartWaitsOnItsSemaphoreThenUpdatesOnComplete) {
  Core c(0, 0);
  auto run = c.fw.run(
      {gen_word(), start_word(events(WaitMode::kGeImm, 7, UpdateMode::kIncComplete, 9, 2))});
  EXPECT_FALSE(testing::drive(run));  // parked on sem[7] >= 2
  EXPECT_EQ(c.fw.pc(), 1U);
  EXPECT_EQ(find(c.env.actions, write_to(kBcastM2sInc)), std::string::npos);
  c.env.sems[7] = 1;
  EXPECT_EQ(c.env.pump(), 0);  // 1 >= 2 is false
  c.env.sems[7] = 2;
  EXPECT_EQ(c.env.pump(), 1);
  ASSERT_TRUE(run.done());
  EXPECT_FALSE(c.fw.halted());
  // INC_COMPLETE wrote 1 into INC slot 9 after the last doorbell.
  const std::size_t bell = find(c.env.actions, write_to(kBcastM2sInc));
  const std::size_t upd = find(c.env.actions, write_to(kInc + 9 * 4));
  ASSERT_NE(upd, std::string::npos);
  EXPECT_GT(upd, bell);
  EXPECT_EQ(c.env.sems[9], 1U);
  EXPECT_EQ(c.fw.pc(), 2U);
}

// Each compare against a value below, equal to and above the semaphore (2): GT and LT are
// strict, EQ passes only on equality.
TEST(Sequencer, EveryWaitModeAgainstAValueBelowAtAndAbove) {
  struct Case {
    WaitMode mode;
    std::array<bool, 3> passes;  // for the values 1, 2 and 3
  };
  for (const Case& k :
       {Case{WaitMode::kGtImm, {true, false, false}}, Case{WaitMode::kGeImm, {true, true, false}},
        Case{WaitMode::kEqImm, {false, true, false}}, Case{WaitMode::kLtImm, {false, false, true}},
        Case{WaitMode::kLeImm, {false, true, true}}}) {
    for (std::uint32_t value = 1; value <= 3; ++value) {
      Core c(0, 0);
      c.env.sems[4] = 2;
      auto run = c.fw.run({start_word(events(k.mode, 4, UpdateMode::kNone, 0, value))});
      // A start with no gen fails once it issues; a wait that holds lets it issue.
      const bool passes = k.passes[value - 1];
      EXPECT_EQ(testing::drive(run), passes) << static_cast<int>(k.mode) << " " << value;
      EXPECT_EQ(c.fw.halted(), passes) << static_cast<int>(k.mode) << " " << value;
    }
  }
}

// Semaphore values are signed 32-bit (udma-facts §4.4): one decremented below 0 is less than
// 1 and not above 0, and an immediate of 0xffffffff is -1.
TEST(Sequencer, WaitsCompareSigned) {
  for (const auto& [mode, value, passes] :
       {std::tuple{WaitMode::kLtImm, 1U, true}, std::tuple{WaitMode::kGtImm, 0U, false},
        std::tuple{WaitMode::kGeImm, 0xffffffffU, true},
        std::tuple{WaitMode::kLeImm, 0x7fffffffU, true},
        std::tuple{WaitMode::kGeImm, 0x80000000U, true}}) {
    Core c(0, 0);
    c.env.sems[4] = 0xffffffffU;  // -1
    auto run = c.fw.run({start_word(events(mode, 4, UpdateMode::kNone, 0, value))});
    EXPECT_EQ(testing::drive(run), passes) << static_cast<int>(mode) << " " << value;
  }
  static_assert(sem_condition_holds(SemCompare::kLt, 0xffffffffU, 0));
  static_assert(!sem_condition_holds(SemCompare::kGe, 0x80000000U, 0x7fffffffU));
}

TEST(Sequencer, UpdateModesWriteTheirWindows) {
  struct Case {
    UpdateMode mode;
    std::uint64_t addr;
    std::uint32_t value;
    std::uint32_t sem_after;  // sem[6] starts at 10
  };
  for (const Case& k :
       {Case{UpdateMode::kIncRead, kInc, 1, 11}, Case{UpdateMode::kDecComplete, kDec, 1, 9},
        Case{UpdateMode::kAddImmRead, kInc, 5, 15}, Case{UpdateMode::kSubImmComplete, kDec, 5, 5},
        Case{UpdateMode::kWrImmRead, kSet, 5, 5}, Case{UpdateMode::kDecRead, kDec, 1, 9},
        Case{UpdateMode::kAddImmComplete, kInc, 5, 15}, Case{UpdateMode::kSubImmRead, kDec, 5, 5},
        Case{UpdateMode::kWrImmComplete, kSet, 5, 5}}) {
    Core c(0, 0);
    c.env.sems[6] = 10;
    isa::EventSemaphore es;
    es.events = events(WaitMode::kNone, 0, k.mode, 6, 5);
    auto run = c.fw.run({isa::encode(es)});
    ASSERT_TRUE(testing::drive(run));
    EXPECT_FALSE(c.fw.halted());
    const auto acts = c.run_actions();
    ASSERT_EQ(acts.size(), 1U);
    EXPECT_EQ(acts[0].addr, k.addr + 6 * 4);
    EXPECT_EQ(acts[0].value, k.value);
    EXPECT_EQ(c.env.sems[6], k.sem_after);
  }
}

// [HIGH] wiki-facts §1.4: `_READ` fires after the instruction's reads, `_COMPLETE` when it has
// completed. On a gen word: before its first descriptor write, or after its last.
TEST(Sequencer, EveryUpdateModeFiresAtReadOrComplete) {
  for (const auto& [mode, complete] :
       {std::pair{UpdateMode::kIncRead, false}, std::pair{UpdateMode::kDecRead, false},
        std::pair{UpdateMode::kAddImmRead, false}, std::pair{UpdateMode::kSubImmRead, false},
        std::pair{UpdateMode::kWrImmRead, false}, std::pair{UpdateMode::kIncComplete, true},
        std::pair{UpdateMode::kDecComplete, true}, std::pair{UpdateMode::kAddImmComplete, true},
        std::pair{UpdateMode::kSubImmComplete, true},
        std::pair{UpdateMode::kWrImmComplete, true}}) {
    Core c(0, 0);
    isa::RdmaDescGen g = make_gen(0x1, 64, 0, 0, 1, 0);
    g.events = events(WaitMode::kNone, 0, mode, 6, 5);
    auto run = c.fw.run({isa::encode(g)});
    ASSERT_TRUE(testing::drive(run));
    EXPECT_FALSE(c.fw.halted());
    const auto acts = c.run_actions();
    const auto is_desc = [](const Action& a) { return a.kind == Kind::kWriteBlock; };
    const auto is_update = [](const Action& a) {
      return a.kind == Kind::kWrite32 &&
             (a.addr == kInc + 6 * 4 || a.addr == kDec + 6 * 4 || a.addr == kSet + 6 * 4);
    };
    const std::size_t upd = find(acts, is_update);
    const std::size_t first_desc = find(acts, is_desc);
    const auto last_desc = std::find_if(acts.rbegin(), acts.rend(), is_desc);
    ASSERT_NE(upd, std::string::npos) << static_cast<int>(mode);
    ASSERT_NE(first_desc, std::string::npos);
    const auto last = static_cast<std::size_t>(acts.rend() - last_desc) - 1;
    if (complete) {
      EXPECT_GT(upd, last) << static_cast<int>(mode);
    } else {
      EXPECT_LT(upd, first_desc) << static_cast<int>(mode);
    }
  }
}

TEST(Sequencer, ReadUpdateBeforeTheOpCompleteAfter) {
  Core c(0, 0);
  isa::RdmaDescGen g = make_gen(0x1, 64, 0, 0, 1, 0);
  g.events = events(WaitMode::kNone, 0, UpdateMode::kIncRead, 1, 0);
  std::vector<isa::Word> prog{
      isa::encode(g), start_word(events(WaitMode::kNone, 0, UpdateMode::kIncComplete, 2, 0))};
  auto run = c.fw.run(prog);
  ASSERT_TRUE(testing::drive(run));
  const auto& acts = c.env.actions;
  const std::size_t read_upd = find(acts, write_to(kInc + 1 * 4));
  const std::size_t first_desc = find(
      acts, [](const Action& a) { return a.kind == Kind::kWriteBlock; }, c.boot_actions);
  EXPECT_LT(read_upd, first_desc);
  EXPECT_GT(find(acts, write_to(kInc + 2 * 4)), find(acts, write_to(kBcastM2sInc)));
}

struct BadWord {
  isa::Word word;
  std::string message;
};

isa::Word raw(std::uint8_t opcode, std::uint8_t sub = 0) {
  isa::Word w{};
  w[0] = opcode;
  w[1] = isa::kInstWordLen;
  w[12] = sub;
  return w;
}

isa::Word with_byte(isa::Word w, std::size_t at, std::uint8_t v) {
  w[at] = v;
  return w;
}

/// `w` with its completion_info byte (13) set to `ci`.
isa::Word with_completion_info(isa::Word w, std::uint8_t ci) {
  return with_byte(w, 13, ci);
}

class SequencerRejects : public ::testing::TestWithParam<BadWord> {};

TEST_P(SequencerRejects, StopsTheCoreWithOneMessage) {
  Core c(0, 0);
  // The bad word sits between two good ones: the first runs, the third never does.
  isa::EventSemaphore first;
  first.events = events(WaitMode::kNone, 0, UpdateMode::kIncRead, 1, 0);
  isa::EventSemaphore third;
  third.events = events(WaitMode::kNone, 0, UpdateMode::kIncRead, 2, 0);
  auto run = c.fw.run({isa::encode(first), GetParam().word, isa::encode(third)});
  ASSERT_TRUE(testing::drive(run));
  ASSERT_EQ(c.fw.errors().size(), 1U);
  EXPECT_EQ(c.fw.errors()[0].message, GetParam().message);
  EXPECT_EQ(c.fw.errors()[0].pc, 1U);
  EXPECT_EQ(c.env.sems[1], 1U);
  EXPECT_EQ(c.env.sems[2], 0U);
  EXPECT_EQ(c.fw.errors()[0].format(), "chip 0 core 0 word 1: " + GetParam().message);
  EXPECT_EQ(c.env.lines.back(), GetParam().message);  // and in the DEBUG log
}

INSTANTIATE_TEST_SUITE_P(
    Words, SequencerRejects,
    ::testing::Values(
        BadWord{raw(0xB8), "UNKNOWN OPCODE=0xb8"},
        BadWord{raw(0xF0, 5), "UNKNOWN EXTENDED OPCODE=5"},
        BadWord{raw(0xF0, 12), "UNKNOWN EXTENDED OPCODE=12"},
        BadWord{raw(0xF0, 6),
                "ext_sbuf_to_sbuf (ExtendedInst sub-op 6): unsupported: layout not public (use "
                "the 0xBF sb2sb_collective word)"},
        BadWord{raw(0xF0, 1),
                "ext_copy (ExtendedInst sub-op 1): unsupported: the sbrdma firmware does not run "
                "it"},
        BadWord{gen_word(0x7),
                "rdma_desc_gen: dma_engine_mask 0x7 selects 3 engines (must be 1, 2, 4, 8 or 16)"},
        // gen and start carry completion_info 0 (all 128 partitions). [HIGH] §1.5, §1.8
        BadWord{with_completion_info(gen_word(), 0x11),
                "rdma_desc_gen: completion_info has_read=1 has_write=0 num_active_ports=2: "
                "unsupported: gen and start run on all 128 partitions (completion_info 0)"},
        BadWord{with_completion_info(start_word(), 0x04),
                "rdma_desc_start: completion_info has_read=0 has_write=1 num_active_ports=0: "
                "unsupported: gen and start run on all 128 partitions (completion_info 0)"},
        BadWord{start_word(),
                "rdma_desc_start: no rdma_desc_gen since the last start: nothing "
                "to start"},
        BadWord{start_word(events(WaitMode::kGeReg, 3, UpdateMode::kNone, 0, 0)),
                "wait_mode ge_reg: unsupported: register and event waits are not modelled"},
        BadWord{start_word(events(WaitMode::kNone, 0, UpdateMode::kWrRegComplete, 3, 0)),
                "update_mode wr_reg_complete: unsupported: register updates are not modelled"}));

// _READ fires once the op's reads are done (D23b): an op refused before then fires none, while
// an op that reads nothing fires it before it runs, refused or not.
TEST(Sequencer, AnOpRefusedBeforeItsReadsFiresNoReadUpdate) {
  {
    Core c(0, 0);  // start refuses its completion_info before it reads anything
    auto run = c.fw.run({with_completion_info(
        start_word(events(WaitMode::kNone, 0, UpdateMode::kIncRead, 3, 0)), 0x04)});
    ASSERT_TRUE(testing::drive(run));
    ASSERT_EQ(c.fw.errors().size(), 1U);
    EXPECT_EQ(c.env.sems[3], 0U);
  }
  {
    Core c(0, 0);  // gen refuses its completion_info at the same point (D38)
    isa::Word w = with_completion_info(gen_word(), 0x04);
    w[4] = static_cast<std::uint8_t>(WaitMode::kNone);
    w[6] = static_cast<std::uint8_t>(UpdateMode::kIncRead);
    w[7] = 3;
    auto run = c.fw.run({w});
    ASSERT_TRUE(testing::drive(run));
    ASSERT_EQ(c.fw.errors().size(), 1U);
    EXPECT_NE(c.fw.errors()[0].message.find("rdma_desc_gen"), std::string::npos)
        << c.fw.errors()[0].message;
    EXPECT_EQ(c.env.sems[3], 0U);
  }
  {
    Core c(0, 0);  // a start with nothing to start: refused after its (empty) reads
    auto run = c.fw.run({start_word(events(WaitMode::kNone, 0, UpdateMode::kIncRead, 3, 0))});
    ASSERT_TRUE(testing::drive(run));
    ASSERT_EQ(c.fw.errors().size(), 1U);
    EXPECT_EQ(c.env.sems[3], 1U);
  }
}

TEST(Sequencer, ReservedBitsAndUndefinedEnumsAreRejected) {
  for (const isa::Word& w : {with_byte(start_word(), 20, 0x01), with_byte(start_word(), 4, 0x42)}) {
    Core c(0, 0);
    auto run = c.fw.run({w});
    ASSERT_TRUE(testing::drive(run));
    ASSERT_EQ(c.fw.errors().size(), 1U);
    EXPECT_NE(c.fw.errors()[0].message.find("rdma_desc_start"), std::string::npos)
        << c.fw.errors()[0].message;
  }
}

TEST(Sequencer, EngineNopRunsItsEventsOnly) {
  Core c(0, 0);
  isa::Word nop = raw(0xF0, 0);
  nop[4] = static_cast<std::uint8_t>(WaitMode::kNone);
  nop[6] = static_cast<std::uint8_t>(UpdateMode::kIncComplete);
  nop[7] = 3;
  auto run = c.fw.run({nop});
  ASSERT_TRUE(testing::drive(run));
  EXPECT_FALSE(c.fw.halted());
  EXPECT_EQ(c.env.sems[3], 1U);
}

}  // namespace
}  // namespace sbrdma::firmware
