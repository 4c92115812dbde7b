// The transport end to end through the platform: program text -> Simulation -> bytes and
// semaphores. Engine masks, sizes up to the whole active partition, cross-die and cross-chip
// routes, and every failure a run reports (firmware error, device error, deadlock).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>

#include "firmware/log_formats.h"
#include "isa/assembler.h"
#include "isa/views.h"
#include "platform/program_runner.h"
#include "platform/topology_json.h"
#include "platform/trace_slices.h"

namespace sbrdma::platform {
namespace {

/// Parses and runs a program text on `topology`; the parse must succeed.
ProgramOutcome run_text(const std::string& text, std::string_view topology = "trn2",
                        SimOptions opt = {}) {
  auto topo = load_topology(topology);
  SBRDMA_CHECK(topo.ok());
  const soc::Profile& p = **soc::find_profile(topo->profile());
  ProgramParse parsed = parse_program(text, "t.s", *topo, p);
  for (const auto& e : parsed.errors) ADD_FAILURE() << e.format();
  auto out = run_program(parsed.program, std::move(*topo), opt);
  SBRDMA_CHECK(out.ok());
  return std::move(*out);
}

/// A copy of `bytes` per partition from core `src` to `dst_core` (tpb `tpb`, chip `chip`).
std::string copy_program(unsigned src, unsigned tpb, unsigned chip, unsigned dst_core,
                         std::uint32_t mask, std::uint64_t bytes, std::uint64_t src_off = 0,
                         std::uint64_t dst_off = 0) {
  return fmt::format(
      ".init core={0} addr={5} bytes={4} pattern=random:9\n"
      ".core {0}\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id={1} remote_routing_id={2} "
      "dma_engine_mask={3:#x} src_addr={5:#x} dst_addr={6:#x} free_dim_bytes={4}\n"
      "rdma_desc_start\n"
      ".expect sem core={0} idx=3 value=16\n"
      ".expect sem core={7} idx=4 value={8}\n"
      ".expect sbuf core={7} addr={6:#x} bytes={4} equals core={0} addr={5:#x}\n",
      src, tpb, chip, mask, bytes, src_off, dst_off, dst_core, __builtin_popcount(mask));
}

void expect_all_held(const ProgramOutcome& o) {
  for (const base::Error& e : outcome_failures(o)) ADD_FAILURE() << e.format();
  ASSERT_EQ(o.expects.size(), 3U);
  EXPECT_TRUE(o.ok());
}

TEST(Transport, EngineMasksOneToSixteen) {
  for (const std::uint32_t mask : {0x1U, 0x3U, 0xf0U, 0xffU, 0xffffU}) {
    SCOPED_TRACE(fmt::format("mask {:#x}", mask));
    expect_all_held(run_text(copy_program(0, 1, 0, 1, mask, 4096, 0x100, 0x9000)));
  }
}

TEST(Transport, SizesFromOneByteToTheWholeActivePartition) {
  // 64 KiB + 1 is two chunks per partition; 224 KiB (cayman's active bytes) is four.
  for (const std::uint64_t bytes : {1ULL, 3ULL, 65537ULL, 229376ULL}) {
    SCOPED_TRACE(bytes);
    const std::uint64_t dst = bytes == 229376 ? 0 : 0x18000;
    expect_all_held(run_text(copy_program(2, 3, 0, 3, 0xffff, bytes, 0, dst)));
  }
}

TEST(Transport, CrossDieBothWays) {
  expect_all_held(run_text(copy_program(0, 5, 0, 5, 0xf, 8192)));
  expect_all_held(run_text(copy_program(6, 1, 0, 1, 0xff, 8192, 0x2000, 0x3000)));
}

TEST(Transport, CrossChipOnTrn2_48xlarge) {
  // chip 1 is one x hop away; chip 5 is (1, 1): an x hop, then a y hop.
  expect_all_held(run_text(copy_program(0, 3, 1, 11, 0xffff, 4096), "trn2.48xlarge"));
  const ProgramOutcome far = run_text(copy_program(0, 2, 5, 42, 0xff, 4096), "trn2.48xlarge");
  expect_all_held(far);
  const ProgramOutcome near = run_text(copy_program(0, 2, 0, 2, 0xff, 4096), "trn2.48xlarge");
  EXPECT_GT(far.report.end_time, near.report.end_time) << "two chip hops take longer";
}

std::string only_error(const ProgramOutcome& o) {
  const auto f = outcome_failures(o);
  return f.size() == 1 ? f[0].format() : fmt::format("{} failures", f.size());
}

TEST(Transport, MaskWithThreeEnginesIsRefused) {
  isa::RdmaDescGen g;
  g.local_sem = 3;
  g.remote_sem = 4;
  g.remote_core_id.imm = 1;
  g.dma_engine_mask.imm = 0x7;  // the assembler refuses it: write the word raw
  g.free_dim_bytes = 64;
  const std::string raw = fmt::format("{:02x}", fmt::join(isa::encode(g), ""));
  const ProgramOutcome o = run_text(".core 0\n.raw " + raw + "\nrdma_desc_start\n");
  EXPECT_FALSE(o.ok());
  EXPECT_EQ(only_error(o),
            "t.s:2: error: core 0 word 0: rdma_desc_gen: dma_engine_mask 0x7 selects 3 engines "
            "(must be 1, 2, 4, 8 or 16)");
}

TEST(Transport, StartWithoutGen) {
  const ProgramOutcome o = run_text(".core 4\nrdma_desc_start\n");
  EXPECT_EQ(only_error(o),
            "t.s:2: error: core 4 word 0: rdma_desc_start: no rdma_desc_gen since the last "
            "start: nothing to start");
}

TEST(Transport, RingTooSmallIsTheDescriptorStreamError) {
  SimOptions opt;
  firmware::FirmwareConfig cfg;
  // 31 usable slots per ring. Engine 0 (the only active one) needs 128 data + REMOTE + LOCAL
  // = 130 and writes 31; engines 1..15 need and write their LOCAL descriptor. The stream counts
  // over all 16 engines: wrote 31 + 15, expected 130 + 15.
  cfg.ring_depth = 32;
  opt.firmware = cfg;
  const ProgramOutcome o = run_text(
      ".core 0\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x1 "
      "free_dim_bytes=64\n"
      "rdma_desc_start\n",
      "trn2", opt);
  EXPECT_EQ(only_error(o),
            "t.s:3: error: core 0 word 1: P0: ERROR: DescriptorStream wrote 46 descriptors, "
            "expected 145 (those counts are every engine's together; engine 0's ring was full: "
            "the rdma_desc_gen words since the last rdma_desc_start put 130 descriptors on it, "
            "and a ring of 32 holds at most 31 until a start publishes them, D6)");
}

TEST(Transport, DeadlockNamesCoreSemaphoreConditionAndValue) {
  const ProgramOutcome o = run_text(
      ".core 0\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xf "
      "free_dim_bytes=64\n"
      "rdma_desc_start wait_mode=ge_imm wait_idx=7 semaphore_value=2\n");
  ASSERT_EQ(o.report.deadlock.size(), 1U);
  const DeadlockWaiter& w = o.report.deadlock[0];
  EXPECT_EQ(w.core, 0U);
  EXPECT_EQ(w.semaphore, 7U);
  EXPECT_EQ(w.condition, ">= 2");
  EXPECT_EQ(w.current, 0U);
  EXPECT_EQ(w.pc, 1U);
  EXPECT_EQ(only_error(o),
            "t.s:3: error: deadlock: core 0 word 1 waits for sem[7] >= 2, current 0");
  // Semaphores and immediates are signed: 0xffffffff is -1, and 0 is not below it. [D11]
  const ProgramOutcome neg = run_text(
      ".core 0\n"
      "event_semaphore wait_mode=lt_imm wait_idx=7 semaphore_value=0xffffffff\n");
  ASSERT_EQ(neg.report.deadlock.size(), 1U);
  EXPECT_EQ(neg.report.deadlock[0].condition, "< -1");
  EXPECT_EQ(only_error(neg),
            "t.s:2: error: deadlock: core 0 word 0 waits for sem[7] < -1, current 0");
}

TEST(Transport, SourceOrDestinationBeyondThePartition) {
  const auto prog = [](const char* src, const char* dst) {
    return fmt::format(
        ".core 0\nrdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 "
        "dma_engine_mask=0xffff src_addr={} dst_addr={} free_dim_bytes=8192\nrdma_desc_start\n",
        src, dst);
  };
  EXPECT_EQ(only_error(run_text(prog("0x37000", "0"))),
            "t.s:2: error: core 0 word 0: rdma_desc_gen: src_addr range [0x37000, 0x39000) is "
            "beyond the 0x38000 (229376) active bytes of an SBUF partition");
  EXPECT_EQ(only_error(run_text(prog("0", "0x36001"))),
            "t.s:2: error: core 0 word 0: rdma_desc_gen: dst_addr range [0x36001, 0x38001) is "
            "beyond the 0x38000 (229376) active bytes of an SBUF partition");
}

TEST(Transport, PeerOutsideTheTopology) {
  // Chip 3 of a one-chip topology: the firmware cannot know; every engine's S2M queue stops.
  const ProgramOutcome o = run_text(
      ".core 0\nrdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=3 "
      "dma_engine_mask=0x1 free_dim_bytes=64\nrdma_desc_start\n");
  ASSERT_EQ(o.report.device_errors.size(), 1U);
  EXPECT_EQ(o.report.device_errors[0].message,
            "S2M destination: address 0x43003000000000 routes to chip 3, which does not exist "
            "(topology trn2 has 1 chip; trn2.48xlarge and trn2u have it: --topology NAME)");
  EXPECT_FALSE(o.ok());
  // A core id beyond the chip is the firmware's own check.
  EXPECT_EQ(only_error(run_text(".core 0\nrdma_desc_gen local_sem=3 remote_sem=4 "
                                "remote_core_id=8 dma_engine_mask=0x1 free_dim_bytes=64\n")),
            "t.s:2: error: core 0 word 0: rdma_desc_gen: remote_core_id 8 is not a core of the "
            "chip (0..7 on cayman; global core N is remote_core_id N % 8 on chip "
            "remote_routing_id N / 8)");
}

TEST(Transport, FailingExpectSaysWhatDiffered) {
  const ProgramOutcome o = run_text(
      ".init core=0 addr=0 bytes=16 pattern=iota\n"
      ".init core=1 addr=0x100 bytes=16 pattern=iota partitions=0:3\n"
      ".expect sem core=2 idx=5 value=1\n"
      ".expect sbuf core=1 addr=0x100 bytes=16 equals core=0 addr=0\n");
  EXPECT_FALSE(o.ok());
  const auto f = outcome_failures(o);
  ASSERT_EQ(f.size(), 2U);
  EXPECT_EQ(
      f[0].format(),
      "t.s:3: error: .expect sem core=2 idx=5 value=1 failed: core 2 sem[5] is 0, expected 1");
  EXPECT_EQ(f[1].format(),
            "t.s:4: error: .expect sbuf core=1 addr=0x100 bytes=... failed: "
            "core 1 partition 3 byte 0x100 is 0x00, but core 0 partition 3 byte 0x0 is 0x03 (2000 "
            "of 2048 bytes differ)");
}

TEST(Transport, SameInputSameOutputAndTrace) {
  const std::string prog = copy_program(0, 5, 0, 5, 0xffff, 4096) +
                           ".core 5\nrdma_desc_gen local_sem=8 remote_sem=9 remote_core_id=0 "
                           "dma_engine_mask=0xffff free_dim_bytes=0\nrdma_desc_start\n";
  SimOptions opt;
  opt.trace = true;
  const ProgramOutcome a = run_text(prog, "trn2", opt);
  const ProgramOutcome b = run_text(prog, "trn2", opt);
  EXPECT_TRUE(a.ok());
  EXPECT_EQ(outcome_lines(a, false), outcome_lines(b, false));
  EXPECT_FALSE(a.trace_json.empty());
  EXPECT_EQ(a.trace_json, b.trace_json);
  // A tie seed shuffles same-time events but reproduces itself.
  opt.seed = 12345;
  const ProgramOutcome c = run_text(prog, "trn2", opt);
  const ProgramOutcome d = run_text(prog, "trn2", opt);
  EXPECT_EQ(c.trace_json, d.trace_json);
  EXPECT_EQ(outcome_lines(c, false), outcome_lines(d, false));
  EXPECT_TRUE(c.ok());
}

TEST(Transport, DebugLinesAreTheFirmwareFormats) {
  SimOptions opt;
  opt.debug_log = true;
  const ProgramOutcome o = run_text(copy_program(0, 1, 0, 1, 0xffff, 4096), "trn2", opt);
  const std::vector<std::string> lines = outcome_lines(o, true);
  using firmware::render;
  namespace f = firmware::log_fmt;
  const std::string gen_start = "[core 0] " + render(f::kGenStart, 0, f::kRoleRx, 0);
  const std::string start_end = "[core 0] " + render(f::kStartEnd, 1, f::kRoleTx);
  EXPECT_EQ(gen_start, "[core 0] P0: Q7: rdma_desc_gen [RX] Start, cpu_id=0");
  EXPECT_EQ(start_end, "[core 0] P1: Q7: rdma_desc_start [TX] End");
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), gen_start);
  const auto end_it = std::find(lines.begin(), lines.end(), start_end);
  ASSERT_NE(end_it, lines.end());
  EXPECT_TRUE(std::next(end_it)->starts_with("simulated time: ")) << "start's End is the last";
  // Without --log debug: no firmware lines.
  EXPECT_TRUE(outcome_lines(o, false).front().starts_with("simulated time: "));
}

