#pragma once
/// The timing model's parameters, one table per generation profile (cayman = trn2, the
/// reference; sunda = trn1; mariana = trn3). Every parameter declares its name, unit, value,
/// source and meaning; `sbrdma info params` prints the table. Code reads the typed struct
/// `TimingParams`, which is built from the table (one description, two views).
///
/// Sources are the keys of ../shared/spec/hw-params.md (DMA-OV, DMA-BW, INST, ...) or a
/// `[CHOICE Dn]` of docs/decisions.md where the public record gives a range or nothing.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/units.h"
#include "device/params_units.h"

namespace sbrdma::device {

/// Unit of a parameter in the table. Bandwidths are in B/ns, which equals decimal GB/s; clocks
/// in whole MHz.
enum class ParamUnit : std::uint8_t { kNs, kBytesPerNs, kMhz };

/// "ns", "B/ns" or "MHz".
std::string_view unit_name(ParamUnit unit);

/// One row of a profile's table, as printed by `sbrdma info params`.
struct ParamRow {
  std::string_view name;  ///< e.g. "dma_engine_rate"
  ParamUnit unit;
  double value;              ///< in `unit`
  std::string_view source;   ///< hw-params.md key or "[CHOICE Dn]"
  std::string_view meaning;  ///< one line
};

/// Typed view of one profile's table. Links' bandwidths are per direction (full duplex,
/// [CHOICE D17]).
struct TimingParams {
  std::string profile;                 ///< "cayman", "sunda", "mariana"
  Bandwidth dma_engine_rate;           ///< streaming rate of one DMA engine
  base::Tick dma_fixed_cost;           ///< paid once per DMA transfer
  base::Tick dma_desc_cost;            ///< engine time per descriptor processed
  base::Tick q7_desc_gen_cost;         ///< firmware (rdma_desc_gen) time per descriptor built
  base::Tick mmio_write_latency;       ///< Q7 CSR store until the register takes it
  base::Tick semaphore_write_latency;  ///< semaphore write until the counter changes
  Bandwidth sbuf_port_bandwidth;       ///< one core's SBUF port (its engines' path to SBUF)
  base::Tick sbuf_port_latency;        ///< SBUF access latency
  Bandwidth onchip_bandwidth;          ///< one core's attachment to the on-die fabric
  base::Tick onchip_hop_latency;       ///< crossing the on-die fabric
  Bandwidth d2d_bandwidth;             ///< die-to-die link
  base::Tick d2d_latency;              ///< die-to-die link
  Bandwidth c2c_bandwidth;             ///< chip-to-chip link in the instance torus
  Bandwidth c2c_z_bandwidth;           ///< chip-to-chip Z link between instances (trn2u)
  base::Tick c2c_latency;              ///< chip-to-chip link
  std::uint32_t gpsimd_clock_mhz = 0;  ///< GpSimd engine clock (the Q7 cores' local compute)
};

/// The profiles that have a table, reference first: cayman, sunda, mariana.
std::span<const std::string_view> timing_profile_names();

/// The table of `profile`, in a fixed parameter order. Unknown profile: an error naming the
/// known ones.
base::Result<std::vector<ParamRow>> timing_param_table(std::string_view profile);

/// The typed parameters of `profile`. Unknown profile: an error naming the known ones.
base::Result<TimingParams> timing_params(std::string_view profile);

/// `v` B/ns (= GB/s) as a Bandwidth. Errors unless finite, > 0 and <= 1e9 (kept to 0.001 B/ns).
base::Result<Bandwidth> bandwidth_from_bytes_per_ns(double v);
/// `v` ns as a Tick. Errors unless finite, >= 0 and <= 1e9 (kept to 1 ps).
base::Result<base::Tick> tick_from_ns(double v);

/// Sets the parameter named `name` (a table name) to `value` in that parameter's unit, as a
/// topology file's "params" overrides do. Errors: unknown name, non-finite or out-of-range
/// value (bandwidth must be > 0, times >= 0, both at most 1e9; a clock a whole number of MHz in
/// 1..1e6).
base::Status set_timing_param(TimingParams& params, std::string_view name, double value);

/// OK if `name` is a parameter of the table, else set_timing_param's unknown-name error.
base::Status check_timing_param_name(std::string_view name);

/// The value of the parameter `name` in its unit, as stored: times kept to 1 ps, bandwidths
/// to 0.001 B/ns. Errors: unknown name (as set_timing_param's).
base::Result<double> timing_param_value(const TimingParams& params, std::string_view name);

}  // namespace sbrdma::device
