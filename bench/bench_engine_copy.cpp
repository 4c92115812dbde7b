// Functional engine copy throughput: a whole SBUF (128 partitions x 224 KiB on cayman = 28 MiB)
// copied from core 0 to core 1 by 16 engines (8 partitions each, <= 64 KiB descriptors),
// driven through the MMIO bus like a driver, in simulated bytes per wall-second; next to plain
// memcpy of the same descriptor-sized pieces between two 28 MiB buffers, measured in the same
// run. BM_EngineCopyVsMemcpy times both inside each iteration and reports their ratio, with
// the SBUFs sparse (/0) and dense (/1: MachineOptions::dense_sbuf as a large collective's SBUFs
// have it, D33, without the prefault); both are backed 4 KiB at a time where written.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "device/machine.h"
#include "device/udma_driver.h"
#include "sim/kernel.h"

namespace {

using sbrdma::base::SocAddr;
using sbrdma::device::Machine;
using sbrdma::device::MachineOptions;
using sbrdma::device::RingWriter;
using sbrdma::soc::Direction;

constexpr unsigned kSrc = 0;
constexpr unsigned kDst = 1;
constexpr unsigned kEngines = 16;
constexpr std::uint32_t kRingDepth = 1024;
constexpr std::uint32_t kMaxDesc = 65536;

/// A trn2 machine with core 0's SBUF full of data and 16 engines opened on queue 0; `dense`:
/// SBUFs backed as a large collective's are (MachineOptions::dense_sbuf).
class CopyRig {
 public:
  explicit CopyRig(bool timing_only, bool dense = false) {
    auto topo = sbrdma::device::builtin_topology("trn2");
    m_ = std::move(Machine::create(
                       kernel_, std::move(topo).value(),
                       MachineOptions{
                           .timing_only = timing_only, .ring_id_abort = true, .dense_sbuf = dense}))
             .value();
    const auto& p = m_->profile();
    partitions_ = p.sbuf_partitions;
    active_ = p.partition_active.n;
    std::vector<std::uint8_t> part(active_);
    for (unsigned q = 0; q < partitions_; ++q) {
      for (std::uint64_t i = 0; i < active_; ++i) part[i] = static_cast<std::uint8_t>(i * 31 + q);
      (void)m_->sbuf_write(kSrc, q, 0, part);
    }
    const auto& map = m_->address_map();
    const SocAddr dge = map.dge_memory_base(kSrc).value();
    for (unsigned e = 0; e < kEngines; ++e) {
      const SocAddr m2s = dge + std::uint64_t{2 * e} * kRingDepth * 16;
      const SocAddr s2m = dge + std::uint64_t{2 * e + 1} * kRingDepth * 16;
      (void)sbrdma::device::start_engine(bus(), map, kSrc, e);
      (void)sbrdma::device::init_queue(bus(), map, kSrc, e, Direction::kM2S, 0, m2s, kRingDepth);
      (void)sbrdma::device::init_queue(bus(), map, kSrc, e, Direction::kS2M, 0, s2m, kRingDepth);
      m2s_.emplace_back(m2s, kRingDepth);
      s2m_.emplace_back(s2m, kRingDepth);
    }
    kernel_.run();
  }

  /// One whole-SBUF copy: descriptors by write_block, RX then TX doorbells, run to the end.
  /// Returns the simulated time it took.
  sbrdma::base::Tick copy_once() {
    const sbrdma::base::Tick start = kernel_.now();
    const auto& map = m_->address_map();
    const unsigned per_engine = partitions_ / kEngines;
    for (unsigned e = 0; e < kEngines; ++e) {
      std::uint32_t n = 0;
      for (unsigned q = e * per_engine; q < (e + 1) * per_engine; ++q) {
        for (std::uint64_t off = 0; off < active_; off += kMaxDesc) {
          const auto len =
              static_cast<std::uint32_t>(std::min<std::uint64_t>(kMaxDesc, active_ - off));
          m2s_[e].push(
              bus(), sbrdma::soc::make_copy_descriptor(map.sbuf_addr(kSrc, q, off).value(), len, 0)
                         .value());
          s2m_[e].push(
              bus(), sbrdma::soc::make_copy_descriptor(map.sbuf_addr(kDst, q, off).value(), len, 0)
                         .value());
          ++n;
        }
      }
      (void)sbrdma::device::ring_doorbell(bus(), map, kSrc, e, Direction::kS2M, 0, n);
      (void)sbrdma::device::ring_doorbell(bus(), map, kSrc, e, Direction::kM2S, 0, n);
    }
    kernel_.run();
    return kernel_.now() - start;
  }