TEST(Transport, ARunCutAtTheTimeLimitFails) {
  // The kernel's cut (sim::kTimeLimit, tested there) reaches the user as a failure: the
  // outcome is not ok, the summary says why, and one error line names the limit.
  ProgramOutcome o = run_text(copy_program(0, 1, 0, 1, 0xffff, 4096));
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(report_failures(o.report).empty());
  o.report.past_time_limit = true;
  EXPECT_FALSE(o.ok());
  EXPECT_EQ(outcome_lines(o, false).back(),
            "result: FAILED (0 firmware errors, 0 device errors, 0 deadlocked cores, 0 failed "
            "expects; stopped at the time limit)");
  const std::vector<base::Error> failures = report_failures(o.report);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].format(),
            "error: the run reached the simulated-time limit, 4611686018427387.904 ns (2^62 ps, "
            "about 53 days), with work left: it was stopped there");
}

TEST(Transport, DeviceErrorsThatDifferOnlyByEngineAreToldOnce) {
  // Errors of one core's queues alike but for the engine and its addresses share a line;
  // another core, direction, queue or wording keeps its own. The count stays every error.
  RunReport r;
  const auto err = [&](base::Tick t, device::CoreId core, unsigned engine, soc::Direction dir,
                       unsigned q, std::string m) {
    r.device_errors.push_back(
        device::ModelledError{t, core, engine, dir, q, std::move(m), std::nullopt});
  };
  const base::Tick t1{5'500'000};
  const base::Tick t2{7'250'000};
  err(t1, 0, 0, soc::Direction::kS2M, 0, "address 0x43003000000000 routes to chip 3");
  err(t1, 0, 3, soc::Direction::kM2S, 0, "address 0x43003000000000 routes to chip 3");
  err(t1, 0, 1, soc::Direction::kS2M, 0, "address 0x43003000200000 routes to chip 3");
  err(t2, 0, 2, soc::Direction::kS2M, 0, "address 0x43003000400000 routes to chip 3");
  err(t1, 1, 4, soc::Direction::kS2M, 0, "address 0x43003000800000 routes to chip 3");
  err(t1, 0, 5, soc::Direction::kS2M, 0, "address 0x43003000a00000 routes to chip 4");
  err(t2, 0, 7, soc::Direction::kS2M, 0, "address 0x43003000e00000 routes to chip 3");
  r.device_errors.push_back(device::ModelledError{t1, 0, std::nullopt, std::nullopt, std::nullopt,
                                                  "a bus write hit nothing", std::nullopt});
  r.device_errors.push_back(device::ModelledError{t1, 0, std::nullopt, std::nullopt, std::nullopt,
                                                  "a bus write hit nothing", std::nullopt});
  std::vector<std::string> got;
  for (const base::Error& e : report_failures(r)) got.push_back(e.format());
  EXPECT_EQ(got,
            (std::vector<std::string>{
                "error: device: t=5500.000ns core 0: a bus write hit nothing",
                "error: device: t=5500.000ns core 0: a bus write hit nothing",
                "error: device: t=5500.000ns core 0 engine 0 S2M queue 0: address "
                "0x43003000000000 routes to chip 3; the same on engines 1-2, 7 by t=7250.000ns",
                "error: device: t=5500.000ns core 0 engine 3 M2S queue 0: address "
                "0x43003000000000 routes to chip 3",
                "error: device: t=5500.000ns core 0 engine 5 S2M queue 0: address "
                "0x43003000a00000 routes to chip 4",
                "error: device: t=5500.000ns core 1 engine 4 S2M queue 0: address "
                "0x43003000800000 routes to chip 3",
            }));
  const ProgramOutcome o{r, {}, {}, {}, {}};
  EXPECT_EQ(outcome_lines(o, false).back(),
            "result: FAILED (0 firmware errors, 9 device errors, 0 deadlocked cores, 0 failed "
            "expects)");
}

