// `sbrdma info topology NAME|FILE` and `sbrdma info params [--profile P]`: thin drivers over
// device/topology.h, device/timing_params.h and platform/topology_json.h.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/printable.h"
#include "cli/commands.h"
#include "cli/file_io.h"
#include "device/timing_params.h"
#include "device/topology.h"
#include "platform/topology_json.h"
#include "soc/profile.h"

namespace sbrdma::cli {
namespace {

using device::Topology;

/// A value in ns or B/ns: integers plainly, else up to 3 decimals without trailing zeros.
std::string number(double v) {
  if (v == std::floor(v)) return fmt::format("{:.0f}", v);
  std::string s = fmt::format("{:.3f}", v);
  while (s.back() == '0') s.pop_back();
  return s;
}
std::string ns(base::Tick t) {
  return number(static_cast<double>(t.ps) / 1000.0);
}

std::string shape_line(const Topology& t) {
  if (t.shape() == device::ChipShape::kLinks) {
    return t.num_chips() == 1 ? "single chip" : "explicit links";
  }
  std::string dims;
  for (unsigned d : t.dims()) dims += (dims.empty() ? "" : " x ") + std::to_string(d);
  return (t.shape() == device::ChipShape::kTorus ? "torus " : "mesh ") + dims;
}

std::string core_range(unsigned first, unsigned count) {
  return count == 1 ? std::to_string(first)
                    : std::to_string(first) + "-" + std::to_string(first + count - 1);
}

/// `with`: what follows the name on the first line (the --param values, D47).
std::string format_topology(const Topology& t, const std::string& with) {
  std::string out = fmt::format(
      "topology {}{}: profile {}, {} chip{} x {} die{} x {} cores = {} cores, {}\n", t.name(), with,
      t.profile(), t.num_chips(), t.num_chips() == 1 ? "" : "s", t.dies_per_chip(),
      t.dies_per_chip() == 1 ? "" : "s", t.cores_per_die(), t.num_cores(), shape_line(t));
  // What a program file's addresses and indices range over, per core.
  if (auto p = soc::find_profile(t.profile())) {
    const soc::Profile& pr = **p;
    out += fmt::format(
        "each core: {} SBUF partitions of {:#x} ({}) bytes (an addr= range's bound), {} "
        "semaphores, {} DMA engines\n",
        pr.sbuf_partitions, pr.partition_active.n, pr.partition_active.n, pr.semaphores,
        pr.dma_engines_per_tpb);
  }
  out += "chips\n";
  for (device::ChipId c = 0; c < t.num_chips(); ++c) {
    out += fmt::format("  chip {:<3} routing_id {:<3}", c, t.routing_id(c));
    const auto coords = t.coords(c);
    if (!coords.empty()) out += fmt::format(" coords ({})", fmt::join(coords, ","));
    for (unsigned d = 0; d < t.dies_per_chip(); ++d) {
      const unsigned first = c * t.cores_per_chip() + d * t.cores_per_die();
      out += fmt::format("  die {}: cores {}", d, core_range(first, t.cores_per_die()));
    }
    out += fmt::format("  degree {}\n", t.degree(c));
  }
  out += "cores\n";
  for (device::CoreId g = 0; g < t.num_cores(); ++g) {
    const device::CoreLoc l = t.locate(g);
    out += fmt::format("  core {:<4} chip {:<3} die {} tpb {}\n", g, l.chip, l.die, l.tpb);
  }
  out += fmt::format("links ({}; bandwidth per direction)\n", t.links().size());
  // Each column as wide as its widest value needs, so that values of any size stay apart: at
  // least one blank after a left-aligned column and before a right-aligned one.
  std::vector<std::array<std::string, 7>> rows{{"id", "kind", "a", "b", "B/ns", "ns", "name"}};
  for (const device::Link& l : t.links()) {
    rows.push_back({std::to_string(l.id), std::string(device::link_kind_name(l.kind)),
                    t.node_name(l.a), t.node_name(l.b), number(l.bandwidth.bytes_per_ns()),
                    ns(l.latency), l.name});
  }
  std::array<std::size_t, 6> width{6, 11, 14, 14, 8, 8};  // or the table's usual widths
  for (const auto& r : rows) {
    for (std::size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], r[c].size() + 1);
  }
  for (const auto& r : rows) {
    out +=
        fmt::format("  {:<{}}{:<{}}{:<{}}{:<{}}{:>{}}{:>{}}  {}\n", r[0], width[0], r[1], width[1],
                    r[2], width[2], r[3], width[3], r[4], width[4], r[5], width[5], r[6]);
  }
  return out;
}

/// "FILE sets NAME=VALUE, ...\n" for a topology file's own timing parameters (the values as
/// the model keeps them, before --param), or "" for a built-in topology or a file of none.
std::string file_params_line(const platform::LoadedTopology& t) {
  if (t.file_params.empty()) return {};
  return fmt::format("{} sets {} (every parameter: sbrdma info params --profile {})\n",
                     base::printable_brief(t.file), platform::param_list(t.file_params),
                     base::shell_word(t.file));
}

int run_info_topology(const std::string& name, const std::vector<std::string>& param_texts) {
  auto params = param_overrides(param_texts);
  if (!params) return fail(params.error());
  auto t = platform::load_topology_and_params(name, *params);  // a file is read once
  if (!t.ok()) return fail(t.error());
  for (const std::string& n : platform::params_without_effect(t->topology, *params)) {
    std::fprintf(stderr, "info topology: note: --param %s\n", n.c_str());
  }
  std::string out =
      format_topology(t->topology, platform::topology_file_note(t->topology.name(), t->file, {}) +
                                       platform::with_param_overrides(*params));
  out.insert(out.find('\n') + 1, file_params_line(*t));  // after the first line
  std::fputs(out.c_str(), stdout);
  return 0;
}

/// The rows of `sbrdma info params --profile FILE`: the file's profile's table with the values
/// the topology keeps, a file's "params" and then --param set; `header` names both.
base::Result<std::vector<device::ParamRow>> topology_file_rows(
    const std::string& path, std::span<const device::ParamOverrideSpec> params,
    std::string& header) {
  auto loaded = platform::load_topology_and_params(path, params);  // the file read once
  if (!loaded.ok()) return loaded.error();
  const device::Topology& t = loaded->topology;
  const std::vector<device::ParamOverrideSpec>& own = loaded->file_params;
  auto rows = device::timing_param_table(t.profile());
  if (!rows.ok()) return rows.error();
  const auto sets = [](std::span<const device::ParamOverrideSpec> list, std::string_view name) {
    return std::any_of(list.begin(), list.end(),
                       [&](const device::ParamOverrideSpec& o) { return o.name == name; });
  };
  for (device::ParamRow& r : *rows) {
    auto v = device::timing_param_value(t.params(), r.name);
    SBRDMA_CHECK(v.ok());  // a name of the table
    r.value = *v;
    if (sets(params, r.name)) {
      r.source = "--param";
    } else if (sets(own, r.name)) {
      r.source = "topology file";
    }
  }
  std::string names;
  for (const device::ParamOverrideSpec& o : own) names += (names.empty() ? "" : ", ") + o.name;
  header = fmt::format(
      "timing parameters of topology {} (profile {}{}){}", base::printable_brief(path), t.profile(),
      names.empty() ? "" : "; the file sets " + names, platform::with_param_overrides(params));
  return rows;
}

/// The rows of `sbrdma info params --profile P` for a profile's name: its table, --param set.
base::Result<std::vector<device::ParamRow>> profile_rows(
    const std::string& profile, std::span<const device::ParamOverrideSpec> params,
    std::string& header) {
  auto rows = device::timing_param_table(profile);
  if (!rows.ok()) {
    base::Error e = profile_flag_error(rows.error());
    e.message += "; or a topology file (a path, or a name ending in .json)";
    return e;
  }
  for (const device::ParamOverrideSpec& o : params) {  // the value as kept, its source the flag
    for (device::ParamRow& r : *rows) {
      if (r.name != o.name) continue;
      r.value = o.value;
      r.source = "--param";
    }
  }
  header = fmt::format("timing parameters of profile {}{}", profile,
                       platform::with_param_overrides(params));
  return rows;
}

int run_info_params(const std::string& profile, const std::vector<std::string>& param_texts) {
  auto params = param_overrides(param_texts);
  if (!params) return fail(params.error());
  std::string header;
  const auto profiles = device::timing_profile_names();
  const bool file = platform::names_topology_file(profile) &&
                    std::find(profiles.begin(), profiles.end(), profile) == profiles.end();
  auto rows =
      file ? topology_file_rows(profile, *params, header) : profile_rows(profile, *params, header);
  if (!rows.ok()) return fail(rows.error());
  std::size_t wn = 4;
  std::size_t wv = 5;
  std::size_t ws = 6;
  for (const device::ParamRow& r : *rows) {
    wn = std::max(wn, r.name.size());
    wv = std::max(wv, number(r.value).size());
    ws = std::max(ws, r.source.size());
  }
  std::string out = header + " (B/ns = GB/s)\n";
  out += fmt::format("{:<{}}  {:>{}}  {:<4}  {:<{}}  {}\n", "name", wn, "value", wv, "unit",
                     "source", ws, "meaning");
  for (const device::ParamRow& r : *rows) {
    out += fmt::format("{:<{}}  {:>{}}  {:<4}  {:<{}}  {}\n", r.name, wn, number(r.value), wv,
                       device::unit_name(r.unit), r.source, ws, r.meaning);
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

}  // namespace

std::string profile_flag(const std::string& value) {
  if (!platform::topology_file(value).empty()) return value;  // not a built-in name
  auto t = platform::load_topology(value);
  return t ? std::string(t->profile()) : value;
}

base::Error profile_flag_error(base::Error e) {
  std::string names;
  for (std::string_view n : device::builtin_topology_names()) {
    names += (names.empty() ? "" : ", ") + std::string(n);
  }
  e.message += fmt::format("; or a built-in topology for its profile: {}", names);
  return flag_error("--profile", std::move(e));
}

void add_param_option(CLI::App& cmd, std::vector<std::string>& params) {
  cmd.add_option("--param", params,
                 "Set a timing parameter of `sbrdma info params` (in its unit) after the "
                 "topology's; repeat for more: --param q7_desc_gen_cost=0 --param c2c_latency=400")
      ->type_name("NAME=VALUE")
      ->expected(1)  // one value a flag (help shows no "...")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

base::Result<std::vector<device::ParamOverrideSpec>> param_overrides(
    const std::vector<std::string>& params) {
  std::vector<device::ParamOverrideSpec> out;
  for (const std::string& text : params) {
    auto o = platform::parse_param_override(text);
    if (!o) return flag_error("--param", o.error());
    const auto same = [&](const device::ParamOverrideSpec& p) { return p.name == o->name; };
    if (std::any_of(out.begin(), out.end(), same)) {
      return base::make_error(fmt::format("--param: {} is given twice", o->name));
    }
    out.push_back(std::move(*o));
  }
  return out;
}

void add_info_platform(CLI::App& info, Context& ctx) {
  auto name = std::make_shared<std::string>("trn2");
  CLI::App* topo = info.add_subcommand(
      "topology", "Print a topology's chips, dies, cores and links (see docs/topology-json.md)");
  topo->add_option("NAME|FILE", *name,
                   "built-in (trn2, trn2.48xlarge, trn2u, trn1, trn1.32xlarge) or a JSON file")
      ->capture_default_str()
      ->check(kNonEmpty);
  auto topo_params = std::make_shared<std::vector<std::string>>();
  add_param_option(*topo, *topo_params);
  topo->callback(
      [name, topo_params, &ctx] { ctx.status = run_info_topology(*name, *topo_params); });

  auto profile = std::make_shared<std::string>("cayman");
  CLI::App* params = info.add_subcommand(
      "params", "Print a profile's timing parameters: name, value, unit, source, meaning");
  params
      ->add_option("--profile", *profile,
                   "generation profile (cayman, sunda, mariana), a built-in topology for its "
                   "profile (trn2, trn2u, ...: cayman; trn1, ...: sunda), or a topology "
                   "file: its profile's parameters with the file's own params")
      ->capture_default_str();
  auto param_texts = std::make_shared<std::vector<std::string>>();
  add_param_option(*params, *param_texts);
  params->callback([profile, param_texts, &ctx] {
    ctx.status = run_info_params(profile_flag(*profile), *param_texts);
  });
}

}  // namespace sbrdma::cli
