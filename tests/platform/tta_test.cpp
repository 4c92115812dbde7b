// ExtendedInst TENSOR_TENSOR_ARITH run end to end: the POOL sequencer dispatches it, the
// firmware reads and writes SBUF through the platform's CoreEnv, results match the CPU
// reference per dtype; patterns, ports, refusals, time and timing-only. [CHOICE D28]
#include <gtest/gtest.h>

#include <algorithm>
#include <coroutine>
#include <vector>

#include "firmware/sb2sb.h"
#include "firmware/tensor_tensor_arith.h"
#include "isa/views.h"
#include "platform/arith_ref.h"
#include "platform/simulation.h"

namespace sbrdma::platform {
namespace {

using firmware::ArithOp;
using isa::AluOp;
using isa::Dtype;

isa::Tensor2d pattern(std::uint32_t start, std::int16_t s0, std::uint16_t n0, std::int16_t s1 = 0,
                      std::uint16_t n1 = 1) {
  isa::Tensor2d t;
  t.start_addr.value = start;
  t.step_elem = {s0, s1};
  t.num_elem = {n0, n1};
  return t;
}

isa::ExtTensorTensorArith tta(AluOp op, Dtype d, isa::Tensor2d src0, isa::Tensor2d src1,
                              isa::Tensor2d dst) {
  isa::ExtTensorTensorArith t;
  t.in0_in1_dtype = {d, d};
  t.out_dtype = d;
  t.op = op;
  t.src0_mem_pattern = src0;
  t.src1_mem_pattern = src1;
  t.dst_mem_pattern = dst;
  return t;
}

AluOp alu(ArithOp op) {
  switch (op) {
    case ArithOp::kAdd:
      return AluOp::kAdd;
    case ArithOp::kMult:
      return AluOp::kMult;
    case ArithOp::kMax:
      return AluOp::kMax;
    case ArithOp::kMin:
      return static_cast<AluOp>(0x09);  // ALU_OP_MIN
  }
  return AluOp::kBypass;
}

std::unique_ptr<Simulation> make_sim(SimOptions opt = {}) {
  auto s = Simulation::create("trn2", opt);
  EXPECT_TRUE(s.ok());
  return std::move(*s);
}

/// Runs `words` on core 0 and returns the report.
RunReport run_core0(Simulation& sim, std::vector<isa::Word> words) {
  EXPECT_TRUE(sim.load_program(0, std::move(words)).ok());
  auto r = sim.run();
  EXPECT_TRUE(r.ok());
  return *r;
}

constexpr std::uint32_t kA = 0x0;
constexpr std::uint32_t kB = 0x4000;
constexpr std::uint32_t kD = 0x8000;

TEST(Tta, EveryDtypeAndOpMatchesTheReference) {
  const Dtype dtypes[] = {Dtype::kFp32,   Dtype::kBfloat16, Dtype::kFp16,
                          Dtype::kInt32,  Dtype::kUint32,   Dtype::kInt16,
                          Dtype::kUint16, Dtype::kInt8,     Dtype::kUint8};
  const ArithOp ops[] = {ArithOp::kAdd, ArithOp::kMult, ArithOp::kMax, ArithOp::kMin};
  for (const Dtype d : dtypes) {
    for (const ArithOp op : ops) {
      auto sim = make_sim();
      const unsigned size = firmware::dtype_bytes(d);
      const std::uint16_t n = 512;
      const SbufRegion a{0, kA, n * size}, b{0, kB, n * size}, out{0, kD, n * size};
      ASSERT_TRUE(sim->fill(a, {FillPattern::Kind::kRandom, 11}).ok());
      ASSERT_TRUE(sim->fill(b, {FillPattern::Kind::kRandom, 12}).ok());
      const RunReport r = run_core0(
          *sim,
          {isa::encode(tta(alu(op), d, pattern(kA, 1, n), pattern(kB, 1, n), pattern(kD, 1, n)))});
      ASSERT_TRUE(r.ok()) << (r.firmware_errors.empty() ? "" : r.firmware_errors[0].error.message);
      const auto av = sim->read(a).value();
      const auto bv = sim->read(b).value();
      const auto ov = sim->read(out).value();
      for (std::size_t i = 0; i < std::size_t{n} * 128; ++i) {
        ASSERT_TRUE(firmware::testing_ref::ref_matches(op, d, av.data(), bv.data(), ov.data(), i))
            << "dtype " << static_cast<int>(d) << " op " << firmware::arith_op_name(op)
            << " element " << i;
      }
    }
  }
}

TEST(Tta, InPlaceAccumulateOverTheWholePartition) {
  auto sim = make_sim();
  // dst = src0: the reduce step; 32 KiB of fp32 per partition in the contiguous path.
  const std::uint16_t n = 8192;
  const SbufRegion acc{0, 0x10000, 4U * n}, in{0, 0x20000, 4U * n};
  ASSERT_TRUE(sim->fill(acc, {FillPattern::Kind::kRandom, 1}).ok());
  ASSERT_TRUE(sim->fill(in, {FillPattern::Kind::kRandom, 2}).ok());
  const auto before = sim->read(acc).value();
  const auto addend = sim->read(in).value();
  run_core0(*sim, {isa::encode(tta(AluOp::kAdd, Dtype::kFp32, pattern(0x10000, 1, n),
                                   pattern(0x20000, 1, n), pattern(0x10000, 1, n)))});
  const auto after = sim->read(acc).value();
  for (std::size_t i = 0; i < after.size() / 4; ++i) {
    ASSERT_TRUE(firmware::testing_ref::ref_matches(ArithOp::kAdd, Dtype::kFp32, before.data(),
                                                   addend.data(), after.data(), i))
        << i;
  }
}

TEST(Tta, StridedAndTwoDimensionalPatterns) {
  auto sim = make_sim();
  ASSERT_TRUE(sim->fill({0, 0, 256}, {FillPattern::Kind::kIota}).ok());
  ASSERT_TRUE(sim->fill({0, 0x400, 256}, {FillPattern::Kind::kConst, 0}).ok());
  // src0: every other byte (0, 2, ..., 30) as a 4 x 4 grid: rows step 8 elements, columns 2.
  // src1: 16 contiguous bytes at 0x40. dst: 16 bytes every 4th byte from 0x400.
  run_core0(*sim, {isa::encode(tta(AluOp::kAdd, Dtype::kUint8, pattern(0, 2, 4, 8, 4),
                                   pattern(0x40, 1, 16), pattern(0x400, 4, 16)))});
  for (unsigned p : {0U, 77U}) {
    const auto got = sim->read({0, 0x400, 64, p, p + 1}).value();
    for (unsigned k = 0; k < 16; ++k) {
      const unsigned i0 = k % 4, i1 = k / 4;
      const unsigned s0 = (p + 2 * i0 + 8 * i1) & 0xff;  // iota byte at that offset
      const unsigned s1 = (p + 0x40 + k) & 0xff;
      EXPECT_EQ(got[4 * k], (s0 + s1) & 0xff) << "partition " << p << " element " << k;
      EXPECT_EQ(got[4 * k + 1], 0) << "bytes between destination elements are kept";
    }
  }
}

TEST(Tta, NumActivePortsSelectsPartitions) {
  auto sim = make_sim();
  ASSERT_TRUE(sim->fill({0, 0, 64}, {FillPattern::Kind::kConst, 5}).ok());
  auto t =
      tta(AluOp::kAdd, Dtype::kUint8, pattern(0, 1, 64), pattern(0, 1, 64), pattern(0x100, 1, 64));
  t.completion_info.num_active_ports = 2;  // Q7 0 and 1: partitions 0..31
  run_core0(*sim, {isa::encode(t)});
  EXPECT_EQ(sim->read({0, 0x100, 64, 31, 32}).value(), std::vector<std::uint8_t>(64, 10));
  EXPECT_EQ(sim->read({0, 0x100, 64, 32, 33}).value(), std::vector<std::uint8_t>(64, 0));
}

std::string first_error(Simulation& sim, const isa::ExtTensorTensorArith& t) {
  const RunReport r = run_core0(sim, {isa::encode(t)});
  return r.firmware_errors.empty() ? "" : r.firmware_errors[0].error.message;
}

TEST(Tta, RefusalsAreFirmwareErrors) {
  const auto p = [](std::uint32_t a) { return pattern(a, 1, 16); };
  {
    auto sim = make_sim();
    EXPECT_EQ(first_error(*sim, tta(AluOp::kAdd, Dtype::kFp32, p(0), p(0), pattern(0x37ff0, 1, 8))),
              "ext_tensor_tensor_arith: dst_mem_pattern reaches bytes [229360, 229392) of each "
              "partition, outside the active 0..0x37fff");
  }
  {
    auto sim = make_sim();
    EXPECT_EQ(first_error(*sim, tta(AluOp::kAdd, Dtype::kFp32, pattern(0x10, -1, 16), p(0), p(0))),
              "ext_tensor_tensor_arith: src0_mem_pattern reaches bytes [-44, 20) of each "
              "partition, outside the active 0..0x37fff");
  }
  {
    auto sim = make_sim();
    auto t = tta(AluOp::kAdd, Dtype::kFp32, p(0), p(0), p(0));
    t.out_dtype = Dtype::kBfloat16;
    EXPECT_EQ(first_error(*sim, t),
              "ext_tensor_tensor_arith: dtypes differ (in0_in1_dtype.dtype_lo fp32, "
              "in0_in1_dtype.dtype_hi fp32, out_dtype bfloat16); local compute needs one dtype");
  }
  {
    auto sim = make_sim();
    EXPECT_EQ(first_error(*sim, tta(static_cast<AluOp>(0x05), Dtype::kFp32, p(0), p(0), p(0))),
              "ext_tensor_tensor_arith: op subtract is not supported (add, mult, max, min)");
  }
  {
    auto sim = make_sim();
    EXPECT_EQ(first_error(*sim, tta(AluOp::kAdd, Dtype::kInt64, p(0), p(0), p(0))),
              "ext_tensor_tensor_arith: dtype int64 is not supported (fp32, bfloat16, fp16, "
              "int32, uint32, int16, uint16, int8, uint8)");
  }
  {
    auto sim = make_sim();
    EXPECT_EQ(first_error(*sim, tta(AluOp::kAdd, Dtype::kFp32, p(0), pattern(0, 1, 8), p(0))),
              "ext_tensor_tensor_arith: src1_mem_pattern has 8 elements, dst_mem_pattern 16; "
              "they must be equal");
  }
  {
    // More destination elements than a partition holds (here all at one address, step 0):
    // refused before any work, one under the bound runs. [CHOICE D28e]
    const auto flat = [](std::uint16_t n0, std::uint16_t n1) { return pattern(0, 0, n0, 0, n1); };
    auto sim = make_sim();
    EXPECT_EQ(first_error(*sim, tta(AluOp::kAdd, Dtype::kFp32, flat(65535, 65535),
                                    flat(65535, 65535), flat(65535, 65535))),
              "ext_tensor_tensor_arith: dst_mem_pattern has 4294836225 elements; a partition's "
              "229376 active bytes hold at most 57344 fp32 elements, so some would be written "
              "twice");
    auto sim2 = make_sim();
    EXPECT_EQ(first_error(*sim2, tta(AluOp::kAdd, Dtype::kFp32, flat(57345, 1), flat(57345, 1),
                                     flat(57345, 1))),
              "ext_tensor_tensor_arith: dst_mem_pattern has 57345 elements; a partition's "
              "229376 active bytes hold at most 57344 fp32 elements, so some would be written "
              "twice");
    auto sim3 = make_sim();
    auto at_bound = tta(AluOp::kAdd, Dtype::kFp32, flat(57344, 1), flat(57344, 1), flat(57344, 1));
    at_bound.completion_info.num_active_ports = 1;  // 16 partitions: the strided run is short
    EXPECT_EQ(first_error(*sim3, at_bound), "");
  }
  {
    auto sim = make_sim();
    EXPECT_EQ(first_error(*sim, tta(AluOp::kAdd, Dtype::kFp32, p(0x40000), p(0), p(0))),
              "ext_tensor_tensor_arith: src0_mem_pattern.start_addr 0x40000 starts at partition "
              "1; local compute starts at partition 0 (num_active_ports selects how many)");
  }
}

TEST(Tta, TimeModelAndItsPlaceInTheRun) {
  const soc::Profile& p = soc::cayman_profile();
  firmware::ComputeTiming timing;  // 1.2 GHz, 64-byte vectors, 2 cycles each, 50 ns
  // 4096 contiguous bytes: 64 vectors x 2 cycles x 16 partitions = 2048 cycles = 1706.667 ns.
  auto dense =
      firmware::plan_tensor_tensor_arith(tta(AluOp::kAdd, Dtype::kFp32, pattern(0, 1, 1024),
                                             pattern(0x1000, 1, 1024), pattern(0x2000, 1, 1024)),
                                         p);
  ASSERT_TRUE(dense.ok());
  EXPECT_EQ(firmware::tensor_tensor_arith_time(*dense, timing).ps, 50000U + 1706667U);
  // Strided: one element per vector op: 1024 x 2 x 16 cycles.
  auto strided =
      firmware::plan_tensor_tensor_arith(tta(AluOp::kAdd, Dtype::kFp32, pattern(0, 2, 1024),
                                             pattern(0x2000, 1, 1024), pattern(0x4000, 1, 1024)),
                                         p);
  ASSERT_TRUE(strided.ok());
  EXPECT_EQ(firmware::tensor_tensor_arith_time(*strided, timing).ps, 50000U + 27306667U);

  // In a run: the _COMPLETE update's posted write lands mmio_write_latency after the op, and
  // so does the _READ one: "_READ fires after the instruction's reads finish" [HIGH] wiki-facts
  // §1.4, and local compute's reads take effect when its time has passed (D28d). Fired before
  // the op, it would land long before the op ends.
  for (const isa::UpdateMode mode : {isa::UpdateMode::kIncComplete, isa::UpdateMode::kIncRead}) {
    auto sim = make_sim();
    auto t = tta(AluOp::kAdd, Dtype::kFp32, pattern(0, 1, 1024), pattern(0x1000, 1, 1024),
                 pattern(0x2000, 1, 1024));
    t.events.update_mode = mode;
    t.events.update_idx = 9;
    const RunReport r = run_core0(*sim, {isa::encode(t)});
    EXPECT_EQ(r.changed(0, 9), 1U);
    EXPECT_EQ(r.end_time.ps, 50000U + 1706667U + sim->topology().params().mmio_write_latency.ps);
  }
}

TEST(Tta, GpSimdClockComesFromTheProfilesTimingTable) {
  // hw-params engine clocks: GpSimd 1.2 GHz on trn2, 1.4 on trn1 (device gpsimd_clock).
  EXPECT_EQ(default_firmware_config(device::builtin_topology("trn2").value()).compute.clock_mhz,
            1200U);
  EXPECT_EQ(default_firmware_config(device::builtin_topology("trn1").value()).compute.clock_mhz,
            1400U);
  // A topology's override reaches local compute: 2048 cycles at 600 MHz = 3413.333 ns.
  auto spec = device::builtin_topology_spec("trn2").value();
  spec.params.push_back({"gpsimd_clock", 600});
  auto sim = Simulation::create(device::build_topology(spec).value());
  ASSERT_TRUE(sim.ok());
  EXPECT_EQ((*sim)->firmware_config().compute.clock_mhz, 600U);
  auto t = tta(AluOp::kAdd, Dtype::kFp32, pattern(0, 1, 1024), pattern(0x1000, 1, 1024),
               pattern(0x2000, 1, 1024));
  const RunReport r = run_core0(**sim, {isa::encode(t)});
  EXPECT_EQ(r.end_time.ps, 50000U + 3413334U);
}

TEST(Tta, TimingOnlyTouchesNoData) {
  SimOptions opt;
  opt.timing_only = true;
  auto sim = make_sim(opt);
  ASSERT_TRUE(sim->fill({0, 0, 64}, {FillPattern::Kind::kConst, 5}).ok());
  const RunReport r =
      run_core0(*sim, {isa::encode(tta(AluOp::kAdd, Dtype::kUint8, pattern(0, 1, 64),
                                       pattern(0, 1, 64), pattern(0x100, 1, 64)))});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(sim->read({0, 0x100, 64}).value(), std::vector<std::uint8_t>(64U * 128, 0));
}

/// An environment with plain in-memory partitions: local SBUF access only, with or without
/// in-place views.
class MemoryEnv final : public firmware::Q7Env {
 public:
  explicit MemoryEnv(bool views) : views_(views), parts_(128, std::vector<std::uint8_t>(4096)) {}
  soc::MmioBus& bus() override { return bus_; }
  base::Suspend delay(firmware::Q7Work, base::Tick) override { return never(); }
  base::Suspend wait_semaphore(unsigned, firmware::SemCompare, std::uint32_t) override {
    return never();
  }
  base::Suspend write_fence(unsigned) override { return never(); }
  void right_push(unsigned, std::uint32_t) override {}
  base::Task<std::uint32_t> left_pop(unsigned) override { co_return 0; }
  [[nodiscard]] bool debug_enabled() const override { return false; }
  void debug_log(std::string_view) override {}
  base::Status sbuf_read(unsigned p, std::uint64_t off, std::span<std::uint8_t> out) override {
    std::copy_n(parts_.at(p).begin() + static_cast<std::ptrdiff_t>(off), out.size(), out.begin());
    ++copies;
    return base::ok_status();
  }
  base::Status sbuf_write(unsigned p, std::uint64_t off,
                          std::span<const std::uint8_t> in) override {
    std::copy(in.begin(), in.end(), parts_.at(p).begin() + static_cast<std::ptrdiff_t>(off));
    ++copies;
    return base::ok_status();
  }
  std::span<std::uint8_t> sbuf_partition(unsigned p, std::uint64_t bytes) override {
    return views_ ? std::span<std::uint8_t>(parts_.at(p)).first(bytes) : std::span<std::uint8_t>();
  }
  std::vector<std::vector<std::uint8_t>>& parts() { return parts_; }
  int copies = 0;

