#include "platform/run_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <span>
#include <tuple>
#include <unordered_map>

#include "base/bits.h"
#include "base/number_runs.h"
#include "base/printable.h"
#include "sim/kernel.h"

namespace sbrdma::platform {
namespace {

/// `1-15` or `1, 3, 5-7`: sorted distinct numbers, runs of consecutive ones as ranges.
std::string number_ranges(const std::vector<unsigned>& sorted) {
  std::string out;
  for (const auto& run : base::consecutive_runs(sorted)) {
    if (!out.empty()) out += ", ";
    out += base::run_text(run);
  }
  return out;
}

/// The message with every hex number as `#`: errors of several engines that differ only in
/// their addresses read the same.
std::string without_hex(const std::string& m) {
  std::string out;
  for (std::size_t i = 0; i < m.size();) {
    if (m.compare(i, 2, "0x") == 0 && i + 2 < m.size() &&
        std::isxdigit(static_cast<unsigned char>(m[i + 2]))) {
      out += '#';
      i += 2;
      while (i < m.size() && std::isxdigit(static_cast<unsigned char>(m[i]))) ++i;
    } else {
      out += m[i++];
    }
  }
  return out;
}

/// Device-error lines: the first of them, and how many there are.
struct DeviceErrorLines {
  std::vector<std::pair<base::SourceLoc, std::string>> lines;
  std::size_t total = 0;
};

/// Device errors, one line per kind, each at the source line of the word it comes from when
/// that is known (the word that wrote its descriptor, or issued its access): errors of one
/// core's queues that differ only in the engine (and the hex numbers of the message) and come
/// from one word (a descriptor's: at one ring slot) are told once, with the other engines
/// named (an engine's second error is a line of its own). In order of time, then core, engine,
/// direction, queue and message: errors of one tick read the same whatever order a tie seed
/// gave them. `sbrdma bench` reports a failed run's errors the same way, without origins.
/// Only the first `max_lines` are formatted (all of them where one more would be left).
DeviceErrorLines device_error_lines(const RunReport& r, std::size_t max_lines) {
  DeviceErrorLines out;
  struct Kind {
    const device::ModelledError* first;
    const ErrorOrigin* origin;
    std::vector<unsigned> engines;  ///< the others'
    base::Tick last;
  };
  const auto origin_of = [&](std::size_t i) -> const ErrorOrigin* {
    if (i >= r.device_error_origins.size() || !r.device_error_origins[i]) return nullptr;
    return &*r.device_error_origins[i];
  };
  std::vector<std::size_t> order(r.device_errors.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const device::ModelledError& x = r.device_errors[a];
    const device::ModelledError& y = r.device_errors[b];
    return std::tie(x.time, x.core, x.engine, x.dir, x.queue, x.message) <
           std::tie(y.time, y.core, y.engine, y.dir, y.queue, y.message);
  });
  // Errors that may be told together share a group: one core's queue, one message but for its
  // hex numbers, one origin (a descriptor's: one ring slot). Within a group an engine's j-th
  // error joins the group's j-th line (the first without that engine), so each error finds its
  // line at once: a run with half a million errors is told in a second, not in minutes.
  struct Group {
    std::vector<std::size_t> kinds;                  ///< indices into `kinds`, in order
    std::unordered_map<unsigned, std::size_t> seen;  ///< per engine: its errors so far
  };
  std::vector<Kind> kinds;
  std::unordered_map<std::string, Group> groups;
  for (const std::size_t i : order) {
    const device::ModelledError& e = r.device_errors[i];
    const ErrorOrigin* origin = origin_of(i);
    if (!e.engine) {  // not an engine's: told alone
      kinds.push_back(Kind{&e, origin, {}, e.time});
      continue;
    }
    const auto opt = [](const auto& v) { return v ? static_cast<std::int64_t>(*v) : -1; };
    std::string group_key = fmt::format("{}/{}/{}/", e.core, opt(e.dir), opt(e.queue));
    if (origin != nullptr) {
      group_key += fmt::format("{}/{}/{}/", origin->pc, origin->descriptor, opt(e.slot));
    } else {
      group_key += "-/";
    }
    group_key += without_hex(e.message);
    Group& g = groups[group_key];
    const std::size_t j = g.seen[*e.engine]++;
    if (j < g.kinds.size()) {
      Kind& k = kinds[g.kinds[j]];
      k.engines.push_back(*e.engine);
      k.last = std::max(k.last, e.time);
    } else {
      g.kinds.push_back(kinds.size());
      kinds.push_back(Kind{&e, origin, {}, e.time});
    }
  }
  // Lines past the shown ones are only counted. A line that would count a single line is
  // that line.
  out.total = kinds.size();
  const std::size_t shown = kinds.size() > max_lines + 1 ? max_lines : kinds.size();
  for (Kind& k : std::span(kinds).first(shown)) {
    std::string line = "device: " + k.first->format();
    if (k.origin != nullptr) {
      line += k.origin->descriptor ? fmt::format("; word {} wrote this descriptor (ring slot {})",
                                                 k.origin->pc, *k.first->slot)
                                   : fmt::format("; word {} issued this access", k.origin->pc);
    }
    if (!k.engines.empty()) {
      std::sort(k.engines.begin(), k.engines.end());
      k.engines.erase(std::unique(k.engines.begin(), k.engines.end()), k.engines.end());
      line += fmt::format("; the same on engine{} {}", k.engines.size() == 1 ? "" : "s",
                          number_ranges(k.engines));
      if (k.last != k.first->time) line += " by " + device::format_time(k.last);
    }
    out.lines.emplace_back(k.origin != nullptr ? k.origin->loc : base::SourceLoc{},
                           std::move(line));
  }
  return out;
}

}  // namespace

