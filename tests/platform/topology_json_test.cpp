#include "platform/topology_json.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace sbrdma::platform {
namespace {

using device::LinkKind;
using device::Topology;

std::string data(const std::string& name) {
  return SBRDMA_TEST_DATA "/topology/" + name;
}

Topology load_ok(const std::string& file) {
  auto t = load_topology(data(file));
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().format());
  SBRDMA_CHECK(t.ok());
  return std::move(t).value();
}

/// The links of two topologies agree in every field.
void expect_same_links(const Topology& a, const Topology& b) {
  ASSERT_EQ(a.links().size(), b.links().size());
  for (std::size_t i = 0; i < a.links().size(); ++i) {
    const device::Link& x = a.links()[i];
    const device::Link& y = b.links()[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.a, y.a);
    EXPECT_EQ(x.b, y.b);
    EXPECT_EQ(x.bandwidth, y.bandwidth) << x.name;
    EXPECT_EQ(x.latency, y.latency) << x.name;
  }
}

TEST(TopologyJson, FilesDescribeTheBuiltins) {
  for (const char* name : {"trn2.48xlarge", "trn2u"}) {
    SCOPED_TRACE(name);
    const Topology file = load_ok(std::string(name) + ".json");
    const Topology builtin = load_topology(name).value();
    EXPECT_EQ(file.name(), builtin.name());
    EXPECT_EQ(file.num_cores(), builtin.num_cores());
    EXPECT_EQ(file.dims(), builtin.dims());
    expect_same_links(file, builtin);
  }
}

TEST(TopologyJson, RingOfFourWithAnOverride) {
  const Topology t = load_ok("ring4.json");
  EXPECT_EQ(t.name(), "ring4");
  EXPECT_EQ(t.num_chips(), 4u);
  EXPECT_EQ(t.num_cores(), 32u);
  for (device::ChipId c = 0; c < 4; ++c) EXPECT_EQ(t.degree(c), 2u);
  const device::Link& slow = t.link(t.c2c_links(2).back());  // chip 2: 1-2, 2-3
  EXPECT_EQ(slow.name, "c2c.chip2-chip3");
  EXPECT_EQ(slow.bandwidth, device::bytes_per_ns(128));
  EXPECT_EQ(slow.latency, base::nanoseconds(400));
  const device::Link& fast = t.link(t.c2c_links(0).front());
  EXPECT_EQ(fast.bandwidth, device::bytes_per_ns(256));
  EXPECT_EQ(t.chip_hops(0, 2), 2u);
}

TEST(TopologyJson, LineWithParamsAndLinkOverride) {
  const Topology t = load_ok("line3_sunda.json");
  EXPECT_EQ(t.name(), "line3_sunda") << "the file stem names an unnamed topology";
  EXPECT_EQ(t.profile(), "sunda");
  EXPECT_EQ(t.num_cores(), 6u);
  EXPECT_EQ(t.params().c2c_latency, base::nanoseconds(250));
  EXPECT_EQ(t.degree(0), 1u);
  EXPECT_EQ(t.chip_hops(0, 2), 2u);
  EXPECT_EQ(t.link(t.c2c_links(0).front()).bandwidth, device::bytes_per_ns(96));
  EXPECT_EQ(t.link(t.c2c_links(2).front()).bandwidth, device::bytes_per_ns(48));
  EXPECT_EQ(t.link(t.c2c_links(2).front()).latency, base::nanoseconds(250));
}

TEST(TopologyJson, ParamOverridesComeAfterTheTopologysOwn) {
  // --param (D47): set after a built-in's table and after a file's "params", so links built
  // from the parameters take them too; none at all is load_topology() itself.
  const std::vector<device::ParamOverrideSpec> extra{{"c2c_latency", 400}, {"q7_desc_gen_cost", 0}};
  auto big = load_topology("trn2.48xlarge", extra);
  ASSERT_TRUE(big.ok()) << big.error().format();
  EXPECT_EQ(big->name(), "trn2.48xlarge");
  EXPECT_EQ(big->params().c2c_latency, base::nanoseconds(400));
  EXPECT_EQ(big->params().q7_desc_gen_cost, base::Tick{0});
  EXPECT_EQ(big->link(big->c2c_links(0).front()).latency, base::nanoseconds(400));
  auto plain = load_topology("trn2.48xlarge", {});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->params().c2c_latency, load_ok("trn2.48xlarge.json").params().c2c_latency);
  expect_same_links(*plain, load_ok("trn2.48xlarge.json"));

  const std::vector<device::ParamOverrideSpec> later{{"c2c_latency", 300}};
  auto line = load_topology(data("line3_sunda.json"), later);  // its file says 250
  ASSERT_TRUE(line.ok()) << line.error().format();
  EXPECT_EQ(line->params().c2c_latency, base::nanoseconds(300));
  EXPECT_EQ(line->link(line->c2c_links(0).front()).latency, base::nanoseconds(300));
  // The file's link override still holds (it sets a link, after the parameters).
  EXPECT_EQ(line->link(line->c2c_links(2).front()).bandwidth, device::bytes_per_ns(48));

  auto unknown = load_topology("trn9", extra);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, load_topology("trn9").error().message);
}

