#include "platform/topology_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/check.h"
#include "base/nearest_name.h"
#include "base/printable.h"
#include "device/timing_params.h"
#include "platform/json_file.h"
#include "soc/profile.h"

namespace sbrdma::platform {
namespace {

using base::Error;
using base::Result;
using device::C2cLinkSpec;
using device::LinkEndSpec;
using device::TopologySpec;
using nlohmann::json;

constexpr std::uint64_t kMaxUint = 1'000'000;  // no count in a topology file gets near this
constexpr std::size_t kMaxTopologyName = 100;  // bytes [CHOICE D42]

/// Field errors carry their JSON path ("" is the root, printed "/") in the message; the
/// caller adds the file name.
Error at(const std::string& path, const std::string& message) {
  return base::make_error((path.empty() ? "/" : path) + ": " + message);
}

std::string child(const std::string& path, std::string_view key) {
  return json_child(path, key);
}
std::string child(const std::string& path, std::size_t index) {
  return path + "/" + std::to_string(index);
}

Result<unsigned> as_uint(const json& j, const std::string& path, unsigned min = 0) {
  const auto whole = json_whole_number(j);
  if (!whole && json_whole_past_64_bits(j)) return at(path, json_brief(j) + " is too large");
  if (!whole) return at(path, "expected a non-negative integer, got " + json_brief_not_whole(j));
  const std::uint64_t v = *whole;
  if (v > kMaxUint) return at(path, std::to_string(v) + " is too large");
  if (v < min) return at(path, "must be at least " + std::to_string(min));
  return static_cast<unsigned>(v);
}

Result<double> as_number(const json& j, const std::string& path) {
  if (!j.is_number()) return at(path, "expected a number, got " + json_brief(j));
  return j.get<double>();
}

Result<std::string> as_string(const json& j, const std::string& path) {
  if (!j.is_string()) return at(path, "expected a string, got " + json_brief(j));
  return j.get<std::string>();
}

Result<std::vector<unsigned>> as_uint_list(const json& j, const std::string& path) {
  if (!j.is_array()) return at(path, "expected an array of integers, got " + json_brief(j));
  std::vector<unsigned> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    auto v = as_uint(j[i], child(path, i));
    if (!v.ok()) return v.error();
    out.push_back(*v);
  }
  return out;
}

/// `j` must be an object with only `known` members.
base::Status check_object(const json& j, const std::string& path,
                          std::initializer_list<std::string_view> known) {
  if (!j.is_object()) return at(path, "expected an object, got " + json_brief(j));
  for (const auto& [key, value] : j.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      const std::vector<std::string_view> names(known.begin(), known.end());
      // The one field the name begins (`bandwidth` for `bandwidth_gbps`, `cores` for
      // `cores_per_die`), else a slip.
      std::optional<std::string_view> near;
      std::vector<std::string_view> longer;
      for (std::string_view n : names) {
        if (n.size() > key.size() + 1 && n.starts_with(key) && n[key.size()] == '_') {
          longer.push_back(n);
        }
      }
      if (longer.size() == 1) near = longer.front();
      if (!near) near = base::nearest_name(key, names);
      return at(child(path, key), near ? fmt::format("unknown field (did you mean '{}'?)", *near)
                                       : unknown_field_text(key));
    }
  }
  return base::ok_status();
}

base::Status require(const json& j, const std::string& path, std::string_view key) {
  if (!j.contains(key)) return at(path, "missing field '" + std::string(key) + "'");
  return base::ok_status();
}

/// Reads optional member `key` of object `j` into `out` with `read`.
template <typename T, typename Read>
base::Status optional(const json& j, const std::string& path, std::string_view key, T& out,
                      Read read) {
  if (!j.contains(key)) return base::ok_status();
  auto v = read(j.at(std::string(key)), child(path, key));
  if (!v.ok()) return v.error();
  out = std::move(v).value();
  return base::ok_status();
}

const auto kUint = [](const json& v, const std::string& p) { return as_uint(v, p); };
const auto kUint1 = [](const json& v, const std::string& p) { return as_uint(v, p, 1); };
const auto kNumber = [](const json& v, const std::string& p) { return as_number(v, p); };
const auto kString = [](const json& v, const std::string& p) { return as_string(v, p); };
const auto kUintList = [](const json& v, const std::string& p) { return as_uint_list(v, p); };

