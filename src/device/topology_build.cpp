// Building a Topology from a TopologySpec: validation (errors name the JSON path of the
// topology file format), then the links in a fixed order, so ids are deterministic:
// per chip, per core its SBUF port then its on-die link; then the chip's D2D link; then all
// chip-to-chip links.

#include <algorithm>
#include <array>
#include <deque>
#include <limits>
#include <map>
#include <utility>

#include "base/check.h"
#include "base/printable.h"
#include "device/topology.h"
#include "soc/profile.h"

namespace sbrdma::device {
namespace {

using base::Error;
using base::Tick;

constexpr LinkId kNoLink = std::numeric_limits<LinkId>::max();
// [HIGH] wiki-facts 4.1: CAYMAN_ID is 6 bits, so at most 64 chips are addressable.
constexpr unsigned kMaxChips = 64;
// [HIGH] wiki-facts 4.2: 8 TPBs per package (index 0..7), 2 dies.

Error at(const std::string& path, const std::string& message) {
  return base::make_error(path + ": " + message);
}

std::string chip_str(unsigned c) {
  return "chip " + std::to_string(c);
}

/// Checks that a link end names an existing chip and die.
base::Status check_end(const LinkEndSpec& e, const std::string& path, unsigned chips,
                       unsigned dies) {
  if (e.chip >= chips) {
    return at(path, chip_str(e.chip) + " does not exist (" + std::to_string(chips) + " chips)");
  }
  if (e.die >= dies) {
    return at(path + "/die", "die " + std::to_string(e.die) +
                                 " does not exist (dies per chip: " + std::to_string(dies) + ")");
  }
  return base::ok_status();
}

/// Applies optional bandwidth/latency overrides to a link; errors name `path`/field.
base::Status apply_overrides(Link& l, const std::optional<double>& gbps,
                             const std::optional<double>& ns, const std::string& path) {
  if (gbps) {
    auto bw = bandwidth_from_bytes_per_ns(*gbps);
    if (!bw.ok()) return at(path + "/bandwidth_gbps", bw.error().message);
    l.bandwidth = *bw;
    l.own_bandwidth = true;
  }
  if (ns) {
    auto t = tick_from_ns(*ns);
    if (!t.ok()) return at(path + "/latency_ns", t.error().message);
    l.latency = *t;
    l.own_latency = true;
  }
  return base::ok_status();
}

}  // namespace

/// Builds the chips' internals and the chip network; the member functions below keep the
/// construction in one place with access to Topology's private members.
class TopologyBuilder {
 public:
  TopologyBuilder(Topology& t, const TopologySpec& spec) : t_(t), spec_(spec) {}

  base::Status build() {
    SBRDMA_TRY(geometry());
    SBRDMA_TRY(params());
    chip_internals();
    if (spec_.shape == ChipShape::kLinks) {
      SBRDMA_TRY(explicit_links());
    } else {
      SBRDMA_TRY(grid_links());
    }
    SBRDMA_TRY(connected());
    return link_overrides();
  }

 private:
  base::Status geometry() {
    auto p = timing_params(spec_.profile);
    if (!p.ok()) return at("/profile", p.error().message);
    t_.params_ = std::move(p.value());
    t_.name_ = spec_.name;
    // The chip's layout is the generation profile's (soc/profile.cpp gives each number's
    // source): its address map places every die and core.
    auto prof = soc::find_profile(spec_.profile);
    SBRDMA_CHECK_MSG(prof.ok(), "a timing profile without a generation profile");
    const soc::Profile& g = **prof;
    t_.chips_ = spec_.chips;
    t_.dies_ = spec_.dies_per_chip != 0 ? spec_.dies_per_chip : g.dies_per_chip;
    t_.cores_per_die_ = spec_.cores_per_die != 0 ? spec_.cores_per_die : g.tpbs_per_die;
    if (t_.chips_ == 0 || t_.chips_ > kMaxChips) {
      return at("/chips", std::to_string(t_.chips_) + " chips; must be 1..64 (a 6-bit " +
                              "CAYMAN_ID addresses at most 64)");
    }
    // The profile's address map fixes where each die and core sits: a chip laid out otherwise
    // could be drawn but never run.
    if (t_.dies_ != g.dies_per_chip) {
      return at("/dies_per_chip", std::to_string(t_.dies_) + " dies per chip; profile " +
                                      std::string(g.name) + " has " +
                                      std::to_string(g.dies_per_chip) + " (its address map)");
    }
    if (t_.cores_per_die_ != g.tpbs_per_die) {
      return at("/cores_per_die", std::to_string(t_.cores_per_die_) + " cores per die; profile " +
                                      std::string(g.name) + " has " +
                                      std::to_string(g.tpbs_per_die) + " (its address map)");
    }
    return base::ok_status();
  }