  /// True if core 1's SBUF equals core 0's and no error was flagged.
  bool verify() const {
    if (!m_->errors().empty()) return false;
    std::vector<std::uint8_t> a(active_);
    std::vector<std::uint8_t> b(active_);
    for (unsigned q = 0; q < partitions_; ++q) {
      if (!m_->sbuf_read(kSrc, q, 0, a).ok() || !m_->sbuf_read(kDst, q, 0, b).ok() || a != b) {
        return false;
      }
    }
    return true;
  }

  [[nodiscard]] std::uint64_t bytes() const { return std::uint64_t{partitions_} * active_; }
  [[nodiscard]] std::uint64_t active() const { return active_; }

 private:
  sbrdma::soc::MmioBus& bus() { return m_->bus(kSrc); }

  sbrdma::sim::Kernel kernel_;
  std::unique_ptr<Machine> m_;
  unsigned partitions_ = 0;
  std::uint64_t active_ = 0;
  std::vector<RingWriter> m2s_;
  std::vector<RingWriter> s2m_;
};

/// memcpy of the same descriptor-sized pieces between two buffers of the same total size.
struct MemcpyRig {
  explicit MemcpyRig(std::uint64_t partitions, std::uint64_t active)
      : active_(active), src(partitions * active, 1), dst(partitions * active, 0) {
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 31);
  }
  void copy_once() {
    for (std::uint64_t base = 0; base < src.size(); base += active_) {
      for (std::uint64_t off = 0; off < active_; off += kMaxDesc) {
        const std::uint64_t len = std::min<std::uint64_t>(kMaxDesc, active_ - off);
        std::memcpy(dst.data() + base + off, src.data() + base + off, len);
      }
    }
    benchmark::ClobberMemory();
  }
  std::uint64_t active_;
  std::vector<std::uint8_t> src;
  std::vector<std::uint8_t> dst;
};

void BM_EngineCopy(benchmark::State& state) {
  const bool timing_only = state.range(0) != 0;
  CopyRig rig(timing_only);
  rig.copy_once();  // warm: allocates core 1's pages, checks the data
  if (!timing_only && !rig.verify()) state.SkipWithError("copied data differs");
  for (auto _ : state) rig.copy_once();
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * rig.bytes()));
  state.SetLabel(timing_only ? "timing_only" : "functional");
}
BENCHMARK(BM_EngineCopy)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_Memcpy(benchmark::State& state) {
  MemcpyRig rig(128, 224 * 1024);
  rig.copy_once();
  for (auto _ : state) rig.copy_once();
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * rig.src.size()));
}
BENCHMARK(BM_Memcpy)->Unit(benchmark::kMillisecond);

void BM_EngineCopyVsMemcpy(benchmark::State& state) {
  const bool dense = state.range(0) != 0;
  CopyRig sim(false, dense);
  sim.copy_once();
  if (!sim.verify()) state.SkipWithError("copied data differs");
  MemcpyRig plain(128, sim.active());
  plain.copy_once();
  using Clock = std::chrono::steady_clock;
  std::chrono::duration<double> t_sim{0};
  std::chrono::duration<double> t_memcpy{0};
  sbrdma::base::Tick simulated;
  for (auto _ : state) {
    const auto a = Clock::now();
    simulated = sim.copy_once();
    const auto b = Clock::now();
    plain.copy_once();
    const auto c = Clock::now();
    t_sim += b - a;
    t_memcpy += c - b;
  }
  const double n = static_cast<double>(state.iterations());
  const double sim_bps = n * static_cast<double>(sim.bytes()) / t_sim.count();
  const double memcpy_bps = n * static_cast<double>(plain.src.size()) / t_memcpy.count();
  state.counters["sim_GBps"] = sim_bps / 1e9;
  state.counters["memcpy_GBps"] = memcpy_bps / 1e9;
  state.counters["sim_over_memcpy"] = sim_bps / memcpy_bps;
  state.counters["sim_us_per_copy"] = 1e6 * t_sim.count() / n;
  state.counters["simulated_us_per_copy"] = simulated.us();
  state.SetLabel(dense ? "dense SBUF" : "sparse SBUF");
}
BENCHMARK(BM_EngineCopyVsMemcpy)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
