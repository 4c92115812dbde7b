#include "platform/program_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "base/check.h"
#include "base/nearest_name.h"
#include "base/printable.h"
#include "firmware/config.h"
#include "isa/assembler.h"

namespace sbrdma::platform {
namespace {

/// A directive's key=value tokens: the values, and the keys of tokens without '=' (told as
/// such, so not told missing as well).
struct Keys {
  std::map<std::string_view, std::string_view> values;
  std::set<std::string_view> broken;
};

std::string join(std::initializer_list<std::string_view> names) {
  std::string out;
  for (const std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

/// The errors of one directive line: every part is checked and each fault told, as an
/// instruction line's are (the assembler reports them all).
class LineErrors {
 public:
  /// The value of `r`, or nullopt with its error kept.
  template <typename T>
  std::optional<T> take(base::Result<T> r) {
    if (r) return std::move(*r);
    add(r.error());
    return std::nullopt;
  }
  /// Keeps the error of `s`, if any; true if there was none.
  bool check(const base::Status& s) {
    if (s) return true;
    add(s.error());
    return false;
  }
  void add(base::Error e) {
    e.message.insert(0, side_);
    list_.push_back(std::move(e));
  }
  [[nodiscard]] std::size_t count() const { return list_.size(); }
  base::Errors done() { return std::move(list_); }
  /// Words put before every message from now on (which side of a line the errors are about;
  /// "" for none).
  void set_side(std::string side) { side_ = std::move(side); }

 private:
  base::Errors list_;
  std::string side_;
};

/// key=value tokens into `keys`; errors, each told: no '=', a key not in `allowed`, a key
/// twice.
void parse_keys(std::span<const std::string_view> tokens,
                std::initializer_list<std::string_view> allowed, std::string_view what, Keys& keys,
                LineErrors& errors) {
  for (const std::string_view tok : tokens) {
    const auto eq = tok.find('=');
    if (eq == std::string_view::npos) {
      errors.add(base::make_error(
          fmt::format("missing '=' in '{}' ({})", base::printable_brief(tok), what)));
      keys.broken.insert(tok);
      continue;
    }
    const std::string_view key = tok.substr(0, eq);
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      errors.add(base::make_error(fmt::format("unknown key '{}' for {} ({})",
                                              base::printable_brief(key), what, join(allowed))));
      continue;
    }
    if (!keys.values.emplace(key, tok.substr(eq + 1)).second) {
      errors.add(base::make_error(
          fmt::format("duplicate key '{}' for {}", base::printable_brief(key), what)));
    }
  }
}

/// `LO:HI` read as the half-open range [LO, HI) inside 0:`limit` (LO < HI <= limit) for key
/// `key`, whose ends are named `lo` and `hi` ("P0", "P1"); `note` ends the range error's
/// parenthesis. Errors: the first fault (no single ':', a bad number, not such a range).
base::Result<std::pair<unsigned, unsigned>> half_open_range(std::string_view text,
                                                            std::string_view key,
                                                            std::string_view lo,
                                                            std::string_view hi, unsigned limit,
                                                            std::string_view note) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos) {
    return base::make_error(
        fmt::format("bad {} '{}' (expected {}:{})", key, base::printable_brief(text), lo, hi));
  }
  // Numbers past the limit (64 bits or not) are out of the range like any other.
  auto a = parse_number_at_most(text.substr(0, colon), key, limit);
  if (!a) return a.error();
  auto b = parse_number_at_most(text.substr(colon + 1), key, limit);
  if (!b) return b.error();
  if (!*a || !*b || **a >= **b) {
    return base::make_error(
        fmt::format("{} {} are not a range inside 0:{} ({} < {}, {} exclusive{})", key,
                    base::printable_brief(text), limit, lo, hi, hi, note));
  }
  return std::pair{static_cast<unsigned>(**a), static_cast<unsigned>(**b)};
}

/// The value of `key`, or nullopt with "missing key" told (unless a token named it without
/// '=': that error is told already).
std::optional<std::string_view> required(const Keys& keys, std::string_view key,
                                         std::string_view what, LineErrors& errors) {
  if (auto it = keys.values.find(key); it != keys.values.end()) return it->second;
  if (!keys.broken.contains(key)) {
    errors.add(base::make_error(fmt::format("missing key '{}' for {}", key, what)));
  }
  return std::nullopt;
}

/// The parse state shared by the directive handler and the final assembly of the program.
class Parser {
 public:
  Parser(const device::Topology& topo, const soc::Profile& profile)
      : topo_(topo), profile_(profile) {}