TEST(Transport, ADeviceErrorNamesTheWordThatWroteItsDescriptor) {
  // A good gen, then one to a chip the topology lacks: the error is told at the second gen's
  // line, with the slot its descriptors start at on every engine (after the first gen's
  // 8 data, local and remote descriptors on each engine).
  const ProgramOutcome o = run_text(
      ".core 0\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xffff "
      "free_dim_bytes=64\n"
      "rdma_desc_start\n"
      "# the bad one\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=3 "
      "dma_engine_mask=0xffff free_dim_bytes=64\n"
      "rdma_desc_start\n");
  ASSERT_EQ(o.report.device_errors.size(), 16U);
  ASSERT_EQ(o.report.device_error_origins.size(), 16U);
  for (const auto& w : o.report.device_error_origins) {
    ASSERT_TRUE(w.has_value());
    EXPECT_EQ(w->pc, 2U);
    EXPECT_EQ(w->loc.line, 5);
  }
  std::vector<std::string> got;
  for (const base::Error& e : outcome_failures(o)) got.push_back(e.format());
  EXPECT_EQ(got, (std::vector<std::string>{
                     "t.s:5: error: device: t=" +
                     device::format_time(o.report.device_errors[0].time).substr(2) +
                     " core 0 engine 0 S2M queue 0: S2M destination: address 0x43003000000000 "
                     "routes to chip 3, which does not exist (topology trn2 has 1 chip; "
                     "trn2.48xlarge and trn2u have it: --topology NAME); word 2 wrote this "
                     "descriptor (ring slot 10); the same on engines 1-15"}));
  // Round the ring: with mask 0x1 each gen puts 130 descriptors on engine 0's S2M ring (128
  // data, the local and the remote semaphore's). After 7 good gens the bad one starts at slot
  // 910 and runs past the ring's end; after 8 it starts at 16, right behind a good gen whose
  // descriptors wrapped to slot 15. Either way the bad gen is named, at its line.
  for (const unsigned good : {7U, 8U}) {
    std::string text = ".core 0\n";
    for (unsigned i = 0; i < good; ++i) {
      text +=
          "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x1 "
          "free_dim_bytes=64\nrdma_desc_start\n";
    }
    text +=
        "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=3 "
        "dma_engine_mask=0x1 free_dim_bytes=64\nrdma_desc_start\n";
    const ProgramOutcome w = run_text(text);
    ASSERT_EQ(w.report.device_errors.size(), 1U) << good;
    EXPECT_EQ(w.report.device_errors[0].slot, (130 * good) % 1024) << good;
    ASSERT_EQ(w.report.device_error_origins.size(), 1U);
    ASSERT_TRUE(w.report.device_error_origins[0].has_value());
    EXPECT_EQ(w.report.device_error_origins[0]->pc, 2 * good) << good;
    EXPECT_EQ(w.report.device_error_origins[0]->loc.line, static_cast<int>(2 * good + 2)) << good;
  }
  // Gens after the bad one go on round the ring (nothing waits for the stopped queue), and
  // the seventh writes slot 0 again, after the engine read it there: still the bad gen's.
  std::string after =
      ".core 0\nrdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=3 "
      "dma_engine_mask=0x1 free_dim_bytes=64\nrdma_desc_start\n";
  for (unsigned i = 0; i < 8; ++i) {
    after +=
        "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x1 "
        "free_dim_bytes=64\nrdma_desc_start\n";
  }
  const ProgramOutcome a = run_text(after);
  ASSERT_FALSE(a.report.device_errors.empty());
  EXPECT_EQ(a.report.device_errors[0].slot, 0U);
  ASSERT_TRUE(a.report.device_error_origins[0].has_value());
  EXPECT_EQ(a.report.device_error_origins[0]->pc, 0U);
  EXPECT_EQ(a.report.device_error_origins[0]->loc.line, 2);
}

