// `sbrdma bench <allr|allg|redsct|alltoall|sendrecv|permute> -r RANKS ...`: nccom-test's
// flags over platform/bench.h (docs/bench.md). Prints the table on stdout and one progress
// line per size on stderr (plus finished iterations, every 10 s, while a size runs long). Exit 0; 1
// for bad input, a failed run or any #wrong > 0.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/printable.h"
#include "base/split_work.h"
#include "cli/bench_outputs.h"
#include "cli/commands.h"
#include "cli/file_io.h"
#include "cli/numbers.h"
#include "platform/bench.h"
#include "platform/collective_groups.h"
#include "platform/host_memory.h"
#include "platform/src_target_pairs.h"
#include "platform/topology_json.h"

namespace sbrdma::cli {
namespace {

struct BenchArgs {
  std::string collective;
  std::string ranks;     ///< empty: not given
  std::string minbytes;  ///< empty: not given (kDefaultMinBytes)
  std::string maxbytes;
  std::string factor;  ///< empty: not given (nor -i: nccom-test's step, (-e - -b) / 10)
  std::string step;
  std::string iters = "5";
  std::string warmups = "1";
  std::string dtype = "fp32";
  std::string op = "sum";
  bool op_given = false;  ///< -o given (even as sum: noted where it has no effect)
  std::string check;
  bool check_given = false;  ///< -c given, with or without a value (bare: random)
  std::string seed = "0";
  bool seed_given = false;  ///< --seed given (even as 0)
  std::string tie_seed = "0";
  bool show_algorithm = false;
  bool breakdown = false;
  bool check_races = false;
  bool show_io_sizes = false;
  std::string dp_dimension;  ///< --data-parallel-dimension, empty: not given
  std::vector<std::string> time_stats;
  unsigned time_stats_given = 0;  ///< -t occurrences
  BenchOutputs out;               ///< --report-to-json-file, --plot, --trace, --dump-programs
  std::string trace_ranks;        ///< --trace-ranks LIST
  bool trace_ranks_given = false;
  std::string groups;
  std::string pairs;  ///< --custom-src-target-pairs
  bool sb2sb = false;
  std::string topology = "trn2";
  std::vector<std::string> params;  ///< --param NAME=VALUE, in order
  std::string algorithm = "auto";
  bool timing_only = false;
  std::string jobs;  ///< --jobs
  bool jobs_given = false;
  // nccom-test's multi-node flags: one node is what is simulated.
  std::string nnodes = "1";
  std::vector<std::string> hosts;
  bool hosts_given = false;  ///< -s/--hosts given (its words may all have gone to reclaim)
  std::string hosts_file;
  bool non_interactive = false;
};

/// nccom-test's collective that runs only across nodes: refused by name.
constexpr std::string_view kAllToAllV = "alltoallv";

/// The largest count a flag takes (-r, -n, -w, --data-parallel-dimension).
constexpr std::uint64_t kMaxCount = std::numeric_limits<unsigned>::max();
/// The most rows --jobs runs at once (each a thread).
constexpr std::uint64_t kMaxJobs = 256;

/// True if `word` names a collective (alltoallv included).
bool is_collective_name(const std::string& word) {
  return word == kAllToAllV || collectives::parse_op(word).ok();
}

/// A word that the greedy -c, -t or -s took where the collective was meant ("--check allg",
/// as nccom-test's documentation writes it) is given back to the collective.
void reclaim_collective(BenchArgs& a) {
  if (!a.collective.empty()) return;
  if (!a.check.empty() && is_collective_name(a.check)) {
    a.collective = std::exchange(a.check, "");
    return;
  }
  for (std::vector<std::string>* list : {&a.time_stats, &a.hosts}) {
    const auto it = std::find_if(list->begin(), list->end(), is_collective_name);
    if (it != list->end()) {
      a.collective = *it;
      list->erase(it);
      return;
    }
  }
}

/// The built-in topologies with at least `ranks` cores: "trn2.48xlarge (128), ...".
std::string topologies_with_cores(unsigned ranks = 2) {
  std::string out;
  for (std::string_view name : device::builtin_topology_names()) {
    auto t = device::builtin_topology(name);
    if (!t) continue;
    const unsigned cores = platform::geometry_of(*t).num_cores();
    if (cores >= ranks) out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", name, cores);
  }
  return out;
}

/// "; built-in topologies with enough: trn2.48xlarge (128), ..." or nothing.
std::string larger_topologies(unsigned ranks) {
  const std::string list = topologies_with_cores(ranks);
  return list.empty() ? list : "; built-in topologies with enough: " + list;
}

/// --data-parallel-dimension's D, which must divide `ranks` (0: -r not given, not checked).
base::Result<unsigned> data_parallel_dimension(const std::string& text, unsigned ranks) {
  auto d = parse_count("--data-parallel-dimension", text, "ranks per group", 1,
                       ranks != 0 ? ranks : kMaxCount);
  if (!d) return d.error();
  const auto per = static_cast<unsigned>(*d);
  if (ranks != 0 && ranks % per != 0) {
    return base::make_error(fmt::format(
        "--data-parallel-dimension {} does not divide -r {} into groups of that size", per, ranks));
  }
  return per;
}

/// --trace-ranks LIST: ranks (positions in a group of `ranks`) as "N" and "N-M" items joined by
/// commas, each at most once; sorted.
base::Result<std::vector<unsigned>> trace_rank_list(const std::string& text, unsigned ranks) {
  constexpr std::string_view kFlag = "--trace-ranks";
  const auto bad = [&](const std::string& why) {
    return base::make_error(fmt::format("{}: '{}' {}", kFlag, base::printable_brief(text), why));
  };
  if (text.empty()) return bad("is not a list of ranks (N or N-M, joined by commas: 0-3,8)");
  std::vector<bool> listed(ranks, false);
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    const std::string_view item(text.data() + from, comma - from);
    const std::size_t dash = item.find('-');
    const std::string_view lo_text = item.substr(0, dash);
    const std::string_view hi_text =
        dash == std::string_view::npos ? lo_text : item.substr(dash + 1);
    if (lo_text.empty() || hi_text.empty() || hi_text.find('-') != std::string_view::npos) {
      return bad("is not a list of ranks (N or N-M, joined by commas: 0-3,8)");
    }
    const std::string_view what = "a rank of the groups";
    auto lo = parse_flag_number(kFlag, lo_text, what, 0, ranks - 1);
    if (!lo) return lo.error();
    auto hi = parse_flag_number(kFlag, hi_text, what, 0, ranks - 1);
    if (!hi) return hi.error();
    if (*hi < *lo) {
      return base::make_error(
          fmt::format("{}: '{}' ends before it starts", kFlag, base::printable_brief(item)));
    }
    for (std::uint64_t r = *lo; r <= *hi; ++r) {
      if (listed[r]) return base::make_error(fmt::format("{}: rank {} is listed twice", kFlag, r));
      listed[r] = true;
    }
    from = comma + 1;
  }
  std::vector<unsigned> out;
  for (unsigned r = 0; r < ranks; ++r) {
    if (listed[r]) out.push_back(r);
  }
  return out;
}

/// -b when not given: nccom-test's 32M does not fit an SBUF partition (D30i).
constexpr const char* kDefaultMinBytes = "1M";

/// The flags, checked and turned into BenchOptions (everything but the groups' topology check).
/// Every bad flag is reported, not only the first; a flag whose check needs another (the
/// sweep needs -b, -e, -f/-i and -d) is checked once those are good.
base::Result<platform::BenchOptions> options_of(const BenchArgs& a, base::Errors& errors) {
  platform::BenchOptions o;
  auto bad = [&](base::Error e) { errors.push_back(std::move(e)); };
  if (a.collective.empty()) {
    bad(base::make_error(
        fmt::format("the collective is required (one of: {})", collectives::op_name_list())));
  } else if (a.collective == kAllToAllV) {
    bad(base::make_error(
        fmt::format("{} is not simulated: nccom-test runs it only across nodes", kAllToAllV)));
  } else if (auto op = collectives::parse_op(a.collective)) {
    o.op = *op;
    if (!a.pairs.empty() && o.op != collectives::Op::kPermute) {
      bad(base::make_error(fmt::format(
          "--custom-src-target-pairs: only permute sends along source-target pairs, not {}",
          a.collective)));
    }
  } else {
    bad(op.error());
  }
  if (a.groups == "-" && a.pairs == "-") {
    bad(base::make_error(
        "--custom-replica-groups - and --custom-src-target-pairs -: only one of them can read "
        "standard input; give the other a file"));
  }
  if (auto n = parse_u64(a.nnodes); !n || *n != 1) {
    bad(base::make_error(
        fmt::format("-N {}: one node (-N 1) is simulated; --topology picks the machine "
                    "(built-in: {})",
                    a.nnodes.empty() ? std::string("''") : base::printable_brief(a.nnodes),
                    topologies_with_cores())));
  }
  if (a.hosts_given || !a.hosts_file.empty()) {
    bad(base::make_error(
        fmt::format("{}: nothing runs on hosts here; the simulated machine is --topology",
                    a.hosts_given ? "-s/--hosts" : "--hosts-file")));
  }
  auto dt = collectives::parse_dtype(a.dtype);
  if (dt) {
    o.dtype = *dt;
  } else {
    bad(base::make_error("-d: " + dt.error().message));
  }
  if (auto red = collectives::parse_reduce_op(a.op)) {
    o.reduce = *red;
  } else {
    bad(base::make_error("-o: " + red.error().message));
  }
  auto b = platform::parse_size(a.minbytes.empty() ? kDefaultMinBytes : a.minbytes, "-b");
  if (!b) bad(b.error());
  // -e defaults to -b: a bad -b is reported once, as -b.
  auto e = a.maxbytes.empty() ? b : platform::parse_size(a.maxbytes, "-e");
  if (!e && !a.maxbytes.empty()) bad(e.error());
  std::uint64_t step = 0;
  bool step_ok = true;
  if (!a.step.empty()) {
    auto s = platform::parse_size(a.step, "-i");
    if (!s || *s == 0) {
      bad(s ? base::make_error("-i: the step must be at least 1 byte") : s.error());
      step_ok = false;
    } else {
      step = *s;
    }
  }
  // A factor below 2 is refused below, unless -i makes -f moot; a factor that is no number at
  // all is told here, with the range a factor takes.
  // A size's reading: nccom-test takes a size's units on every number flag, -f too ("-f 2kb"
  // is 2048), and a plain number reads as parse_u64 reads it.
  auto factor = platform::parse_size(a.factor.empty() ? "2" : a.factor, "-f");
  if (!factor) {
    bad(parse_flag_number("-f", a.factor, "a factor", 2, kNoMax).error());
  }
  if (a.factor.empty() && a.step.empty() && b && e && *e > *b) {
    step = std::max<std::uint64_t>(1, (*e - *b) / 10);  // nccom-test's default -i
  }
  if (a.minbytes.empty() && b && e && *e != 0 && *e < *b) {
    // Not "-b 1048576 is larger than -e": the user gave no -b.
    bad(base::make_error(fmt::format("-e {} is below -b's default, {} ({} B): give -b too", *e,
                                     kDefaultMinBytes, *b)));
    b = base::make_error("");  // told; the sweep is not checked
  }
  // The bounds' errors do not depend on -d: each is reported with the others.
  bool bounds_ok = false;
  if (b && e) {
    // A bad -f or -i is told already: stand-ins that pass keep it from being told twice.
    const auto errs = platform::sweep_errors(*b, *e, factor ? *factor : 2, step_ok ? step : 1,
                                             /*end_given=*/!a.maxbytes.empty());
    for (const base::Error& err : errs) bad(err);
    bounds_ok = errs.empty() && step_ok && factor;
  } else if (factor && step_ok) {  // bad bounds: the factor is still told
    if (auto err = platform::factor_error(*factor, step)) bad(*err);
  }
  if (bounds_ok && dt) {
    auto sizes = platform::sweep_sizes(*b, *e, *factor, step, collectives::dtype_bytes(o.dtype),
                                       &o.sizes_left_out);
    if (sizes) {
      o.sizes = std::move(*sizes);
    } else {
      bad(sizes.error());
    }
  }
  for (std::size_t at = 0; at <= a.algorithm.size();) {
    const std::size_t comma = std::min(a.algorithm.find(',', at), a.algorithm.size());
    auto alg = collectives::parse_algorithm(a.algorithm.substr(at, comma - at));
    at = comma + 1;
    if (!alg) {
      bad(base::make_error("--algorithm: " + alg.error().message));
    } else if (std::find(o.algorithms.begin(), o.algorithms.end(), *alg) != o.algorithms.end()) {
      bad(base::make_error(
          fmt::format("--algorithm: {} is listed twice", collectives::algorithm_name(*alg))));
    } else {
      o.algorithms.push_back(*alg);
    }
  }
  const auto n = parse_count("-n", a.iters, "iterations", 1, kMaxCount);
  if (n) {
    o.iterations = static_cast<unsigned>(*n);
  } else {
    bad(n.error());
  }
  const auto w = parse_count("-w", a.warmups, "warmup iterations", 0, kMaxCount);
  if (w) {
    o.warmups = static_cast<unsigned>(*w);
  } else {
    bad(w.error());
  }
  if (n && w) {
    if (auto st = platform::check_iteration_total(o.iterations, o.warmups); !st) bad(st.error());
  }
  if (a.check_given) {
    if (a.check.empty() || a.check == "random") {  // a bare -c is nccom-test's default
      o.check = collectives::DataFill::kRandom;
    } else if (a.check == "all_ones") {
      o.check = collectives::DataFill::kAllOnes;
    } else if (is_collective_name(a.check)) {  // a collective after -c, one given already
      bad(base::make_error(fmt::format(
          "-c: '{}' is a collective, and this run's is {} already (-c takes random or all_ones)",
          a.check, base::printable_brief(a.collective))));
    } else {
      bad(base::make_error(fmt::format("-c: unknown check '{}' (random or all_ones)",
                                       base::printable_brief(a.check))));
    }
  }
  if (auto st = platform::check_data_mode(o.check.has_value(), a.timing_only); !st) {
    bad(st.error());
  }
  if (auto seed = parse_flag_u64("--seed", a.seed)) {
    o.seed = *seed;
  } else {
    bad(seed.error());
  }
  if (auto tie_seed = parse_flag_u64("--tie-seed", a.tie_seed)) {
    o.tie_seed = *tie_seed;
  } else {
    bad(tie_seed.error());
  }
  if (!a.time_stats.empty()) o.stats.clear();
  for (const std::string& t : a.time_stats) {
    auto stat = platform::parse_time_stat(t);
    if (!stat) {
      bad(base::make_error("-t: " + stat.error().message));
    } else if (std::find(o.stats.begin(), o.stats.end(), *stat) != o.stats.end()) {
      bad(base::make_error(fmt::format("-t: {} is listed twice", t)));
    } else {
      o.stats.push_back(*stat);
    }
  }
  o.show_algorithm = a.show_algorithm || o.algorithms.size() > 1;
  o.show_io_sizes = a.show_io_sizes;
  o.breakdown = a.breakdown;
  o.check_races = a.check_races;
  o.timing_only = a.timing_only;
  const std::optional<std::uint64_t> address_room = platform::address_space_available();
  if (auto mem = platform::host_memory_available(); !mem) {
    bad(mem.error());
  } else {
    o.memory_budget = *mem;  // of the rows that run at once [CHOICE D48]
    if (!o.timing_only) {    // a timing-only run backs no data pages [CHOICE D43]
      o.host_memory = *mem;
      o.address_space = address_room;
    }
  }
  // Rows at once, one per usable core. Under an address-space limit each row is sized against
  // the room the rows before it left (D43), which rows at once would change and could
  // overrun: one at a time there. [CHOICE D48]
  o.jobs = base::usable_cores();
  if (a.jobs_given) {
    if (auto j = parse_count("--jobs", a.jobs, "rows at once", 1, kMaxJobs)) {
      o.jobs = static_cast<unsigned>(*j);
    } else {
      bad(j.error());
    }
  }
  if (address_room) o.jobs = 1;
  o.trace = !a.out.trace.empty();
  o.keep_programs = !a.out.dump.empty();
  if (!a.ranks.empty()) {
    if (auto r = parse_count("-r", a.ranks, "ranks", 1, kMaxCount)) {
      o.ranks = static_cast<unsigned>(*r);
    } else {
      bad(r.error());
    }
  } else if (a.groups.empty()) {
    bad(base::make_error(
        "-r: the number of ranks (at least 1) is required (or --custom-replica-groups)"));
  }
  if (!a.dp_dimension.empty()) {
    if (auto d = data_parallel_dimension(a.dp_dimension, o.ranks); !d) bad(d.error());
  }
  if (!errors.empty()) return errors.front();
  return o;
}

/// The files a bench run reads, by flag ("" for a built-in topology, no groups or no pairs).
BenchInputs bench_inputs(const BenchArgs& a) {
  return {{{"--topology", platform::topology_file(a.topology)},
           {"--custom-replica-groups", a.groups},
           {"--custom-src-target-pairs", a.pairs}}};
}

/// --data-parallel-dimension D: the first R cores as R / D groups of D (D30i).
base::Result<collectives::Communicator> data_parallel_groups(const collectives::Geometry& geom,
                                                             unsigned ranks,
                                                             const std::string& text) {
  auto d = data_parallel_dimension(text, ranks);
  if (!d) return d.error();
  return collectives::data_parallel_communicator(geom, ranks, *d);
}

/// Flags this run takes but cannot use, told on stderr (nccom-test accepts them too, so a
/// script that passes them to every collective still runs).
std::vector<std::string> unused_flags(const BenchArgs& a, const platform::BenchOptions& o) {
  std::vector<std::string> out;
  if (a.op_given && !collectives::is_reduction(o.op)) {
    out.push_back(fmt::format("-o {}: {} reduces nothing, so -o has no effect",
                              collectives::reduce_op_name(o.reduce), collectives::op_name(o.op)));
  }
  if (a.trace_ranks_given && !o.trace) {
    out.push_back(
        fmt::format("--trace-ranks {}: without --trace nothing is traced, so it has no effect",
                    base::printable_brief(a.trace_ranks)));
  }
  if (a.seed_given && !o.check) {
    out.push_back(
        fmt::format("--seed {}: without -c no input data is filled, so the seed has no "
                    "effect",
                    base::printable_brief(a.seed)));
  } else if (a.seed_given && o.check == collectives::DataFill::kAllOnes) {
    out.push_back(
        fmt::format("--seed {}: -c all_ones fills every element with 1, so the seed has no effect",
                    base::printable_brief(a.seed)));
  }
  if (const auto asked = parse_count("--jobs", a.jobs, "rows at once", 1, kMaxJobs);
      a.jobs_given && asked && *asked > 1 && o.check_races) {
    out.push_back(fmt::format(
        "--jobs {}: with --check-races the rows run one at a time (the race checker's memory is "
        "in no row's estimate), so --jobs has no effect",
        base::printable_brief(a.jobs)));
  } else if (a.jobs_given && asked && *asked > o.jobs) {
    out.push_back(fmt::format(
        "--jobs {}: under an address-space limit (ulimit -v) the rows run one at a time, each "
        "sized against the room the rows before it left",
        base::printable_brief(a.jobs)));
  }
  return out;
}

int bench(const BenchArgs& a) {
  base::Errors errors;
  auto opts = options_of(a, errors);
  // The topology is told with the other flags' errors: it needs none of them.
  auto params = param_overrides(a.params);
  if (!params) errors.push_back(params.error());
  auto loaded = platform::load_topology_and_params(
      a.topology, params ? std::span<const device::ParamOverrideSpec>(*params)
                         : std::span<const device::ParamOverrideSpec>());
  if (!loaded) errors.push_back(flag_error("--topology", loaded.error()));
  if (!opts || !loaded || !params) return fail(errors);
  platform::BenchOptions& o = *opts;
  const device::Topology* topology = &loaded->topology;
  o.topology_name = topology->name();
  o.topology_file = loaded->file;
  o.file_params = loaded->file_params;
  o.params = std::move(*params);
  const collectives::Geometry geom = platform::geometry_of(*topology);
  if (!a.groups.empty()) {
    auto g = platform::load_replica_groups(a.groups, geom);
    if (!g) return fail(g.error());
    // -r counts every worker, as nccom-test's does: all the groups' ranks together.
    const std::size_t total = std::size_t{g->ranks()} * g->groups.size();
    if (o.ranks != 0 && o.ranks != total) {
      return fail(base::make_error(fmt::format(
          "-r {} does not match --custom-replica-groups: -r counts all ranks, and the groups "
          "hold {} ({} group{} of {})",
          o.ranks, total, g->groups.size(), g->groups.size() == 1 ? "" : "s", g->ranks())));
    }
    o.ranks = g->ranks();
    o.groups = std::move(*g);
  } else if (o.ranks > geom.num_cores()) {
    return fail(base::make_error(fmt::format("-r {}: topology {} has only {} cores (ranks){}",
                                             o.ranks, o.topology_name, geom.num_cores(),
                                             larger_topologies(o.ranks))));
  } else if (!a.dp_dimension.empty()) {
    auto g = data_parallel_groups(geom, o.ranks, a.dp_dimension);
    if (!g) return fail(g.error());
    o.ranks = g->ranks();
    o.groups = std::move(*g);
  }
  if (a.trace_ranks_given) {  // positions in each group, as the pairs' [CHOICE D29h]
    auto t = trace_rank_list(a.trace_ranks, o.ranks);
    if (!t) return fail(t.error());
    o.trace_ranks = std::move(*t);
  }
  if (!a.pairs.empty()) {  // positions in each group (o.ranks of them) [CHOICE D30j]
    const std::size_t groups = o.groups ? o.groups->groups.size() : 1;
    auto p = platform::load_src_target_pairs(a.pairs, groups, o.ranks);
    if (!p) return fail(p.error());
    o.pairs = std::move(*p);
  }
  // Outputs are checked before the run, which may be long, rather than after it.
  if (auto st = check_bench_outputs(a.out, bench_inputs(a)); !st) return fail(st.error());
  for (const std::string& n : unused_flags(a, o))
    std::fprintf(stderr, "bench: note: %s\n", n.c_str());
  if (!o.sizes_left_out.empty()) {
    std::string sizes;
    for (const std::uint64_t size : o.sizes_left_out) {
      sizes += fmt::format("{}{} B", sizes.empty() ? "" : ", ", size);
    }
    std::fprintf(stderr, "bench: note: %s: below one %s element (%u B), not run\n", sizes.c_str(),
                 std::string(collectives::dtype_name(o.dtype)).c_str(),
                 collectives::dtype_bytes(o.dtype));
  }
  for (const std::string& n : platform::params_without_effect(*topology, o.params))
    std::fprintf(stderr, "bench: note: --param %s\n", n.c_str());
  if (o.algorithms.size() > 1) {
    // A list compares what applies: one that cannot run on these groups is left out, said.
    std::vector<std::string> left_out;
    auto kept = platform::applicable_algorithms(o, *topology, left_out);
    if (!kept) return fail(kept.error());
    for (const std::string& why : left_out)
      std::fprintf(stderr, "bench: note: %s: left out of the list\n", why.c_str());
    o.algorithms = std::move(*kept);
  }
  auto r = platform::run_bench(
      o, *topology, [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); });
  if (!r) return fail(r.error());
  if (!a.out.trace.empty() && r->trace_json.find("\"ph\":") == std::string::npos) {
    std::fprintf(stderr,
                 "bench: note: --trace: no core ran an instruction in the traced iteration (a "
                 "group of one rank moves nothing): the trace has no events\n");
  }
  // The files first, the table last: an output that cannot be written after all (a full disk)
  // fails the run with nothing on stdout, as any other bad outcome does.
  if (auto st = write_bench_outputs(a.out, bench_inputs(a), o, *r); !st) return fail(st.error());
  std::fputs(platform::format_table(o, *r).c_str(), stdout);
  std::fflush(stdout);
  if (auto e = platform::wrong_data_error(*r)) return fail(*e);
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, Context& ctx) {
  constexpr int kMaxStats = 101;  // avg and p1..p100
  auto a = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand(
      "bench", "Benchmark a collective in the nccom-test dialect on a simulated topology");
  cmd->footer(
      "Environment: SBRDMA_MEMORY_LIMIT=BYTES (K/M/G) is the host memory a data run plans with, "
      "instead of what the OS reports available: a run whose SBUF pages certainly need more (the "
      "buffers of a checked run, -c; whole SBUFs where they are backed whole) is refused before "
      "it starts, and a run that may need more warns. An address-space limit (ulimit -v) is "
      "checked too, against a whole SBUF partition for each one those buffers use.");
  cmd->add_option("COLLECTIVE", a->collective,
                  collectives::op_name_list() +
                      " (also all_reduce, all_gather, reduce_scatter, all_to_all; required)");
  cmd->add_option("-r,--nworkers", a->ranks,
                  "Ranks (NeuronCores), required unless --custom-replica-groups gives them; with "
                  "it, all groups' ranks together")
      ->type_name("UINT")
      ->check(kNonEmpty);
  cmd->add_option("-b,--minbytes", a->minbytes,
                  "Smallest size: decimal or 0x hex, with binary units in any case (1K, 1kb, 1KiB, "
                  "16M, 1G ...)")
      ->default_str(kDefaultMinBytes)
      ->check(kNonEmpty);
  cmd->add_option("-e,--maxbytes", a->maxbytes, "Largest size (default: -b)")->check(kNonEmpty);
  auto* f =
      cmd->add_option(
             "-f,--stepfactor", a->factor,
             "Multiply the size by this (a whole number, at least 2; units as in -b: 2K is 2048)")
          ->type_name("UINT")
          ->check(kNonEmpty);
  cmd->add_option("-i,--stepbytes", a->step,
                  "Add this to the size instead (a size holding the same whole number of "
                  "elements as the one before it runs once); without -f or -i, (-e - -b) / 10")
      ->check(kNonEmpty)
      ->excludes(f);
  cmd->add_option("-n,--iters", a->iters, "Measured iterations")
      ->type_name("UINT")
      ->capture_default_str();
  cmd->add_option("-w,--warmup_iters", a->warmups, "Iterations run first, not measured")
      ->type_name("UINT")
      ->capture_default_str();
  cmd->add_option("-d,--datatype", a->dtype,
                  collectives::dtype_name_list() + " (also float32, bfloat16, float16)")
      ->capture_default_str();
  auto* op = cmd->add_option("-o,--op", a->op, "Reduction: sum, max, min")->capture_default_str();
  auto* check =
      cmd->add_option("-c,--check", a->check, "Check the data: random (also a bare -c) or all_ones")
          ->expected(0, 1);
  auto* seed = cmd->add_option("--seed", a->seed, "Seed of the random data (decimal or 0x-hex)")
                   ->type_name("UINT")
                   ->capture_default_str();
  cmd->add_option("--tie-seed", a->tie_seed,
                  "Run same-tick events in an order shuffled by this seed (0: as scheduled; "
                  "decimal or 0x-hex): the data must come out right in any order; times move "
                  "with it, by tens of percent where many engines share chip-to-chip links")
      ->type_name("UINT")
      ->capture_default_str();
  cmd->add_flag("--show-algorithm", a->show_algorithm,
                "Add the algorithm column (always there when --algorithm lists several)");
  cmd->add_flag("--show-input-output-size", a->show_io_sizes,
                "Add a rank's input and output bytes (rank 0's if blocks differ)");
  cmd->add_flag("--check-races", a->check_races,
                "Run every simulation under the race checker (as `sbrdma run --check-races`): a "
                "race (or an unfenced wait) fails the bench; slower, and more memory");
  cmd->add_flag("--breakdown", a->breakdown,
                "After the table, where each size's simulated time goes: the ranks' GPSIMD "
                "cores building descriptors, reducing or waiting, their DMA engines busy, and "
                "the busiest link");
  // One -t takes every statistic; a second -t is refused as any option given twice is (CLI11
  // would join the two lists), in the same words main() gives for those.
  cmd->add_option_function<std::vector<std::string>>(
         "-t,--stats,--time-stats",
         [a](const std::vector<std::string>& words) {
           if (++a->time_stats_given > 1) {
             throw CLI::ArgumentMismatch("-t: At Most 1 required but received 2");
           }
           a->time_stats = words;
         },
         "Time columns: avg and/or percentiles pN (e.g. avg p50 p99)")
      ->expected(1, kMaxStats)
      ->trigger_on_parse();
  cmd->add_option("--report-to-json-file", a->out.json, "Also write the results as JSON")
      ->check(kNonEmpty);
  auto* dp = cmd->add_option("--data-parallel-dimension", a->dp_dimension,
                             "Run -r ranks as groups of this many at once, group k holding ranks "
                             "k, k + r/D, k + 2r/D ...")
                 ->type_name("UINT")
                 ->check(kNonEmpty);
  cmd->add_option("--custom-replica-groups,--custom-replica-group", a->groups,
                  "JSON file (- for standard input) with the replica groups ([[0,1,...],[...]]); "
                  "-r is then their total rank count")
      ->check(kNonEmpty)
      ->excludes(dp);
  cmd->add_option("--custom-src-target-pairs", a->pairs,
                  "JSON file (- for standard input) of permute's pairs ([[[0,1],[1,0],...]]: "
                  "position s of a group sends to t), one list per group or one for all")
      ->check(kNonEmpty);
  cmd->add_flag("--sb2sb", a->sb2sb, "Accepted: collectives here are always SBUF to SBUF");
  cmd->add_option("--topology", a->topology, "Built-in topology name or JSON file")
      ->capture_default_str()
      ->check(kNonEmpty);
  add_param_option(*cmd, a->params);
  cmd->add_option(
         "--algorithm", a->algorithm,
         "auto, ring, mesh, rdh, hierarchical or hier (a comma list runs each that applies)")
      ->capture_default_str();
  cmd->add_flag("--timing-only", a->timing_only, "Move no data (times are unchanged)");
  auto* jobs =
      cmd->add_option("--jobs", a->jobs,
                      "Rows (sizes x algorithms) simulated at once, one thread each; the table is "
                      "the same (default: one per usable core; one at a time under ulimit -v)")
          ->type_name("UINT")
          ->check(kNonEmpty);
  cmd->add_option("--trace", a->out.trace,
                  "Chrome/Perfetto trace of one iteration of the last algorithm's last size")
      ->check(kNonEmpty);
  auto* trace_ranks =
      cmd->add_option("--trace-ranks", a->trace_ranks,
                      "With --trace: only these ranks' cores in it (positions in every group: "
                      "N or N-M joined by commas, 0-7,12); by default all")
          ->type_name("LIST");
  cmd->add_option("--plot", a->out.plot, "SVG plot of busbw against size")->check(kNonEmpty);
  cmd->add_option("--dump-programs", a->out.dump,
                  "Write each core's program (the last algorithm's last size) to DIR/coreN.s; "
                  "other coreN.s files there are removed")
      ->check(kNonEmpty);
  cmd->add_option("-N,--nnodes", a->nnodes, "Nodes: 1 (one simulated machine)")
      ->type_name("UINT")
      ->capture_default_str();
  auto* hosts = cmd->add_option("-s,--hosts", a->hosts,
                                "Refused: no hosts here (multi-node is not simulated)");
  cmd->add_option("--hosts-file", a->hosts_file, "Refused, as --hosts")->check(kNonEmpty);
  cmd->add_flag("--non-interactive", a->non_interactive, "Accepted: sbrdma never asks");
  cmd->callback([a, check, hosts, jobs, op, seed, trace_ranks, &ctx] {
    a->check_given = check->count() > 0;
    a->op_given = op->count() > 0;
    a->seed_given = seed->count() > 0;
    a->jobs_given = jobs->count() > 0;
    a->trace_ranks_given = trace_ranks->count() > 0;
    a->hosts_given = hosts->count() > 0;
    reclaim_collective(*a);
    // A timing-only run backs no SBUF pages: its memory is the programs and the engines.
    base::set_out_of_memory_hint(
        a->timing_only ? "a smaller run needs less: fewer ranks or iterations"
                       : "a smaller run needs less: fewer ranks, iterations or bytes, or "
                         "--timing-only");
    ctx.status = bench(*a);
  });
}

}  // namespace sbrdma::cli