/// A link end: a chip number, or {"chip": N, "die": D}.
Result<LinkEndSpec> as_end(const json& j, const std::string& path) {
  LinkEndSpec e;
  if (json_whole_number(j) || json_whole_past_64_bits(j)) {  // as_uint tells a large one
    auto c = as_uint(j, path);
    if (!c.ok()) return c.error();
    e.chip = *c;
    return e;
  }
  if (!j.is_object()) {
    return at(path, "expected a chip number or {\"chip\": N, \"die\": D}, got " + json_brief(j));
  }
  SBRDMA_TRY(check_object(j, path, {"chip", "die"}));
  SBRDMA_TRY(require(j, path, "chip"));
  SBRDMA_TRY(optional(j, path, "chip", e.chip, kUint));
  SBRDMA_TRY(optional(j, path, "die", e.die, kUint));
  return e;
}

Result<C2cLinkSpec> as_link(const json& j, const std::string& path) {
  C2cLinkSpec l;
  SBRDMA_TRY(check_object(j, path, {"from", "to", "z", "bandwidth_gbps", "latency_ns"}));
  SBRDMA_TRY(require(j, path, "from"));
  SBRDMA_TRY(require(j, path, "to"));
  SBRDMA_TRY(optional(j, path, "from", l.from, as_end));
  SBRDMA_TRY(optional(j, path, "to", l.to, as_end));
  SBRDMA_TRY(optional(j, path, "z", l.z, [](const json& v, const std::string& p) -> Result<bool> {
    if (!v.is_boolean()) return at(p, "expected true or false, got " + json_brief(v));
    return v.get<bool>();
  }));
  SBRDMA_TRY(optional(j, path, "bandwidth_gbps", l.bandwidth_gbps, kNumber));
  SBRDMA_TRY(optional(j, path, "latency_ns", l.latency_ns, kNumber));
  return l;
}

Result<device::LinkOverrideSpec> as_link_override(const json& j, const std::string& path) {
  device::LinkOverrideSpec o;
  SBRDMA_TRY(check_object(j, path, {"chips", "bandwidth_gbps", "latency_ns"}));
  SBRDMA_TRY(require(j, path, "chips"));
  std::vector<unsigned> chips;
  SBRDMA_TRY(optional(j, path, "chips", chips, kUintList));
  if (chips.size() != 2) return at(child(path, "chips"), "expected two chip numbers");
  o.chip_a = chips[0];
  o.chip_b = chips[1];
  SBRDMA_TRY(optional(j, path, "bandwidth_gbps", o.bandwidth_gbps, kNumber));
  SBRDMA_TRY(optional(j, path, "latency_ns", o.latency_ns, kNumber));
  if (!o.bandwidth_gbps && !o.latency_ns) {
    return at(path, "needs bandwidth_gbps or latency_ns");
  }
  return o;
}

/// Reads array member `key` of the root with `read` per element.
template <typename T, typename Read>
base::Status read_array(const json& root, std::string_view key, std::vector<T>& out, Read read) {
  if (!root.contains(key)) return base::ok_status();
  const json& a = root.at(std::string(key));
  const std::string path = child("", key);
  if (!a.is_array()) return at(path, "expected an array, got " + json_brief(a));
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto v = read(a[i], child(path, i));
    if (!v.ok()) return v.error();
    out.push_back(std::move(v).value());
  }
  return base::ok_status();
}

base::Status read_shape(const json& root, TopologySpec& s) {
  const char* given = nullptr;
  for (const char* key : {"torus", "mesh", "links"}) {
    if (!root.contains(key)) continue;
    if (given != nullptr) {
      return at(child("", key),
                std::string("only one of torus, mesh, links may be given (") + given + " is)");
    }
    given = key;
  }
  if (root.contains("torus")) s.shape = device::ChipShape::kTorus;
  if (root.contains("mesh")) s.shape = device::ChipShape::kMesh;
  SBRDMA_TRY(optional(root, "", "torus", s.dims, kUintList));
  SBRDMA_TRY(optional(root, "", "mesh", s.dims, kUintList));
  SBRDMA_TRY(optional(root, "", "z_dims", s.z_dims, kUintList));
  return read_array(root, "links", s.links, as_link);
}

base::Status read_params(const json& root, TopologySpec& s) {
  if (!root.contains("params")) return base::ok_status();
  const json& p = root.at("params");
  if (!p.is_object()) return at("/params", "expected an object, got " + json_brief(p));
  for (const auto& [name, value] : p.items()) {
    auto v = as_number(value, child("/params", name));
    if (!v.ok()) return v.error();
    s.params.push_back(device::ParamOverrideSpec{name, *v});
  }
  return base::ok_status();
}