  base::Status params() {
    for (const ParamOverrideSpec& o : spec_.params) {
      const base::Status st = set_timing_param(t_.params_, o.name, o.value);
      if (!st.ok()) return at(base::json_child("/params", o.name), st.error().message);
    }
    return base::ok_status();
  }

  LinkId add(LinkKind kind, std::string name, Node a, Node b, Bandwidth bw, Tick lat) {
    const auto id = static_cast<LinkId>(t_.links_.size());
    t_.links_.push_back(Link{id, kind, std::move(name), a, b, bw, lat});
    return id;
  }

  void chip_internals() {
    const TimingParams& p = t_.params_;
    t_.sbuf_port_.resize(t_.num_cores());
    t_.onchip_.resize(t_.num_cores());
    t_.d2d_.assign(t_.chips_, kNoLink);
    t_.c2c_.assign(t_.chips_, {});
    for (ChipId c = 0; c < t_.chips_; ++c) {
      for (unsigned tpb = 0; tpb < t_.cores_per_chip(); ++tpb) {
        const CoreId g = c * t_.cores_per_chip() + tpb;
        const std::string core = "core" + std::to_string(g);
        t_.sbuf_port_[g] = add(LinkKind::kSbufPort, "sbuf_port." + core, {NodeKind::kSbuf, g},
                               {NodeKind::kDma, g}, p.sbuf_port_bandwidth, p.sbuf_port_latency);
        const Node die{NodeKind::kDie, t_.die_node(c, tpb / t_.cores_per_die_)};
        t_.onchip_[g] = add(LinkKind::kOnChip, "onchip." + core, {NodeKind::kDma, g}, die,
                            p.onchip_bandwidth, p.onchip_hop_latency);
      }
      if (t_.dies_ == 2) {
        t_.d2d_[c] =
            add(LinkKind::kD2d, "d2d.chip" + std::to_string(c), {NodeKind::kDie, t_.die_node(c, 0)},
                {NodeKind::kDie, t_.die_node(c, 1)}, p.d2d_bandwidth, p.d2d_latency);
      }
    }
  }

  LinkId add_c2c(std::string name, LinkEndSpec from, LinkEndSpec to, bool z) {
    const TimingParams& p = t_.params_;
    const LinkId id =
        add(LinkKind::kC2c, std::move(name), {NodeKind::kDie, t_.die_node(from.chip, from.die)},
            {NodeKind::kDie, t_.die_node(to.chip, to.die)}, z ? p.c2c_z_bandwidth : p.c2c_bandwidth,
            p.c2c_latency);
    t_.links_[id].z = z;
    t_.c2c_[from.chip].push_back(id);
    t_.c2c_[to.chip].push_back(id);
    return id;
  }