TEST(Transport, AWriteThatLandsAfterTheEngineReadItsSlotIsNotItsWriter) {
  // Word 0 puts 514 descriptors on engine 0's rings, to chip 3; word 2 puts 514 more, which
  // wrap onto slots 0-3 at the very tick the engine reads slot 0 (no fixed cost, no MMIO
  // latency). Whatever the tie order, the writer named is the one whose bytes the engine
  // read: word 0 for a destination on chip 3, word 2 for a descriptor with ring id 2.
  const std::string text =
      ".core 0\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=3 "
      "dma_engine_mask=0x1 free_dim_bytes=200000\n"
      "rdma_desc_start\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x1 "
      "free_dim_bytes=200000\n"
      "rdma_desc_start\n";
  const std::vector<device::ParamOverrideSpec> params{{"dma_fixed_cost", 0},
                                                      {"mmio_write_latency", 0}};
  unsigned located = 0;
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    auto topo = load_topology_and_params("trn2", params);
    ASSERT_TRUE(topo.ok());
    ProgramParse parsed = parse_program(text, "t.s", topo->topology, soc::cayman_profile());
    ASSERT_TRUE(parsed.ok());
    SimOptions opt;
    opt.seed = seed;
    auto o = run_program(parsed.program, std::move(topo->topology), opt);
    ASSERT_TRUE(o.ok());
    const RunReport& r = o->report;
    ASSERT_EQ(r.device_error_origins.size(), r.device_errors.size());
    for (std::size_t i = 0; i < r.device_errors.size(); ++i) {
      const std::string& m = r.device_errors[i].message;
      const auto& w = r.device_error_origins[i];
      if (m.find("chip 3") != std::string::npos) {
        ASSERT_TRUE(w.has_value()) << seed;
        EXPECT_EQ(w->pc, 0U) << seed << ": " << m;
        ++located;
      } else if (m.find("has ring id 2") != std::string::npos) {
        ASSERT_TRUE(w.has_value()) << seed;
        EXPECT_EQ(w->pc, 2U) << seed << ": " << m;
        ++located;
      }
    }
  }
  EXPECT_GE(located, 6U);  // each seed's first error is about slot 0
}

TEST(Transport, AnMmioAccessesErrorNamesTheWordThatIssuedIt) {
  // Three gens of 514 descriptors each on engine 0 and a start after each: the second and
  // third starts ring doorbells for more than the ring holds. Each doorbell's error is told
  // at its own start's line, not folded into another engine's.
  std::string text = ".core 0\n";
  for (int i = 0; i < 3; ++i) {
    text +=
        "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x1 "
        "free_dim_bytes=200000\n"
        "rdma_desc_start\n";
  }
  const ProgramOutcome o = run_text(text);
  std::vector<std::string> doorbells;
  for (const base::Error& e : outcome_failures(o)) {
    const std::string f = e.format();
    if (f.find("tail beyond ring") == std::string::npos) continue;
    doorbells.push_back(f.substr(0, f.find(": error:")) + " " + f.substr(f.find("; word")));
  }
  EXPECT_EQ(doorbells, (std::vector<std::string>{
                           "t.s:5 ; word 3 issued this access",
                           "t.s:5 ; word 3 issued this access",
                           "t.s:7 ; word 5 issued this access",
                           "t.s:7 ; word 5 issued this access",
                       }));
}

TEST(Transport, OriginsAreKeptOnlyWhenAsked) {
  // bench's runs do not ask: no origins, no ring records, the same errors and times.
  const std::string text =
      ".core 0\nrdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=3 "
      "dma_engine_mask=0x1 free_dim_bytes=64\nrdma_desc_start\n";
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  ProgramParse parsed = parse_program(text, "t.s", *topo, soc::cayman_profile());
  ASSERT_TRUE(parsed.ok());
  std::vector<base::Tick> ends;
  for (const bool locate : {false, true}) {
    SimOptions opt;
    opt.locate_device_errors = locate;
    auto sim = Simulation::create(*topo, opt);
    ASSERT_TRUE(sim.ok());
    ASSERT_TRUE((*sim)->load_program(0, parsed.program.cores[0].words).ok());
    auto r = (*sim)->run();
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->device_errors.size(), 1U);
    EXPECT_EQ(r->device_error_origins.size(), locate ? 1U : 0U);
    EXPECT_EQ((*sim)->ring_slots_written(0, firmware::Role::kRx, 0), locate ? 130U : 0U);
    ends.push_back(r->end_time);
  }
  EXPECT_EQ(ends[0], ends[1]);
}

TEST(Transport, WordsMovedInRunAsCopiedOnesAndComeBackWhole) {
  // load_program() of a vector the caller gives up moves it in (its buffer, not a copy);
  // take_program() gives it back after the run. A load on a core that has words appends.
  const std::string text =
      ".core 0\nrdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x1 "
      "free_dim_bytes=64\nrdma_desc_start\n";
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  ProgramParse parsed = parse_program(text, "t.s", *topo, soc::cayman_profile());
  ASSERT_TRUE(parsed.ok());
  const std::vector<isa::Word>& words = parsed.program.cores[0].words;
  ASSERT_EQ(words.size(), 2U);
  enum class Load { kCopied, kMoved, kAppended };
  const auto run = [&](Load how) {
    auto sim = Simulation::create(*topo, SimOptions{});
    EXPECT_TRUE(sim.ok());
    std::vector<isa::Word> mine(words);
    const isa::Word* buffer = mine.data();
    switch (how) {
      case Load::kCopied:
        EXPECT_TRUE((*sim)->load_program(0, words).ok());
        break;
      case Load::kMoved:
        EXPECT_TRUE((*sim)->load_program(0, std::move(mine)).ok());
        break;
      case Load::kAppended:
        EXPECT_TRUE((*sim)->load_program(0, std::span(words).first(1)).ok());
        EXPECT_TRUE((*sim)->load_program(0, std::vector<isa::Word>{words[1]}).ok());
        break;
    }
    auto r = (*sim)->run();
    EXPECT_TRUE(r.ok() && r->ok());
    const std::vector<isa::Word> back = (*sim)->take_program(0);
    EXPECT_TRUE(back == words);
    if (how == Load::kMoved) {
      EXPECT_EQ(back.data(), buffer);  // the same buffer throughout
    }
    EXPECT_TRUE((*sim)->take_program(0).empty());  // taken
    EXPECT_TRUE((*sim)->take_program(1).empty());  // never loaded
    return r.ok() ? r->end_time : base::Tick{};
  };
  const base::Tick copied = run(Load::kCopied);
  EXPECT_GT(copied.ps, 0U);
  EXPECT_EQ(run(Load::kMoved), copied);
  EXPECT_EQ(run(Load::kAppended), copied);
  // After a run nothing loads, moved or not.
  auto sim = Simulation::create(*topo, SimOptions{});
  ASSERT_TRUE(sim.ok());
  ASSERT_TRUE((*sim)->run().ok());
  EXPECT_FALSE((*sim)->load_program(0, std::vector<isa::Word>(words)).ok());
}