/// Unicode White_Space (the controls aside: refused before), the zero-width and other
/// default-ignorable characters (soft hyphen, fillers, variation selectors, tags, invisible
/// operators), the braille blank, and the combining marks, which show nothing of their own.
bool shows_nothing(char32_t c) {
  const auto in = [c](char32_t lo, char32_t hi) { return c >= lo && c <= hi; };
  return c == 0x20 || c == 0xa0 || c == 0xad || c == 0x34f || c == 0x1680 || in(0x115f, 0x1160) ||
         in(0x17b4, 0x17b5) || in(0x180b, 0x180f) || in(0x2000, 0x200d) || c == 0x2028 ||
         c == 0x2029 || c == 0x202f || in(0x205f, 0x2064) || c == 0x2800 || c == 0x3000 ||
         c == 0x3164 || in(0xfe00, 0xfe0f) || c == 0xfeff || c == 0xffa0 || in(0xfff9, 0xfffb) ||
         in(0x1d173, 0x1d17a) || in(0xe0000, 0xe007f) || in(0xe0100, 0xe01ef) ||
         // combining marks: diacriticals and their extensions, for symbols, half marks
         in(0x300, 0x36f) || in(0x1ab0, 0x1aff) || in(0x1dc0, 0x1dff) || in(0x20d0, 0x20ff) ||
         in(0xfe20, 0xfe2f);
}

/// The bidirectional formatting characters (marks, embeddings, overrides, isolates).
bool bidi_control(char32_t c) {
  return c == 0x061c || c == 0x200e || c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
         (c >= 0x2066 && c <= 0x2069);
}

/// "U+3000 U+00A0": the code points of a name that shows nothing, so that it can be found.
std::string code_point_list(const std::vector<char32_t>& points) {
  std::string out;
  for (std::size_t i = 0; i < points.size() && i < 8; ++i) {
    out += fmt::format("{}U+{:04X}", i == 0 ? "" : " ", static_cast<unsigned>(points[i]));
  }
  if (points.size() > 8) out += " ...";
  return out;
}

