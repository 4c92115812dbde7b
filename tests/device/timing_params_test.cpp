#include "device/timing_params.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace sbrdma::device {
namespace {

using base::Bytes;
using base::Tick;

// The source keys of ../shared/spec/hw-params.md that a row may cite.
const char* const kSourceKeys[] = {"NKI-v2",   "NKI-v3", "NKI-v4", "CHIP", "INST",     "NCDOC",
                                   "DMA-OV",   "DMA-BW", "DGE",    "LNC",  "CC-ABOUT", "CC-INTRA",
                                   "CC-INTER", "DRV2",   "DRV3",   "SA-T2"};

bool cites_a_source(std::string_view s) {
  if (s.find("[CHOICE D") != std::string_view::npos) return true;
  for (const char* k : kSourceKeys) {
    if (s.find(k) != std::string_view::npos) return true;
  }
  return false;
}

TEST(TimingParams, EveryProfileHasACompleteTable) {
  ASSERT_EQ(timing_profile_names().size(), 3u);
  std::size_t rows_in_first = 0;
  for (std::string_view profile : timing_profile_names()) {
    SCOPED_TRACE(std::string(profile));
    auto table = timing_param_table(profile);
    ASSERT_TRUE(table.ok());
    if (rows_in_first == 0) rows_in_first = table->size();
    EXPECT_EQ(table->size(), rows_in_first);
    EXPECT_GE(table->size(), 15u);
    std::set<std::string_view> names;
    for (const ParamRow& r : *table) {
      SCOPED_TRACE(std::string(r.name));
      EXPECT_TRUE(names.insert(r.name).second) << "duplicate name";
      EXPECT_FALSE(unit_name(r.unit).empty());
      EXPECT_GT(r.value, 0.0);
      EXPECT_TRUE(std::isfinite(r.value));
      EXPECT_TRUE(cites_a_source(r.source)) << r.source;
      EXPECT_FALSE(r.meaning.empty());
      EXPECT_EQ(r.meaning.find('\n'), std::string_view::npos) << "meaning is one line";
    }
  }
}

double table_value(std::string_view profile, std::string_view name) {
  auto table = timing_param_table(profile);
  SBRDMA_CHECK(table.ok());
  for (const ParamRow& r : *table) {
    if (r.name == name) return r.value;
  }
  ADD_FAILURE() << "no parameter " << name;
  return -1;
}

TEST(TimingParams, PublishedNumbersAppearExactly) {
  // hw-params 1b / 5: per-engine achievable rate 17 / 23 / 33 B/ns; ~1300 ns per transfer.
  EXPECT_EQ(table_value("sunda", "dma_engine_rate"), 17.0);
  EXPECT_EQ(table_value("cayman", "dma_engine_rate"), 23.0);
  EXPECT_EQ(table_value("mariana", "dma_engine_rate"), 33.0);
  for (std::string_view p : timing_profile_names()) {
    EXPECT_EQ(table_value(p, "dma_fixed_cost"), 1300.0) << p;
  }
  // hw-params 1c / 5: 256 GB/s per torus link and 128 per Z link (trn2), 96 per link (trn1).
  EXPECT_EQ(table_value("cayman", "c2c_bandwidth"), 256.0);
  EXPECT_EQ(table_value("cayman", "c2c_z_bandwidth"), 128.0);
  EXPECT_EQ(table_value("sunda", "c2c_bandwidth"), 96.0);
  // hw-params 1c: CHIP trn3 2.56 TB/s per device / 4 NeuronLink-v4 = 640 GB/s per link (D16h).
  EXPECT_EQ(table_value("mariana", "c2c_bandwidth"), 640.0);
  // 16 engines x rate: 272 / 368 / 528 GB/s per NC (hw-params 1b).
  EXPECT_EQ(table_value("sunda", "sbuf_port_bandwidth"), 272.0);
  EXPECT_EQ(table_value("cayman", "sbuf_port_bandwidth"), 368.0);
  EXPECT_EQ(table_value("mariana", "sbuf_port_bandwidth"), 528.0);
  // hw-params engine clocks (NKI-v2/v3/v4): GpSimd 1.4 GHz trn1, 1.2 trn2, 1.2 trn3.
  EXPECT_EQ(table_value("sunda", "gpsimd_clock"), 1400.0);
  EXPECT_EQ(table_value("cayman", "gpsimd_clock"), 1200.0);
  EXPECT_EQ(table_value("mariana", "gpsimd_clock"), 1200.0);
}

// Cycle counts turned into ns at the profile's GpSimd clock (hw-params 1a engine clocks), to the
// nearest ns. [CHOICE D16b, D16d]
TEST(TimingParams, CycleCountsAtTheGpSimdClock) {
  // hw-params 1a (NKI-v2): ~60-cycle fixed SBUF access overhead. 60 / 1.4 GHz = 42.86 ns -> 43;
  // 60 / 1.2 GHz = 50 ns.
  EXPECT_EQ(table_value("sunda", "sbuf_port_latency"), 43.0);
  EXPECT_EQ(table_value("cayman", "sbuf_port_latency"), 50.0);
  EXPECT_EQ(table_value("mariana", "sbuf_port_latency"), 50.0);
  // D16b: 30 GpSimd cycles per descriptor rdma_desc_gen builds. 30 / 1.4 GHz = 21.43 ns -> 21;
  // 30 / 1.2 GHz = 25 ns.
  EXPECT_EQ(table_value("sunda", "q7_desc_gen_cost"), 21.0);
  EXPECT_EQ(table_value("cayman", "q7_desc_gen_cost"), 25.0);
  EXPECT_EQ(table_value("mariana", "q7_desc_gen_cost"), 25.0);
  // What the model runs with: the typed view, in ps.
  const TimingParams sunda = timing_params("sunda").value();
  EXPECT_EQ(sunda.sbuf_port_latency, base::nanoseconds(43));
  EXPECT_EQ(sunda.q7_desc_gen_cost, base::nanoseconds(21));
}

TEST(TimingParams, TypedViewMatchesTheTable) {
  auto cayman = timing_params("cayman");
  ASSERT_TRUE(cayman.ok());
  EXPECT_EQ(cayman->profile, "cayman");
  EXPECT_EQ(cayman->dma_engine_rate, bytes_per_ns(23));
  EXPECT_EQ(cayman->dma_fixed_cost, base::nanoseconds(1300));
  EXPECT_EQ(cayman->c2c_bandwidth, bytes_per_ns(256));
  EXPECT_EQ(cayman->c2c_z_bandwidth, bytes_per_ns(128));
  EXPECT_EQ(cayman->c2c_latency, base::nanoseconds(200));
  auto sunda = timing_params("sunda");
  ASSERT_TRUE(sunda.ok());
  EXPECT_EQ(sunda->dma_engine_rate, bytes_per_ns(17));
  EXPECT_EQ(sunda->c2c_bandwidth, bytes_per_ns(96));
  auto mariana = timing_params("mariana");
  ASSERT_TRUE(mariana.ok());
  EXPECT_EQ(mariana->dma_engine_rate, bytes_per_ns(33));
  EXPECT_EQ(mariana->sbuf_port_bandwidth, bytes_per_ns(528));
  EXPECT_EQ(cayman->gpsimd_clock_mhz, 1200U);
  EXPECT_EQ(sunda->gpsimd_clock_mhz, 1400U);
  EXPECT_EQ(mariana->gpsimd_clock_mhz, 1200U);
  for (std::string_view p : timing_profile_names()) {
    const std::vector<ParamRow> table = timing_param_table(p).value();
    for (const ParamRow& r : table) {
      if (r.name == "gpsimd_clock") {
        EXPECT_EQ(unit_name(r.unit), "MHz");
      }
    }
  }
}

TEST(TimingParams, UnknownProfileNamesTheKnownOnes) {
  auto p = timing_params("maverick");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "unknown profile 'maverick' (known: cayman, sunda, mariana)");
  auto t = timing_param_table("");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, "unknown profile '' (known: cayman, sunda, mariana)");
  EXPECT_EQ(timing_params(std::string(1 << 20, 'p')).error().message,
            "unknown profile '" + std::string(37, 'p') + "...' (known: cayman, sunda, mariana)");
}