 private:
  struct NullBus final : soc::MmioBus {
    void write32(base::SocAddr, std::uint32_t) override {}
    std::uint32_t read32(base::SocAddr) override { return 0; }
    void write_block(base::SocAddr, std::span<const std::uint8_t>) override {}
  };
  static base::Suspend never() {
    return base::Suspend([](std::coroutine_handle<>) { return false; });
  }
  bool views_;
  std::vector<std::vector<std::uint8_t>> parts_;
  NullBus bus_;
};

/// One op run both ways over 128 partitions of random bytes: with in-place views (`with`) and
/// through reads and writes (`without`), from the same bytes (`before`).
struct BothPaths {
  MemoryEnv with{true};
  MemoryEnv without{false};
  std::vector<std::vector<std::uint8_t>> before;

  /// Runs `t` over partitions of `partition_bytes` bytes filled from `seed`; checks the view
  /// path copied nothing and both left the same bytes.
  void run(const isa::ExtTensorTensorArith& t, std::uint64_t partition_bytes, std::uint64_t seed) {
    soc::Profile p = soc::cayman_profile();
    p.partition_active = base::Bytes{partition_bytes};
    const auto plan = firmware::plan_tensor_tensor_arith(t, p);
    ASSERT_TRUE(plan.ok());
    for (unsigned i = 0; i < 128; ++i) {
      with.parts()[i].resize(partition_bytes);
      fill_pattern_bytes({FillPattern::Kind::kRandom, seed}, i, with.parts()[i]);
      without.parts()[i] = with.parts()[i];
    }
    before = with.parts();
    ASSERT_TRUE(firmware::apply_tensor_tensor_arith(with, *plan).ok());
    ASSERT_TRUE(firmware::apply_tensor_tensor_arith(without, *plan).ok());
    EXPECT_EQ(with.copies, 0) << "the view path copies nothing";
    EXPECT_GT(without.copies, 0);
    EXPECT_EQ(with.parts(), without.parts());
  }
};

TEST(Tta, InPlaceViewsAndCopiesGiveTheSameBytes) {
  BothPaths b;
  b.run(tta(AluOp::kMult, Dtype::kBfloat16, pattern(0, 1, 512), pattern(1024, 1, 512),
            pattern(0, 1, 512)),
        4096, 4);
  for (std::size_t i = 0; i < 512; ++i) {
    ASSERT_TRUE(firmware::testing_ref::ref_matches(ArithOp::kMult, Dtype::kBfloat16,
                                                   b.before[9].data(), b.before[9].data() + 1024,
                                                   b.with.parts()[9].data(), i));
  }
}

TEST(Tta, AnOpLargeEnoughToSplitAcrossCoresGivesTheSameBytes) {
  // 128 partitions x 4 KiB of fp32 per operand (512 KiB): over split_work's threshold, so with
  // views and two cores the partitions run on both threads; without views, one by one.
  BothPaths b;
  b.run(tta(AluOp::kAdd, Dtype::kFp32, pattern(0, 1, 1024), pattern(4096, 1, 1024),
            pattern(8192, 1, 1024)),
        3 * 4096, 5);
  for (unsigned part : {0U, 1U, 126U, 127U}) {  // both threads' partitions, the ends included
    for (std::size_t i = 0; i < 1024; ++i) {
      ASSERT_TRUE(firmware::testing_ref::ref_matches(
          ArithOp::kAdd, Dtype::kFp32, b.before[part].data(), b.before[part].data() + 4096,
          b.with.parts()[part].data() + 8192, i))
          << "partition " << part << " element " << i;
    }
  }
}

}  // namespace
}  // namespace sbrdma::platform