TEST(Transport, DeviceErrorsFromDifferentWordsAreToldApart) {
  // Alike but for the engine: folded only when one word wrote them all, at one ring slot.
  RunReport r;
  const base::Tick t{5'500'000};
  const auto err = [&](unsigned engine, std::optional<unsigned> slot,
                       std::optional<ErrorOrigin> w) {
    r.device_errors.push_back(
        device::ModelledError{t, 0, engine, soc::Direction::kS2M, 0, "routes to chip 3", slot});
    r.device_error_origins.push_back(std::move(w));
  };
  const ErrorOrigin w0{0, base::SourceLoc{"p.s", 2}};
  const ErrorOrigin w4{4, base::SourceLoc{"p.s", 9}};
  err(0, 10, w0);
  err(1, 10, w0);
  err(2, 10, w4);
  err(3, 10, w4);
  err(4, 130, w4);  // the same word, another slot: its own line
  err(5, std::nullopt, std::nullopt);
  std::vector<std::string> got;
  for (const base::Error& e : report_failures(r)) got.push_back(e.format());
  EXPECT_EQ(got, (std::vector<std::string>{
                     "p.s:2: error: device: t=5500.000ns core 0 engine 0 S2M queue 0: routes to "
                     "chip 3; word 0 wrote this descriptor (ring slot 10); the same on engine 1",
                     "p.s:9: error: device: t=5500.000ns core 0 engine 2 S2M queue 0: routes to "
                     "chip 3; word 4 wrote this descriptor (ring slot 10); the same on engine 3",
                     "p.s:9: error: device: t=5500.000ns core 0 engine 4 S2M queue 0: routes to "
                     "chip 3; word 4 wrote this descriptor (ring slot 130)",
                     "error: device: t=5500.000ns core 0 engine 5 S2M queue 0: routes to chip 3",
                 }));
}

TEST(Transport, DeviceErrorsAreToldInTimeAndEngineOrderAndAnEngineOnlyForOthers) {
  // The same tick's errors in any flagged order read the same; a second error of the same
  // engine (two doorbells, say) is its own line, not "the same on engine 0".
  RunReport r;
  const base::Tick t1{26'650'000};
  const base::Tick t2{39'975'000};
  const auto err = [&](base::Tick t, unsigned engine) {
    r.device_errors.push_back(device::ModelledError{
        t, 0, engine, soc::Direction::kS2M, 0, "tail beyond ring: doorbell +514", std::nullopt});
  };
  err(t1, 2);
  err(t1, 0);
  err(t2, 0);
  err(t1, 1);
  std::vector<std::string> got;
  for (const base::Error& e : report_failures(r)) got.push_back(e.format());
  EXPECT_EQ(got, (std::vector<std::string>{
                     "error: device: t=26650.000ns core 0 engine 0 S2M queue 0: tail beyond "
                     "ring: doorbell +514; the same on engines 1-2",
                     "error: device: t=39975.000ns core 0 engine 0 S2M queue 0: tail beyond "
                     "ring: doorbell +514",
                 }));
}

TEST(Transport, DumpsPrintTheBytesAfterTheRunAmongTheExpects) {
  // 16 bytes of each partition to core 1: its bytes after the run, in line order with the
  // expects; under --timing-only the dump is skipped as a data expect is.
  const std::string text =
      ".init core=0 addr=0x1000 bytes=16 pattern=iota\n"
      ".core 0\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xffff "
      "src_addr=0x1000 dst_addr=0x2000 free_dim_bytes=16\n"
      "rdma_desc_start\n"
      ".expect sem core=1 idx=4 value=16\n"
      ".dump sbuf core=1 addr=0x1ff8 bytes=24 partitions=126:128\n"
      ".expect sem core=0 idx=3 value=16\n";
  const ProgramOutcome o = run_text(text);
  ASSERT_TRUE(o.ok());
  std::vector<std::string> lines = outcome_lines(o, false);
  const auto at =
      std::find(lines.begin(), lines.end(), "t.s:5: .expect sem core=1 idx=4 value=16: ok");
  ASSERT_NE(at, lines.end());
  EXPECT_EQ(std::vector<std::string>(at, lines.end()),
            (std::vector<std::string>{
                "t.s:5: .expect sem core=1 idx=4 value=16: ok",
                "t.s:6: .dump sbuf core=1 addr=0x1ff8 bytes=24 partitions=126:128:",
                "  p126 +0x1ff8: 00 00 00 00 00 00 00 00  7e 7f 80 81 82 83 84 85",
                "  p126 +0x2008: 86 87 88 89 8a 8b 8c 8d",
                "  p127 +0x1ff8: 00 00 00 00 00 00 00 00  7f 80 81 82 83 84 85 86",
                "  p127 +0x2008: 87 88 89 8a 8b 8c 8d 8e",
                "t.s:7: .expect sem core=0 idx=3 value=16: ok",
                "result: ok",
            }));
  SimOptions opt;
  opt.timing_only = true;
  lines = outcome_lines(run_text(text, "trn2", opt), false);
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "t.s:6: .dump sbuf core=1 addr=0x1ff8 bytes=24 partitions=126:128: skipped "
                      "(timing-only: no data moved)"),
            lines.end());
}

TEST(Transport, ARingDumpShowsEachSlotWithTheWordThatWroteIt) {
  // Mask 0x8 puts all 128 partitions on engine 3 (128 data descriptors, then the remote and
  // the local semaphore's); the second gen's 130 follow them, to chip 2, which trn2 lacks:
  // its queue stops at slot 130.
  const ProgramOutcome o = run_text(
      ".core 0\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x8 "
      "src_addr=0x100 dst_addr=0x200 free_dim_bytes=16\n"
      "rdma_desc_start\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=2 "
      "dma_engine_mask=0x8 free_dim_bytes=16\n"
      "rdma_desc_start\n"
      ".dump ring core=0 engine=3 slots=126:132\n"
      ".dump ring core=0 engine=0\n"
      ".dump ring core=0 engine=0 slots=0:5\n"
      ".dump ring core=5 engine=0\n");
  std::vector<std::string> lines = outcome_lines(o, false);
  const auto at = std::find_if(lines.begin(), lines.end(),
                               [](const std::string& l) { return l.starts_with("t.s:6:"); });
  ASSERT_NE(at, lines.end());
  const std::vector<std::string> got(at, lines.end() - 1);  // without the result line
  ASSERT_EQ(got.size(), 22U);
  EXPECT_EQ(got[0], "t.s:6: .dump ring core=0 engine=3 slots=126:132:");
  EXPECT_TRUE(got[1].starts_with("  M2S queue 0: ring at 0x")) << got[1];
  EXPECT_TRUE(
      got[1].ends_with(", 1024 slots; head 130 (ring id 1), tail 260 (ring id 1); "
                       "stopped: its S2M queue stopped"))
      << got[1];
  EXPECT_TRUE(got[2].starts_with("  S2M queue 0: ring at 0x")) << got[2];
  EXPECT_EQ(std::vector<std::string>(got.begin() + 3, got.begin() + 9),
            (std::vector<std::string>{
                "  slot 126 (word 0, t.s:2): 16 bytes core 0 partition 126 +0x100 -> core 1 "
                "partition 126 +0x200, ring id 1",
                "  slot 127 (word 0, t.s:2): 16 bytes core 0 partition 127 +0x100 -> core 1 "
                "partition 127 +0x200, ring id 1",
                "  slot 128 (word 0, t.s:2): 4 bytes core 0 TPB_0.DGE_MEMORY +0x0 -> core 1 "
                "sem[4], ring id 1",
                "  slot 129 (word 0, t.s:2): 4 bytes core 0 TPB_0.DGE_MEMORY +0x0 -> core 0 "
                "sem[3], ring id 1",
                "  slot 130 (word 2, t.s:4): 16 bytes core 0 partition 0 +0x0 -> "
                "0x42003000000000, ring id 1",
                "  slot 131 (word 2, t.s:4): 16 bytes core 0 partition 1 +0x0 -> "
                "0x42003000040000, ring id 1",
            }));
  // Engine 0 carries only the local semaphore's descriptor of each gen: two slots by default.
  EXPECT_EQ(got[9], "t.s:7: .dump ring core=0 engine=0:");
  EXPECT_TRUE(got[10].ends_with("head 2 (ring id 1), tail 2 (ring id 1)")) << got[10];
  EXPECT_EQ(got[12],
            "  slot 0 (word 0, t.s:2): 4 bytes core 0 TPB_0.DGE_MEMORY +0x0 -> core 0 sem[3], "
            "ring id 1");
  EXPECT_EQ(got[13],
            "  slot 1 (word 2, t.s:4): 4 bytes core 0 TPB_0.DGE_MEMORY +0x0 -> core 0 sem[3], "
            "ring id 1");
  // Slots no word wrote are one line.
  EXPECT_EQ(got[14], "t.s:8: .dump ring core=0 engine=0 slots=0:5:");
  EXPECT_EQ(got[19], "  slots 2-4: not written");
  EXPECT_EQ(got[20], "t.s:9: .dump ring core=5 engine=0:");
  // One unwritten slot is told alone; a ring no word wrote, by default, in one line.
  const ProgramOutcome one = run_text(
      ".core 0\nrdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x1 "
      "free_dim_bytes=16\nrdma_desc_start\n"
      ".dump ring core=0 engine=0 slots=130:131\n"
      ".core 1\nevent_semaphore\n"
      ".dump ring core=1 engine=2\n");
  const std::vector<std::string> more = outcome_lines(one, false);
  EXPECT_NE(std::find(more.begin(), more.end(), "  slot 130: not written"), more.end());
  EXPECT_NE(std::find(more.begin(), more.end(), "  no descriptor was written to these rings"),
            more.end());
  EXPECT_EQ(got[21],
            "  core 5 ran no program: its rings were never set up (a core's firmware sets them "
            "up when it boots)");
}