TEST(TimingParams, SetByName) {
  TimingParams p = timing_params("cayman").value();
  ASSERT_TRUE(set_timing_param(p, "c2c_latency", 250.5).ok());
  EXPECT_EQ(p.c2c_latency, base::picoseconds(250500));
  ASSERT_TRUE(set_timing_param(p, "c2c_bandwidth", 12.5).ok());
  EXPECT_EQ(p.c2c_bandwidth, Bandwidth{12500});
  ASSERT_TRUE(set_timing_param(p, "onchip_hop_latency", 0).ok());
  EXPECT_EQ(p.onchip_hop_latency, Tick{0});

  base::Status bad = set_timing_param(p, "c2c_speed", 1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "unknown parameter 'c2c_speed' (see `sbrdma info params`)");
  // Read back as kept, by name; an unknown name is the same error.
  EXPECT_EQ(*timing_param_value(p, "c2c_latency"), 250.5);
  EXPECT_EQ(*timing_param_value(p, "c2c_bandwidth"), 12.5);
  EXPECT_EQ(*timing_param_value(p, "gpsimd_clock"), static_cast<double>(p.gpsimd_clock_mhz));
  EXPECT_EQ(timing_param_value(p, "c2c_speed").error().message,
            "unknown parameter 'c2c_speed' (see `sbrdma info params`)");
  EXPECT_TRUE(check_timing_param_name("onchip_hop_latency").ok());
  EXPECT_FALSE(check_timing_param_name("onchip_hop").ok());
  // A near miss names the parameter it likely meant.
  EXPECT_EQ(set_timing_param(p, "c2c_latncy", 1).error().message,
            "unknown parameter 'c2c_latncy' (did you mean 'c2c_latency'? see `sbrdma info "
            "params`)");
  // A name echoed from a file stays one line of printable text.
  EXPECT_EQ(set_timing_param(p, "c2c\n\xc3\xa9", 1).error().message,
            "unknown parameter 'c2c\\x0a\\xc3\\xa9' (see `sbrdma info params`)");
  EXPECT_FALSE(set_timing_param(p, "c2c_bandwidth", 0).ok());
  EXPECT_FALSE(set_timing_param(p, "c2c_bandwidth", 0.0001).ok());
  // The range is checked before the value is kept to 0.001: 0.0006 is below it, not 0.001.
  EXPECT_FALSE(set_timing_param(p, "c2c_bandwidth", 0.0006).ok());
  EXPECT_FALSE(set_timing_param(p, "c2c_bandwidth", 0.000999).ok());
  TimingParams least = p;
  ASSERT_TRUE(set_timing_param(least, "c2c_bandwidth", 0.001).ok());
  EXPECT_EQ(least.c2c_bandwidth.bytes_per_us, 1U);
  EXPECT_FALSE(set_timing_param(p, "c2c_latency", -1).ok());
  EXPECT_FALSE(set_timing_param(p, "c2c_latency", std::nan("")).ok());
  EXPECT_FALSE(set_timing_param(p, "c2c_latency", 2e9).ok());
  EXPECT_EQ(p.c2c_bandwidth, Bandwidth{12500}) << "a refused value changes nothing";

  ASSERT_TRUE(set_timing_param(p, "gpsimd_clock", 1000).ok());
  EXPECT_EQ(p.gpsimd_clock_mhz, 1000U);
  EXPECT_FALSE(set_timing_param(p, "gpsimd_clock", 0).ok());
  EXPECT_FALSE(set_timing_param(p, "gpsimd_clock", 1200.5).ok());
  EXPECT_FALSE(set_timing_param(p, "gpsimd_clock", 2e6).ok());
  EXPECT_EQ(p.gpsimd_clock_mhz, 1000U) << "a refused value changes nothing";
}