std::optional<std::uint32_t> RunReport::changed(device::CoreId core, unsigned idx) const {
  for (const CoreSemaphores& c : semaphores) {
    if (c.core != core) continue;
    for (const SemaphoreChange& s : c.changes) {
      if (s.idx == idx) return s.after;
    }
  }
  return std::nullopt;
}

std::string format_ns(base::Tick t) {
  return fmt::format("{}.{:03} ns", t.ps / 1000, t.ps % 1000);
}

std::vector<std::string> report_state_lines(const RunReport& r) {
  std::vector<std::string> out;
  out.push_back("simulated time: " + format_ns(r.end_time));
  for (const CoreSemaphores& c : r.semaphores) {
    std::string line = fmt::format("core {}:", c.core);
    for (const SemaphoreChange& s : c.changes) {
      line += fmt::format(" sem[{}]={}", s.idx, base::as_int32(s.after));
      if (s.before != 0) line += fmt::format(" (was {})", base::as_int32(s.before));
    }
    out.push_back(std::move(line));
  }
  out.push_back(fmt::format(
      "stats: {} descriptors, {} data bytes, {} semaphore writes, {} MMIO writes, {} events",
      r.stats.descriptors, r.stats.data_bytes, r.stats.semaphore_writes, r.stats.mmio_writes,
      r.stats.events));
  // Queues still holding descriptors: the first few (stopped queues repeat their error).
  constexpr std::size_t kShown = 4;
  for (std::size_t i = 0; i < r.pending_work.size() && i < kShown; ++i) {
    out.push_back("pending: " + r.pending_work[i]);
  }
  if (r.pending_work.size() > kShown) {
    out.push_back(fmt::format("pending: ... and {} more queues", r.pending_work.size() - kShown));
  }
  for (const UnstartedGens& u : r.unstarted) {
    const std::string where =
        u.loc.file.empty() ? "" : fmt::format(" ({}:{})", base::printable(u.loc.file), u.loc.line);
    const std::string words =
        u.gens == 1
            ? fmt::format("rdma_desc_gen at word {}{}", u.pc, where)
            : fmt::format("{} rdma_desc_gen words, the first at word {}{}", u.gens, u.pc, where);
    // A deadlocked core did not reach the start that would have published them: say so
    // rather than that the program has none.
    const auto waiter = std::find_if(r.deadlock.begin(), r.deadlock.end(),
                                     [&](const DeadlockWaiter& w) { return w.core == u.core; });
    std::string why = "were never published by an rdma_desc_start: no engine saw them";
    if (waiter != r.deadlock.end()) {
      const std::string at =
          waiter->loc.file.empty()
              ? std::string()
              : fmt::format(" ({}:{})", base::printable(waiter->loc.file), waiter->loc.line);
      why = fmt::format(
          "were not published: the core deadlocked first, waiting at word {}{}; no engine saw "
          "them",
          waiter->pc, at);
    }
    std::string line =
        fmt::format("unstarted: core {}: {} descriptor{} on {} engine{}, written by {}, {}", u.core,
                    u.descriptors, u.descriptors == 1 ? "" : "s", u.engines,
                    u.engines == 1 ? "" : "s", words, why);
    if (u.dropped > 0) {  // a start would have failed on them
      line += fmt::format("; {} more did not fit, engine {}'s ring being full (D6)", u.dropped,
                          u.first_full);
    }
    out.push_back(std::move(line));
  }
  return out;
}

