#pragma once
/// Topology: chips, dies, cores and the links between them, with a deterministic route
/// function. Self-contained: it names its generation profile by string ("cayman") and takes
/// its link figures from that profile's timing table (device/timing_params.h).
///
/// Cores: global id = chip * cores_per_chip + tpb (chip-major); tpb is the core's index on
/// its chip (0..7 on cayman) and its die is tpb / cores_per_die ([HIGH] wiki-facts 4.2:
/// TPB_0..3 on die 0, TPB_4..7 on die 1). A chip's routing id is its chip id ([CHOICE D9]).
///
/// The graph ([CHOICE D17]):
///
///   core g:  [sbuf] --sbuf_port-- [dma] --onchip--+
///                                                 [chip c die d] --c2c-- [chip c' die d'] ...
///   core h:  [sbuf] --sbuf_port-- [dma] --onchip--+       |
///                                                        d2d
///                                                         |
///                                                 [chip c die 1-d]
///
/// Every link is full duplex: its bandwidth is per direction, and a route hop says which way
/// it is crossed. Torus chips: chip = x + X * (y + Y * z); the links of dimension k attach to
/// die (k mod dies_per_chip) on both chips.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/units.h"
#include "device/params_units.h"
#include "device/timing_params.h"
#include "device/topology_spec.h"
#include "soc/address.h"

namespace sbrdma::device {

using CoreId = unsigned;  ///< global core id
using ChipId = unsigned;
using LinkId = unsigned;

/// Where a core sits.
struct CoreLoc {
  ChipId chip = 0;
  unsigned die = 0;
  unsigned tpb = 0;  ///< index on its chip
  auto operator<=>(const CoreLoc&) const = default;
};

enum class LinkKind : std::uint8_t { kSbufPort, kOnChip, kD2d, kC2c };
/// "sbuf_port", "onchip", "d2d", "c2c".
std::string_view link_kind_name(LinkKind kind);

/// A vertex of the link graph.
enum class NodeKind : std::uint8_t {
  kSbuf,  ///< a core's SBUF (index = core id)
  kDma,   ///< a core's DMA engines / fabric interface (index = core id)
  kDie,   ///< a die's fabric (index = chip * dies_per_chip + die)
};
struct Node {
  NodeKind kind = NodeKind::kSbuf;
  unsigned index = 0;
  auto operator<=>(const Node&) const = default;
};

/// A link between two nodes.
struct Link {
  LinkId id = 0;
  LinkKind kind = LinkKind::kSbufPort;
  std::string name;  ///< e.g. "sbuf_port.core3", "c2c.x.chip0-chip1"
  Node a;
  Node b;
  Bandwidth bandwidth;  ///< per direction
  base::Tick latency;
  /// Where the two came from: a chip-to-chip link built as a Z link takes c2c_z_bandwidth,
  /// and a topology file's own bandwidth_gbps or latency_ns replaces the parameter's value
  /// (what `--param` can change, platform::params_without_effect).
  bool z = false;
  bool own_bandwidth = false;
  bool own_latency = false;
};

/// One link crossing on a route: `reverse` false means from `a` to `b`.
struct Hop {
  LinkId link = 0;
  bool reverse = false;
  auto operator<=>(const Hop&) const = default;
};
using Route = std::vector<Hop>;

class Topology {
 public:
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::string& profile() const { return params_.profile; }
  /// The profile's parameters with the spec's overrides applied.
  [[nodiscard]] const TimingParams& params() const { return params_; }

  [[nodiscard]] unsigned num_chips() const { return chips_; }
  [[nodiscard]] unsigned dies_per_chip() const { return dies_; }
  [[nodiscard]] unsigned cores_per_die() const { return cores_per_die_; }
  [[nodiscard]] unsigned cores_per_chip() const { return dies_ * cores_per_die_; }
  [[nodiscard]] unsigned num_cores() const { return chips_ * cores_per_chip(); }

  /// Contract: loc names an existing chip/tpb and loc.die matches the tpb.
  [[nodiscard]] CoreId core_id(CoreLoc loc) const;
  /// Contract: core < num_cores().
  [[nodiscard]] CoreLoc locate(CoreId core) const;
  /// The routing id a peer on `chip` is reached by (= chip id, [CHOICE D9]).
  [[nodiscard]] unsigned routing_id(ChipId chip) const { return chip; }
  /// Where `core` sees SoC addresses from: its chip's routing id and its die (the issuer an
  /// address map decodes for).
  [[nodiscard]] soc::ChipDie chip_die(CoreId core) const {
    const CoreLoc loc = locate(core);
    return soc::ChipDie{routing_id(loc.chip), loc.die};
  }