TEST(TopologyJson, ParamOverrideTextIsNameEqualsNumber) {
  auto ok = parse_param_override("c2c_bandwidth=12.5e1");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->name, "c2c_bandwidth");
  EXPECT_EQ(ok->value, 125.0);
  EXPECT_EQ(parse_param_override("dma_fixed_cost=0")->value, 0.0);
  // The value is the one the model keeps: times to 1 ps, bandwidths to 0.001 B/ns, no -0.
  EXPECT_EQ(parse_param_override("c2c_bandwidth=0.0015")->value, 0.002);
  EXPECT_EQ(parse_param_override("c2c_latency=0.0004")->value, 0.0);
  EXPECT_EQ(parse_param_override("c2c_latency=1.0006")->value, 1.001);
  EXPECT_FALSE(std::signbit(parse_param_override("c2c_latency=-0")->value));
  const std::pair<const char*, const char*> bad[] = {
      {"dma_fixed_cost",
       "'dma_fixed_cost': expected NAME=VALUE (a parameter of `sbrdma info "
       "params` and a number in its unit)"},
      {"dma_fixed_cost=", "'dma_fixed_cost=': '' is not a number"},
      {"dma_fixed_cost=1ns", "'dma_fixed_cost=1ns': '1ns' is not a number"},
      {"dma_fixed_cost=1-2", "'dma_fixed_cost=1-2': '1-2' is not a number"},
      {"dma_fixed_cost=inf", "'dma_fixed_cost=inf': 'inf' is not a number"},
      {"dma_fixed_cost=-1", "'dma_fixed_cost=-1': a time must be >= 0 and <= 1e9 ns"},
      {"a=b=c", "'a=b=c': unknown parameter 'a' (see `sbrdma info params`)"},
      {"dma_fixd_cost=1",
       "'dma_fixd_cost=1': unknown parameter 'dma_fixd_cost' (did you mean "
       "'dma_fixed_cost'? see `sbrdma info params`)"},
  };
  for (const auto& [text, message] : bad) {
    auto r = parse_param_override(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().message, message) << text;
  }
  // Text that is not printable is escaped, as every echoed value is.
  EXPECT_EQ(parse_param_override("x\n=1").error().message,
            "'x\\x0a=1': unknown parameter 'x\\x0a' (see `sbrdma info params`)");
}

TEST(TopologyJson, LinkEndsNameTheirDies) {
  const Topology t = load_ok("pair_dies.json");
  const device::Link& l = t.link(t.c2c_links(0).front());
  EXPECT_EQ(t.node_name(l.a), "chip0.die1");
  EXPECT_EQ(t.node_name(l.b), "chip1.die0");
  EXPECT_EQ(l.bandwidth, device::bytes_per_ns(128)) << "a z link";
  // core 0 (chip 0, die 0) -> core 8 (chip 1, die 0): D2D on chip 0 only.
  unsigned d2d = 0;
  for (const device::Hop& h : t.route(0, 8)) d2d += t.link(h.link).kind == LinkKind::kD2d;
  EXPECT_EQ(d2d, 1u);
}

