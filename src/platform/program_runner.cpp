#include "platform/program_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/bits.h"
#include "base/printable.h"

namespace sbrdma::platform {
namespace {

ExpectResult check_sem(const Simulation& sim, const SemExpect& e) {
  ExpectResult r{e.loc, e.text, false, false, {}};
  const std::uint32_t v = sim.machine().semaphore(e.core, e.idx);
  r.passed = v == e.value;
  if (!r.passed) {
    r.detail = fmt::format("core {} sem[{}] is {}, expected {}", e.core, e.idx, base::as_int32(v),
                           base::as_int32(e.value));
  }
  return r;
}

ExpectResult check_sbuf(const Simulation& sim, const SbufExpect& e) {
  ExpectResult r{e.loc, e.text, false, false, {}};
  if (sim.options().timing_only) {
    r.skipped = true;
    r.detail = "timing-only: no data moved";
    return r;
  }
  auto a = sim.read(e.actual);
  if (e.pattern) {  // the bytes .init would write, partition by partition
    if (!a) {
      r.detail = a.error().message;
      return r;
    }
    std::vector<std::uint8_t> want(a->size());
    for (unsigned p = e.actual.first_partition; p < e.actual.end_partition; ++p) {
      const std::size_t at = std::size_t{p - e.actual.first_partition} * e.actual.bytes;
      fill_pattern_bytes(*e.pattern, p, std::span(want).subspan(at, e.actual.bytes));
    }
    auto diff = compare_regions(e.actual, *a, "pattern " + format_fill_pattern(*e.pattern), want);
    r.passed = !diff;
    if (diff) r.detail = *diff;
    return r;
  }
  auto b = sim.read(e.expected);
  if (!a || !b) {  // checked at parse time; kept as a failure rather than a crash
    r.detail = (!a ? a.error() : b.error()).message;
    return r;
  }
  auto diff = compare_regions(e.actual, *a, e.expected, *b);
  r.passed = !diff;
  if (diff) r.detail = *diff;
  return r;
}

DumpResult dump_sbuf(const Simulation& sim, const SbufDump& d) {
  DumpResult r{d.loc, d.text, false, {}};
  if (sim.options().timing_only) {
    r.skipped = true;
    r.lines.emplace_back("timing-only: no data moved");
    return r;
  }
  auto bytes = sim.read(d.region);
  if (!bytes) {  // checked at parse time; kept as a line rather than a crash
    r.lines.push_back(bytes.error().message);
    return r;
  }
  r.lines = dump_lines(d.region, *bytes);
  return r;
}

/// The source line of a writer, as `word 0, p.s:4` (the file as its errors name it).
std::string writer_text(const std::optional<ErrorOrigin>& w) {
  if (!w) return "not written";
  if (w->loc.file.empty()) return fmt::format("word {}", w->pc);
  return fmt::format("word {}, {}:{}", w->pc, base::printable(w->loc.file), w->loc.line);
}

/// A ring dump's lines per slot with hex=yes: the pair, then each side's bytes.
constexpr std::uint64_t kHexLinesPerSlot = 3;

/// A descriptor's bytes in memory order, as 4 groups of 8 hex digits (`sbrdma decode desc`
/// reads them so).
std::string hex_groups(std::span<const std::uint8_t, soc::kDescBytes> bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i != 0 && i % 4 == 0) out += ' ';
    out += fmt::format("{:02x}", bytes[i]);
  }
  return out;
}