Result<TopologySpec> read_spec(const json& root, const std::string& default_name) {
  TopologySpec s;
  s.name = default_name;
  SBRDMA_TRY(
      check_object(root, "",
                   {"description", "name", "profile", "chips", "dies_per_chip", "cores_per_die",
                    "torus", "mesh", "z_dims", "links", "link_overrides", "params"}));
  SBRDMA_TRY(require(root, "", "chips"));
  std::string description;
  SBRDMA_TRY(optional(root, "", "description", description, kString));
  SBRDMA_TRY(optional(root, "", "name", s.name, kString));
  // A refused name: at /name when the file gives one, else the file's stem, at /.
  const auto bad_name = [&](const std::string& of_name, const std::string& of_stem) {
    return root.contains("name")
               ? at("/name", of_name)
               : at("/", fmt::format("the file name, the topology's name when it gives none, {}: "
                                     "give a \"name\"",
                                     of_stem));
  };
  // The name goes into one-line headers, plots and traces: not empty or only spaces ("run x.s
  // on ;"), and no control characters (so no tab or newline either).
  if (s.name.find_first_not_of(' ') == std::string::npos) {
    const char* what = s.name.empty() ? "empty" : "blank";
    return bad_name(root.contains("name") ? fmt::format("expected a non-{} string, got {}", what,
                                                        json_brief(root.at("name")))
                                          : std::string(),
                    fmt::format("is {}", what));
  }
  // [CHOICE D42] a name fits a header line.
  if (s.name.size() > kMaxTopologyName) {
    return bad_name(
        fmt::format("{} bytes long; a name has at most {}", s.name.size(), kMaxTopologyName),
        fmt::format("is {} bytes long (at most {})", s.name.size(), kMaxTopologyName));
  }
  for (const char c : s.name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      return bad_name(fmt::format("control character 0x{:02x} in the name", unsigned{u}),
                      fmt::format("has control character 0x{:02x}", unsigned{u}));
    }
  }
  // Headers are UTF-8, plots XML: a file stem of other bytes, or a noncharacter, cannot go
  // there.
  if (const std::size_t bad = base::first_non_xml_utf8(s.name); bad != std::string::npos) {
    const std::string what = fmt::format(
        "not UTF-8 text that XML allows: {} at byte {}",
        base::printable(s.name.substr(bad, base::non_xml_utf8_length(s.name, bad))), bad);
    return bad_name("the name is " + what, "is " + what);
  }
  // The C1 controls (U+0080..U+009F) are control characters too: U+009B starts a terminal
  // escape. The line and paragraph separators break a one-line header in some terminals and
  // editors.
  const std::vector<char32_t> points = base::xml_code_points(s.name);
  for (const char32_t c : points) {
    if (c == 0x2028 || c == 0x2029) {
      return bad_name(fmt::format("line break U+{:04X} in the name", static_cast<unsigned>(c)),
                      fmt::format("has line break U+{:04X}", static_cast<unsigned>(c)));
    }
    if (c >= 0x80 && c <= 0x9f) {
      return bad_name(
          fmt::format("control character U+{:04X} in the name", static_cast<unsigned>(c)),
          fmt::format("has control character U+{:04X}", static_cast<unsigned>(c)));
    }
  }
  // Nor a name that shows as nothing (Unicode spaces and zero-width characters only), or
  // holds a bidirectional control, which reorders what a terminal shows around it.
  if (std::all_of(points.begin(), points.end(), shows_nothing)) {
    return bad_name(fmt::format("expected a name that shows, got only spaces or invisible "
                                "characters ({})",
                                code_point_list(points)),
                    fmt::format("shows as blank ({})", code_point_list(points)));
  }
  for (const char32_t c : points) {
    if (bidi_control(c)) {
      return bad_name(
          fmt::format("bidirectional control U+{:04X} in the name", static_cast<unsigned>(c)),
          fmt::format("has bidirectional control U+{:04X}", static_cast<unsigned>(c)));
    }
  }
  SBRDMA_TRY(optional(root, "", "profile", s.profile, kString));
  SBRDMA_TRY(optional(root, "", "chips", s.chips, kUint));
  SBRDMA_TRY(optional(root, "", "dies_per_chip", s.dies_per_chip, kUint1));
  SBRDMA_TRY(optional(root, "", "cores_per_die", s.cores_per_die, kUint1));
  SBRDMA_TRY(read_shape(root, s));
  SBRDMA_TRY(read_array(root, "link_overrides", s.link_overrides, as_link_override));
  SBRDMA_TRY(read_params(root, s));
  return s;
}

std::string file_stem(const std::string& file) {
  return std::filesystem::path(file).stem().string();
}

}  // namespace

Result<TopologySpec> parse_topology_json(std::string_view text, const std::string& file) {
  auto parsed = parse_json_text(text, file);
  if (!parsed) return parsed.error();
  const json& root = *parsed;
  auto spec = read_spec(root, file_stem(file));
  if (!spec.ok()) return base::make_error(base::SourceLoc{file}, spec.error().message);
  return spec;
}

namespace {

/// `value` of the timing parameter `name` as the model keeps it (times to 1 ps, bandwidths to
/// 0.001 B/ns; never -0): what the outputs that name it print. Errors: set_timing_param's.
Result<double> kept_param_value(const std::string& name, double value) {
  device::TimingParams scratch;  // the range does not depend on the profile
  SBRDMA_TRY(device::set_timing_param(scratch, name, value));
  return *device::timing_param_value(scratch, name) + 0.0;
}

/// The spec of a topology file, read and parsed.
Result<TopologySpec> read_topology_spec(const std::string& path) {
  auto text = read_json_file(path);
  if (!text) return text.error();
  return parse_topology_json(*text, path);
}

/// device::build_topology(spec), its errors carrying `path` (if any) as the file.
Result<device::Topology> build(const TopologySpec& spec, const std::string& path) {
  auto topo = device::build_topology(spec);
  if (!topo.ok() && !path.empty()) {
    return base::make_error(base::SourceLoc{path}, topo.error().message);
  }
  return topo;
}

}  // namespace

Result<device::Topology> load_topology_file(const std::string& path) {
  auto spec = read_topology_spec(path);
  if (!spec.ok()) return spec.error();
  return build(*spec, path);
}

std::string topology_file(std::string_view name_or_path) {
  const auto names = device::builtin_topology_names();
  if (std::find(names.begin(), names.end(), name_or_path) != names.end()) return {};
  return std::string(name_or_path);
}

