#include "platform/program_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>

#include "base/printable.h"
#include "isa/assembler.h"

namespace sbrdma::platform {
namespace {

using Keys = std::map<std::string_view, std::string_view>;

std::string join(std::initializer_list<std::string_view> names) {
  std::string out;
  for (const std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

/// key=value tokens into `keys`; errors: no '=', a key not in `allowed`, a key twice.
base::Status parse_keys(std::span<const std::string_view> tokens,
                        std::initializer_list<std::string_view> allowed, std::string_view what,
                        Keys& keys) {
  for (const std::string_view tok : tokens) {
    const auto eq = tok.find('=');
    if (eq == std::string_view::npos) {
      return base::make_error(
          fmt::format("missing '=' in '{}' ({})", base::printable_brief(tok), what));
    }
    const std::string_view key = tok.substr(0, eq);
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return base::make_error(fmt::format("unknown key '{}' for {} ({})",
                                          base::printable_brief(key), what, join(allowed)));
    }
    if (!keys.emplace(key, tok.substr(eq + 1)).second) {
      return base::make_error(
          fmt::format("duplicate key '{}' for {}", base::printable_brief(key), what));
    }
  }
  return base::ok_status();
}

base::Result<std::string_view> required(const Keys& keys, std::string_view key,
                                        std::string_view what) {
  auto it = keys.find(key);
  if (it == keys.end()) return base::make_error(fmt::format("missing key '{}' for {}", key, what));
  return it->second;
}

/// The parse state shared by the directive handler and the final assembly of the program.
class Parser {
 public:
  Parser(const device::Topology& topo, const soc::Profile& profile)
      : topo_(topo), profile_(profile) {}

  base::Status directive(std::string_view line, const base::SourceLoc& loc) {
    const std::vector<std::string_view> tok = isa::split_blanks(line);
    const std::string_view name = tok.front();
    const std::span<const std::string_view> args(tok.begin() + 1, tok.end());
    if (name == ".core") return core(args, loc);
    if (name == ".init") return init(args, loc);
    if (name == ".expect") {
      if (args.empty()) return base::make_error(".expect needs a kind: sem or sbuf");
      if (args[0] == "sem") return expect_sem(args.subspan(1), line, loc);
      if (args[0] == "sbuf") return expect_sbuf(args.subspan(1), line, loc);
      return base::make_error(
          fmt::format("unknown .expect kind '{}' (sem or sbuf)", base::printable_brief(args[0])));
    }
    return base::make_error(fmt::format("unknown directive '{}' (.core, .init, .expect, .raw)",
                                        base::printable_brief(name)));
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
      return base::make_error(fmt::format("core {} does not exist (topology {} has {} cores)",
                                          base::printable_brief(text), topo_.name(),
                                          topo_.num_cores()));
    }
    return static_cast<device::CoreId>(**v);
  }

  base::Status core(std::span<const std::string_view> args, const base::SourceLoc& loc) {
    // A bad .core still opens a section: its words are skipped, not each reported as outside
    // any section (the .core line's own error says what is wrong).
    if (args.size() != 1) {
      sections_.push_back(CoreSection{loc.line, kBadSection});
      return base::make_error(".core takes one core id: .core N");
    }
    auto c = core_id(args[0]);
    if (!c) {
      sections_.push_back(CoreSection{loc.line, kBadSection});
      return c.error();
    }
    sections_.push_back(CoreSection{loc.line, *c});
    auto it = std::find_if(program.cores.begin(), program.cores.end(),
                           [&](const CoreProgram& p) { return p.core == *c; });
    if (it == program.cores.end()) program.cores.push_back(CoreProgram{*c, {}, {}});
    return base::ok_status();
  }

  /// core=, addr=, bytes= and partitions= of a region.
  base::Result<SbufRegion> region(const Keys& keys, std::string_view what, bool need_bytes) const {
    SbufRegion r;
    r.end_partition = profile_.sbuf_partitions;
    auto c = required(keys, "core", what);
    if (!c) return c.error();
    auto core = core_id(*c);
    if (!core) return core.error();
    r.core = *core;
    auto a = required(keys, "addr", what);
    if (!a) return a.error();
    auto addr = parse_number(*a, "addr");
    if (!addr) return addr.error();
    r.offset = *addr;
    if (need_bytes) {
      auto b = required(keys, "bytes", what);
      if (!b) return b.error();
      auto bytes = parse_number(*b, "bytes");
      if (!bytes) return bytes.error();
      if (*bytes == 0) return base::make_error("bytes must be at least 1");
      r.bytes = *bytes;
    }
    if (auto it = keys.find("partitions"); it != keys.end()) {
      SBRDMA_TRY(partitions(it->second, r));
    }
    return r;
  }

  static base::Status partitions(std::string_view text, SbufRegion& r) {
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) {
      return base::make_error(
          fmt::format("bad partitions '{}' (expected P0:P1)", base::printable_brief(text)));
    }
    auto p0 = parse_number(text.substr(0, colon), "partitions");
    if (!p0) return p0.error();
    auto p1 = parse_number(text.substr(colon + 1), "partitions");
    if (!p1) return p1.error();
    if (*p0 >= *p1 || *p1 > r.end_partition) {
      return base::make_error(
          fmt::format("partitions {}:{} are not a range inside 0:{} (P0 < P1, P1 exclusive)", *p0,
                      *p1, r.end_partition));
    }
    r.first_partition = static_cast<unsigned>(*p0);
    r.end_partition = static_cast<unsigned>(*p1);
    return base::ok_status();
  }