namespace {

/// "core 1 word 7" or "core 0 engine 2 queue 0's DMA (M2S slot 4, written by word 3)", with
/// the word's line when `with_line` and it is known, and "and the same word's other DMAs"
/// where the race's repeats came from those too (`others`).
std::string race_side(const device::RaceAccess& a, const std::optional<ErrorOrigin>& o,
                      bool with_line, bool others) {
  const std::string line = with_line && o && !o->loc.file.empty()
                               ? fmt::format(" at {}:{}", base::printable(o->loc.file), o->loc.line)
                               : std::string();
  if (!a.engine) {
    return a.pc ? fmt::format("core {} word {}{}", a.core, *a.pc, line)
                : fmt::format("core {}", a.core);
  }
  const std::string written =
      a.pc ? fmt::format(", written by word {}{}", *a.pc, line) : std::string();
  return fmt::format("core {} engine {} queue {}'s DMA (M2S slot {}{}){}", a.core, *a.engine,
                     a.queue, a.slot, written, others ? " and the same word's other DMAs" : "");
}

/// One line per race found (the first kShownDeviceErrorLines), then one that counts the rest.
void race_lines(const RunReport& r, std::vector<base::Error>& out) {
  std::uint64_t shown = 0;
  std::size_t lines = 0;
  for (std::size_t i = 0; i < r.races.size() && i < kShownDeviceErrorLines; ++i, ++lines) {
    const RaceLine& x = r.races[i];
    const device::RaceAccess& a = x.race.first;
    const device::RaceAccess& b = x.race.second;
    const bool many = x.race.second_others;
    std::string line;
    if (x.race.self) {  // one DMA's source and destination overlap [CHOICE D49c]
      line = fmt::format(
          "race: t={} {} {} and {} {}: the copy's source and destination overlap, and a device "
          "may write those bytes before it has read them",
          format_ns(b.time), race_side(b, x.second, false, many), many ? "read" : "reads",
          many ? "write" : "writes", device::RaceChecker::where(x.race));
    } else {
      line = fmt::format(
          "race: t={} {} {} {}, which {} {} at t={}; no semaphore wait orders the two, so a "
          "device may run them the other way round",
          format_ns(b.time), race_side(b, x.second, false, many),
          b.write ? (many ? "write" : "writes") : (many ? "read" : "reads"),
          device::RaceChecker::where(x.race), race_side(a, x.first, true, x.race.first_others),
          a.write ? "wrote" : "read", format_ns(a.time));
    }
    if (x.race.repeats > 0) {
      line += fmt::format(" ({} more time{}{})", x.race.repeats, x.race.repeats == 1 ? "" : "s",
                          x.race.self ? "" : " between the same two");
    }
    out.push_back(base::make_error(x.second ? x.second->loc : base::SourceLoc{}, std::move(line)));
    shown += 1 + x.race.repeats;
  }
  if (r.races_total > shown) {
    // Races, not lines: the lines left out are pairs of words, each with its repeats. The
    // checker keeps kKept pairs; past that their number is a floor.
    const std::size_t more_lines = r.races.size() - lines;
    const bool floor = r.races.size() >= device::RaceChecker::kKept;
    out.push_back(base::make_error(fmt::format(
        "race: ... and {} more races ({} in all), on {}{} more pair{} of words not shown",
        r.races_total - shown, r.races_total, floor ? "at least " : "", more_lines,
        more_lines == 1 && !floor ? "" : "s")));
  }
}

/// One line per unfenced wait (the first kShownDeviceErrorLines), then one that counts the rest.
/// [CHOICE D49d]
void unfenced_wait_lines(const RunReport& r, std::vector<base::Error>& out) {
  std::uint64_t shown = 0;
  for (std::size_t i = 0; i < r.unfenced_waits.size() && i < kShownDeviceErrorLines; ++i) {
    const UnfencedWaitLine& x = r.unfenced_waits[i];
    const device::UnfencedWait& w = x.wait;
    const auto line_of = [&](std::size_t k) {
      const std::optional<ErrorOrigin>& o = x.own[k];
      return o && !o->loc.file.empty()
                 ? fmt::format("{}:{}", base::printable(o->loc.file), o->loc.line)
                 : std::string();
    };
    // "1 (p.s:3)", "1 (p.s:3) and 4 (p.s:6)", or past two "4-10 and 12 (the first at p.s:5)".
    std::vector<std::string> parts;
    if (w.own.size() <= 2) {
      for (std::size_t k = 0; k < w.own.size(); ++k) {
        const std::string at = line_of(k);
        parts.push_back(fmt::format("{}{}", w.own[k], at.empty() ? at : " (" + at + ")"));
      }
    } else {
      for (const auto& run : base::consecutive_runs(w.own)) parts.push_back(base::run_text(run));
    }
    std::string words = base::listed(parts);
    if (const std::string at = line_of(0); w.own.size() > 2 && !at.empty()) {
      words += " (the first at " + at + ")";
    }
    const bool one = w.own.size() == 1;
    const std::string updates = w.own.empty() ? "its own updates of it"
                                              : fmt::format("its own update{} of it by word{} {}",
                                                            one ? "" : "s", one ? "" : "s", words);
    // The other writes it may pass without: "the other write", "any of the 3 other writes",
    // "2 of the 3 other writes".
    const std::size_t without = w.counted - w.fewest;
    std::string others;
    if (w.counted == 1) {
      others = "the other write it counted here, so what that write orders";
    } else if (w.fewest == 0) {
      others =
          fmt::format("any of the {} other writes it counted here, so what they order", w.counted);
    } else if (without == 1) {
      others = fmt::format("1 of the {} other writes it counted here, so what that one orders",
                           w.counted);
    } else {
      others = fmt::format("{} of the {} other writes it counted here, so what those {} order",
                           without, w.counted, without);
    }
    std::string line = fmt::format(
        "unfenced wait: t={} core {}{} passed its wait on sem[{}] counting {}, which no write "
        "fence saw land: a device may look at the wait before {} and pass it without {} after "
        "the wait is this run's timing; a write fence between them (an rdma_desc_start drains "
        "the core's writes) orders it",
        format_ns(w.time), w.core, w.pc ? fmt::format(" word {}", *w.pc) : std::string(),
        w.semaphore, updates, one ? "it lands" : "they land", others);
    if (w.repeats > 0) {
      line += fmt::format(" ({} more time{})", w.repeats, w.repeats == 1 ? "" : "s");
    }
    out.push_back(base::make_error(x.origin ? x.origin->loc : base::SourceLoc{}, std::move(line)));
    shown += 1 + w.repeats;
  }
  if (r.unfenced_total > shown) {
    out.push_back(
        base::make_error(fmt::format("unfenced wait: ... and {} more ({} in all) not shown",
                                     r.unfenced_total - shown, r.unfenced_total)));
  }
}

}  // namespace