  base::Errors directive(std::string_view line, const base::SourceLoc& loc) {
    const std::vector<std::string_view> tok = isa::split_blanks(line);
    const std::string_view name = tok.front();
    const std::span<const std::string_view> args(tok.begin() + 1, tok.end());
    LineErrors errors;
    if (name == ".core") {
      core(args, loc, errors);
    } else if (name == ".init") {
      init(args, loc, errors);
    } else if (name == ".expect") {
      if (args.empty()) {
        errors.add(base::make_error(".expect needs a kind: sem or sbuf"));
      } else if (args[0] == "sem") {
        expect_sem(args.subspan(1), line, loc, errors);
      } else if (args[0] == "sbuf") {
        expect_sbuf(args.subspan(1), line, loc, errors);
      } else {
        errors.add(base::make_error(fmt::format("unknown .expect kind '{}' (sem or sbuf)",
                                                base::printable_brief(args[0]))));
      }
    } else if (name == ".dump") {
      if (args.empty()) {
        errors.add(base::make_error(".dump needs a kind: sbuf or ring"));
      } else if (args[0] == "sbuf") {
        dump_sbuf(args.subspan(1), line, loc, errors);
      } else if (args[0] == "ring") {
        dump_ring(args.subspan(1), line, loc, errors);
      } else {
        errors.add(base::make_error(
            fmt::format("unknown .dump kind '{}' (sbuf or ring)", base::printable_brief(args[0]))));
      }
    } else {
      static constexpr std::array<std::string_view, 5> kDirectives{".core", ".init", ".expect",
                                                                   ".dump", ".raw"};
      const auto near = base::nearest_name(name, kDirectives);
      errors.add(base::make_error(
          fmt::format("unknown directive '{}'{} ({})", base::printable_brief(name),
                      near ? fmt::format("; did you mean '{}'?", *near) : std::string(),
                      fmt::join(kDirectives, ", "))));
    }
    return errors.done();
  }

  /// A section from line 0, before any `.core` line, for `core`'s words. Contract: `core`
  /// exists.
  void open_first(device::CoreId core) {
    sections_.push_back(CoreSection{0, core});
    program.cores.push_back(CoreProgram{core, {}, {}});
  }

  /// The section of a `.core` line that named no core.
  static constexpr device::CoreId kBadSection = ~device::CoreId{0};

  /// The core of the `.core` section a line belongs to (kBadSection: a bad one), if any.
  [[nodiscard]] std::optional<device::CoreId> core_at(int line) const {
    return platform::core_at(sections_, line);
  }

  ProgramFile program;

 private:
  base::Result<device::CoreId> core_id(std::string_view text) const {
    auto v = parse_number_at_most(text, "core", topo_.num_cores() - 1ULL);
    if (!v) return v.error();
    if (!*v) {
      // A number past 64 bits is on no topology: UINT64_MAX names none.
      const auto n = parse_number(text, "core");
      return base::make_error(
          device::missing_core_message(base::printable_brief(text), n ? *n : UINT64_MAX, topo_));
    }
    return static_cast<device::CoreId>(**v);
  }

  void core(std::span<const std::string_view> args, const base::SourceLoc& loc,
            LineErrors& errors) {
    // A bad .core still opens a section: its words are skipped, not each reported as outside
    // any section (the .core line's own error says what is wrong).
    if (args.size() != 1) {
      sections_.push_back(CoreSection{loc.line, kBadSection});
      errors.add(base::make_error(".core takes one core id: .core N"));
      return;
    }
    auto c = errors.take(core_id(args[0]));
    if (!c) {
      sections_.push_back(CoreSection{loc.line, kBadSection});
      return;
    }
    sections_.push_back(CoreSection{loc.line, *c});
    auto it = std::find_if(program.cores.begin(), program.cores.end(),
                           [&](const CoreProgram& p) { return p.core == *c; });
    if (it == program.cores.end()) program.cores.push_back(CoreProgram{*c, {}, {}});
  }