TEST(Transport, ARingDumpWithHexGivesEachSidesBytesAsDecodeReadsThem) {
  // Engine 3 carries all 128 partitions (mask 0x8): slots 5 and 6 are partitions 5 and 6,
  // slot 128 the remote semaphore's. Each written side's line holds the 16 bytes the engine
  // reads, in memory order, and they decode to what the pair line says.
  const ProgramOutcome o = run_text(
      ".core 0\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x8 "
      "src_addr=0x100 dst_addr=0x200 free_dim_bytes=16\n"
      "rdma_desc_start\n"
      ".dump ring core=0 engine=3 slots=5:7 hex=yes\n"
      ".dump ring core=0 engine=3 slots=128:129 hex=yes\n"
      ".dump ring core=0 engine=3 slots=5:6 hex=no\n"
      ".dump ring core=0 engine=3 slots=200:201 hex=yes\n");
  const std::vector<std::string> lines = outcome_lines(o, false);
  const auto at = std::find_if(lines.begin(), lines.end(),
                               [](const std::string& l) { return l.starts_with("t.s:4:"); });
  ASSERT_NE(at, lines.end());
  const std::vector<std::string> got(at, lines.end() - 1);
  ASSERT_EQ(got.size(), 26U);
  EXPECT_EQ(got[3],
            "  each M2S:/S2M: line below is explained by: sbrdma decode desc --chip 0 --die 0 "
            "'LINE'");
  EXPECT_EQ(got[4],
            "  slot 5 (word 0, t.s:2): 16 bytes core 0 partition 5 +0x100 -> core 1 partition 5 "
            "+0x200, ring id 1");
  const auto decoded = [](const std::string& line, std::string_view side) {
    std::array<std::uint8_t, soc::kDescBytes> b{};
    const std::string head = "    " + std::string(side) + ": ";
    EXPECT_TRUE(line.starts_with(head)) << line;
    EXPECT_EQ(line.size(), head.size() + 2 * soc::kDescBytes + 3) << line;  // 4 groups of 8
    std::string digits;
    for (char c : line.substr(std::min(head.size(), line.size()))) {
      if (c != ' ') digits += c;
    }
    for (std::size_t i = 0; i < b.size() && 2 * i + 1 < digits.size(); ++i) {
      b[i] = static_cast<std::uint8_t>(std::stoul(digits.substr(2 * i, 2), nullptr, 16));
    }
    return soc::decode_descriptor(b);
  };
  const soc::UdmaDescriptor m2s5 = decoded(got[5], "M2S");
  const soc::UdmaDescriptor s2m5 = decoded(got[6], "S2M");
  const soc::UdmaDescriptor m2s6 = decoded(got[8], "M2S");
  const soc::UdmaDescriptor s2m6 = decoded(got[9], "S2M");
  EXPECT_EQ(m2s5.length(), 16U);
  EXPECT_EQ(s2m5.length(), 16U);
  EXPECT_EQ(m2s5.ring_id(), 1U);
  EXPECT_EQ(s2m5.ring_id(), 1U);
  // Partition 6 lies one partition stride past partition 5 on both sides, at 0x100 and 0x200
  // past the same partition start.
  const std::uint64_t stride = m2s6.addr().v - m2s5.addr().v;
  EXPECT_GT(stride, 0x200U);
  EXPECT_EQ(s2m6.addr().v - s2m5.addr().v, stride);
  EXPECT_EQ(m2s5.addr().v % stride, 0x100U);
  EXPECT_EQ(s2m5.addr().v % stride, 0x200U);
  // The semaphore's pair: 4 bytes each side.
  EXPECT_EQ(got[10], "t.s:5: .dump ring core=0 engine=3 slots=128:129 hex=yes:");
  EXPECT_EQ(decoded(got[16], "S2M").length(), 4U);
  // hex=no is the plain dump; a slot no word wrote has no bytes to show.
  EXPECT_EQ(got[17], "t.s:6: .dump ring core=0 engine=3 slots=5:6 hex=no:");
  EXPECT_EQ(got[20], got[4]);
  EXPECT_EQ(got[21], "t.s:7: .dump ring core=0 engine=3 slots=200:201 hex=yes:");
  EXPECT_EQ(got[25], "  slot 200: not written");
  // A ring no word wrote has no bytes, and no command to explain them.
  const ProgramOutcome none =
      run_text(".core 1\nevent_semaphore\n.dump ring core=1 engine=2 hex=yes\n");
  const std::vector<std::string> nl = outcome_lines(none, false);
  const auto head = std::find(nl.begin(), nl.end(), "t.s:3: .dump ring core=1 engine=2 hex=yes:");
  ASSERT_EQ(std::distance(head, nl.end()), 5) << "heading, two queues, the note, the result";
  EXPECT_EQ(*(head + 3), "  no descriptor was written to these rings");
}