  base::Status init(std::span<const std::string_view> args, const base::SourceLoc& loc) {
    Keys keys;
    SBRDMA_TRY(parse_keys(args, {"core", "addr", "bytes", "pattern", "partitions"}, ".init", keys));
    auto r = region(keys, ".init", true);
    if (!r) return r.error();
    SBRDMA_TRY(check_region(*r, topo_, profile_));
    auto pat = required(keys, "pattern", ".init");
    if (!pat) return pat.error();
    auto p = parse_fill_pattern(*pat);
    if (!p) return p.error();
    program.inits.push_back(InitDirective{loc, *r, *p});
    return base::ok_status();
  }

  base::Status expect_sem(std::span<const std::string_view> args, std::string_view line,
                          const base::SourceLoc& loc) {
    Keys keys;
    SBRDMA_TRY(parse_keys(args, {"core", "idx", "value"}, ".expect sem", keys));
    SemExpect e{loc, std::string(line), 0, 0, 0};
    auto c = required(keys, "core", ".expect sem");
    if (!c) return c.error();
    auto core = core_id(*c);
    if (!core) return core.error();
    e.core = *core;
    auto i = required(keys, "idx", ".expect sem");
    if (!i) return i.error();
    auto idx = parse_number_at_most(*i, "idx", profile_.semaphores - 1ULL);
    if (!idx) return idx.error();
    if (!*idx) {
      return base::make_error(fmt::format("idx {} out of range (0..{})", base::printable_brief(*i),
                                          profile_.semaphores - 1));
    }
    e.idx = static_cast<unsigned>(**idx);
    auto v = required(keys, "value", ".expect sem");
    if (!v) return v.error();
    auto value = parse_semaphore_value(*v, "value");
    if (!value) return value.error();
    e.value = *value;
    program.sem_expects.push_back(std::move(e));
    return base::ok_status();
  }

  base::Status expect_sbuf(std::span<const std::string_view> args, std::string_view line,
                           const base::SourceLoc& loc) {
    const auto eq = std::find(args.begin(), args.end(), "equals");
    if (eq == args.end()) {
      return base::make_error(".expect sbuf needs 'equals core=M addr=A2' after its region");
    }
    if (eq == args.begin()) {  // else the second region's keys read as the first's, twice
      return base::make_error(
          ".expect sbuf needs its region 'core=N addr=A bytes=B' before 'equals'");
    }
    const std::span<const std::string_view> lhs(args.begin(), eq);
    const std::span<const std::string_view> rhs(eq + 1, args.end());
    Keys left;
    Keys right;
    SBRDMA_TRY(parse_keys(lhs, {"core", "addr", "bytes", "partitions"}, ".expect sbuf", left));
    SBRDMA_TRY(parse_keys(rhs, {"core", "addr", "partitions"}, ".expect sbuf ... equals", right));
    if (left.count("partitions") != 0 && right.count("partitions") != 0) {
      return base::make_error("duplicate key 'partitions' for .expect sbuf (give it once)");
    }
    auto a = region(left, ".expect sbuf", true);
    if (!a) return a.error();
    if (auto it = right.find("partitions"); it != right.end()) {
      a->first_partition = 0;
      a->end_partition = profile_.sbuf_partitions;
      SBRDMA_TRY(partitions(it->second, *a));
    }
    auto b = region(right, ".expect sbuf ... equals", false);
    if (!b) return b.error();
    b->bytes = a->bytes;
    b->first_partition = a->first_partition;
    b->end_partition = a->end_partition;
    SBRDMA_TRY(check_region(*a, topo_, profile_));
    SBRDMA_TRY(check_region(*b, topo_, profile_));
    program.sbuf_expects.push_back(SbufExpect{loc, std::string(line), *a, *b});
    return base::ok_status();
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
                           const device::Topology& topology, const soc::Profile& profile) {
  Parser parser(topology, profile);
  isa::AsmResult as =
      isa::assemble(text, file, [&parser](std::string_view line, const base::SourceLoc& loc) {
        return parser.directive(line, loc);
      });
  ProgramParse out;
  out.errors = std::move(as.errors);
  out.program = std::move(parser.program);
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