  /// core=, addr=, bytes= and partitions= of a region, each checked: nullopt if core, addr or
  /// bytes is bad; a bad partitions= is told and leaves every partition in the region, whose
  /// range can then still be checked (the caller keeps no region from a line with errors).
  /// `length`, where not need_bytes: the bytes the region will take, if known (to check the
  /// range of a region whose core is bad).
  std::optional<SbufRegion> region(const Keys& keys, std::string_view what, bool need_bytes,
                                   LineErrors& errors,
                                   std::optional<std::uint64_t> length = std::nullopt) const {
    const std::size_t before = errors.count();
    SbufRegion r;
    r.end_partition = profile_.sbuf_partitions;
    if (auto c = required(keys, "core", what, errors)) {
      if (auto core = errors.take(core_id(*c))) r.core = *core;
    }
    const bool core_ok = errors.count() == before;
    if (auto a = required(keys, "addr", what, errors)) {
      if (auto addr = errors.take(parse_number(*a, "addr"))) r.offset = *addr;
    }
    if (need_bytes) {
      if (auto b = required(keys, "bytes", what, errors)) {
        if (auto bytes = errors.take(parse_number(*b, "bytes"))) {
          if (*bytes == 0) errors.add(base::make_error("bytes must be at least 1"));
          r.bytes = *bytes;
        }
      }
    }
    const bool fields_ok = errors.count() == before;
    const bool rest_ok = core_ok || errors.count() == before + 1;  // all but the core
    if (auto it = keys.values.find("partitions"); it != keys.values.end()) {
      errors.check(partitions(it->second, r));
    }
    if (!fields_ok) {
      // A bad core leaves the range to check (on any core: they have one SBUF shape), so
      // that each fault of the line is told.
      if (!core_ok && rest_ok && (need_bytes || length)) {
        SbufRegion any = r;
        any.core = 0;
        if (!need_bytes) any.bytes = *length;
        errors.check(check_region(any, topo_, profile_));
      }
      return std::nullopt;
    }
    return r;
  }

  static base::Status partitions(std::string_view text, SbufRegion& r) {
    auto range = half_open_range(text, "partitions", "P0", "P1", r.end_partition, "");
    if (!range) return range.error();
    std::tie(r.first_partition, r.end_partition) = *range;
    return base::ok_status();
  }

  void init(std::span<const std::string_view> args, const base::SourceLoc& loc,
            LineErrors& errors) {
    Keys keys;
    parse_keys(args, {"core", "addr", "bytes", "pattern", "partitions"}, ".init", keys, errors);
    auto r = region(keys, ".init", true, errors);
    if (r) errors.check(check_region(*r, topo_, profile_));
    std::optional<FillPattern> p;
    if (auto pat = required(keys, "pattern", ".init", errors)) {
      p = errors.take(parse_fill_pattern(*pat));
    }
    if (r && p && errors.count() == 0) program.inits.push_back(InitDirective{loc, *r, *p});
  }

  void expect_sem(std::span<const std::string_view> args, std::string_view line,
                  const base::SourceLoc& loc, LineErrors& errors) {
    Keys keys;
    parse_keys(args, {"core", "idx", "value"}, ".expect sem", keys, errors);
    SemExpect e{loc, std::string(line), 0, 0, 0};
    if (auto c = required(keys, "core", ".expect sem", errors)) {
      if (auto core = errors.take(core_id(*c))) e.core = *core;
    }
    if (auto i = required(keys, "idx", ".expect sem", errors)) {
      if (auto idx = errors.take(parse_number_at_most(*i, "idx", profile_.semaphores - 1ULL))) {
        if (!*idx) {
          errors.add(base::make_error(fmt::format(
              "idx {} out of range (0..{})", base::printable_brief(*i), profile_.semaphores - 1)));
        } else {
          e.idx = static_cast<unsigned>(**idx);
        }
      }
    }
    if (auto v = required(keys, "value", ".expect sem", errors)) {
      if (auto value = errors.take(parse_semaphore_value(*v, "value"))) e.value = *value;
    }
    if (errors.count() == 0) program.sem_expects.push_back(std::move(e));
  }