  /// The chip network's shape; `dims()` is empty for kLinks.
  [[nodiscard]] ChipShape shape() const { return shape_; }
  [[nodiscard]] const std::vector<unsigned>& dims() const { return dims_; }
  /// Torus/mesh coordinates of `chip`, x first (empty for kLinks).
  [[nodiscard]] std::vector<unsigned> coords(ChipId chip) const;

  [[nodiscard]] std::span<const Link> links() const { return links_; }
  [[nodiscard]] const Link& link(LinkId id) const;
  [[nodiscard]] LinkId sbuf_port(CoreId core) const;
  [[nodiscard]] LinkId onchip_link(CoreId core) const;
  /// Contract: dies_per_chip() == 2.
  [[nodiscard]] LinkId d2d_link(ChipId chip) const;
  /// The chip-to-chip links touching `chip`, by id.
  [[nodiscard]] const std::vector<LinkId>& c2c_links(ChipId chip) const;
  /// Number of distinct chips `chip` has a link to.
  [[nodiscard]] unsigned degree(ChipId chip) const;
  /// "core5.sbuf", "core5.dma", "chip1.die0".
  [[nodiscard]] std::string node_name(Node n) const;

  /// The links every byte from `src`'s SBUF to `dst`'s SBUF crosses, in order: src SBUF port,
  /// src on-die link, D2D and C2C hops, dst on-die link, dst SBUF port. Same core: the SBUF
  /// port read then written. Chip hops: dimension order on a torus/mesh (shorter way round,
  /// ties toward +), else a breadth-first shortest path preferring lower link ids.
  /// Contract: src, dst < num_cores().
  [[nodiscard]] Route route(CoreId src, CoreId dst) const;
  /// Number of C2C links on the route between two chips.
  [[nodiscard]] unsigned chip_hops(ChipId a, ChipId b) const;

 private:
  friend class TopologyBuilder;  // topology_build.cpp
  struct ChipStep {              // one chip-to-chip crossing
    LinkId link;
    ChipId to;
  };
  [[nodiscard]] std::vector<ChipStep> chip_path(ChipId a, ChipId b) const;
  [[nodiscard]] std::vector<ChipStep> grid_path(ChipId a, ChipId b) const;
  [[nodiscard]] std::vector<ChipStep> bfs_path(ChipId a, ChipId b) const;
  [[nodiscard]] unsigned die_node(ChipId chip, unsigned die) const { return chip * dies_ + die; }
  [[nodiscard]] ChipId chip_of_die_node(unsigned n) const { return n / dies_; }
  [[nodiscard]] ChipId other_chip(const Link& l, ChipId from) const;

  std::string name_;
  TimingParams params_;
  unsigned chips_ = 1;
  unsigned dies_ = 1;
  unsigned cores_per_die_ = 1;
  ChipShape shape_ = ChipShape::kLinks;
  std::vector<unsigned> dims_;
  bool wrap_ = false;
  std::vector<Link> links_;
  std::vector<LinkId> sbuf_port_;         // by core
  std::vector<LinkId> onchip_;            // by core
  std::vector<LinkId> d2d_;               // by chip (2-die chips)
  std::vector<std::vector<LinkId>> c2c_;  // by chip
  std::vector<LinkId> grid_plus_;         // [chip * ndims + k]: link to the + neighbour, or kNoLink
  std::vector<LinkId> grid_minus_;        // same for -
};

/// The built-in topologies, default first: trn2, trn2.48xlarge, trn2u, trn1, trn1.32xlarge.
std::span<const std::string_view> builtin_topology_names();
/// The spec of a built-in topology; unknown name: an error listing the built-ins.
base::Result<TopologySpec> builtin_topology_spec(std::string_view name);
/// A built-in topology by name.
base::Result<Topology> builtin_topology(std::string_view name);

/// `core 42 does not exist (topology trn2 has 8 cores; trn2.48xlarge and trn2u have it:
/// --topology NAME)`: the built-ins of `t`'s profile that have the core are named.
std::string missing_core_message(std::string_view core_text, std::uint64_t core, const Topology& t);
/// "chip 3, which does not exist (topology trn2 has 1 chip; trn2.48xlarge and trn2u have it:
/// --topology NAME)", for an address that routes past `t`'s chips.
std::string missing_chip_message(std::uint64_t chip, const Topology& t);

/// Validates `spec` and builds its topology. Errors name the offending field by its JSON path
/// in the topology file format, e.g. `/links/3/to: chip 17 does not exist (16 chips)`.
base::Result<Topology> build_topology(const TopologySpec& spec);

}  // namespace sbrdma::device