DumpResult dump_ring(const Simulation& sim, const RingDump& d) {
  DumpResult r{d.loc, d.text, false, {}};
  const firmware::PoolFirmware* fw = sim.firmware(d.core);
  if (fw == nullptr) {
    r.lines.push_back(fmt::format(
        "  core {} ran no program: its rings were never set up (a core's firmware sets them "
        "up when it boots)",
        d.core));
    return r;
  }
  const firmware::FirmwareConfig& cfg = sim.firmware_config();
  const device::Machine& m = sim.machine();
  const std::array<firmware::Role, 2> roles{firmware::Role::kTx, firmware::Role::kRx};
  std::array<base::SocAddr, 2> bases{};
  std::uint64_t written = 0;
  for (std::size_t i = 0; i < roles.size(); ++i) {
    const soc::Direction dir = i == 0 ? soc::Direction::kM2S : soc::Direction::kS2M;
    bases[i] = fw->stream(roles[i]).ring(d.engine).base;
    const device::QueueState q = m.queue_state(d.core, d.engine, dir, cfg.ring_num);
    std::string line = fmt::format(
        "  {} queue {}: ring at {:#x}, {} slots; head {} (ring id {}), tail {} (ring id {})",
        soc::direction_name(dir), cfg.ring_num, bases[i].v, cfg.ring_depth, q.head.offset,
        q.head.ring_id, q.tail.offset, q.tail.ring_id);
    if (q.stopped) line += "; stopped: " + q.stop_reason;
    r.lines.push_back(std::move(line));
    written = std::max(written, sim.ring_slots_written(d.core, roles[i], d.engine));
  }
  const auto [first, end] =
      d.slots
          ? *d.slots
          : std::pair{0U, static_cast<unsigned>(std::min<std::uint64_t>(written, cfg.ring_depth))};
  if (first == end) {
    r.lines.emplace_back("  no descriptor was written to these rings");
    return r;
  }
  if (d.hex) {
    const soc::ChipDie view = sim.topology().chip_die(d.core);
    const std::string profile = m.profile().name == soc::cayman_profile().name
                                    ? std::string()
                                    : fmt::format(" --profile {}", m.profile().name);
    r.lines.push_back(fmt::format(
        "  each M2S:/S2M: line below is explained by: sbrdma decode desc{} --chip {} --die {} "
        "'LINE'",
        profile, view.chip, view.die));
  }
  const std::array<std::vector<std::optional<ErrorOrigin>>, 2> writers{
      sim.ring_writers(d.core, roles[0], d.engine), sim.ring_writers(d.core, roles[1], d.engine)};
  std::optional<unsigned> unwritten_from;  // a run of slots no word wrote, told as one line
  const auto flush_unwritten = [&](unsigned until) {
    if (!unwritten_from) return;
    r.lines.push_back(*unwritten_from + 1 == until
                          ? fmt::format("  slot {}: not written", *unwritten_from)
                          : fmt::format("  slots {}-{}: not written", *unwritten_from, until - 1));
    unwritten_from.reset();
  };
  for (unsigned slot = first; slot < end; ++slot) {
    std::array<std::optional<soc::UdmaDescriptor>, 2> desc;
    std::array<std::optional<ErrorOrigin>, 2> writer;
    std::array<std::array<std::uint8_t, soc::kDescBytes>, 2> raw{};
    for (std::size_t i = 0; i < roles.size(); ++i) {
      writer[i] = writers[i][slot];
      if (m.mem_read(d.core, bases[i] + std::uint64_t{slot} * soc::kDescBytes, raw[i]).ok()) {
        desc[i] = soc::decode_descriptor(raw[i]);
      }
    }
    if (!writer[0] && !writer[1]) {
      if (!unwritten_from) unwritten_from = slot;
      continue;
    }
    flush_unwritten(slot);
    const auto side = [&](std::size_t i, const char* way) {
      if (!writer[i] || !desc[i]) return std::string("not written");
      return fmt::format("{} bytes {} {}, ring id {}", desc[i]->length(), way,
                         sim.place_of(d.core, desc[i]->addr()), desc[i]->ring_id());
    };
    const bool alike = writer[0] && writer[1] && desc[0] && desc[1] &&
                       writer[0]->pc == writer[1]->pc && desc[0]->length() == desc[1]->length() &&
                       desc[0]->ring_id() == desc[1]->ring_id();
    if (alike) {
      r.lines.push_back(fmt::format("  slot {} ({}): {} bytes {} -> {}, ring id {}", slot,
                                    writer_text(writer[0]), desc[0]->length(),
                                    sim.place_of(d.core, desc[0]->addr()),
                                    sim.place_of(d.core, desc[1]->addr()), desc[0]->ring_id()));
    } else {
      r.lines.push_back(fmt::format("  slot {}: M2S ({}) {}; S2M ({}) {}", slot,
                                    writer_text(writer[0]), side(0, "from"), writer_text(writer[1]),
                                    side(1, "to")));
    }
    if (!d.hex) continue;
    for (std::size_t i = 0; i < roles.size(); ++i) {
      if (!writer[i] || !desc[i]) continue;
      r.lines.push_back(fmt::format("    {}: {}", i == 0 ? "M2S" : "S2M", hex_groups(raw[i])));
    }
  }
  flush_unwritten(end);
  return r;
}

}  // namespace

