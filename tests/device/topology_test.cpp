#include "device/topology.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

namespace sbrdma::device {
namespace {

Topology builtin(std::string_view name) {
  auto t = builtin_topology(name);
  SBRDMA_CHECK_MSG(t.ok(), "built-in topology failed to build");
  return std::move(t).value();
}

std::map<LinkKind, unsigned> count_kinds(const Topology& t) {
  std::map<LinkKind, unsigned> n;
  for (const Link& l : t.links()) ++n[l.kind];
  return n;
}

/// Torus distance between two chips computed from coordinates alone.
unsigned torus_distance(const Topology& t, ChipId a, ChipId b) {
  const auto ca = t.coords(a);
  const auto cb = t.coords(b);
  unsigned d = 0;
  for (std::size_t k = 0; k < ca.size(); ++k) {
    const unsigned n = t.dims()[k];
    const unsigned up = (cb[k] + n - ca[k]) % n;
    d += std::min(up, (n - up) % n);
  }
  return d;
}

unsigned count_c2c(const Topology& t, const Route& r) {
  return static_cast<unsigned>(std::count_if(
      r.begin(), r.end(), [&](const Hop& h) { return t.link(h.link).kind == LinkKind::kC2c; }));
}

/// A route is a walk: it starts at src's SBUF, each hop leaves where the last one arrived, and
/// it ends at dst's SBUF.
void expect_walk(const Topology& t, const Route& r, CoreId src, CoreId dst) {
  ASSERT_FALSE(r.empty());
  Node at{NodeKind::kSbuf, src};
  for (const Hop& h : r) {
    const Link& l = t.link(h.link);
    const Node from = h.reverse ? l.b : l.a;
    ASSERT_EQ(from, at) << "hop over " << l.name << " does not start at " << t.node_name(at);
    at = h.reverse ? l.a : l.b;
  }
  EXPECT_EQ(at, (Node{NodeKind::kSbuf, dst}));
}

TEST(Topology, CoreIdRoundTripsForEveryBuiltin) {
  for (std::string_view name : builtin_topology_names()) {
    SCOPED_TRACE(std::string(name));
    const Topology t = builtin(name);
    EXPECT_EQ(t.name(), name);
    for (CoreId g = 0; g < t.num_cores(); ++g) {
      const CoreLoc loc = t.locate(g);
      EXPECT_EQ(t.core_id(loc), g);
      EXPECT_EQ(loc.chip, g / t.cores_per_chip());
      EXPECT_EQ(loc.die, loc.tpb / t.cores_per_die());
      EXPECT_EQ(t.routing_id(loc.chip), loc.chip);
    }
  }
}

TEST(Topology, AMissingCoreOrChipNamesTheBuiltinsThatHaveIt) {
  const Topology trn2 = builtin_topology("trn2").value();
  const Topology trn2_48 = builtin_topology("trn2.48xlarge").value();
  const Topology trn2u = builtin_topology("trn2u").value();
  EXPECT_EQ(missing_chip_message(3, trn2),
            "chip 3, which does not exist (topology trn2 has 1 chip; trn2.48xlarge and trn2u "
            "have it: --topology NAME)");
  EXPECT_EQ(missing_chip_message(16, trn2_48),
            "chip 16, which does not exist (topology trn2.48xlarge has 16 chips; trn2u has it: "
            "--topology trn2u)");
  EXPECT_EQ(missing_chip_message(64, trn2u),
            "chip 64, which does not exist (topology trn2u has 64 chips)");
  // Only built-ins of the same profile: trn1's chips are sunda's.
  EXPECT_EQ(missing_chip_message(1, builtin_topology("trn1").value()),
            "chip 1, which does not exist (topology trn1 has 1 chip; trn1.32xlarge has it: "
            "--topology trn1.32xlarge)");
  EXPECT_EQ(missing_core_message("12", 12, trn2),
            "core 12 does not exist (topology trn2 has 8 cores; trn2.48xlarge and trn2u have "
            "it: --topology NAME)");
  EXPECT_EQ(missing_core_message("512", 512, trn2u),
            "core 512 does not exist (topology trn2u has 512 cores)");
}

TEST(Topology, BuiltinCounts) {
  struct Want {
    std::string_view name, profile;
    unsigned chips, dies, cores, c2c, degree;
  };
  const Want wants[] = {
      {"trn2", "cayman", 1, 2, 8, 0, 0},
      {"trn2.48xlarge", "cayman", 16, 2, 128, 32, 4},
      {"trn2u", "cayman", 64, 2, 512, 192, 6},
      {"trn1", "sunda", 1, 1, 2, 0, 0},
      {"trn1.32xlarge", "sunda", 16, 1, 32, 32, 4},
  };
  ASSERT_EQ(builtin_topology_names().size(), std::size(wants));
  EXPECT_EQ(builtin_topology_names().front(), "trn2") << "the default comes first";
  for (const Want& w : wants) {
    SCOPED_TRACE(std::string(w.name));
    const Topology t = builtin(w.name);
    EXPECT_EQ(t.profile(), w.profile);
    EXPECT_EQ(t.num_chips(), w.chips);
    EXPECT_EQ(t.dies_per_chip(), w.dies);
    EXPECT_EQ(t.num_cores(), w.cores);
    auto kinds = count_kinds(t);
    EXPECT_EQ(kinds[LinkKind::kSbufPort], w.cores);
    EXPECT_EQ(kinds[LinkKind::kOnChip], w.cores);
    EXPECT_EQ(kinds[LinkKind::kD2d], w.dies == 2 ? w.chips : 0);
    EXPECT_EQ(kinds[LinkKind::kC2c], w.c2c);
    for (ChipId c = 0; c < t.num_chips(); ++c) EXPECT_EQ(t.degree(c), w.degree) << c;
    for (std::size_t i = 0; i < t.links().size(); ++i) EXPECT_EQ(t.links()[i].id, i);
  }
}

TEST(Topology, CaymanDiesHoldFourCoresEach) {
  const Topology t = builtin("trn2");
  for (unsigned tpb = 0; tpb < 8; ++tpb) EXPECT_EQ(t.locate(tpb).die, tpb / 4);
  EXPECT_EQ(t.link(t.d2d_link(0)).bandwidth, t.params().d2d_bandwidth);
}

TEST(Topology, ZLinksRunAtTheZRate) {
  const Topology t = builtin("trn2u");
  unsigned z = 0;
  for (const Link& l : t.links()) {
    if (l.kind != LinkKind::kC2c) continue;
    const bool is_z = l.name.rfind("c2c.z.", 0) == 0;
    z += is_z ? 1 : 0;
    EXPECT_EQ(l.bandwidth, is_z ? bytes_per_ns(128) : bytes_per_ns(256)) << l.name;
  }
  EXPECT_EQ(z, 64u);
}

TEST(Topology, SameCoreRouteIsTheSbufPort) {
  const Topology t = builtin("trn2");
  const Route r = t.route(5, 5);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (Hop{t.sbuf_port(5), false}));
  EXPECT_EQ(r[1], (Hop{t.sbuf_port(5), true}));
  expect_walk(t, r, 5, 5);
}

TEST(Topology, SameDieAndCrossDieRoutes) {
  const Topology t = builtin("trn2");
  const Route same_die = t.route(1, 3);
  EXPECT_EQ(same_die, (Route{{t.sbuf_port(1), false},
                             {t.onchip_link(1), false},
                             {t.onchip_link(3), true},
                             {t.sbuf_port(3), true}}));
  const Route cross = t.route(2, 6);  // die 0 -> die 1
  ASSERT_EQ(cross.size(), 5u);
  EXPECT_EQ(cross[2], (Hop{t.d2d_link(0), false}));
  const Route back = t.route(6, 2);
  EXPECT_EQ(back[2], (Hop{t.d2d_link(0), true}));
  for (CoreId a = 0; a < t.num_cores(); ++a) {
    for (CoreId b = 0; b < t.num_cores(); ++b) expect_walk(t, t.route(a, b), a, b);
  }
}

TEST(Topology, TorusHopsEqualTheWraparoundDistance) {
  for (std::string_view name : {"trn2.48xlarge", "trn2u", "trn1.32xlarge"}) {
    SCOPED_TRACE(std::string(name));
    const Topology t = builtin(name);
    const unsigned cpc = t.cores_per_chip();
    for (ChipId a = 0; a < t.num_chips(); ++a) {
      for (ChipId b = 0; b < t.num_chips(); ++b) {
        const CoreId src = a * cpc + (a % cpc);
        const CoreId dst = b * cpc + cpc - 1 - (b % cpc);
        const Route r = t.route(src, dst);
        ASSERT_EQ(count_c2c(t, r), torus_distance(t, a, b)) << a << " -> " << b;
        EXPECT_EQ(t.chip_hops(a, b), torus_distance(t, a, b));
        expect_walk(t, r, src, dst);
      }
    }
  }
}

/// The chips a route's C2C hops arrive at, in order.
std::vector<ChipId> chips_visited(const Topology& t, const Route& r) {
  std::vector<ChipId> chips;
  for (const Hop& h : r) {
    const Link& l = t.link(h.link);
    if (l.kind != LinkKind::kC2c) continue;
    chips.push_back((h.reverse ? l.a : l.b).index / t.dies_per_chip());
  }
  return chips;
}

TEST(Topology, TorusTakesTheShorterWayTiesGoPlus) {
  const Topology t = builtin("trn2.48xlarge");  // chip = x + 4 y
  const unsigned cpc = t.cores_per_chip();
  EXPECT_EQ(chips_visited(t, t.route(0, 3 * cpc)), (std::vector<ChipId>{3}));     // x 0 -> 3: -1
  EXPECT_EQ(chips_visited(t, t.route(0, 2 * cpc)), (std::vector<ChipId>{1, 2}));  // tie: +
  EXPECT_EQ(chips_visited(t, t.route(3 * cpc, 1 * cpc)), (std::vector<ChipId>{0, 1}));  // 3->0->1
  // Dimension order: x first, then y (chip 5 = (1,1); chip 15 = (3,3)).
  EXPECT_EQ(chips_visited(t, t.route(5 * cpc, 15 * cpc)), (std::vector<ChipId>{6, 7, 11, 15}));
  EXPECT_EQ(chips_visited(t, t.route(15 * cpc, 0)), (std::vector<ChipId>{12, 0}));
  EXPECT_EQ(t.coords(14), (std::vector<unsigned>{2, 3}));
}

TEST(Topology, YLinksSitOnDieOneSoRoutesCrossD2d) {
  // [CHOICE D17]: dimension k's ports on die k mod 2. Core 0 (chip 0 die 0) to core 32
  // (chip 4 = (0,1), die 0): D2D up, the y link, D2D down.
  const Topology t = builtin("trn2.48xlarge");
  const Route r = t.route(0, 32);
  ASSERT_EQ(r.size(), 7u);
  EXPECT_EQ(r[2], (Hop{t.d2d_link(0), false}));
  EXPECT_EQ(t.link(r[3].link).kind, LinkKind::kC2c);
  EXPECT_EQ(r[4], (Hop{t.d2d_link(4), true}));
  expect_walk(t, r, 0, 32);
  // x neighbours on die 0: no D2D at all.
  for (const Hop& h : t.route(0, 8)) EXPECT_NE(t.link(h.link).kind, LinkKind::kD2d);
}

TEST(Topology, RoutesAreDeterministic) {
  const Topology a = builtin("trn2u");
  const Topology b = builtin("trn2u");
  for (CoreId s = 0; s < a.num_cores(); s += 37) {
    for (CoreId d = 0; d < a.num_cores(); d += 41) EXPECT_EQ(a.route(s, d), b.route(s, d));
  }
}

/// What build_topology says of `s`: "ok" or its error message.
std::string msg(const TopologySpec& s) {
  auto t = build_topology(s);
  return t.ok() ? std::string("ok") : t.error().message;
}

TopologySpec ring(unsigned n) {
  TopologySpec s;
  s.name = "ring";
  s.chips = n;
  for (unsigned c = 0; c < n; ++c) {
    C2cLinkSpec l;
    l.from.chip = c;
    l.to.chip = (c + 1) % n;
    s.links.push_back(l);
  }
  return s;
}

TEST(Topology, ExplicitRingRoutesByShortestPath) {
  auto t5 = build_topology(ring(5));
  ASSERT_TRUE(t5.ok()) << t5.error().message;
  const unsigned cpc = t5->cores_per_chip();
  EXPECT_EQ(chips_visited(*t5, t5->route(0, 2 * cpc)), (std::vector<ChipId>{1, 2}));
  EXPECT_EQ(chips_visited(*t5, t5->route(0, 3 * cpc)), (std::vector<ChipId>{4, 3}));
  auto t4 = build_topology(ring(4));
  ASSERT_TRUE(t4.ok());
  EXPECT_EQ(chips_visited(*t4, t4->route(0, 2 * cpc)), (std::vector<ChipId>{1, 2}));
  for (ChipId c = 0; c < 4; ++c) EXPECT_EQ(t4->degree(c), 2u);
  EXPECT_TRUE(t4->dims().empty());
}

TEST(Topology, MeshLineHasNoWrap) {
  TopologySpec s;
  s.chips = 4;
  s.shape = ChipShape::kMesh;
  s.dims = {4};
  auto t = build_topology(s);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->degree(0), 1u);
  EXPECT_EQ(t->degree(1), 2u);
  EXPECT_EQ(t->chip_hops(0, 3), 3u);
  EXPECT_EQ(t->chip_hops(3, 0), 3u);
}