std::vector<base::Error> report_failures(const RunReport& r) {
  std::vector<base::Error> out;
  for (const FirmwareFailure& f : r.firmware_errors) {
    std::string message = fmt::format("core {} word {}: {}", f.core, f.error.pc, f.error.message);
    if (!f.error.detail.empty()) message += " (" + f.error.detail + ")";
    out.push_back(base::make_error(f.loc, std::move(message)));
  }
  // The first device errors are the ones to read: later ones mostly follow from them (a
  // stopped queue refuses each doorbell after), and a run can flag hundreds of thousands.
  DeviceErrorLines device = device_error_lines(r, kShownDeviceErrorLines);
  for (auto& [loc, line] : device.lines) out.push_back(base::make_error(loc, std::move(line)));
  if (device.total > device.lines.size()) {
    out.push_back(base::make_error(fmt::format(
        "device: ... and {} more lines of device errors ({} device errors in all; the first "
        "ones are the ones to read, the later ones mostly following from them)",
        device.total - device.lines.size(), r.device_errors.size())));
  }
  for (const DeadlockWaiter& w : r.deadlock) {
    out.push_back(base::make_error(
        w.loc, fmt::format("deadlock: core {} word {} waits for {}", w.core, w.pc, w.description)));
  }
  race_lines(r, out);
  unfenced_wait_lines(r, out);
  if (r.past_time_limit) {
    out.push_back(base::make_error(fmt::format(
        "the run reached the simulated-time limit, {} (2^62 ps, about 53 days), with work "
        "left: it was stopped there",
        format_ns(sim::kTimeLimit))));
  }
  return out;
}

}  // namespace sbrdma::platform