// [CHOICE D29i]
std::vector<std::string> dump_lines(const SbufRegion& r, std::span<const std::uint8_t> bytes) {
  SBRDMA_CHECK(bytes.size() == r.total_bytes());
  constexpr std::size_t kRow = kDumpRowBytes;
  std::vector<std::string> out;
  // Fixed widths, so that the columns line up: the largest partition and offset shown.
  const std::size_t pw = fmt::format("{}", r.end_partition - 1).size();
  const std::size_t ow = fmt::format("{:x}", r.offset + r.bytes - 1).size();
  const auto partition = [&](unsigned p) {
    return bytes.subspan(std::size_t{p - r.first_partition} * r.bytes, r.bytes);
  };
  for (unsigned p = r.first_partition; p < r.end_partition;) {
    const std::span<const std::uint8_t> data = partition(p);
    std::optional<std::span<const std::uint8_t>> previous;  // the row before, if shown or starred
    bool starred = false;
    for (std::size_t at = 0; at < data.size(); at += kRow) {
      const std::span<const std::uint8_t> row = data.subspan(at, std::min(kRow, data.size() - at));
      const bool last = at + kRow >= data.size();
      if (previous && !last &&
          std::equal(row.begin(), row.end(), previous->begin(), previous->end())) {
        if (!starred) out.emplace_back("  *");
        starred = true;
        continue;
      }
      std::string line = fmt::format("  p{:<{}} +0x{:0{}x}:", p, pw, r.offset + at, ow);
      for (std::size_t i = 0; i < row.size(); ++i) {
        line += fmt::format("{}{:02x}", i == 8 ? "  " : " ", row[i]);
      }
      out.push_back(std::move(line));
      previous = row;
      starred = false;
    }
    // The partitions after it that hold the same bytes: one line.
    unsigned same = p + 1;
    while (same < r.end_partition &&
           std::equal(data.begin(), data.end(), partition(same).begin(), partition(same).end())) {
      ++same;
    }
    if (same > p + 1) {
      out.push_back(same == p + 2 ? fmt::format("  p{}: as p{}", p + 1, p)
                                  : fmt::format("  p{}-{}: as p{}", p + 1, same - 1, p));
    }
    p = same;
  }
  return out;
}

bool ProgramOutcome::ok() const {
  return report.ok() && std::all_of(expects.begin(), expects.end(),
                                    [](const ExpectResult& e) { return e.passed || e.skipped; });
}

namespace {

/// The first byte where `expected` differs from `actual` (same size), as compare_regions
/// words it with `other` naming the expected byte (given the partition and byte offset).
template <typename Other>
std::optional<std::string> first_difference(const SbufRegion& actual,
                                            const std::vector<std::uint8_t>& actual_bytes,
                                            const std::vector<std::uint8_t>& expected_bytes,
                                            Other other) {
  const auto mismatch =
      std::mismatch(actual_bytes.begin(), actual_bytes.end(), expected_bytes.begin());
  if (mismatch.first == actual_bytes.end()) return std::nullopt;
  const auto at = static_cast<std::uint64_t>(mismatch.first - actual_bytes.begin());
  std::uint64_t differ = 0;
  for (std::size_t i = at; i < actual_bytes.size(); ++i) {
    differ += actual_bytes[i] != expected_bytes[i] ? 1 : 0;
  }
  const unsigned partition = actual.first_partition + static_cast<unsigned>(at / actual.bytes);
  const std::uint64_t byte = at % actual.bytes;
  return fmt::format(
      "core {} partition {} byte 0x{:x} is 0x{:02x}, but {} is 0x{:02x} ({} of {} "
      "bytes differ)",
      actual.core, partition, actual.offset + byte, *mismatch.first, other(partition, byte),
      *mismatch.second, differ, actual_bytes.size());
}

}  // namespace

std::optional<std::string> compare_regions(const SbufRegion& actual,
                                           const std::vector<std::uint8_t>& actual_bytes,
                                           const SbufRegion& expected,
                                           const std::vector<std::uint8_t>& expected_bytes) {
  return first_difference(actual, actual_bytes, expected_bytes,
                          [&](unsigned partition, std::uint64_t byte) {
                            return fmt::format("core {} partition {} byte 0x{:x}", expected.core,
                                               partition, expected.offset + byte);
                          });
}

std::optional<std::string> compare_regions(const SbufRegion& actual,
                                           const std::vector<std::uint8_t>& actual_bytes,
                                           const std::string& pattern,
                                           const std::vector<std::uint8_t>& pattern_bytes) {
  return first_difference(actual, actual_bytes, pattern_bytes,
                          [&](unsigned /*partition*/, std::uint64_t byte) {
                            return fmt::format("{}'s byte 0x{:x}", pattern, byte);
                          });
}