TEST(TopologyJson, EachInvalidFileGivesItsError) {
  struct Case {
    const char* file;
    int line;
    const char* message;
  };
  const Case cases[] = {
      {"bad_syntax.json", 3,
       "malformed JSON: syntax error while parsing object - unexpected string literal; "
       "expected '}'"},
      {"bad_type.json", 0, "/chips: expected a non-negative integer, got \"16\""},
      {"missing_chips.json", 0, "/: missing field 'chips'"},
      {"link_to_missing_chip.json", 0, "/links/3/to: chip 17 does not exist (16 chips)"},
      {"duplicate_link.json", 0, "/links/2: duplicate of /links/0 (chip 0 - chip 1)"},
      {"self_link.json", 0, "/links/1: self link (chip 2 to itself)"},
      {"unknown_profile.json", 0,
       "/profile: unknown profile 'trainium9' (known: cayman, sunda, mariana)"},
      {"unreachable.json", 0,
       "/links: chip 3 is unreachable from chip 0 (all chips must be connected)"},
      {"torus_mismatch.json", 0, "/torus: 4 x 4 is not 8 chips (/chips)"},
      {"unknown_field.json", 0,
       "/links/0/bandwith_gbps: unknown field (did you mean 'bandwidth_gbps'?)"},
      {"bad_param.json", 0, "/params/c2c_latency: a time must be >= 0 and <= 1e9 ns"},
      {"two_shapes.json", 0, "/links: only one of torus, mesh, links may be given (torus is)"},
      {"bad_die.json", 0, "/links/0/to/die: die 1 does not exist (dies per chip: 1)"},
      {"override_no_link.json", 0, "/link_overrides/0/chips: no link between chip 0 and chip 5"},
      {"duplicate_key.json", 0, "/chips: duplicate key \"chips\""},
      {"duplicate_override.json", 0,
       "/link_overrides/1: duplicate of /link_overrides/0 (chip 0 - chip 1)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    auto t = load_topology(data(c.file));
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().loc.file, data(c.file));
    EXPECT_EQ(t.error().loc.line, c.line);
    EXPECT_EQ(t.error().message, c.message);
    EXPECT_EQ(t.error().format().find('\n'), std::string::npos);
  }
}

std::string parse_error(const std::string& text) {
  auto s = parse_topology_json(text, "t.json");
  return s.ok() ? "ok" : s.error().format();
}

