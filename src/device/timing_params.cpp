#include "device/timing_params.h"

#include <array>
#include <cmath>
#include <cstdint>

#include "base/nearest_name.h"
#include "base/printable.h"
#include "soc/profile.h"

namespace sbrdma::device {
namespace {

using base::Tick;

/// The parameter schema: name, unit, meaning and where the typed struct keeps the value.
/// Exactly one of `tick` / `rate` / `mhz` is set, matching `unit`.
struct ParamField {
  std::string_view name;
  ParamUnit unit;
  std::string_view meaning;
  Tick TimingParams::*tick = nullptr;
  Bandwidth TimingParams::*rate = nullptr;
  std::uint32_t TimingParams::*mhz = nullptr;
};

constexpr ParamUnit kNs = ParamUnit::kNs;
constexpr ParamUnit kBpn = ParamUnit::kBytesPerNs;
constexpr ParamUnit kMhz = ParamUnit::kMhz;
using P = TimingParams;

constexpr std::array<ParamField, 16> kFields = {{
    {"dma_engine_rate", kBpn, "streaming rate of one DMA engine", nullptr, &P::dma_engine_rate},
    {"dma_fixed_cost", kNs, "fixed cost per DMA transfer (descriptor setup, sync, sem-to-start)",
     &P::dma_fixed_cost},
    {"dma_desc_cost", kNs, "engine time to fetch and process one descriptor", &P::dma_desc_cost},
    {"q7_desc_gen_cost", kNs,
     "Q7 firmware time to build one descriptor (rdma_desc_gen); gpsimd_clock does not scale it",
     &P::q7_desc_gen_cost},
    {"mmio_write_latency", kNs, "Q7 CSR store until the register takes it (doorbell, config)",
     &P::mmio_write_latency},
    {"semaphore_write_latency", kNs, "semaphore write reaching its window until the value changes",
     &P::semaphore_write_latency},
    {"sbuf_port_bandwidth", kBpn, "one core's SBUF port, per direction (16 engines x rate)",
     nullptr, &P::sbuf_port_bandwidth},
    {"sbuf_port_latency", kNs, "SBUF access latency at the port", &P::sbuf_port_latency},
    {"onchip_bandwidth", kBpn, "one core's attachment to the on-die fabric, per direction", nullptr,
     &P::onchip_bandwidth},
    {"onchip_hop_latency", kNs, "crossing the on-die fabric between a core and its die",
     &P::onchip_hop_latency},
    {"d2d_bandwidth", kBpn, "die-to-die link, per direction", nullptr, &P::d2d_bandwidth},
    {"d2d_latency", kNs, "die-to-die link latency", &P::d2d_latency},
    {"c2c_bandwidth", kBpn, "chip-to-chip link of the instance torus, per direction", nullptr,
     &P::c2c_bandwidth},
    {"c2c_z_bandwidth", kBpn, "chip-to-chip Z link between instances (UltraServer), per direction",
     nullptr, &P::c2c_z_bandwidth},
    {"c2c_latency", kNs, "chip-to-chip link latency", &P::c2c_latency},
    {"gpsimd_clock", kMhz, "GpSimd engine clock: local compute time on the Q7 cores", nullptr,
     nullptr, &P::gpsimd_clock_mhz},
}};

/// One profile's value and source for a parameter, in kFields order (checked at compile time).
struct ParamValue {
  std::string_view name;
  double value;
  std::string_view source;
};
using ProfileTable = std::array<ParamValue, kFields.size()>;

// cayman = NeuronCore-v3, Trainium2: the reference profile ([CHOICE D14]).
constexpr ProfileTable kCayman = {{
    {"dma_engine_rate", 23, "DMA-OV, DMA-BW (hw-params 1b, 5)"},
    {"dma_fixed_cost", 1300, "DMA-BW (hw-params 1b, 5)"},
    {"dma_desc_cost", 16, "[CHOICE D16]"},
    {"q7_desc_gen_cost", 25, "[CHOICE D16] 30 GpSimd cycles at 1.2 GHz (NKI-v3)"},
    {"mmio_write_latency", 100, "[CHOICE D16]"},
    {"semaphore_write_latency", 50, "[CHOICE D16]"},
    {"sbuf_port_bandwidth", 368, "DMA-OV 16 x 23 B/ns (hw-params 1b); [CHOICE D16]"},
    {"sbuf_port_latency", 50, "[CHOICE D16] ~60 cycles (NKI-v2) at 1.2 GHz"},
    {"onchip_bandwidth", 368, "[CHOICE D16] = sbuf_port_bandwidth"},
    {"onchip_hop_latency", 20, "[CHOICE D16]"},
    {"d2d_bandwidth", 1024, "[CHOICE D16]"},
    {"d2d_latency", 100, "[CHOICE D16]"},
    {"c2c_bandwidth", 256, "INST trn2 1024 GB/s / 4 links (hw-params 1c, 5)"},
    {"c2c_z_bandwidth", 128, "INST trn2 256 GB/s / 2 Z links (hw-params 1c, 5)"},
    {"c2c_latency", 200, "[CHOICE D16] in CC-INTRA's 1-2 us per hop"},
    {"gpsimd_clock", 1200, "NKI-v3 engine clocks: GpSimd 1.2 GHz (hw-params)"},
}};

// sunda = NeuronCore-v2, Trainium1.
constexpr ProfileTable kSunda = {{
    {"dma_engine_rate", 17, "DMA-OV, DMA-BW (hw-params 1b, 5)"},
    {"dma_fixed_cost", 1300, "DMA-BW (stated for trn2/trn3; hw-params 5 assumes trn1)"},
    {"dma_desc_cost", 16, "[CHOICE D16]"},
    {"q7_desc_gen_cost", 21, "[CHOICE D16] 30 GpSimd cycles at 1.4 GHz (NKI-v2)"},
    {"mmio_write_latency", 100, "[CHOICE D16]"},
    {"semaphore_write_latency", 50, "[CHOICE D16]"},
    {"sbuf_port_bandwidth", 272, "DMA-OV 16 x 17 B/ns (hw-params 1b); [CHOICE D16]"},
    {"sbuf_port_latency", 43, "[CHOICE D16] ~60 cycles at 1.4 GHz (NKI-v2)"},
    {"onchip_bandwidth", 272, "[CHOICE D16] = sbuf_port_bandwidth"},
    {"onchip_hop_latency", 20, "[CHOICE D16]"},
    {"d2d_bandwidth", 1024, "[CHOICE D16] unused: one die (DRV2)"},
    {"d2d_latency", 100, "[CHOICE D16] unused: one die (DRV2)"},
    {"c2c_bandwidth", 96, "INST trn1 384 GB/s / 4 links (hw-params 1c, 5)"},
    {"c2c_z_bandwidth", 96, "[CHOICE D16] no Z links on trn1: = c2c_bandwidth"},
    {"c2c_latency", 200, "[CHOICE D16] in CC-INTRA's 1-2 us per hop"},
    {"gpsimd_clock", 1400, "NKI-v2 engine clocks: GpSimd 1.4 GHz (hw-params)"},
}};

// mariana = NeuronCore-v4, Trainium3 (codename binding inferred, hw-params header).
constexpr ProfileTable kMariana = {{
    {"dma_engine_rate", 33, "DMA-OV, DMA-BW (hw-params 1b, 5)"},
    {"dma_fixed_cost", 1300, "DMA-BW (hw-params 1b, 5)"},
    {"dma_desc_cost", 16, "[CHOICE D16]"},
    {"q7_desc_gen_cost", 25, "[CHOICE D16] 30 GpSimd cycles at 1.2 GHz (NKI-v4)"},
    {"mmio_write_latency", 100, "[CHOICE D16]"},
    {"semaphore_write_latency", 50, "[CHOICE D16]"},
    {"sbuf_port_bandwidth", 528, "DMA-OV 16 x 33 B/ns (hw-params 1b); [CHOICE D16]"},
    {"sbuf_port_latency", 50, "[CHOICE D16] ~60 cycles (NKI-v2) at 1.2 GHz"},
    {"onchip_bandwidth", 528, "[CHOICE D16] = sbuf_port_bandwidth"},
    {"onchip_hop_latency", 20, "[CHOICE D16]"},
    {"d2d_bandwidth", 1024, "[CHOICE D16] dies not public"},
    {"d2d_latency", 100, "[CHOICE D16] dies not public"},
    {"c2c_bandwidth", 640, "CHIP trn3 2.56 TB/s / 4 NeuronLink-v4 (hw-params 1c)"},
    {"c2c_z_bandwidth", 640, "[CHOICE D16] no Z links on trn3: = c2c_bandwidth"},
    {"c2c_latency", 200, "[CHOICE D16] switched fabric, not public"},
    {"gpsimd_clock", 1200, "NKI-v4 engine clocks: GpSimd 1.2 GHz (hw-params)"},
}};

struct Profile {
  std::string_view name;
  const ProfileTable* table;
};
constexpr std::array<Profile, 3> kProfiles = {{
    {"cayman", &kCayman},
    {"sunda", &kSunda},
    {"mariana", &kMariana},
}};
constexpr std::array<std::string_view, 3> kProfileNames = {"cayman", "sunda", "mariana"};

constexpr bool names_follow_schema(const ProfileTable& t) {
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    if (t[i].name != kFields[i].name) return false;
  }
  return true;
}
constexpr bool schema_is_consistent() {
  for (const ParamField& f : kFields) {
    const bool is_tick = f.tick != nullptr;
    const bool is_rate = f.rate != nullptr;
    const bool is_mhz = f.mhz != nullptr;
    if (int{is_tick} + int{is_rate} + int{is_mhz} != 1) return false;
    if (is_tick != (f.unit == ParamUnit::kNs) || is_rate != (f.unit == ParamUnit::kBytesPerNs)) {
      return false;
    }
  }
  return true;
}
static_assert(schema_is_consistent(), "each field is exactly one of Tick (ns) / Bandwidth / MHz");
static_assert(names_follow_schema(kCayman) && names_follow_schema(kSunda) &&
                  names_follow_schema(kMariana),
              "every profile lists every parameter, in schema order");

constexpr double kMaxValue = 1e9;
constexpr double kMaxMhz = 1e6;

const ProfileTable* find_profile(std::string_view name) {
  for (const Profile& p : kProfiles) {
    if (p.name == name) return p.table;
  }
  return nullptr;
}

base::Error unknown_profile(std::string_view name) {
  return soc::unknown_profile(name, kProfileNames);
}

}  // namespace