  void expect_sbuf(std::span<const std::string_view> args, std::string_view line,
                   const base::SourceLoc& loc, LineErrors& errors) {
    const auto eq = std::find(args.begin(), args.end(), "equals");
    const bool pattern_form = eq == args.end() && std::any_of(args.begin(), args.end(), [](auto t) {
                                return t.starts_with("pattern=");
                              });
    if (pattern_form) {  // the region holds a pattern's bytes, as .init writes them
      Keys keys;
      parse_keys(args, {"core", "addr", "bytes", "pattern", "partitions"}, ".expect sbuf", keys,
                 errors);
      auto r = region(keys, ".expect sbuf", true, errors);
      if (r) errors.check(check_region(*r, topo_, profile_));
      std::optional<FillPattern> p;
      if (auto pat = required(keys, "pattern", ".expect sbuf", errors)) {
        p = errors.take(parse_fill_pattern(*pat));
      }
      if (r && p && errors.count() == 0) {
        program.sbuf_expects.push_back(SbufExpect{loc, std::string(line), *r, {}, *p});
      }
      return;
    }
    if (eq == args.end()) {
      errors.add(base::make_error(
          ".expect sbuf needs 'equals core=M addr=A2' or 'pattern=P' after its region"));
      return;
    }
    if (eq == args.begin()) {  // else the second region's keys read as the first's, twice
      errors.add(base::make_error(
          ".expect sbuf needs its region 'core=N addr=A bytes=B' before 'equals'"));
      return;
    }
    if (std::any_of(args.begin(), args.end(), [](auto t) { return t.starts_with("pattern="); })) {
      // Not "unknown key 'pattern'": it is a key of .expect sbuf, of its other form.
      errors.add(base::make_error(
          ".expect sbuf takes either 'pattern=P' or 'equals core=M addr=A2', not both"));
      return;
    }
    const std::span<const std::string_view> lhs(args.begin(), eq);
    const std::span<const std::string_view> rhs(eq + 1, args.end());
    Keys left;
    Keys right;
    parse_keys(lhs, {"core", "addr", "bytes", "partitions"}, ".expect sbuf", left, errors);
    parse_keys(rhs, {"core", "addr", "partitions"}, ".expect sbuf ... equals", right, errors);
    const bool both_partitions =
        left.values.contains("partitions") && right.values.contains("partitions");
    if (both_partitions) {
      errors.add(base::make_error("duplicate key 'partitions' for .expect sbuf (give it once)"));
    }
    auto a = region(left, ".expect sbuf", true, errors);
    // The partitions after 'equals' are the first region's (they are checked on their own when
    // that region is bad).
    errors.set_side("after 'equals': ");
    if (auto it = right.values.find("partitions"); it != right.values.end() && !both_partitions) {
      SbufRegion parts;
      parts.end_partition = profile_.sbuf_partitions;
      if (errors.check(partitions(it->second, parts)) && a) {
        a->first_partition = parts.first_partition;
        a->end_partition = parts.end_partition;
      }
    }
    Keys right_region = right;
    right_region.values.erase("partitions");  // the first region's, read above
    auto b = region(right_region, ".expect sbuf", false, errors,
                    a ? std::optional(a->bytes) : std::nullopt);  // said after 'equals'

    errors.set_side("");
    if (a) errors.check(check_region(*a, topo_, profile_));
    if (a && b) {
      b->bytes = a->bytes;
      b->first_partition = a->first_partition;
      b->end_partition = a->end_partition;
      errors.set_side("after 'equals': ");
      errors.check(check_region(*b, topo_, profile_));
      errors.set_side("");
    }
    if (errors.count() == 0)
      program.sbuf_expects.push_back(SbufExpect{loc, std::string(line), *a, *b, std::nullopt});
  }

  void dump_sbuf(std::span<const std::string_view> args, std::string_view line,
                 const base::SourceLoc& loc, LineErrors& errors) {
    Keys keys;
    parse_keys(args, {"core", "addr", "bytes", "partitions"}, ".dump sbuf", keys, errors);
    auto r = region(keys, ".dump sbuf", true, errors);
    if (r) {
      errors.check(check_region(*r, topo_, profile_));
      // Told beside a range fault too: each is its own fix. (bytes alone past the limit is
      // past it over any partitions, and keeps the product from overflowing.)
      if (r->bytes > kMaxDumpBytes || r->total_bytes() > kMaxDumpBytes) {
        errors.add(base::make_error(fmt::format(
            ".dump sbuf prints at most {} bytes (1 MiB) over its partitions; this one covers "
            "{} partition{} x {}: narrow it with partitions=P0:P1 or a smaller bytes=",
            kMaxDumpBytes, r->partitions(), r->partitions() == 1 ? "" : "s", r->bytes)));
      }
    }
    if (r && errors.count() == 0) program.dumps.push_back(SbufDump{loc, std::string(line), *r});
  }

