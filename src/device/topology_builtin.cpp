// The built-in topologies, as specs (the same form a JSON topology file is read into).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <string>
#include <vector>

#include "base/printable.h"
#include "device/topology.h"

namespace sbrdma::device {
namespace {

constexpr std::array<std::string_view, 5> kNames = {"trn2", "trn2.48xlarge", "trn2u", "trn1",
                                                    "trn1.32xlarge"};

TopologySpec grid(std::string name, std::string profile, std::vector<unsigned> dims) {
  TopologySpec s;
  s.name = std::move(name);
  s.profile = std::move(profile);
  s.chips = 1;
  for (unsigned d : dims) s.chips *= d;
  s.shape = ChipShape::kTorus;
  s.dims = std::move(dims);
  return s;
}

TopologySpec single(std::string name, std::string profile) {
  TopologySpec s;
  s.name = std::move(name);
  s.profile = std::move(profile);
  return s;
}

}  // namespace

std::span<const std::string_view> builtin_topology_names() {
  return kNames;
}

base::Result<TopologySpec> builtin_topology_spec(std::string_view name) {
  // One Trainium2 chip: 2 dies x 4 cores ([HIGH] wiki-facts 4.2, hw-params 1a).
  if (name == "trn2") return single("trn2", "cayman");
  // 16 chips, 4x4 2D torus (INST, CC-ABOUT; hw-params 1c).
  if (name == "trn2.48xlarge") return grid("trn2.48xlarge", "cayman", {4, 4});
  // Trn2 UltraServer: 4 instances; same-coordinate chips form Z rings -> 4x4x4, the third
  // dimension's links at the Z rate (INST trn2, CC-ABOUT, SA-T2; hw-params 1c).
  if (name == "trn2u") {
    TopologySpec s = grid("trn2u", "cayman", {4, 4, 4});
    s.z_dims = {2};
    return s;
  }
  // One Trainium1 chip: 1 die, 2 cores (DRV2; hw-params 1a).
  if (name == "trn1") return single("trn1", "sunda");
  // 16 chips, 4x4 2D torus (DRV2 trn1_32xl_neigbor_ids; hw-params 1c).
  if (name == "trn1.32xlarge") return grid("trn1.32xlarge", "sunda", {4, 4});
  std::string known;
  for (std::string_view n : kNames) known += (known.empty() ? "" : ", ") + std::string(n);
  return base::make_error("unknown topology '" + base::printable_brief(name) +
                          "' (built-in: " + known + ")");
}

base::Result<Topology> builtin_topology(std::string_view name) {
  auto spec = builtin_topology_spec(name);
  if (!spec.ok()) return spec.error();
  return build_topology(*spec);
}

namespace {

/// The built-ins of `t`'s profile with more than `n` cores (or chips), named as the hint after a
/// missing one: "; trn2.48xlarge has it: --topology trn2.48xlarge" or "; A and B have it:
/// --topology NAME" ("" where none has).
std::string builtins_that_have(const Topology& t, std::uint64_t n, bool chips) {
  // Each built-in's profile and counts, worked out once: a file of many lines naming a
  // missing core asks for every line.
  struct Builtin {
    std::string_view name;
    std::string profile;
    std::uint64_t cores;
    std::uint64_t chips;
  };
  static const std::vector<Builtin> builtins = [] {
    std::vector<Builtin> out;
    for (const std::string_view name : builtin_topology_names()) {
      auto b = builtin_topology(name);
      if (b.ok()) out.push_back(Builtin{name, b->profile(), b->num_cores(), b->num_chips()});
    }
    return out;
  }();
  std::vector<std::string_view> with;
  for (const Builtin& b : builtins) {
    if (b.profile == t.profile() && n < (chips ? b.chips : b.cores)) with.push_back(b.name);
  }
  if (with.size() == 1) return fmt::format("; {} has it: --topology {}", with[0], with[0]);
  if (with.empty()) return "";
  return fmt::format("; {} and {} have it: --topology NAME",
                     fmt::join(with.begin(), with.end() - 1, ", "), with.back());
}

}  // namespace

std::string missing_core_message(std::string_view core_text, std::uint64_t core,
                                 const Topology& t) {
  return fmt::format("core {} does not exist (topology {} has {} cores{})", core_text, t.name(),
                     t.num_cores(), builtins_that_have(t, core, false));
}

std::string missing_chip_message(std::uint64_t chip, const Topology& t) {
  return fmt::format("chip {}, which does not exist (topology {} has {} chip{}{})", chip, t.name(),
                     t.num_chips(), t.num_chips() == 1 ? "" : "s",
                     builtins_that_have(t, chip, true));
}

}  // namespace sbrdma::device