TEST(TopologyJson, TypesAndShapesAreChecked) {
  EXPECT_EQ(parse_error(R"({"chips": 2})"), "ok");
  EXPECT_EQ(parse_error("[1]"), "t.json: error: /: expected an object, got an array");
  EXPECT_EQ(parse_error(R"({"chips": -1})"),
            "t.json: error: /chips: expected a non-negative integer, got -1");
  EXPECT_EQ(parse_error(R"({"chips": 1.5})"),
            "t.json: error: /chips: expected a non-negative integer, got 1.5, written with a "
            "fraction or an exponent");
  // An integer past 64 bits (which the reader keeps as a float) is too large, not "no integer".
  EXPECT_EQ(parse_error(R"({"chips": 18446744073709551617})"),
            "t.json: error: /chips: 1.8446744073709552e+19 is too large");
  EXPECT_EQ(parse_error(R"({"chips": 18446744073709551615})"),
            "t.json: error: /chips: 18446744073709551615 is too large");
  EXPECT_EQ(parse_error(R"({"chips": 2, "links": [{"from": 18446744073709551617, "to": 1}]})"),
            "t.json: error: /links/0/from: 1.8446744073709552e+19 is too large");
  EXPECT_EQ(parse_error(R"({"chips": 1, "dies_per_chip": -0})"),
            "t.json: error: /dies_per_chip: must be at least 1");  // JSON's -0 is the integer 0
  EXPECT_EQ(parse_error(R"({"chips": 2, "links": [{"from": -0, "to": 1}]})"), "ok");
  EXPECT_EQ(parse_error(R"({"chips": 1, "dies_per_chip": 0})"),
            "t.json: error: /dies_per_chip: must be at least 1");
  // The name is printed in one-line headers, plots and traces.
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "a\nb"})"),
            "t.json: error: /name: control character 0x0a in the name");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "R&D <x> \"q\""})"), "ok");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "a\u007fb"})"),
            "t.json: error: /name: control character 0x7f in the name");  // DEL
  // The largest count a file may give, and one past it.
  EXPECT_EQ(parse_error(R"({"chips": 1000000})"), "ok");
  EXPECT_EQ(parse_error(R"({"chips": 1000001})"), "t.json: error: /chips: 1000001 is too large");
  EXPECT_EQ(
      parse_error(R"({"chips": 2, "link_overrides": [{"chips": [0, 1, 1], "latency_ns": 5}]})"),
      "t.json: error: /link_overrides/0/chips: expected two chip numbers");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": ""})"),
            "t.json: error: /name: expected a non-empty string, got \"\"");
  EXPECT_EQ(parse_topology_json(R"({"chips": 1})", "").error().format(),
            "error: /: the file name, the topology's name when it gives none, is empty: give a "
            "\"name\"");
  EXPECT_TRUE(parse_topology_json(R"({"chips": 1, "name": "x"})", "").ok());
  // Only spaces is no name either: refused as the empty name is, the long one cut.
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "   "})"),
            "t.json: error: /name: expected a non-blank string, got \"   \"");
  EXPECT_EQ(
      parse_error(R"({"chips": 1, "name": ")" + std::string(1 << 20, ' ') + "\"}"),
      "t.json: error: /name: expected a non-blank string, got \"" + std::string(36, ' ') + "...");
  EXPECT_EQ(parse_topology_json(R"({"chips": 1})", "dir/  .json").error().format(),
            "dir/  .json: error: /: the file name, the topology's name when it gives none, is "
            "blank: give a \"name\"");
  EXPECT_TRUE(parse_topology_json(R"({"chips": 1, "name": "x"})", "dir/  .json").ok());
  EXPECT_TRUE(parse_topology_json(R"({"chips": 1})", "dir/ x .json").ok());
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": " x "})"), "ok");
  // A tab is a control character, refused as such wherever it is.
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": " \t "})"),
            "t.json: error: /name: control character 0x09 in the name");
  // Without a "name" the file's stem is the name: its control character is the file's.
  EXPECT_EQ(parse_topology_json(R"({"chips": 1})", "x\ty.json").error().format(),
            "x\\x09y.json: error: /: the file name, the topology's name when it gives none, has "
            "control character 0x09: give a \"name\"");
  EXPECT_TRUE(parse_topology_json(R"({"chips": 1, "name": "xy"})", "x\ty.json").ok());
  // Headers are UTF-8 and plots XML: a stem of other bytes, or a noncharacter, is refused.
  EXPECT_EQ(parse_topology_json(R"({"chips": 1})", "n\xe9.json").error().format(),
            "n\\xe9.json: error: /: the file name, the topology's name when it gives none, is "
            "not UTF-8 text that XML allows: \\xe9 at byte 1: give a \"name\"");
  EXPECT_TRUE(parse_topology_json(R"({"chips": 1, "name": "ne"})", "n\xe9.json").ok());
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "a\uffffb"})"),
            "t.json: error: /name: the name is not UTF-8 text that XML allows: "
            "\\xef\\xbf\\xbf at byte 1");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "caf\u00e9 \ud83d\ude00"})"), "ok");
  // C1 controls are control characters too (U+009B is a terminal's CSI); U+00A0 is not one.
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "c1\u009b31mred"})"),
            "t.json: error: /name: control character U+009B in the name");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "a\u0080"})"),
            "t.json: error: /name: control character U+0080 in the name");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "nl\u0085"})"),
            "t.json: error: /name: control character U+0085 in the name");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "\u00a0x\u00c2\u009fy"})"),
            "t.json: error: /name: control character U+009F in the name");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "nb\u00a0sp \u00c2"})"), "ok");
  // A name of Unicode spaces and zero-width characters shows as nothing; a bidirectional
  // control reorders the line around it. Both are refused, their code points named.
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "\u3000\u00a0"})"),
            "t.json: error: /name: expected a name that shows, got only spaces or invisible "
            "characters (U+3000 U+00A0)");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "\u200b"})"),
            "t.json: error: /name: expected a name that shows, got only spaces or invisible "
            "characters (U+200B)");
  EXPECT_EQ(
      parse_error(R"({"chips": 1, "name": " \ufeff\u2060\u200d\u202f\u205f\u1680\u3164\u2800 "})"),
      "t.json: error: /name: expected a name that shows, got only spaces or invisible "
      "characters (U+0020 U+FEFF U+2060 U+200D U+202F U+205F U+1680 U+3164 ...)");
  // Eight code points are named in full; a ninth gives the "...".
  EXPECT_EQ(
      parse_error(R"({"chips": 1, "name": "\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000"})"),
      "t.json: error: /name: expected a name that shows, got only spaces or invisible "
      "characters (U+3000 U+3000 U+3000 U+3000 U+3000 U+3000 U+3000 U+3000)");
  // Default-ignorable characters and combining marks show nothing of their own either.
  for (const char* name : {"\\u00ad", "\\ufe0f", "\\udb40\\udc41", "\\u115f", "\\u0301",
                           "\\u20e3\\u034f", "\\udb40\\udd00"}) {
    EXPECT_NE(parse_error(fmt::format(R"({{"chips": 1, "name": "{}"}})", name))
                  .find("expected a name that shows, got only spaces or invisible characters"),
              std::string::npos)
        << name;
  }
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "e\u0301 a\u00adb"})"), "ok");
  // The line and paragraph separators break a one-line header: refused wherever they sit.
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "a\u2028b"})"),
            "t.json: error: /name: line break U+2028 in the name");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "x\u2029"})"),
            "t.json: error: /name: line break U+2029 in the name");
  EXPECT_EQ(parse_topology_json(R"({"chips": 1})", "\u3000.json").error().format(),
            "\\xe3\\x80\\x80.json: error: /: the file name, the topology's name when it gives "
            "none, shows "
            "as blank (U+3000): give a \"name\"");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "\u3000x\u200b"})"), "ok");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "abc\u202egnp.exe"})"),
            "t.json: error: /name: bidirectional control U+202E in the name");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "x\u2066y"})"),
            "t.json: error: /name: bidirectional control U+2066 in the name");
  EXPECT_EQ(parse_error(R"({"chips": 1, "name": "\u05e9\u05dc\u05d5\u05dd 2"})"), "ok");
  EXPECT_EQ(
      parse_topology_json(R"({"chips": 1})", "x\xc2\x85.json").error().format(),
      "x\\xc2\\x85.json: error: /: the file name, the topology's name when it gives none, has "
      "control character U+0085: give a \"name\"");
  EXPECT_EQ(parse_error(R"({"chips": 4, "torus": [4, "x"]})"),
            "t.json: error: /torus/1: expected a non-negative integer, got \"x\"");
  EXPECT_EQ(parse_error(R"({"chips": 2, "links": [{"from": 0}]})"),
            "t.json: error: /links/0: missing field 'to'");
  EXPECT_EQ(parse_error(R"({"chips": 2, "links": [{"from": 0, "to": [1]}]})"),
            "t.json: error: /links/0/to: expected a chip number or {\"chip\": N, \"die\": D}, "
            "got an array");
  EXPECT_EQ(parse_error(R"({"chips": 2, "links": [{"from": 0, "to": 1, "z": 1}]})"),
            "t.json: error: /links/0/z: expected true or false, got 1");
  EXPECT_EQ(parse_error(R"({"chips": 2, "params": {"c2c_latency": "fast"}})"),
            "t.json: error: /params/c2c_latency: expected a number, got \"fast\"");
  EXPECT_EQ(parse_error(R"({"chips": 2, "link_overrides": [{"chips": [0]}]})"),
            "t.json: error: /link_overrides/0/chips: expected two chip numbers");
  EXPECT_EQ(parse_error(R"({"chips": 2, "a/b": 1})"), "t.json: error: /a~1b: unknown field");
  // The empty key's path is "/", which reads like the whole document's: the message names it.
  EXPECT_EQ(parse_error(R"({"chips": 2, "": 1})"),
            R"(t.json: error: /: unknown field "" (an empty key))");
  EXPECT_EQ(parse_error(R"({"chips": 2, "links": [{"from": 0, "to": 1, "": 1}]})"),
            R"(t.json: error: /links/0/: unknown field "" (an empty key))");
  // A slip, or a name without its unit, gets the field it likely meant.
  EXPECT_EQ(parse_error(R"({"chps": 2})"),
            "t.json: error: /chps: unknown field (did you mean 'chips'?)");
  EXPECT_EQ(parse_error(R"({"chips": 1, "cores": 8})"),
            "t.json: error: /cores: unknown field (did you mean 'cores_per_die'?)");
  EXPECT_EQ(parse_error(R"({"chips": 2, "links": [{"from": 0, "to": 1, "latency": 5}]})"),
            "t.json: error: /links/0/latency: unknown field (did you mean 'latency_ns'?)");
  EXPECT_EQ(parse_error(R"({"chips": 2, "links": [{"from": 0, "to": 1}], "link_overrides": )"
                        R"([{"chips": [0, 1], "bandwidth": 1}]})"),
            "t.json: error: /link_overrides/0/bandwidth: unknown field (did you mean "
            "'bandwidth_gbps'?)");
  EXPECT_EQ(parse_error("{\"chips\": 2, \"links\": [{\"" + std::string(1 << 20, 'k') + "\": 1}]}"),
            "t.json: error: /links/0/" + std::string(37, 'k') + "...: unknown field");
  // A key twice is refused wherever it is, not read as its last value.
  EXPECT_EQ(parse_error(R"({"chips": 1, "chips": 4})"),
            R"(t.json: error: /chips: duplicate key "chips")");
  EXPECT_EQ(parse_error(R"({"chips": 2, "params": {"c2c_latency": 1, "c2c_latency": 2}})"),
            R"(t.json: error: /params/c2c_latency: duplicate key "c2c_latency")");
  EXPECT_EQ(parse_error(R"({"chips": 2, "links": [{"from": 0, "to": 1, "to": 0}]})"),
            R"(t.json: error: /links/0/to: duplicate key "to")");
  EXPECT_EQ(parse_error(R"({"chips": 2, "links": [{"from": 0, "to": {"chip": 1, "chip": 1}}]})"),
            R"(t.json: error: /links/0/to/chip: duplicate key "chip")");
  // z_dims is a list of dimensions (docs/topology-json.md), never a number.
  EXPECT_EQ(parse_error(R"({"chips": 8, "torus": [2, 2, 2], "z_dims": 2})"),
            "t.json: error: /z_dims: expected an array of integers, got 2");
  EXPECT_EQ(parse_error(""),
            "t.json:1: error: malformed JSON: syntax error while parsing value - unexpected end "
            "of input; expected '[', '{', or a literal");
}