std::string_view unit_name(ParamUnit unit) {
  switch (unit) {
    case ParamUnit::kNs:
      return "ns";
    case ParamUnit::kBytesPerNs:
      return "B/ns";
    case ParamUnit::kMhz:
      return "MHz";
  }
  return "?";
}

std::span<const std::string_view> timing_profile_names() {
  return kProfileNames;
}

base::Result<std::vector<ParamRow>> timing_param_table(std::string_view profile) {
  const ProfileTable* t = find_profile(profile);
  if (t == nullptr) return unknown_profile(profile);
  std::vector<ParamRow> rows;
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    rows.push_back(ParamRow{kFields[i].name, kFields[i].unit, (*t)[i].value, (*t)[i].source,
                            kFields[i].meaning});
  }
  return rows;
}

base::Result<TimingParams> timing_params(std::string_view profile) {
  const ProfileTable* t = find_profile(profile);
  if (t == nullptr) return unknown_profile(profile);
  TimingParams p;
  p.profile = std::string(profile);
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    const base::Status st = set_timing_param(p, kFields[i].name, (*t)[i].value);
    SBRDMA_CHECK_MSG(st.ok(), "a built-in parameter table holds an invalid value");
  }
  return p;
}

base::Result<Bandwidth> bandwidth_from_bytes_per_ns(double v) {
  // The bound before rounding, as the upper one is: 0.0006 is below the range, not 0.001.
  if (!std::isfinite(v) || v < 0.001 || v > kMaxValue) {
    return base::make_error("a bandwidth must be >= 0.001 and <= 1e9 B/ns (GB/s)");
  }
  return Bandwidth{static_cast<std::uint64_t>(std::llround(v * 1000.0))};
}

