#pragma once
/// TopologySpec: the plain description a Topology is built from. The built-in topologies are
/// specs, and a JSON topology file (platform/topology_json.h, docs/topology-json.md) is read
/// into one, field for field; the builder's error messages therefore name fields by the JSON
/// path of the file format (`/links/3/to: ...`).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sbrdma::device {

/// How the chips are wired, when not by an explicit link list.
enum class ChipShape : std::uint8_t {
  kLinks,  ///< the explicit `links` list (also: one chip, no links)
  kTorus,  ///< k-ary n-cube with wraparound, `dims` sizes, x first
  kMesh,   ///< grid without wraparound (a line of chips is a 1-D mesh)
};

/// One end of a chip-to-chip link: the chip and the die its port sits on.
struct LinkEndSpec {
  unsigned chip = 0;
  unsigned die = 0;
};

/// An explicit chip-to-chip link. Unset bandwidth/latency come from the profile.
struct C2cLinkSpec {
  LinkEndSpec from;
  LinkEndSpec to;
  bool z = false;                        ///< a Z link: default bandwidth c2c_z_bandwidth
  std::optional<double> bandwidth_gbps;  ///< GB/s = B/ns, per direction
  std::optional<double> latency_ns;
};

/// Overrides bandwidth and/or latency of the link between two chips (any shape).
struct LinkOverrideSpec {
  unsigned chip_a = 0;
  unsigned chip_b = 0;
  std::optional<double> bandwidth_gbps;
  std::optional<double> latency_ns;
};

/// Overrides one timing parameter by its table name, value in the table's unit.
struct ParamOverrideSpec {
  std::string name;
  double value = 0;
};

/// A topology description. Zero `dies_per_chip` / `cores_per_die` mean the profile's default.
struct TopologySpec {
  std::string name;
  std::string profile = "cayman";
  unsigned chips = 1;
  unsigned dies_per_chip = 0;
  unsigned cores_per_die = 0;
  ChipShape shape = ChipShape::kLinks;
  std::vector<unsigned> dims;      ///< kTorus / kMesh: sizes, x first; product = chips
  std::vector<unsigned> z_dims;    ///< kTorus / kMesh: indices of dims whose links are Z links
  std::vector<C2cLinkSpec> links;  ///< kLinks only
  std::vector<LinkOverrideSpec> link_overrides;
  std::vector<ParamOverrideSpec> params;
};

}  // namespace sbrdma::device