TEST(TopologyJson, BuilderErrorsThroughAFile) {
  auto spec = parse_topology_json(R"({"chips": 2, "params": {"warp_speed": 9}})", "t.json");
  ASSERT_TRUE(spec.ok());
  auto t = device::build_topology(*spec);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            "/params/warp_speed: unknown parameter 'warp_speed' (see `sbrdma info params`)");
  // A control byte in the name is escaped in the path too: one line.
  auto ctl = parse_topology_json(R"({"chips": 2, "params": {"w\n": 9}})", "t.json");
  ASSERT_TRUE(ctl.ok());
  EXPECT_EQ(device::build_topology(*ctl).error().message,
            "/params/w\\x0a: unknown parameter 'w\\x0a' (see `sbrdma info params`)");
  // A long one is cut to 40 characters in both, as an echoed token is.
  const std::string cut = std::string(37, 'w') + "...";
  auto long_name = parse_topology_json(
      "{\"chips\": 2, \"params\": {\"" + std::string(1 << 20, 'w') + "\": 9}}", "t.json");
  ASSERT_TRUE(long_name.ok());
  EXPECT_EQ(device::build_topology(*long_name).error().message,
            "/params/" + cut + ": unknown parameter '" + cut + "' (see `sbrdma info params`)");
}

TEST(TopologyJson, NamesAndPaths) {
  auto builtin = load_topology("trn1");
  ASSERT_TRUE(builtin.ok());
  EXPECT_EQ(builtin->num_cores(), 2u);
  auto unknown = load_topology("trn9");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().format(),
            "error: unknown topology 'trn9' (built-in: trn2, trn2.48xlarge, trn2u, trn1, "
            "trn1.32xlarge; or a JSON file)");
  auto missing = load_topology(data("no_such_file.json"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "cannot open: No such file or directory");
  // A name ending in .json is a file even without a slash: a missing one cannot be opened,
  // it is no unknown built-in.
  EXPECT_TRUE(names_topology_file("no_such_topology.json"));
  auto bare = load_topology("no_such_topology.json");
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.error().message, "cannot open: No such file or directory");
}

}  // namespace
TEST(TopologyJson, AnEngineRateThePortsCapIsNamed) {
  // The port bandwidths are parameters of their own (368 B/ns = 16 x 23 on trn2): a faster
  // engine rate alone is capped by them, and the note says which and that they stay.
  const auto notes = [](std::vector<device::ParamOverrideSpec> params) {
    auto t = load_topology("trn2", params);
    EXPECT_TRUE(t.ok());
    return t.ok() ? params_without_effect(*t, params) : std::vector<std::string>{};
  };
  using P = device::ParamOverrideSpec;
  EXPECT_EQ(notes({P{"dma_engine_rate", 46}}),
            (std::vector<std::string>{
                "dma_engine_rate=46: a core's 16 engines at 46 B/ns would stream 736 B/ns "
                "together, but sbuf_port_bandwidth (368 B/ns) and onchip_bandwidth (368 B/ns) "
                "cap them at 368 B/ns: the ports do not follow the rate; set them too"}));
  EXPECT_EQ(notes({P{"dma_engine_rate", 46}, P{"onchip_bandwidth", 800}}),
            (std::vector<std::string>{
                "dma_engine_rate=46: a core's 16 engines at 46 B/ns would stream 736 B/ns "
                "together, but sbuf_port_bandwidth (368 B/ns) caps them at 368 B/ns: it does not "
                "follow the rate; set it too"}));
  // Two ports below: the cap is the lower.
  EXPECT_EQ(notes({P{"dma_engine_rate", 46}, P{"sbuf_port_bandwidth", 500}}),
            (std::vector<std::string>{
                "dma_engine_rate=46: a core's 16 engines at 46 B/ns would stream 736 B/ns "
                "together, but sbuf_port_bandwidth (500 B/ns) and onchip_bandwidth (368 B/ns) "
                "cap them at 368 B/ns: the ports do not follow the rate; set them too"}));
  // Both ports at least 16 x the rate, the built-in rate, or a slower one: nothing to say.
  EXPECT_TRUE(
      notes({P{"dma_engine_rate", 46}, P{"sbuf_port_bandwidth", 736}, P{"onchip_bandwidth", 736}})
          .empty());
  EXPECT_TRUE(notes({P{"dma_engine_rate", 23}}).empty());
  EXPECT_TRUE(notes({P{"dma_engine_rate", 11.5}}).empty());
  // Only a --param rate is judged: ports lowered under the built-in rate are what was asked.
  EXPECT_TRUE(notes({P{"sbuf_port_bandwidth", 100}}).empty());
}