MemoryNeed init_memory_need(const ProgramFile& program, const soc::Profile& profile) {
  constexpr std::uint64_t kPage = 4096;
  // Per written partition, its OS page ranges [first, last], merged below.
  std::map<std::pair<device::CoreId, unsigned>,
           std::vector<std::pair<std::uint64_t, std::uint64_t>>>
      written;
  for (const InitDirective& init : program.inits) {
    const SbufRegion& r = init.region;
    if (r.bytes == 0) continue;
    for (unsigned p = r.first_partition; p < r.end_partition; ++p) {
      written[{r.core, p}].emplace_back(r.offset / kPage, (r.offset + r.bytes - 1) / kPage);
    }
  }
  MemoryNeed need;
  for (auto& [where, pages] : written) {
    std::sort(pages.begin(), pages.end());
    std::uint64_t end = 0;  // one past the last page counted
    for (const auto& [first, last] : pages) {
      const std::uint64_t from = std::max(first, end);
      if (last + 1 > from) need.at_least += (last + 1 - from) * kPage;
      end = std::max(end, last + 1);
    }
    need.mapped_at_least += profile.partition_active.n;
  }
  return need;
}

namespace {

/// Where a directive comes in the report: its file's place among `files` (the program's, in
/// order), then its line.
std::pair<std::size_t, int> report_order(const std::vector<std::string>& files,
                                         const base::SourceLoc& loc) {
  const auto it = std::find(files.begin(), files.end(), loc.file);
  return {static_cast<std::size_t>(it - files.begin()), loc.line};
}

/// Errors if a ring dump names slots past this run's rings, or if the program's dumps could
/// print more than kMaxDumpLines lines together (at the dump, in report order, that passes
/// the limit).
base::Status check_dump_lines(const ProgramFile& program, unsigned ring_depth) {
  struct Dump {
    std::pair<std::size_t, int> order;
    const base::SourceLoc* loc;
    std::uint64_t lines;
  };
  std::vector<Dump> dumps;
  for (const SbufDump& d : program.dumps) {
    const std::uint64_t per_partition = (d.region.bytes + kDumpRowBytes - 1) / kDumpRowBytes;
    dumps.push_back(
        {report_order(program.files, d.loc), &d.loc, per_partition * d.region.partitions()});
  }
  for (const RingDump& d : program.ring_dumps) {
    if (d.slots && d.slots->second > ring_depth) {  // the parse knew the default depth only
      return base::make_error(
          d.loc, fmt::format("slots {}:{} are not a range inside 0:{} (this run's rings have {} "
                             "slots)",
                             d.slots->first, d.slots->second, ring_depth, ring_depth));
    }
    const std::uint64_t slots =
        d.slots ? std::uint64_t{d.slots->second - d.slots->first} : ring_depth;
    dumps.push_back(
        {report_order(program.files, d.loc), &d.loc, slots * (d.hex ? kHexLinesPerSlot : 1)});
  }
  std::stable_sort(dumps.begin(), dumps.end(),
                   [](const Dump& a, const Dump& b) { return a.order < b.order; });
  std::uint64_t total = 0;
  for (const Dump& d : dumps) {
    total += d.lines;
    if (total > kMaxDumpLines) {
      return base::make_error(
          *d.loc, fmt::format("the dumps so far, this one included, may print {} lines of "
                              "bytes and slots; a program's dumps together print at most {} (a "
                              "line per 16 bytes of a partition or per ring slot, {} with "
                              "hex=yes: 4 MiB of SBUF, or 256 whole rings): narrow or drop some",
                              total, kMaxDumpLines, kHexLinesPerSlot));
    }
  }
  return base::ok_status();
}

}  // namespace

