#include "device/topology.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <set>

#include "base/check.h"

namespace sbrdma::device {
namespace {
constexpr LinkId kNoLink = std::numeric_limits<LinkId>::max();
}  // namespace

std::string_view link_kind_name(LinkKind kind) {
  switch (kind) {
    case LinkKind::kSbufPort:
      return "sbuf_port";
    case LinkKind::kOnChip:
      return "onchip";
    case LinkKind::kD2d:
      return "d2d";
    case LinkKind::kC2c:
      return "c2c";
  }
  return "?";
}

CoreId Topology::core_id(CoreLoc loc) const {
  SBRDMA_CHECK(loc.chip < chips_ && loc.tpb < cores_per_chip());
  SBRDMA_CHECK(loc.die == loc.tpb / cores_per_die_);
  return loc.chip * cores_per_chip() + loc.tpb;
}

CoreLoc Topology::locate(CoreId core) const {
  SBRDMA_CHECK(core < num_cores());
  const unsigned tpb = core % cores_per_chip();
  return CoreLoc{core / cores_per_chip(), tpb / cores_per_die_, tpb};
}

std::vector<unsigned> Topology::coords(ChipId chip) const {
  SBRDMA_CHECK(chip < chips_);
  std::vector<unsigned> c;
  for (unsigned size : dims_) {
    c.push_back(chip % size);
    chip /= size;
  }
  return c;
}

const Link& Topology::link(LinkId id) const {
  SBRDMA_CHECK(id < links_.size());
  return links_[id];
}

LinkId Topology::sbuf_port(CoreId core) const {
  SBRDMA_CHECK(core < num_cores());
  return sbuf_port_[core];
}

LinkId Topology::onchip_link(CoreId core) const {
  SBRDMA_CHECK(core < num_cores());
  return onchip_[core];
}

LinkId Topology::d2d_link(ChipId chip) const {
  SBRDMA_CHECK(dies_ == 2 && chip < chips_);
  return d2d_[chip];
}

const std::vector<LinkId>& Topology::c2c_links(ChipId chip) const {
  SBRDMA_CHECK(chip < chips_);
  return c2c_[chip];
}

unsigned Topology::degree(ChipId chip) const {
  std::set<ChipId> peers;
  for (LinkId id : c2c_links(chip)) peers.insert(other_chip(links_[id], chip));
  return static_cast<unsigned>(peers.size());
}

std::string Topology::node_name(Node n) const {
  switch (n.kind) {
    case NodeKind::kSbuf:
      return "core" + std::to_string(n.index) + ".sbuf";
    case NodeKind::kDma:
      return "core" + std::to_string(n.index) + ".dma";
    case NodeKind::kDie:
      return "chip" + std::to_string(n.index / dies_) + ".die" + std::to_string(n.index % dies_);
  }
  return "?";
}

ChipId Topology::other_chip(const Link& l, ChipId from) const {
  const ChipId ca = chip_of_die_node(l.a.index);
  return ca == from ? chip_of_die_node(l.b.index) : ca;
}

std::vector<Topology::ChipStep> Topology::grid_path(ChipId a, ChipId b) const {
  std::vector<ChipStep> steps;
  const std::vector<unsigned> ca = coords(a);
  const std::vector<unsigned> cb = coords(b);
  const auto ndims = static_cast<unsigned>(dims_.size());
  ChipId cur = a;
  for (unsigned k = 0; k < ndims; ++k) {
    const unsigned n = dims_[k];
    const unsigned up = (cb[k] + n - ca[k]) % n;  // steps going +
    const unsigned down = (ca[k] + n - cb[k]) % n;
    // Torus: the shorter way, ties toward +. Mesh: the only way.
    const bool plus = wrap_ ? up <= down : cb[k] >= ca[k];
    const unsigned count = wrap_ ? std::min(up, down) : (plus ? up : down);
    for (unsigned i = 0; i < count; ++i) {
      const LinkId l = (plus ? grid_plus_ : grid_minus_)[cur * ndims + k];
      SBRDMA_CHECK(l != kNoLink);
      cur = other_chip(links_[l], cur);
      steps.push_back(ChipStep{l, cur});
    }
  }
  SBRDMA_CHECK(cur == b);
  return steps;
}

std::vector<Topology::ChipStep> Topology::bfs_path(ChipId a, ChipId b) const {
  // Breadth first from a; each chip's links in id order, first discovery wins.
  std::vector<LinkId> via(chips_, kNoLink);
  std::vector<bool> seen(chips_, false);
  std::deque<ChipId> queue{a};
  seen[a] = true;
  while (!queue.empty() && !seen[b]) {
    const ChipId c = queue.front();
    queue.pop_front();
    for (LinkId l : c2c_[c]) {
      const ChipId next = other_chip(links_[l], c);
      if (seen[next]) continue;
      seen[next] = true;
      via[next] = l;
      queue.push_back(next);
    }
  }
  SBRDMA_CHECK_MSG(seen[b], "chips not connected (the builder should have refused this)");
  std::vector<ChipStep> steps;
  for (ChipId c = b; c != a;) {
    steps.push_back(ChipStep{via[c], c});
    c = other_chip(links_[via[c]], c);
  }
  std::reverse(steps.begin(), steps.end());
  return steps;
}

std::vector<Topology::ChipStep> Topology::chip_path(ChipId a, ChipId b) const {
  if (a == b) return {};
  return shape_ == ChipShape::kLinks ? bfs_path(a, b) : grid_path(a, b);
}

unsigned Topology::chip_hops(ChipId a, ChipId b) const {
  SBRDMA_CHECK(a < chips_ && b < chips_);
  return static_cast<unsigned>(chip_path(a, b).size());
}

Route Topology::route(CoreId src, CoreId dst) const {
  SBRDMA_CHECK(src < num_cores() && dst < num_cores());
  Route r;
  r.push_back(Hop{sbuf_port_[src], false});  // sbuf -> dma: the read
  if (src == dst) {
    r.push_back(Hop{sbuf_port_[src], true});  // dma -> sbuf: the write
    return r;
  }
  const CoreLoc s = locate(src);
  const CoreLoc d = locate(dst);
  r.push_back(Hop{onchip_[src], false});  // dma -> die
  unsigned at = die_node(s.chip, s.die);
  // Crosses to die node `to` of the current chip over its D2D link if needed.
  auto to_die = [&](unsigned to) {
    if (to == at) return;
    const Link& l = links_[d2d_[chip_of_die_node(at)]];
    r.push_back(Hop{l.id, l.a.index != at});
    at = to;
  };
  for (const ChipStep& step : chip_path(s.chip, d.chip)) {
    const Link& l = links_[step.link];
    const bool reverse = chip_of_die_node(l.a.index) != chip_of_die_node(at);
    to_die(reverse ? l.b.index : l.a.index);
    r.push_back(Hop{l.id, reverse});
    at = reverse ? l.a.index : l.b.index;
  }
  to_die(die_node(d.chip, d.die));
  r.push_back(Hop{onchip_[dst], true});     // die -> dma
  r.push_back(Hop{sbuf_port_[dst], true});  // dma -> sbuf
  return r;
}

}  // namespace sbrdma::device