TEST(Transport, AProgramsDumpsTogetherHaveALimit) {
  // Four whole 1 MiB dumps fit (65536 lines each); a ring slot more does not, and the error
  // names the dump that passes the limit, before anything runs.
  std::string text = ".core 0\nrdma_desc_start\n";
  for (int i = 0; i < 4; ++i) text += ".dump sbuf core=0 addr=0 bytes=8192\n";
  auto topo = load_topology("trn2");
  ASSERT_TRUE(topo.ok());
  ProgramParse parsed = parse_program(text + ".dump ring core=0 engine=0 slots=0:1\n", "t.s", *topo,
                                      soc::cayman_profile());
  ASSERT_TRUE(parsed.ok());
  auto o = run_program(parsed.program, *topo, SimOptions{});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().format(),
            "t.s:7: error: the dumps so far, this one included, may print 262145 lines of bytes "
            "and slots; a program's dumps together print at most 262144 (a line per 16 bytes of "
            "a partition or per ring slot, 3 with hex=yes: 4 MiB of SBUF, or 256 whole rings): "
            "narrow or drop some");
  // A ring dump without slots= counts its whole ring.
  parsed =
      parse_program(text + ".dump ring core=0 engine=0\n", "t.s", *topo, soc::cayman_profile());
  ASSERT_FALSE(run_program(parsed.program, *topo, SimOptions{}).ok());
  parsed = parse_program(text, "t.s", *topo, soc::cayman_profile());
  EXPECT_TRUE(run_program(parsed.program, *topo, SimOptions{}).ok());
  // hex=yes counts three lines a slot: beside three 1 MiB dumps (196608 lines), 22 whole
  // rings fit (22528 lines), but not with their bytes (67584).
  std::string three = ".core 0\nrdma_desc_start\n";
  for (int i = 0; i < 3; ++i) three += ".dump sbuf core=0 addr=0 bytes=8192\n";
  std::string plain = three;
  std::string hex = three;
  for (int i = 0; i < 22; ++i) {
    plain += ".dump ring core=0 engine=0\n";
    hex += ".dump ring core=0 engine=0 hex=yes\n";
  }
  parsed = parse_program(plain, "t.s", *topo, soc::cayman_profile());
  EXPECT_TRUE(run_program(parsed.program, *topo, SimOptions{}).ok());
  parsed = parse_program(hex, "t.s", *topo, soc::cayman_profile());
  auto h = run_program(parsed.program, *topo, SimOptions{});
  ASSERT_FALSE(h.ok());
  EXPECT_TRUE(
      h.error().format().starts_with("t.s:27: error: the dumps so far, this one "
                                     "included, may print 264192 lines"))
      << h.error().format();
}

TEST(Transport, TimingOnlySkipsDataExpectsAndKeepsTime) {
  SimOptions opt;
  opt.timing_only = true;
  const ProgramOutcome t = run_text(copy_program(0, 1, 0, 1, 0xffff, 4096), "trn2", opt);
  const ProgramOutcome f = run_text(copy_program(0, 1, 0, 1, 0xffff, 4096));
  EXPECT_TRUE(t.ok());
  EXPECT_EQ(t.report.end_time, f.report.end_time);
  ASSERT_EQ(t.expects.size(), 3U);
  EXPECT_TRUE(t.expects[2].skipped);
  EXPECT_TRUE(t.expects[1].passed);
}

TEST(Transport, TraceTracksAndCounters) {
  SimOptions opt;
  opt.trace = true;
  const ProgramOutcome o = run_text(copy_program(0, 1, 0, 1, 0xf, 4096), "trn2", opt);
  const nlohmann::json doc = nlohmann::json::parse(o.trace_json);
  std::map<std::pair<int, int>, std::string> threads;
  std::map<std::string, int> slices;  // name -> count on core 0
  std::set<int> processes;
  int dma0 = 0;
  std::uint64_t last_sem4 = 0;
  std::set<std::tuple<int, std::string, std::string>> counter_ticks;  // (pid, name, ts)
  for (const auto& e : doc.at("traceEvents")) {
    const std::string ph = e.at("ph");
    const std::string name = e.at("name");
    if (ph == "M" && name == "thread_name") {
      threads[{e.at("pid"), e.at("tid")}] = e.at("args").at("name");
    } else if (ph == "M" && name == "process_name") {
      processes.insert(e.at("pid").get<int>());
    } else if (ph == "X" && e.at("pid") == 0) {
      ++slices[name];
      // Engine 0's slices: its thread "DMA 0" (tid 100) and its lanes (tid 100 + 100 k).
      if (e.at("tid").get<int>() % 100 == 0 && e.at("tid") != 0) ++dma0;
    } else if (ph == "C") {
      // One sample per counter and tick: landings in one tick are events of their own, and a
      // viewer would show only the last of them.
      const bool first = counter_ticks.insert({e.at("pid"), name, e.at("ts").dump()}).second;
      EXPECT_TRUE(first) << e.dump();
      if (name == "sem[4]" && e.at("pid") == 1) last_sem4 = e.at("args").at("value");
    }
  }
  EXPECT_EQ(processes, (std::set<int>{0, 1})) << "the programmed core and its peer";
  EXPECT_EQ(threads[std::pair(0, 0)], "POOL");
  EXPECT_EQ(threads[std::pair(0, 1)], "Q7 P0 (RX)");
  EXPECT_EQ(threads[std::pair(0, 2)], "Q7 P1 (TX)");
  EXPECT_EQ(threads[std::pair(0, 100)], "DMA 0");
  EXPECT_EQ(threads[std::pair(0, 115)], "DMA 15") << "inactive engines carry LOCAL descriptors";
  EXPECT_EQ(slices["rdma_desc_gen"], 1);
  EXPECT_EQ(slices["rdma_desc_start"], 1);
  EXPECT_EQ(slices["q7 busy"], 1) << "gen's descriptor cost";
  // Engine 0 of 4 moves 32 partitions (one descriptor pair each), then REMOTE and LOCAL.
  EXPECT_EQ(dma0, 34);
  EXPECT_EQ(last_sem4, 4U) << "the peer's remote_sem counter ends at n_active";
}

TEST(Transport, TraceWaitSlicesEndWhenTheWaitPasses) {
  // Core 1's rdma_desc_start waits for core 0's data (sem[4] >= 16), then drains its writes:
  // the wait's slice ends as the counter gets there, not at the end of the word.
  SimOptions opt;
  opt.trace = true;
  const ProgramOutcome o = run_text(
      ".core 0\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xffff "
      "src_addr=0 dst_addr=0x1000 free_dim_bytes=1024\n"
      "rdma_desc_start\n"
      ".core 1\n"
      "rdma_desc_gen local_sem=5 remote_sem=6 remote_core_id=0 dma_engine_mask=0xffff "
      "src_addr=0x1000 dst_addr=0x2000 free_dim_bytes=1024\n"
      "rdma_desc_start wait_mode=ge_imm wait_idx=4 semaphore_value=16\n"
      ".expect sem core=0 idx=6 value=16\n",
      "trn2", opt);
  EXPECT_TRUE(o.ok());
  const testing_trace::WaitEnds w = testing_trace::wait_ends(o.trace_json);
  EXPECT_EQ(w.waits, 1U);
  EXPECT_EQ(w.wrong, "");
}