  void dump_ring(std::span<const std::string_view> args, std::string_view line,
                 const base::SourceLoc& loc, LineErrors& errors) {
    Keys keys;
    parse_keys(args, {"core", "engine", "slots", "hex"}, ".dump ring", keys, errors);
    RingDump d{loc, std::string(line), 0, 0, std::nullopt, false};
    if (auto c = required(keys, "core", ".dump ring", errors)) {
      if (auto core = errors.take(core_id(*c))) d.core = *core;
    }
    if (auto e = required(keys, "engine", ".dump ring", errors)) {
      const unsigned engines = profile_.dma_engines_per_tpb;
      if (auto engine = errors.take(parse_number_at_most(*e, "engine", engines - 1ULL))) {
        if (!*engine) {
          errors.add(base::make_error(fmt::format("engine {} out of range (0..{})",
                                                  base::printable_brief(*e), engines - 1)));
        } else {
          d.engine = static_cast<unsigned>(**engine);
        }
      }
    }
    if (auto it = keys.values.find("slots"); it != keys.values.end()) {
      const unsigned depth = firmware::FirmwareConfig{}.ring_depth;
      d.slots = errors.take(half_open_range(it->second, "slots", "A", "B", depth,
                                            fmt::format("; a ring has {} slots", depth)));
    }
    if (auto it = keys.values.find("hex"); it != keys.values.end()) {
      if (it->second == "yes" || it->second == "no") {
        d.hex = it->second == "yes";
      } else {
        errors.add(base::make_error(
            fmt::format("bad hex '{}' (expected yes or no)", base::printable_brief(it->second))));
      }
    }
    if (errors.count() == 0) program.ring_dumps.push_back(std::move(d));
  }

  const device::Topology& topo_;
  const soc::Profile& profile_;
  std::vector<CoreSection> sections_;  // in line order
};

}  // namespace

std::optional<device::CoreId> core_at(std::span<const CoreSection> sections, int line) {
  const auto after = std::partition_point(sections.begin(), sections.end(),
                                          [line](const CoreSection& s) { return s.line < line; });
  if (after == sections.begin()) return std::nullopt;
  return std::prev(after)->core;
}

ProgramParse parse_program(std::string_view text, std::string_view file,
                           const device::Topology& topology, const soc::Profile& profile,
                           std::optional<device::CoreId> first_core) {
  Parser parser(topology, profile);
  if (first_core) {  // a section from line 0, before any .core line
    SBRDMA_CHECK(*first_core < topology.num_cores());
    parser.open_first(*first_core);
  }
  isa::AsmResult as =
      isa::assemble(text, file, [&parser](std::string_view line, const base::SourceLoc& loc) {
        return parser.directive(line, loc);
      });
  ProgramParse out;
  out.errors = std::move(as.errors);
  out.program = std::move(parser.program);
  out.program.files.emplace_back(file);
  for (const isa::AsmWord& w : as.words) {
    const auto core = parser.core_at(w.loc.line);
    if (!core) {
      out.errors.push_back(base::make_error(
          w.loc, "instruction before any '.core N' directive (which core runs it?)"));
      continue;
    }
    if (*core == Parser::kBadSection) continue;  // its .core line is already an error
    auto it = std::find_if(out.program.cores.begin(), out.program.cores.end(),
                           [&](const CoreProgram& p) { return p.core == *core; });
    it->words.push_back(w.word);
    it->locs.push_back(w.loc);
  }
  std::stable_sort(
      out.errors.begin(), out.errors.end(),
      [](const base::Error& a, const base::Error& b) { return a.loc.line < b.loc.line; });
  std::sort(out.program.cores.begin(), out.program.cores.end(),
            [](const CoreProgram& a, const CoreProgram& b) { return a.core < b.core; });
  return out;
}

}  // namespace sbrdma::platform