  base::Status explicit_links() {
    if (!spec_.dims.empty() || !spec_.z_dims.empty()) {
      return at(spec_.dims.empty() ? "/z_dims" : "/torus", "needs a torus or mesh shape");
    }
    std::map<std::pair<ChipId, ChipId>, std::size_t> seen;  // chip pair -> first index
    for (std::size_t i = 0; i < spec_.links.size(); ++i) {
      const C2cLinkSpec& s = spec_.links[i];
      const std::string path = "/links/" + std::to_string(i);
      SBRDMA_TRY(check_end(s.from, path + "/from", t_.chips_, t_.dies_));
      SBRDMA_TRY(check_end(s.to, path + "/to", t_.chips_, t_.dies_));
      if (s.from.chip == s.to.chip) {
        return at(path, "self link (" + chip_str(s.from.chip) + " to itself)");
      }
      const std::pair<ChipId, ChipId> key = std::minmax(s.from.chip, s.to.chip);
      const auto [it, fresh] = seen.emplace(key, i);
      if (!fresh) {
        return at(path, "duplicate of /links/" + std::to_string(it->second) + " (" +
                            chip_str(key.first) + " - " + chip_str(key.second) + ")");
      }
      const LinkId id =
          add_c2c("c2c.chip" + std::to_string(s.from.chip) + "-chip" + std::to_string(s.to.chip),
                  s.from, s.to, s.z);
      SBRDMA_TRY(apply_overrides(t_.links_[id], s.bandwidth_gbps, s.latency_ns, path));
    }
    return base::ok_status();
  }

  base::Status grid_links() {
    const bool torus = spec_.shape == ChipShape::kTorus;
    const std::string key = torus ? "/torus" : "/mesh";
    if (!spec_.links.empty()) return at("/links", "not allowed together with " + key);
    if (spec_.dims.empty()) return at(key, "needs at least one dimension");
    // The product stops growing once past kMaxChips (at most 64 x (2^32 - 1): no overflow),
    // but the formula lists every size, so the message shows the list as the user wrote it.
    std::uint64_t product = 1;
    std::string formula;
    for (std::size_t k = 0; k < spec_.dims.size(); ++k) {
      if (spec_.dims[k] == 0) return at(key + "/" + std::to_string(k), "a size must be >= 1");
      if (product <= kMaxChips) product *= spec_.dims[k];
      formula += (k == 0 ? "" : " x ") + std::to_string(spec_.dims[k]);
    }
    if (product != t_.chips_) {
      return at(key, formula + " is not " + std::to_string(t_.chips_) + " chips (/chips)");
    }
    const auto nd = static_cast<unsigned>(spec_.dims.size());
    std::vector<bool> z(nd, false);
    for (std::size_t i = 0; i < spec_.z_dims.size(); ++i) {
      if (spec_.z_dims[i] >= nd) {
        return at("/z_dims/" + std::to_string(i), "dimension " + std::to_string(spec_.z_dims[i]) +
                                                      " does not exist (" + std::to_string(nd) +
                                                      (nd == 1 ? " dimension)" : " dimensions)"));
      }
      // A dimension twice is a typo (the file meant another one), not a no-op.
      if (z[spec_.z_dims[i]]) {
        return at("/z_dims/" + std::to_string(i),
                  "dimension " + std::to_string(spec_.z_dims[i]) + " is listed twice");
      }
      z[spec_.z_dims[i]] = true;
    }
    t_.shape_ = spec_.shape;
    t_.dims_ = spec_.dims;
    t_.wrap_ = torus;
    t_.grid_plus_.assign(std::size_t{t_.chips_} * nd, kNoLink);
    t_.grid_minus_.assign(std::size_t{t_.chips_} * nd, kNoLink);
    static constexpr std::array<const char*, 3> kAxis = {"x", "y", "z"};
    for (ChipId a = 0; a < t_.chips_; ++a) {
      const std::vector<unsigned> ca = t_.coords(a);
      for (unsigned k = 0; k < nd; ++k) {
        const unsigned n = spec_.dims[k];
        unsigned stride = 1;  // chip id distance of one step along dimension k
        for (unsigned j = 0; j < k; ++j) stride *= spec_.dims[j];
        // Ring of n: link c -> c+1; a ring of 2 has one link; a mesh has no wrap link.
        const bool make = torus ? (n > 2 || (n == 2 && ca[k] == 0)) : ca[k] + 1 < n;
        if (!make) continue;
        const ChipId b = a - ca[k] * stride + ((ca[k] + 1) % n) * stride;
        const unsigned die = k % t_.dies_;  // [CHOICE D17] dimension k on die k mod dies
        const std::string axis = k < kAxis.size() ? kAxis[k] : "d" + std::to_string(k);
        const LinkId id =
            add_c2c("c2c." + axis + ".chip" + std::to_string(a) + "-chip" + std::to_string(b),
                    {a, die}, {b, die}, z[k]);
        t_.grid_plus_[a * nd + k] = id;
        t_.grid_minus_[b * nd + k] = id;
        if (n == 2) {
          t_.grid_plus_[b * nd + k] = id;
          t_.grid_minus_[a * nd + k] = id;
        }
      }
    }
    return base::ok_status();
  }