TEST(Transport, TraceHasASliceForEveryWordEvenOneThatTakesNoEvent) {
  // A wait already met runs inside the event of the word before it, so no poll between events
  // sees its pc; it still gets its slice, 0 long. Words 0, 1, 3 and 5 are such waits.
  SimOptions opt;
  opt.trace = true;
  const ProgramOutcome o = run_text(
      ".core 0\n"
      "event_semaphore wait_mode=ge_imm wait_idx=9 semaphore_value=0\n"
      "event_semaphore wait_mode=ge_imm wait_idx=9 semaphore_value=0\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xffff "
      "src_addr=0 dst_addr=0x1000 free_dim_bytes=1024\n"
      "event_semaphore wait_mode=ge_imm wait_idx=9 semaphore_value=0\n"
      "rdma_desc_start\n"
      "event_semaphore wait_mode=ge_imm wait_idx=9 semaphore_value=0\n"
      "event_semaphore wait_mode=ge_imm wait_idx=3 semaphore_value=16\n",
      "trn2", opt);
  ASSERT_TRUE(o.ok());
  auto words = testing_trace::word_slices(o.trace_json, 0);
  ASSERT_EQ(words.size(), 7U) << o.trace_json;
  for (const auto& [pc, slices] : words) EXPECT_EQ(slices.size(), 1U) << "pc " << pc;
  for (const unsigned pc : {0U, 1U, 3U, 5U}) {
    EXPECT_EQ(words[pc].front().name, "event_semaphore") << pc;
  }
  EXPECT_EQ(words[1].front().dur, 0) << "a met wait takes no time";
  EXPECT_EQ(words[3].front().dur, 0);
  EXPECT_EQ(words[5].front().dur, 0);
  EXPECT_GT(words[6].front().dur, 0) << "the last wait waits for the local increments";
}

TEST(Transport, TraceHasASliceForAWordThatFailsInTheEventOfTheWordBefore) {
  // The sequencer stops on a failing word: one that no poll saw start (it came right after a
  // met wait) still gets its slice, 0 long; nothing after it runs.
  SimOptions opt;
  opt.trace = true;
  const ProgramOutcome o = run_text(
      ".core 0\n"
      "event_semaphore wait_mode=ge_imm wait_idx=9 semaphore_value=0\n"
      "event_semaphore wait_mode=ge_imm wait_idx=9 semaphore_value=0\n"
      "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xffff "
      "src_addr=0x2ffff0 dst_addr=0x1000 free_dim_bytes=1024\n"
      "event_semaphore wait_mode=ge_imm wait_idx=9 semaphore_value=0\n",
      "trn2", opt);
  EXPECT_FALSE(o.ok());
  std::map<unsigned, std::string> words;  // pc -> name, one slice each
  for (const auto& [pc, slices] : testing_trace::word_slices(o.trace_json, 0)) {
    EXPECT_EQ(slices.size(), 1U) << "pc " << pc;
    words[pc] = slices.front().name;
  }
  EXPECT_EQ(words, (std::map<unsigned, std::string>{
                       {0, "event_semaphore"}, {1, "event_semaphore"}, {2, "rdma_desc_gen"}}))
      << o.trace_json;
}

TEST(Transport, TraceDescriptorSlicesSayWhatTheyMove) {
  // Each DMA slice's args: the pair's bytes, where the M2S descriptor reads and where the S2M
  // one writes, as the ring holds them. Core 0 copies 4096 B of each partition at 0x1000 to
  // core 5 (chip 0 tpb 5, the other die) at 0x2000 on engines 0-3, 32 partitions each.
  SimOptions opt;
  opt.trace = true;
  const ProgramOutcome o =
      run_text(copy_program(0, 5, 0, 5, 0xf, 4096, 0x1000, 0x2000), "trn2", opt);
  const nlohmann::json doc = nlohmann::json::parse(o.trace_json);
  std::set<unsigned> partitions;
  unsigned data = 0;
  unsigned remote = 0;
  unsigned local = 0;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") != "X" || e.at("name") != "descriptor") continue;
    const auto& a = e.at("args");
    ASSERT_TRUE(a.contains("bytes") && a.contains("from") && a.contains("to")) << e.dump();
    const std::string from = a.at("from");
    const std::string to = a.at("to");
    if (to == "core 5 sem[4]") {
      ++remote;
      EXPECT_EQ(a.at("bytes"), 4);
      EXPECT_EQ(from, "core 0 TPB_0.DGE_MEMORY +0x0") << "the one word (D20a)";
    } else if (to == "core 0 sem[3]") {
      ++local;
      EXPECT_EQ(a.at("bytes"), 4);
    } else {
      ++data;
      EXPECT_EQ(a.at("bytes"), 4096) << e.dump();
      unsigned p = 0;
      ASSERT_EQ(std::sscanf(from.c_str(), "core 0 partition %u +0x1000", &p), 1) << from;
      EXPECT_EQ(to, fmt::format("core 5 partition {} +0x2000", p));
      partitions.insert(p);
    }
  }
  EXPECT_EQ(data, 128U);
  EXPECT_EQ(partitions.size(), 128U) << "every partition once";
  EXPECT_EQ(remote, 4U) << "one REMOTE per active engine";
  EXPECT_EQ(local, 16U) << "one LOCAL per engine";
}

TEST(Transport, TraceSlicesNestOnEveryThread) {
  // An engine has several descriptor pairs in flight at once: their slices overlap, which
  // one Chrome-trace thread cannot show, so they go to lanes "DMA e (2)", ... [CHOICE D29g]
  SimOptions opt;
  opt.trace = true;
  const ProgramOutcome o = run_text(copy_program(0, 1, 0, 1, 0xf, 4096), "trn2", opt);
  const testing_trace::TraceSlices t = testing_trace::trace_slices(o.trace_json);
  EXPECT_EQ(t.crossing, 0U) << t.examples;
  EXPECT_EQ(t.inner_before_word, 0U) << "a word's slice comes before its equal inner ones";
  // One slice per descriptor pair, as before the lanes (4 engines x 34, 12 x 1 LOCAL).
  EXPECT_EQ(t.dma, 148U);
  EXPECT_EQ(t.dma, o.report.stats.descriptors);
  EXPECT_EQ(t.spare_lanes, 0U) << "as few lanes as pairs in flight";
  // The core's DMA threads, by sort index: each engine's lanes in order, right after it.
  std::map<int, std::pair<unsigned, unsigned>> by_sort;  // sort index -> (engine, lane)
  for (const auto& [key, name] : t.names) {
    unsigned engine = 0;
    unsigned lane = 1;
    if (key.first != 0 || std::sscanf(name.c_str(), "DMA %u (%u)", &engine, &lane) < 1) continue;
    EXPECT_EQ(name,
              lane == 1 ? fmt::format("DMA {}", engine) : fmt::format("DMA {} ({})", engine, lane));
    EXPECT_EQ(key.second, static_cast<int>(100 + engine + 100 * (lane - 1))) << name;
    by_sort[t.sort_index.at(key)] = {engine, lane};
  }
  EXPECT_TRUE(std::is_sorted(by_sort.begin(), by_sort.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; }));
  EXPECT_EQ(by_sort.size(), 16U + 4U * 2U) << "engines 0-3 need 3 lanes, LOCAL-only ones 1";
}

}  // namespace
}  // namespace sbrdma::platform