namespace {

/// A name that is not a built-in one is read as a file if it looks like one.
bool looks_like_topology_file(const std::string& path) {
  // A link counts even if it leads nowhere (dangling, a loop): opening it says why.
  std::error_code ec;
  return path.find('/') != std::string::npos || path.ends_with(".json") ||
         std::filesystem::exists(std::filesystem::symlink_status(path, ec));
}

}  // namespace

bool names_topology_file(std::string_view name) {
  return !topology_file(name).empty() && looks_like_topology_file(std::string(name));
}

namespace {

Error unknown_topology(const std::string& name) {
  std::string known;
  for (std::string_view n : device::builtin_topology_names())
    known += (known.empty() ? "" : ", ") + std::string(n);
  return base::make_error("unknown topology '" + base::printable_brief(name) +
                          "' (built-in: " + known + "; or a JSON file)");
}

}  // namespace

Result<LoadedTopology> load_topology_and_params(std::string_view name_or_path,
                                                std::span<const device::ParamOverrideSpec> extra) {
  const std::string path = topology_file(name_or_path);
  if (!path.empty() && !looks_like_topology_file(path)) return unknown_topology(path);
  auto spec = path.empty() ? device::builtin_topology_spec(name_or_path) : read_topology_spec(path);
  if (!spec.ok()) return spec.error();
  std::vector<device::ParamOverrideSpec> own =
      path.empty() ? std::vector<device::ParamOverrideSpec>{} : spec->params;
  // After the topology's own: they are set in order, so the last one wins.
  spec->params.insert(spec->params.end(), extra.begin(), extra.end());
  auto topo = build(*spec, path);
  if (!topo.ok()) return topo.error();
  for (device::ParamOverrideSpec& p : own) {  // each in range: the build set it
    auto kept = kept_param_value(p.name, p.value);
    SBRDMA_CHECK(kept.ok());
    p.value = *kept;
  }
  return LoadedTopology{std::move(*topo), path, std::move(own)};
}

Result<device::Topology> load_topology(std::string_view name_or_path,
                                       std::span<const device::ParamOverrideSpec> extra) {
  auto loaded = load_topology_and_params(name_or_path, extra);
  if (!loaded.ok()) return loaded.error();
  return std::move(loaded->topology);
}

namespace {

/// What caps a core's engines together below `dma_engine_rate` x engines (a note), if
/// anything: the port bandwidths are parameters of their own, which a new rate does not move
/// (hw-params 1b gives them as 16 x 23 B/ns; D16d, D16e).
std::optional<std::string> engine_rate_cap(const device::Topology& topology) {
  auto profile = soc::find_profile(topology.profile());
  if (!profile.ok()) return std::nullopt;
  const unsigned engines = (*profile)->dma_engines_per_tpb;
  const auto value = [&](std::string_view name) {
    auto v = device::timing_param_value(topology.params(), name);
    SBRDMA_CHECK(v.ok());
    return *v;
  };
  const double rate = value("dma_engine_rate");
  const double all = rate * engines;
  std::string below;
  unsigned ports = 0;
  double cap = all;
  for (const std::string_view port : {"sbuf_port_bandwidth", "onchip_bandwidth"}) {
    if (value(port) < all) {
      below += fmt::format("{}{} ({:g} B/ns)", below.empty() ? "" : " and ", port, value(port));
      ++ports;
      cap = std::min(cap, value(port));
    }
  }
  if (ports == 0) return std::nullopt;
  return fmt::format(
      "dma_engine_rate={:g}: a core's {} engines at {:g} B/ns would stream {:g} B/ns "
      "together, but {} {} them at {:g} B/ns: {} not follow the rate; set {} too",
      rate, engines, rate, all, below, ports == 1 ? "caps" : "cap", cap,
      ports == 1 ? "it does" : "the ports do", ports == 1 ? "it" : "them");
}

}  // namespace