  base::Status connected() {
    if (t_.chips_ > 1 && spec_.shape == ChipShape::kLinks && spec_.links.empty()) {
      return at("/chips", std::to_string(t_.chips_) +
                              " chips and no links between them: \"links\", \"torus\" or "
                              "\"mesh\" connects them");
    }
    std::vector<bool> seen(t_.chips_, false);
    std::deque<ChipId> queue{0};
    seen[0] = true;
    while (!queue.empty()) {
      const ChipId c = queue.front();
      queue.pop_front();
      for (LinkId l : t_.c2c_[c]) {
        const ChipId next = t_.other_chip(t_.links_[l], c);
        if (!seen[next]) {
          seen[next] = true;
          queue.push_back(next);
        }
      }
    }
    for (ChipId c = 0; c < t_.chips_; ++c) {
      if (!seen[c]) {
        return at("/links",
                  chip_str(c) + " is unreachable from chip 0 (all chips must be " + "connected)");
      }
    }
    return base::ok_status();
  }

  base::Status link_overrides() {
    // One entry per link: a link joins a pair of chips either way round, and a second entry
    // for it would silently replace the first.
    std::map<std::pair<ChipId, ChipId>, std::size_t> seen;  // chip pair -> first index
    for (std::size_t i = 0; i < spec_.link_overrides.size(); ++i) {
      const LinkOverrideSpec& o = spec_.link_overrides[i];
      const std::string path = "/link_overrides/" + std::to_string(i);
      for (ChipId c : {o.chip_a, o.chip_b}) {
        if (c >= t_.chips_) {
          return at(path + "/chips",
                    chip_str(c) + " does not exist (" + std::to_string(t_.chips_) + " chips)");
        }
      }
      if (o.chip_a == o.chip_b) {
        return at(path + "/chips",
                  "self link (" + chip_str(o.chip_a) + " to itself): a link joins two chips");
      }
      LinkId found = kNoLink;
      for (LinkId l : t_.c2c_[o.chip_a]) {
        if (o.chip_a != o.chip_b && t_.other_chip(t_.links_[l], o.chip_a) == o.chip_b) found = l;
      }
      if (found == kNoLink) {
        return at(path + "/chips",
                  "no link between " + chip_str(o.chip_a) + " and " + chip_str(o.chip_b));
      }
      const std::pair<ChipId, ChipId> key = std::minmax(o.chip_a, o.chip_b);
      const auto [it, fresh] = seen.emplace(key, i);
      if (!fresh) {
        return at(path, "duplicate of /link_overrides/" + std::to_string(it->second) + " (" +
                            chip_str(key.first) + " - " + chip_str(key.second) + ")");
      }
      SBRDMA_TRY(apply_overrides(t_.links_[found], o.bandwidth_gbps, o.latency_ns, path));
    }
    return base::ok_status();
  }

  Topology& t_;
  const TopologySpec& spec_;
};

base::Result<Topology> build_topology(const TopologySpec& spec) {
  Topology t;
  TopologyBuilder b(t, spec);
  const base::Status st = b.build();
  if (!st.ok()) return st.error();
  return t;
}

}  // namespace sbrdma::device
