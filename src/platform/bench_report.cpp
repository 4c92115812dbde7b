// The text and JSON forms of a bench run (platform/bench.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "platform/bench.h"
#include "platform/topology_json.h"

namespace sbrdma::platform {
namespace {

/// nccom-test's name of a time statistic: `time:avg(us)`, `time:p50(us)` ... (its --stats
/// headings and JSON keys).
std::string time_key(const TimeStat& s) {
  return fmt::format("time:{}(us)", s.name());
}

/// The time columns' headings: `time(us)` for the average alone (the default), else
/// time_key() of each.
std::vector<std::string> time_headings(const BenchOptions& o) {
  if (o.stats == std::vector<TimeStat>{TimeStat{}}) return {"time(us)"};
  std::vector<std::string> out;
  for (const TimeStat& s : o.stats) out.push_back(time_key(s));
  return out;
}

IoSizes row_io(const BenchOptions& o, const BenchRow& row) {
  return io_sizes(o.op, row.count, o.groups ? o.groups->ranks() : o.ranks,
                  collectives::dtype_bytes(o.dtype));
}

std::string wrong_text(const BenchRow& r) {
  return r.wrong ? fmt::format("{}", *r.wrong) : std::string("n/a");
}

/// The mean busbw of the rows run for `requested` (0 with none). The table's `Avg bus
/// bandwidth` line(s) and the JSON's "avg_busbw" / "avg_busbw_by_algorithm" are this.
double avg_busbw(const BenchResult& r, collectives::Algorithm requested) {
  double sum = 0;
  unsigned n = 0;
  for (const BenchRow& row : r.rows) {
    if (row.requested != requested) continue;
    sum += row.busbw;
    ++n;
  }
  return n == 0 ? 0 : sum / n;
}

std::string header_line(const BenchOptions& o, const BenchResult& r) {
  const unsigned groups = r.groups;
  std::string what = dtype_and_reduction(o);
  if (!o.pairs.empty()) what += ", custom source-target pairs";
  // The data the #wrong column counts against (without -c none is filled or checked).
  std::string data;
  if (o.check == collectives::DataFill::kRandom) {
    data = fmt::format(", random data checked (seed {})", o.seed);
  } else if (o.check == collectives::DataFill::kAllOnes) {
    data = ", all-ones data checked";
  }
  return fmt::format("# sbrdma bench {}: {} on {}, {}, {} iteration{} after {} warmup{}{}{}{}{}\n",
                     collectives::op_name(o.op), ranks_and_groups(o, groups), topology_label(o),
                     what, o.iterations, o.iterations == 1 ? "" : "s", o.warmups,
                     o.warmups == 1 ? "" : "s", data, o.timing_only ? ", timing only" : "",
                     o.tie_seed != 0
                         ? fmt::format(", same-tick events shuffled by tie seed {}", o.tie_seed)
                         : std::string(),
                     o.check_races ? fmt::format(", checked for races: none found in {} accesses",
                                                 r.cost.race_checked_accesses)
                                   : std::string());
}

/// A column as wide as `least` or its widest figure, `figure(row)` of each row.
template <typename Figure>
std::size_t column_width(const BenchResult& r, std::size_t least, const Figure& figure) {
  for (const BenchRow& row : r.rows) least = std::max(least, figure(row).size());
  return least;
}

}  // namespace

std::string topology_label(const BenchOptions& o) {
  return o.topology_name + topology_file_note(o.topology_name, o.topology_file, o.file_params) +
         with_param_overrides(o.params);
}

std::string dtype_and_reduction(const BenchOptions& o) {
  std::string out(collectives::dtype_name(o.dtype));
  if (collectives::is_reduction(o.op))
    out += fmt::format(" {}", collectives::reduce_op_name(o.reduce));
  return out;
}

std::string ranks_and_groups(const BenchOptions& o, unsigned groups) {
  const unsigned R = o.groups ? o.groups->ranks() : o.ranks;
  return fmt::format("{} rank{} x {} group{}", R, R == 1 ? "" : "s", groups,
                     groups == 1 ? "" : "s");
}

std::optional<base::Error> wrong_data_error(const BenchResult& r) {
  std::uint64_t wrong = 0;
  std::uint64_t rows = 0;
  for (const BenchRow& row : r.rows) {
    const std::uint64_t w = row.wrong.value_or(0);
    wrong += w;
    rows += w > 0 ? 1 : 0;
  }
  if (wrong == 0) return std::nullopt;
  return base::make_error(fmt::format("{} wrong element{} in {} row{}", wrong,
                                      wrong == 1 ? "" : "s", rows, rows == 1 ? "" : "s"));
}

std::string time_us_text(double us) {
  if (!(us > 0 && us < 0.005)) return fmt::format("{:.2f}", us);  // 0.00 at two decimals
  int decimals = 2;
  while (decimals < 6 && us < std::pow(10.0, -decimals)) ++decimals;  // the first digit's
  decimals = std::min(decimals + 1, 6);  // and one more; 1e-6 us is 1 ps
  // Rounding up to the next power of ten (0.000995 to 0.00100) gains a digit: drop it.
  if (decimals > 3 && std::stod(fmt::format("{:.{}f}", us, decimals)) >=
                          std::pow(10.0, 2 - decimals) * (1 - 1e-9)) {
    --decimals;
  }
  std::string text = fmt::format("{:.{}f}", us, decimals);
  // Under half a picosecond (a mean of a few ps-long iterations): the figure, not 0.000000.
  if (std::stod(text) == 0) text = fmt::format("{:.1e}", us);
  return text;
}

std::string format_table(const BenchOptions& o, const BenchResult& r) {
  std::string out = header_line(o, r);
  out += "# time: simulated device time; GB/s: 10^9 bytes per simulated second\n";
  // Only where a row ran RDH, flat or across the chips of hierarchical: ring's, mesh's and
  // all-to-all's times do not move with the tie seed (D31d).
  const bool rdh = std::any_of(r.rows.begin(), r.rows.end(), [](const BenchRow& row) {
    return row.algorithm == collectives::Algorithm::kRdh ||
           row.algorithm == collectives::Algorithm::kHierarchical;
  });
  if (r.several_chips && rdh) {
    out +=
        "# several chips: engines contending for chip-to-chip links are served in booking "
        "order, so RDH's and hierarchical's times move with --tie-seed, flat RDH's by tens "
        "of percent (D26f, D31d)\n";
  }
  // nccom-test's columns and widths; a time, bandwidth or #wrong column is as wide as its
  // heading or its widest figure needs (sizes and counts fit theirs: an SBUF holds them).
  out += fmt::format("{:>12}  {:>14}", "size(B)", "count(elems)");
  if (o.show_io_sizes) {
    out += fmt::format("  {:>19}  {:>20}", "total_input_size(B)", "total_output_size(B)");
  }
  out += fmt::format("  {:>7}", "type");
  auto width = [&](std::size_t least, auto&& figure) { return column_width(r, least, figure); };
  const auto gbs = [](double v) { return fmt::format("{:.2f}", v); };
  const std::vector<std::string> time_heads = time_headings(o);
  std::vector<std::size_t> time_widths;
  for (std::size_t i = 0; i < o.stats.size(); ++i) {
    time_widths.push_back(
        width(std::max<std::size_t>(10, time_heads[i].size()),
              [&](const BenchRow& row) { return time_us_text(stat_value(row, o.stats[i])); }));
    out += fmt::format("  {:>{}}", time_heads[i], time_widths[i]);
  }
  const std::size_t algbw_width = width(13, [&](const BenchRow& row) { return gbs(row.algbw); });
  const std::size_t busbw_width = width(13, [&](const BenchRow& row) { return gbs(row.busbw); });
  out += fmt::format("  {:>{}}  {:>{}}", "algbw(GB/s)", algbw_width, "busbw(GB/s)", busbw_width);
  const std::size_t algorithm_width =
      width(12, [&](const BenchRow& row) { return row_algorithm_text(o, row); });
  if (o.show_algorithm) out += fmt::format("  {:>{}}", "algorithm", algorithm_width);
  const std::size_t wrong_width = width(7, [](const BenchRow& row) { return wrong_text(row); });
  out += fmt::format("  {:>{}}\n", "#wrong", wrong_width);
  for (const BenchRow& row : r.rows) {
    out += fmt::format("{:>12}  {:>14}", row.size, row.count);
    if (o.show_io_sizes) {
      const IoSizes io = row_io(o, row);
      out += fmt::format("  {:>19}  {:>20}", io.input, io.output);
    }
    out += fmt::format("  {:>7}", collectives::dtype_name(o.dtype));
    for (std::size_t i = 0; i < o.stats.size(); ++i) {
      out += fmt::format("  {:>{}}", time_us_text(stat_value(row, o.stats[i])), time_widths[i]);
    }
    out += fmt::format("  {:>{}.2f}  {:>{}.2f}", row.algbw, algbw_width, row.busbw, busbw_width);
    if (o.show_algorithm) {
      out += fmt::format("  {:>{}}", row_algorithm_text(o, row), algorithm_width);
    }
    out += fmt::format("  {:>{}}\n", wrong_text(row), wrong_width);
  }
  // One average per requested algorithm (nccom-test prints one for its single sweep).
  for (collectives::Algorithm a : o.algorithms) {
    const double avg = avg_busbw(r, a);
    if (o.algorithms.size() == 1) {
      out += fmt::format("Avg bus bandwidth:      {:.4f}GB/s\n", avg);
    } else {
      out += fmt::format("Avg bus bandwidth ({}):      {:.4f}GB/s\n",
                         collectives::algorithm_name(a), avg);
    }
  }
  if (o.breakdown) out += format_breakdown(o, r);
  out += format_cost(r.cost) + "\n";
  return out;
}

std::string algorithm_text(const BenchOptions& o, collectives::Algorithm requested,
                           collectives::Algorithm ran) {
  const std::string_view name = collectives::algorithm_name(ran);
  if (requested != collectives::Algorithm::kAuto || o.algorithms.size() < 2) {
    return std::string(name);
  }
  return fmt::format("auto:{}", name);
}

std::string row_algorithm_text(const BenchOptions& o, const BenchRow& row) {
  return algorithm_text(o, row.requested, row.algorithm);
}

std::string format_breakdown(const BenchOptions& o, const BenchResult& r) {
  std::string out =
      "# where the time goes (--breakdown, D45): shares of the measured iterations' simulated "
      "time\n"
      "# gen, compute, wait: the ranks' GPSIMD cores (their mean) building descriptors, "
      "reducing, waiting (for data, semaphores, their own writes) or done; dma: their DMA "
      "engines busy; link: the busiest link direction\n";
  const std::size_t algorithm_width =  // as the table's: wider for auto:hierarchical
      column_width(r, 12, [&](const BenchRow& row) { return row_algorithm_text(o, row); });
  out += fmt::format("# {:>10}  {:>{}}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {}\n", "size(B)",
                     "algorithm", algorithm_width, "gen", "compute", "wait", "dma", "link",
                     "busiest link");
  const auto pct = [](double share) { return fmt::format("{:.1f}%", 100.0 * share); };
  for (const BenchRow& row : r.rows) {
    if (!row.breakdown) {
      out += fmt::format("# {:>10}  {:>{}}  (no time to break down: nothing ran)\n", row.size,
                         row_algorithm_text(o, row), algorithm_width);
      continue;
    }
    const TimeBreakdown& b = *row.breakdown;
    out += fmt::format("# {:>10}  {:>{}}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {}\n", row.size,
                       row_algorithm_text(o, row), algorithm_width, pct(b.desc_gen), pct(b.compute),
                       pct(b.waiting), pct(b.engines), pct(b.link),
                       b.link_name.empty() ? "(no link carried data)" : b.link_name);
  }
  return out;
}

std::string format_cost(const BenchCost& c) {
  const auto rate = [](std::uint64_t n, double seconds) {
    return seconds > 0 ? static_cast<double>(n) / seconds : 0;
  };
  // Per wall-second (what issue 5 measures) and per second spent simulating, for the bytes as
  // for the descriptors.
  const double per_s = rate(c.copied_bytes, c.wall_seconds);
  const double sim_per_s = rate(c.copied_bytes, c.sim_seconds);
  const double desc_per_s = rate(c.descriptors, c.wall_seconds);
  const double desc_per_sim_s = rate(c.descriptors, c.sim_seconds);
  std::string out = fmt::format(
      "# run: {:.2f} s wall{} ({:.2f} s simulating, {:.2f} s system CPU), {} descriptors ({:.2f} "
      "M/s per wall-second, {:.2f} M/s while simulating), ",
      c.wall_seconds, c.jobs > 1 ? fmt::format(", {} rows at a time", c.jobs) : std::string(),
      c.sim_seconds, c.system_seconds, c.descriptors, desc_per_s / 1e6, desc_per_sim_s / 1e6);
  if (c.copied_bytes == 0) {
    // Timing-only runs copy nothing by design; a functional run can too (one rank).
    return out + (c.timing_only ? "no bytes copied (timing only)" : "no bytes copied");
  }
  if (!c.memcpy) {
    return out + fmt::format(
                     "{:.3f} GB copied: {:.2f} GB/s per wall-second ({:.2f} GB/s while "
                     "simulating; no memcpy to compare: no memory was left for its buffers)",
                     static_cast<double>(c.copied_bytes) / 1e9, per_s / 1e9, sim_per_s / 1e9);
  }
  const double memcpy = c.memcpy->bytes_per_s;
  auto pct = [&](double v) { return memcpy > 0 ? 100.0 * v / memcpy : 0; };
  return out + fmt::format(
                   "{:.3f} GB copied: {:.2f} GB/s per wall-second = {:.0f}% of memcpy ({:.0f}% "
                   "while simulating; memcpy {:.2f} GB/s in this run{})",
                   static_cast<double>(c.copied_bytes) / 1e9, per_s / 1e9, pct(per_s),
                   pct(sim_per_s), memcpy / 1e9,
                   c.memcpy->reduced_span == 0
                       ? std::string()
                       : fmt::format(", through {} buffers: no memory was left for larger ones",
                                     size_name(c.memcpy->reduced_span)));
}

std::string format_json(const BenchOptions& o, const BenchResult& r) {
  nlohmann::ordered_json j;
  j["collective"] = collectives::op_name(o.op);
  j["ranks"] = o.groups ? o.groups->ranks() : o.ranks;
  j["groups"] = r.groups;
  // --custom-src-target-pairs as run: one list of [source, target] positions per group.
  if (o.pairs.empty()) {
    j["src_target_pairs"] = nullptr;
  } else {
    nlohmann::ordered_json lists = nlohmann::ordered_json::array();
    for (const auto& list : o.pairs) {
      nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
      for (const collectives::SrcTarget& p : list) pairs.push_back({p.src, p.target});
      lists.push_back(std::move(pairs));
    }
    j["src_target_pairs"] = std::move(lists);
  }
  j["topology"] = o.topology_name;
  // The file and what it sets, then --param (D47).
  j["topology_file"] = o.topology_file.empty() ? nlohmann::ordered_json(nullptr)
                                               : nlohmann::ordered_json(o.topology_file);
  const auto params_object = [](std::span<const device::ParamOverrideSpec> list) {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (const device::ParamOverrideSpec& p : list) params[p.name] = p.value;
    return params;
  };
  j["topology_file_params"] = params_object(o.file_params);
  j["params"] = params_object(o.params);
  j["dtype"] = collectives::dtype_name(o.dtype);
  // As the table's header: a collective that does not reduce has no reduction.
  j["reduce"] = collectives::is_reduction(o.op)
                    ? nlohmann::ordered_json(collectives::reduce_op_name(o.reduce))
                    : nlohmann::ordered_json(nullptr);
  j["iterations"] = o.iterations;
  j["warmups"] = o.warmups;
  j["timing_only"] = o.timing_only;
  j["check"] = !o.check                                     ? "none"
               : *o.check == collectives::DataFill::kRandom ? "random"
                                                            : "all_ones";
  j["seed"] = o.seed;                // what the random data came from (with "check": "random")
  j["tie_seed"] = o.tie_seed;        // 0: same-tick events in scheduled order
  j["check_races"] = o.check_races;  // true: every run was race-checked, and none raced
  j["race_checked_accesses"] = r.cost.race_checked_accesses;
  j["time_unit"] = "us (simulated)";
  j["bandwidth_unit"] = "GB/s (1e9 bytes per simulated second)";
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const BenchRow& row : r.rows) {
    nlohmann::ordered_json x;
    // nccom-test's keys (its table's headings; each requested statistic), then ours.
    x["size(B)"] = row.size;
    x["count(elems)"] = row.count;
    if (o.show_io_sizes) {
      const IoSizes io = row_io(o, row);
      x["total_input_size(B)"] = io.input;
      x["total_output_size(B)"] = io.output;
    }
    x["type"] = collectives::dtype_name(o.dtype);
    for (const TimeStat& s : o.stats) x[time_key(s)] = stat_value(row, s);
    x["algbw(GB/s)"] = row.algbw;
    x["busbw(GB/s)"] = row.busbw;
    x["size"] = row.size;
    x["count"] = row.count;
    x["algorithm_requested"] = collectives::algorithm_name(row.requested);
    x["algorithm"] = collectives::algorithm_name(row.algorithm);
    x["time_avg_us"] = row.avg_us;
    x["time_p50_us"] = stat_value(row, TimeStat{50});
    x["time_p99_us"] = stat_value(row, TimeStat{99});
    x["algbw"] = row.algbw;
    x["busbw"] = row.busbw;
    x["wrong"] = row.wrong ? nlohmann::ordered_json(*row.wrong) : nlohmann::ordered_json(nullptr);
    x["descriptors"] = row.descriptors;
    x["copied_bytes"] = row.copied_bytes;
    x["wall_seconds"] = row.wall_seconds;
    if (o.breakdown) {
      if (row.breakdown) {
        const TimeBreakdown& b = *row.breakdown;
        x["breakdown"] = {
            {"desc_gen", b.desc_gen},
            {"compute", b.compute},
            {"waiting", b.waiting},
            {"engines", b.engines},
            {"busiest_link", b.link},
            {"busiest_link_name", b.link_name.empty() ? nlohmann::ordered_json(nullptr)
                                                      : nlohmann::ordered_json(b.link_name)}};
      } else {
        x["breakdown"] = nullptr;
      }
    }
    rows.push_back(std::move(x));
  }
  j["results"] = std::move(rows);
  // What the table's `Avg bus bandwidth` line(s) say: one average for one algorithm; for
  // several, one each and no average across them (the table prints none).
  if (o.algorithms.size() == 1) {
    j["avg_busbw"] = avg_busbw(r, o.algorithms[0]);
  } else {
    j["avg_busbw"] = nullptr;
    nlohmann::ordered_json by = nlohmann::ordered_json::object();
    for (collectives::Algorithm a : o.algorithms) {
      by[std::string(collectives::algorithm_name(a))] = avg_busbw(r, a);
    }
    j["avg_busbw_by_algorithm"] = std::move(by);
  }
  j["run"] = {
      {"wall_seconds", r.cost.wall_seconds},
      {"jobs", r.cost.jobs},
      {"sim_seconds", r.cost.sim_seconds},
      {"system_seconds", r.cost.system_seconds},
      {"descriptors", r.cost.descriptors},
      {"copied_bytes", r.cost.copied_bytes},
      {"memcpy_bytes_per_second", r.cost.memcpy ? nlohmann::ordered_json(r.cost.memcpy->bytes_per_s)
                                                : nlohmann::ordered_json(nullptr)},
      {"memcpy_reduced_span_bytes", r.cost.memcpy && r.cost.memcpy->reduced_span != 0
                                        ? nlohmann::ordered_json(r.cost.memcpy->reduced_span)
                                        : nlohmann::ordered_json(nullptr)}};
  // A path is bytes, JSON text is UTF-8: a topology file named with other bytes (a directory
  // `bad\xff/`) has each byte that is not UTF-8 written as U+FFFD, not a throw after the run.
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace sbrdma::platform