TEST(TopologyJson, AParameterNoLinkTakesIsNamedWithWhy) {
  const auto notes = [](std::string_view topo, std::vector<device::ParamOverrideSpec> params) {
    auto t = load_topology(topo, params);
    EXPECT_TRUE(t.ok()) << topo;
    return t.ok() ? params_without_effect(*t, params) : std::vector<std::string>{};
  };
  using P = device::ParamOverrideSpec;
  EXPECT_EQ(notes("trn2", {P{"c2c_latency", 400}, P{"dma_fixed_cost", 0}}),
            (std::vector<std::string>{"c2c_latency=400 changes nothing on trn2: it has one chip, "
                                      "and no chip-to-chip link"}));
  EXPECT_EQ(notes("trn1", {P{"d2d_bandwidth", 10}}),
            (std::vector<std::string>{"d2d_bandwidth=10 changes nothing on trn1: its chips have "
                                      "one die, and no die-to-die link"}));
  // trn2.48xlarge has no Z links; trn2u's links between instances are.
  EXPECT_EQ(notes("trn2.48xlarge", {P{"c2c_z_bandwidth", 3}, P{"c2c_latency", 7}}),
            (std::vector<std::string>{"c2c_z_bandwidth=3 changes nothing on trn2.48xlarge: no "
                                      "chip-to-chip link there is a Z link"}));
  EXPECT_TRUE(notes("trn2u", {P{"c2c_z_bandwidth", 3}, P{"d2d_latency", 1}}).empty());
  const auto file_notes = [](std::string_view json, std::vector<device::ParamOverrideSpec> ps) {
    auto sp = parse_topology_json(json, "t.json");
    EXPECT_TRUE(sp.ok()) << json;
    if (!sp.ok()) return std::vector<std::string>{};
    sp->params = ps;
    auto t = device::build_topology(*sp);
    EXPECT_TRUE(t.ok()) << json;
    return t.ok() ? params_without_effect(*t, ps) : std::vector<std::string>{};
  };
  // A file whose every link sets its own bandwidth, but not its latency.
  const std::string_view own5 =
      R"({"name": "own", "chips": 2, "links": [{"from": 0, "to": 1, "bandwidth_gbps": 5}]})";
  EXPECT_EQ(file_notes(own5, {P{"c2c_bandwidth", 1}, P{"c2c_latency", 9}}),
            (std::vector<std::string>{"c2c_bandwidth=1 changes nothing on own: each "
                                      "chip-to-chip link there sets its own bandwidth_gbps"}));
  // Judged by where a link's figures come from, not by their values: a value equal to the
  // link's own (5) or to a Z link's (128) is still noted, and a Z link is no reason for
  // c2c_bandwidth's note to say "sets its own".
  EXPECT_EQ(file_notes(own5, {P{"c2c_z_bandwidth", 5}}),
            (std::vector<std::string>{"c2c_z_bandwidth=5 changes nothing on own: no "
                                      "chip-to-chip link there is a Z link"}));
  EXPECT_EQ(file_notes(own5, {P{"c2c_bandwidth", 5}}),
            (std::vector<std::string>{"c2c_bandwidth=5 changes nothing on own: each "
                                      "chip-to-chip link there sets its own bandwidth_gbps"}));
  const std::string_view allz =
      R"({"name": "allz", "chips": 2, "links": [{"from": 0, "to": 1, "z": true}]})";
  for (const double v : {127.0, 128.0}) {
    EXPECT_EQ(file_notes(allz, {P{"c2c_bandwidth", v}}),
              (std::vector<std::string>{fmt::format(
                  "c2c_bandwidth={} changes nothing on allz: every chip-to-chip link there is a "
                  "Z link (c2c_z_bandwidth)",
                  v)}));
  }
  EXPECT_TRUE(file_notes(allz, {P{"c2c_z_bandwidth", 5}, P{"c2c_latency", 9}}).empty());
  // A Z link that sets its own bandwidth, beside a plain link that sets its own too.
  const std::string_view mixed = R"({"name": "mixed", "chips": 3, "links": [
      {"from": 0, "to": 1, "z": true, "bandwidth_gbps": 7, "latency_ns": 3},
      {"from": 1, "to": 2, "bandwidth_gbps": 8, "latency_ns": 4}]})";
  EXPECT_EQ(
      file_notes(mixed, {P{"c2c_bandwidth", 1}, P{"c2c_z_bandwidth", 2}, P{"c2c_latency", 3}}),
      (std::vector<std::string>{
          "c2c_bandwidth=1 changes nothing on mixed: each chip-to-chip link there is a Z "
          "link (c2c_z_bandwidth) or sets its own bandwidth_gbps",
          "c2c_z_bandwidth=2 changes nothing on mixed: each Z link there sets its own "
          "bandwidth_gbps",
          "c2c_latency=3 changes nothing on mixed: each chip-to-chip link there sets its "
          "own latency_ns"}));
  // A grid's Z links take c2c_z_bandwidth, unless link_overrides set their own.
  const std::string_view zgrid = R"({"name": "zg", "chips": 2, "torus": [2], "z_dims": [0]})";
  EXPECT_EQ(file_notes(zgrid, {P{"c2c_bandwidth", 3}}),
            (std::vector<std::string>{"c2c_bandwidth=3 changes nothing on zg: every chip-to-chip "
                                      "link there is a Z link (c2c_z_bandwidth)"}));
  EXPECT_TRUE(file_notes(zgrid, {P{"c2c_z_bandwidth", 3}}).empty());
  EXPECT_EQ(file_notes(R"({"name": "zo", "chips": 2, "torus": [2], "z_dims": [0],
      "link_overrides": [{"chips": [0, 1], "bandwidth_gbps": 9}]})",
                       {P{"c2c_z_bandwidth", 3}}),
            (std::vector<std::string>{"c2c_z_bandwidth=3 changes nothing on zo: each Z link "
                                      "there sets its own bandwidth_gbps"}));
  // link_overrides set a built link's own figures too.
  EXPECT_EQ(file_notes(R"({"name": "ov", "chips": 2, "torus": [2],
      "link_overrides": [{"chips": [0, 1], "latency_ns": 50}]})",
                       {P{"c2c_latency", 3}, P{"c2c_bandwidth", 3}}),
            (std::vector<std::string>{"c2c_latency=3 changes nothing on ov: each chip-to-chip "
                                      "link there sets its own latency_ns"}));
}

