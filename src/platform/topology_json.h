#pragma once
/// Topology files: a JSON description of chips, their wiring and overrides, read into a
/// device::TopologySpec and built into a device::Topology. The format is documented in
/// docs/topology-json.md. Errors are one line and name the JSON path of the offending value:
///   topo.json: error: /links/3/to: chip 17 does not exist (16 chips)
/// (malformed JSON instead carries the line: `topo.json:3: error: malformed JSON: ...`).

#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "device/topology.h"
#include "device/topology_spec.h"

namespace sbrdma::platform {

/// Parses the text of a topology file into a spec (types, required and unknown fields; the
/// consistency checks are device::build_topology's). `file` names the file in errors and its
/// stem is the default topology name. Never throws.
base::Result<device::TopologySpec> parse_topology_json(std::string_view text,
                                                       const std::string& file);

/// Reads, parses and builds the topology file at `path`.
base::Result<device::Topology> load_topology_file(const std::string& path);

/// A built-in topology by name (`trn2`, `trn2.48xlarge`, ...) or else a topology file path.
/// A name that is neither gives an error listing the built-ins. `extra` timing parameters are
/// set after the topology's own (a file's "params" included), in order: what `--param`
/// gives. [CHOICE D47]
base::Result<device::Topology> load_topology(std::string_view name_or_path,
                                             std::span<const device::ParamOverrideSpec> extra = {});

/// "NAME=VALUE", as `--param` takes it: a timing parameter of `sbrdma info params` and a
/// number in its unit (decimal, with a fraction or an exponent). Errors: no '=', a value that
/// is not a number, an unknown name (with a "did you mean"), a value out of its range. The
/// value returned is the one the model keeps (times to 1 ps, bandwidths to 0.001 B/ns).
base::Result<device::ParamOverrideSpec> parse_param_override(std::string_view text);

/// "NAME=VALUE, NAME=VALUE" for those overrides, in order, or "".
std::string param_list(std::span<const device::ParamOverrideSpec> params);

/// " with NAME=VALUE, NAME=VALUE" for those overrides, in order (a report's header), or "".
std::string with_param_overrides(std::span<const device::ParamOverrideSpec> params);

/// The file load_topology() reads for `name_or_path`: "" for a built-in name, else the path.
std::string topology_file(std::string_view name_or_path);

/// True if load_topology() would read `name` as a file rather than refuse it as an unknown
/// name: it is not a built-in name, and has a '/', ends in ".json" or exists.
bool names_topology_file(std::string_view name);

/// A topology as load_topology_and_params() reads it.
struct LoadedTopology {
  device::Topology topology;
  std::string file;  ///< the topology file read, "" for a built-in
  /// The timing parameters the file's "params" sets, by name (the JSON reader keeps an
  /// object's members so), each value as the model keeps it (as parse_param_override's); none
  /// for a built-in.
  std::vector<device::ParamOverrideSpec> file_params;
};

/// load_topology(), reading the file once, with what the file is and sets.
base::Result<LoadedTopology> load_topology_and_params(
    std::string_view name_or_path, std::span<const device::ParamOverrideSpec> extra = {});

/// The parameters of `params` that no part of `topology` takes, each with why, in order: the
/// chip-to-chip ones where no chip-to-chip link takes them, judged by each link's kind and by
/// what the file sets, not by values (one chip; every link a Z link for c2c_bandwidth, none
/// for c2c_z_bandwidth; or each such link's own bandwidth_gbps or latency_ns, in `links` or
/// `link_overrides`), the die-to-die ones on one-die chips. A note for each, so that a what-if
/// that changes nothing is not read as a result. Also a note for a dma_engine_rate whose
/// engines together outrun sbuf_port_bandwidth or onchip_bandwidth as they now are: those
/// parameters do not follow the rate, so most of the change is capped. [CHOICE D47]
std::vector<std::string> params_without_effect(const device::Topology& topology,
                                               std::span<const device::ParamOverrideSpec> params);

/// What an output adds after the name of a topology read from `file`, so that it never passes
/// for a built-in or for its unchanged self [CHOICE D47]: " (topology file F)" where `name` is
/// a built-in's, " (its file sets a=1, b=2)" where the file sets parameters, or
/// " (topology file F, which sets a=1)"; "" for a built-in (`file` empty) or a file of
/// another name setting none.
std::string topology_file_note(std::string_view name, const std::string& file,
                               std::span<const device::ParamOverrideSpec> file_params);

}  // namespace sbrdma::platform