// The ranges the messages give are inclusive at both ends: ">= 0 and <= 1e9 ns", ">= 0.001
// and <= 1e9 B/ns", "a whole number of MHz, 1 to 1e6".
TEST(TimingParams, RangeEndsAreAccepted) {
  TimingParams p = timing_params("cayman").value();
  ASSERT_TRUE(set_timing_param(p, "c2c_latency", 1e9).ok());
  EXPECT_EQ(p.c2c_latency, base::nanoseconds(1'000'000'000));
  ASSERT_TRUE(set_timing_param(p, "c2c_bandwidth", 1e9).ok());
  EXPECT_EQ(*timing_param_value(p, "c2c_bandwidth"), 1e9);
  ASSERT_TRUE(set_timing_param(p, "gpsimd_clock", 1).ok());
  EXPECT_EQ(p.gpsimd_clock_mhz, 1U);
  ASSERT_TRUE(set_timing_param(p, "gpsimd_clock", 1e6).ok());
  EXPECT_EQ(p.gpsimd_clock_mhz, 1'000'000U);
  EXPECT_FALSE(set_timing_param(p, "c2c_latency", 1e9 + 1).ok());
  EXPECT_FALSE(set_timing_param(p, "gpsimd_clock", 1e6 + 1).ok());
}

TEST(TimingParams, TransferTimeRoundsUpToAPicosecond) {
  EXPECT_EQ(transfer_time(Bytes{23000}, bytes_per_ns(23)), base::nanoseconds(1000));
  EXPECT_EQ(transfer_time(Bytes{0}, bytes_per_ns(23)), Tick{0});
  EXPECT_EQ(transfer_time(Bytes{1}, bytes_per_ns(23)), Tick{44});           // 43.48 ps
  EXPECT_EQ(transfer_time(Bytes{32768}, bytes_per_ns(23)), Tick{1424696});  // 1424.695.. ns
  // 1 TiB at 1 B/us: 2^40 s worth of microseconds, no overflow.
  EXPECT_EQ(transfer_time(Bytes{1ull << 40}, Bandwidth{1}), Tick{(1ull << 40) * 1000000});
}

}  // namespace
}  // namespace sbrdma::device