base::Result<ProgramOutcome> run_program(const ProgramFile& program, device::Topology topology,
                                         const SimOptions& options) {
  SimOptions opt = options;
  opt.locate_device_errors = true;  // device errors name their words; ring dumps too
  auto sim = Simulation::create(std::move(topology), opt);
  if (!sim) return sim.error();
  Simulation& s = **sim;
  SBRDMA_TRY(check_dump_lines(program, s.firmware_config().ring_depth));
  for (const CoreProgram& cp : program.cores) {
    SBRDMA_TRY(s.load_program(cp.core, cp.words, cp.locs));
  }
  for (const InitDirective& init : program.inits) {
    if (auto st = s.fill(init.region, init.pattern); !st) {
      return base::make_error(init.loc, st.error().message);
    }
  }
  auto report = s.run();
  if (!report) return report.error();
  ProgramOutcome out;
  out.report = std::move(*report);
  for (const SemExpect& e : program.sem_expects) out.expects.push_back(check_sem(s, e));
  for (const SbufExpect& e : program.sbuf_expects) out.expects.push_back(check_sbuf(s, e));
  for (const SbufDump& d : program.dumps) out.dumps.push_back(dump_sbuf(s, d));
  for (const RingDump& d : program.ring_dumps) out.dumps.push_back(dump_ring(s, d));
  out.files = program.files;
  const auto by_order = [&](const auto& a, const auto& b) {
    return report_order(out.files, a.loc) < report_order(out.files, b.loc);
  };
  std::stable_sort(out.dumps.begin(), out.dumps.end(), by_order);
  std::stable_sort(out.expects.begin(), out.expects.end(), by_order);
  out.trace_json = s.trace_json();
  return out;
}

std::vector<std::string> outcome_lines(const ProgramOutcome& o, bool with_debug) {
  std::vector<std::string> out;
  if (with_debug) {
    for (const DebugLine& d : o.report.debug) {
      out.push_back(fmt::format("[core {}] {}", d.core, d.text));
    }
  }
  for (std::string& l : report_state_lines(o.report)) out.push_back(std::move(l));
  // The expects and dumps in report order (each list is: file by file, each by line); the file
  // named as its errors name it.
  std::size_t failed = 0;
  auto dump = o.dumps.begin();
  const auto dumps_before = [&](std::pair<std::size_t, int> order) {
    for (; dump != o.dumps.end() && report_order(o.files, dump->loc) < order; ++dump) {
      const std::string head =
          fmt::format("{}:{}: {}", base::printable(dump->loc.file), dump->loc.line, dump->text);
      if (dump->skipped) {
        out.push_back(fmt::format("{}: skipped ({})", head, dump->lines.front()));
        continue;
      }
      out.push_back(head + ":");
      out.insert(out.end(), dump->lines.begin(), dump->lines.end());
    }
  };
  for (const ExpectResult& e : o.expects) {
    dumps_before(report_order(o.files, e.loc));
    const char* verdict = e.passed ? "ok" : e.skipped ? "skipped" : "FAILED";
    std::string line =
        fmt::format("{}:{}: {}: {}", base::printable(e.loc.file), e.loc.line, e.text, verdict);
    if (e.skipped) line += " (" + e.detail + ")";
    out.push_back(std::move(line));
    failed += (e.passed || e.skipped) ? 0 : 1;
  }
  dumps_before({std::numeric_limits<std::size_t>::max(), 0});
  if (o.ok()) {
    // Without an expect that was checked, ok only says that nothing failed.
    const bool checked = std::any_of(o.expects.begin(), o.expects.end(),
                                     [](const ExpectResult& e) { return !e.skipped; });
    out.emplace_back(checked             ? "result: ok"
                     : o.expects.empty() ? "result: ok (no .expect: no error, nothing checked)"
                                         : "result: ok (every .expect skipped: no error, nothing "
                                           "checked)");
  } else {
    const RunReport& r = o.report;
    out.push_back(fmt::format(
        "result: FAILED ({} firmware error{}, {} device error{}, {} deadlocked core{}, {} "
        "failed expect{}{}{}{})",
        r.firmware_errors.size(), r.firmware_errors.size() == 1 ? "" : "s", r.device_errors.size(),
        r.device_errors.size() == 1 ? "" : "s", r.deadlock.size(),
        r.deadlock.size() == 1 ? "" : "s", failed, failed == 1 ? "" : "s",
        r.races_total == 0
            ? std::string()
            : fmt::format(", {} race{}", r.races_total, r.races_total == 1 ? "" : "s"),
        r.unfenced_total == 0 ? std::string()
                              : fmt::format(", {} unfenced wait{}", r.unfenced_total,
                                            r.unfenced_total == 1 ? "" : "s"),
        r.past_time_limit ? "; stopped at the time limit" : ""));
  }
  return out;
}

std::vector<base::Error> outcome_failures(const ProgramOutcome& o) {
  std::vector<base::Error> out = report_failures(o.report);
  for (const ExpectResult& e : o.expects) {
    if (e.passed || e.skipped) continue;
    // Cut as an echoed token is: its line number says which; stdout's line has it whole.
    out.push_back(base::make_error(
        e.loc, fmt::format("{} failed: {}", base::printable_brief(e.text), e.detail)));
  }
  return out;
}

}  // namespace sbrdma::platform