std::vector<std::string> params_without_effect(const device::Topology& topology,
                                               std::span<const device::ParamOverrideSpec> params) {
  // Judged by where each link's figures come from, not by their values: a link that sets its
  // own equal to the parameter's new value still does not take it.
  std::size_t c2c = 0;
  std::size_t z = 0;
  std::size_t plain_takes_bw = 0;  // not a Z link, and no bandwidth_gbps of its own
  std::size_t z_takes_bw = 0;
  std::size_t takes_latency = 0;
  std::size_t d2d = 0;
  for (const device::Link& l : topology.links()) {
    if (l.kind == device::LinkKind::kD2d) ++d2d;
    if (l.kind != device::LinkKind::kC2c) continue;
    ++c2c;
    z += l.z ? 1 : 0;
    (l.z ? z_takes_bw : plain_takes_bw) += l.own_bandwidth ? 0 : 1;
    takes_latency += l.own_latency ? 0 : 1;
  }
  std::vector<std::string> out;
  for (const device::ParamOverrideSpec& p : params) {
    std::string why;
    const bool c2c_param =
        p.name == "c2c_bandwidth" || p.name == "c2c_z_bandwidth" || p.name == "c2c_latency";
    if (c2c_param && c2c == 0) {  // one chip: a file's chips are joined by links
      why = "it has one chip, and no chip-to-chip link";
    } else if (p.name == "c2c_bandwidth" && plain_takes_bw == 0) {
      why = z == c2c ? "every chip-to-chip link there is a Z link (c2c_z_bandwidth)"
            : z == 0 ? "each chip-to-chip link there sets its own bandwidth_gbps"
                     : "each chip-to-chip link there is a Z link (c2c_z_bandwidth) or sets its "
                       "own bandwidth_gbps";
    } else if (p.name == "c2c_z_bandwidth" && z_takes_bw == 0) {
      why = z == 0 ? "no chip-to-chip link there is a Z link"
                   : "each Z link there sets its own bandwidth_gbps";
    } else if (p.name == "c2c_latency" && takes_latency == 0) {
      why = "each chip-to-chip link there sets its own latency_ns";
    } else if ((p.name == "d2d_bandwidth" || p.name == "d2d_latency") && d2d == 0) {
      why = "its chips have one die, and no die-to-die link";
    }
    if (!why.empty()) {
      out.push_back(fmt::format("{}={} changes nothing on {}: {}", p.name, p.value,
                                base::printable_brief(topology.name()), why));
    } else if (p.name == "dma_engine_rate") {
      if (auto capped = engine_rate_cap(topology)) out.push_back(std::move(*capped));
    }
  }
  return out;
}

std::string topology_file_note(std::string_view name, const std::string& file,
                               std::span<const device::ParamOverrideSpec> file_params) {
  if (file.empty()) return {};
  // The name as it shows: a built-in's with an invisible character or a space added looks
  // the same on a terminal.
  std::string shown;
  for (const char32_t c : base::xml_code_points(name)) {
    if (shows_nothing(c)) continue;
    shown += c < 0x80 ? static_cast<char>(c) : '?';  // the built-ins' names are ASCII
  }
  const auto builtins = device::builtin_topology_names();
  const bool builtin_name = std::find(builtins.begin(), builtins.end(), shown) != builtins.end();
  const std::string sets = param_list(file_params);
  if (builtin_name) {
    const std::string what = "topology file " + base::printable_brief(file);
    return sets.empty() ? " (" + what + ")" : " (" + what + ", which sets " + sets + ")";
  }
  return sets.empty() ? std::string() : " (its file sets " + sets + ")";
}

std::string param_list(std::span<const device::ParamOverrideSpec> params) {
  std::string out;
  for (const device::ParamOverrideSpec& p : params) {
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", p.name, p.value);
  }
  return out;
}

std::string with_param_overrides(std::span<const device::ParamOverrideSpec> params) {
  return params.empty() ? std::string() : " with " + param_list(params);
}

Result<device::ParamOverrideSpec> parse_param_override(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return base::make_error(fmt::format("'{}': {}", base::printable_brief(text), why));
  };
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return bad(
        "expected NAME=VALUE (a parameter of `sbrdma info params` and a number in its "
        "unit)");
  }
  device::ParamOverrideSpec o{std::string(text.substr(0, eq)), 0};
  // The name first ("a=b=c" names 'a').
  if (auto st = device::check_timing_param_name(o.name); !st) return bad(st.error().message);
  const std::string value(text.substr(eq + 1));
  // Plain decimal: strtod's hex floats, "inf" and "nan" are not taken.
  const bool plain =
      !value.empty() && value.find_first_not_of("0123456789.eE+-") == std::string::npos;
  char* end = nullptr;
  if (plain) o.value = std::strtod(value.c_str(), &end);
  if (!plain || end != value.c_str() + value.size()) {
    return bad(fmt::format("'{}' is not a number", base::printable_brief(value)));
  }
  auto kept = kept_param_value(o.name, o.value);
  if (!kept) return bad(kept.error().message);
  o.value = *kept;
  return o;
}

}  // namespace sbrdma::platform