TEST(TopologyJson, AFileTellsItselfApartWhereItCouldPassForAnother) {
  using P = device::ParamOverrideSpec;
  EXPECT_EQ(topology_file_note("trn2", "", {}), "");  // the built-in itself
  EXPECT_EQ(topology_file_note("slow", "s.json", {}), "");
  EXPECT_EQ(topology_file_note("trn2", "t.json", {}), " (topology file t.json)");
  EXPECT_EQ(topology_file_note("slow", "s.json", std::vector<P>{P{"c2c_latency", 400}}),
            " (its file sets c2c_latency=400)");
  EXPECT_EQ(topology_file_note("trn2u", "u.json", std::vector<P>{P{"a", 1}, P{"b", 2.5}}),
            " (topology file u.json, which sets a=1, b=2.5)");
  // A built-in's name with an invisible character or a space still shows as that name.
  EXPECT_EQ(topology_file_note("trn2\u200b", "t.json", {}), " (topology file t.json)");
  EXPECT_EQ(topology_file_note("trn2 ", "t.json", {}), " (topology file t.json)");
  EXPECT_EQ(topology_file_note("trn2\u00ad.48xlarge", "t.json", {}), " (topology file t.json)");
  EXPECT_EQ(topology_file_note("trn2x", "t.json", {}), "");
}

}  // namespace sbrdma::platform