base::Result<Tick> tick_from_ns(double v) {
  if (!std::isfinite(v) || v < 0 || v > kMaxValue) {
    return base::make_error("a time must be >= 0 and <= 1e9 ns");
  }
  return Tick{static_cast<std::uint64_t>(std::llround(v * 1000.0))};
}

namespace {

/// The field called `name`, or the error for an unknown one (with the name it likely meant).
base::Result<const ParamField*> field_named(std::string_view name) {
  for (const ParamField& f : kFields) {
    if (f.name == name) return &f;
  }
  std::array<std::string_view, kFields.size()> names{};
  for (std::size_t i = 0; i < kFields.size(); ++i) names[i] = kFields[i].name;
  const auto near = base::nearest_name(name, names);
  return base::make_error("unknown parameter '" + base::printable_brief(name) + "' (" +
                          (near ? "did you mean '" + std::string(*near) + "'? " : "") +
                          "see `sbrdma info params`)");
}

}  // namespace

base::Status check_timing_param_name(std::string_view name) {
  auto f = field_named(name);
  if (!f) return f.error();
  return base::ok_status();
}

base::Result<double> timing_param_value(const TimingParams& params, std::string_view name) {
  auto f = field_named(name);
  if (!f) return f.error();
  if ((*f)->tick != nullptr) return static_cast<double>((params.*(*f)->tick).ps) / 1000.0;
  if ((*f)->mhz != nullptr) return static_cast<double>(params.*(*f)->mhz);
  return (params.*(*f)->rate).bytes_per_ns();
}

base::Status set_timing_param(TimingParams& params, std::string_view name, double value) {
  auto found = field_named(name);
  if (!found) return found.error();
  const ParamField& f = **found;
  if (f.tick != nullptr) {
    auto t = tick_from_ns(value);
    if (!t.ok()) return t.error();
    params.*f.tick = *t;
  } else if (f.mhz != nullptr) {
    if (!std::isfinite(value) || value < 1 || value > kMaxMhz || std::floor(value) != value) {
      return base::make_error("a clock must be a whole number of MHz, 1 to 1e6");
    }
    params.*f.mhz = static_cast<std::uint32_t>(value);
  } else {
    auto r = bandwidth_from_bytes_per_ns(value);
    if (!r.ok()) return r.error();
    params.*f.rate = *r;
  }
  return base::ok_status();
}

}  // namespace sbrdma::device