TEST(Topology, TorusOfTwoHasOneLinkPerPair) {
  TopologySpec s;
  s.chips = 4;
  s.shape = ChipShape::kTorus;
  s.dims = {2, 2};
  auto t = build_topology(s);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(count_kinds(*t)[LinkKind::kC2c], 4u);
  for (ChipId c = 0; c < 4; ++c) EXPECT_EQ(t->degree(c), 2u);
  EXPECT_EQ(t->chip_hops(1, 0), 1u);
  EXPECT_EQ(t->chip_hops(0, 3), 2u);
}

TEST(Topology, BuilderRefusesInconsistentSpecs) {
  TopologySpec s = ring(4);
  s.links[2].to.chip = 17;
  EXPECT_EQ(msg(s), "/links/2/to: chip 17 does not exist (4 chips)");
  s = ring(4);
  s.links.pop_back();
  s.links.pop_back();  // chips 0-1-2 joined, chip 3 alone
  EXPECT_EQ(msg(s), "/links: chip 3 is unreachable from chip 0 (all chips must be connected)");
  // No links at all: what is missing is named, not a chip.
  s.links.clear();
  EXPECT_EQ(msg(s),
            "/chips: 4 chips and no links between them: \"links\", \"torus\" or \"mesh\" "
            "connects them");
  s = ring(4);
  s.link_overrides = {LinkOverrideSpec{2, 2, 1.0, std::nullopt}};
  EXPECT_EQ(msg(s),
            "/link_overrides/0/chips: self link (chip 2 to itself): a link joins two chips");
  s = builtin_topology_spec("trn2.48xlarge").value();
  s.chips = 8;
  EXPECT_EQ(msg(s), "/torus: 4 x 4 is not 8 chips (/chips)");
  // Every size is listed, those after the product passes 64 chips too; 65536^4 is 2^64, which
  // a plain 64-bit product would wrap to 0.
  s.chips = 4;
  s.dims = {65536, 65536, 65536, 65536};
  EXPECT_EQ(msg(s), "/torus: 65536 x 65536 x 65536 x 65536 is not 4 chips (/chips)");
  s.dims = {4, 65536, 0};
  EXPECT_EQ(msg(s), "/torus/2: a size must be >= 1");
  s = builtin_topology_spec("trn2.48xlarge").value();
  s.z_dims = {1, 0, 1};
  EXPECT_EQ(msg(s), "/z_dims/2: dimension 1 is listed twice");
  s.z_dims = {1, 2};
  EXPECT_EQ(msg(s), "/z_dims/1: dimension 2 does not exist (2 dimensions)");
  s.profile = "nope";
  EXPECT_EQ(msg(s), "/profile: unknown profile 'nope' (known: cayman, sunda, mariana)");
  // The profile's address map places the dies and cores: a chip laid out otherwise could be
  // described but never run.
  s = ring(3);
  s.dies_per_chip = 2;
  s.cores_per_die = 4;
  EXPECT_EQ(msg(s), "ok");
  s.cores_per_die = 3;
  EXPECT_EQ(msg(s), "/cores_per_die: 3 cores per die; profile cayman has 4 (its address map)");
  s = ring(2);
  s.profile = "sunda";
  s.dies_per_chip = 2;
  EXPECT_EQ(msg(s), "/dies_per_chip: 2 dies per chip; profile sunda has 1 (its address map)");
  // A link joins its chips either way round: a second override of it would replace the first.
  s = ring(4);
  s.link_overrides = {{0, 1, 64.0, std::nullopt}, {1, 2, std::nullopt, 300.0}};
  EXPECT_EQ(msg(s), "ok");
  s.link_overrides.push_back({1, 0, std::nullopt, 300.0});
  EXPECT_EQ(msg(s), "/link_overrides/2: duplicate of /link_overrides/0 (chip 0 - chip 1)");
  s.link_overrides.back() = {0, 1, 64.0, std::nullopt};
  EXPECT_EQ(msg(s), "/link_overrides/2: duplicate of /link_overrides/0 (chip 0 - chip 1)");
}

TEST(Topology, AtMost64ChipsAreAddressable) {
  // [HIGH] wiki-facts 4.1: CAYMAN_ID is 6 bits, so a topology has 1..64 chips.
  EXPECT_EQ(msg(ring(64)), "ok");
  EXPECT_EQ(msg(ring(65)),
            "/chips: 65 chips; must be 1..64 (a 6-bit CAYMAN_ID addresses at most 64)");
  EXPECT_EQ(msg(ring(0)),
            "/chips: 0 chips; must be 1..64 (a 6-bit CAYMAN_ID addresses at most 64)");
}

TEST(Topology, UnknownBuiltinListsTheBuiltins) {
  auto t = builtin_topology("trn3");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            "unknown topology 'trn3' (built-in: trn2, trn2.48xlarge, trn2u, trn1, trn1.32xlarge)");
}

}  // namespace
}  // namespace sbrdma::device
