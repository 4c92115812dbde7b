#include "platform/bench.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <utility>

#if defined(__unix__)
#include <sys/resource.h>
#endif

#include "base/bits.h"
#include "base/check.h"
#include "base/number_text.h"
#include "base/ordered_jobs.h"
#include "base/printable.h"
#include "collectives/layout.h"
#include "device/paged_memory.h"
#include "platform/collective_runner.h"

namespace sbrdma::platform {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// CPU seconds the OS has spent for this process so far, all threads (0 where unknown).
double system_seconds_now() {
#if defined(__unix__)
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
  return static_cast<double>(u.ru_stime.tv_sec) + static_cast<double>(u.ru_stime.tv_usec) / 1e6;
#else
  return 0;
#endif
}

}  // namespace

std::string size_name(std::uint64_t b) {
  if (b >= (1ULL << 30) && b % (1ULL << 30) == 0) return fmt::format("{}G", b >> 30);
  if (b >= (1ULL << 20) && b % (1ULL << 20) == 0) return fmt::format("{}M", b >> 20);
  if (b >= (1ULL << 10) && b % (1ULL << 10) == 0) return fmt::format("{}K", b >> 10);
  return fmt::format("{}", b);
}

double percentile(const std::vector<double>& sorted, unsigned p) {
  if (sorted.empty()) return 0;
  // The rank ceil(p n / 100) in integers: in floating point p / 100 * n rounds up past a
  // whole rank (p7 of 100 gave the 8th).
  const std::uint64_t rank = base::ceil_div(std::uint64_t{p} * sorted.size(), 100);
  return sorted[std::clamp<std::uint64_t>(rank, 1, sorted.size()) - 1];
}

std::string TimeStat::name() const {
  return percentile == 0 ? std::string("avg") : fmt::format("p{}", percentile);
}

base::Result<TimeStat> parse_time_stat(std::string_view text) {
  if (text == "avg") return TimeStat{};
  const std::string_view digits = text.substr(std::min<std::size_t>(1, text.size()));
  unsigned n = 0;
  bool ok = text.starts_with('p') && !digits.empty() && digits.size() <= 3 && digits[0] != '0';
  for (char c : digits) {
    ok = ok && c >= '0' && c <= '9';
    if (ok) n = n * 10 + static_cast<unsigned>(c - '0');
  }
  if (!ok || n > 100) {
    return base::make_error(fmt::format(
        "unknown statistic '{}' (avg, or pN for a percentile, N a whole number 1 to 100)",
        base::printable_brief(text)));
  }
  return TimeStat{n};
}

IoSizes io_sizes(collectives::Op op, std::uint64_t count, unsigned ranks, unsigned element_bytes) {
  const std::uint64_t whole = count * element_bytes;
  const std::uint64_t block = collectives::even_counts(count, ranks).front() * element_bytes;
  switch (op) {
    case collectives::Op::kAllGather:
      return {block, whole};
    case collectives::Op::kReduceScatter:
      return {whole, block};
    case collectives::Op::kAllToAll:  // block 0 of every rank
      return {whole, block * ranks};
    default:
      return {whole, whole};
  }
}

double stat_value(const BenchRow& row, TimeStat s) {
  return s.percentile == 0 ? row.avg_us : percentile(row.times_us, s.percentile);
}

base::Result<std::uint64_t> parse_size(std::string_view text, std::string_view what) {
  // A binary unit, in any case: K, KB or KiB (nccom-test writes 1kb, 1MB, 1gb).
  std::uint64_t mult = 1;
  std::string_view digits = text;
  const auto ends_with_nocase = [&](std::string_view suffix) {
    if (digits.size() < suffix.size()) return false;
    const std::string_view tail = digits.substr(digits.size() - suffix.size());
    return std::equal(tail.begin(), tail.end(), suffix.begin(), [](char a, char b) {
      return std::tolower(static_cast<unsigned char>(a)) == b;
    });
  };
  if (ends_with_nocase("ib")) {
    digits.remove_suffix(2);
  } else if (ends_with_nocase("b")) {
    digits.remove_suffix(1);
  }
  const bool unit_b = digits.size() != text.size();
  for (const auto& [letter, shift] : {std::pair{"k", 10}, std::pair{"m", 20}, std::pair{"g", 30}}) {
    if (ends_with_nocase(letter)) {
      digits.remove_suffix(1);
      mult = 1ULL << shift;
      break;
    }
  }
  if (unit_b && mult == 1) digits = text;  // "12B" or "12iB": no unit, a bad size below
  const auto bad = [&] {
    return base::make_error(
        fmt::format("{}: bad size '{}' (a number of bytes, decimal or 0x hex, then K/KB/KiB, "
                    "M/MB/MiB or G/GB/GiB in any case)",
                    what, base::printable_brief(text)));
  };
  // The number itself as every flag reads it: decimal or 0x hex, '_' grouping digits.
  const base::UnsignedText n = base::read_grouped_unsigned_text(digits);
  if (n.form == base::NumberForm::kMalformed) return bad();
  if (n.form == base::NumberForm::kTooLarge ||
      n.value > std::numeric_limits<std::uint64_t>::max() / mult) {
    return base::make_error(
        fmt::format("{}: size '{}' does not fit in 64 bits", what, base::printable_brief(text)));
  }
  return n.value * mult;
}

std::vector<base::Error> sweep_errors(std::uint64_t begin, std::uint64_t end, std::uint64_t factor,
                                      std::uint64_t step, bool end_given) {
  std::vector<base::Error> out;
  constexpr std::string_view kNotZero = "size 0: a collective needs at least one byte";
  if (begin == 0) out.push_back(base::make_error(fmt::format("-b: {}", kNotZero)));
  if (end == 0 && end_given) out.push_back(base::make_error(fmt::format("-e: {}", kNotZero)));
  if (begin != 0 && end != 0 && begin > end) {
    out.push_back(base::make_error(fmt::format("-b {} is larger than -e {}", begin, end)));
  }
  if (auto e = factor_error(factor, step)) out.push_back(std::move(*e));
  return out;
}

std::optional<base::Error> factor_error(std::uint64_t factor, std::uint64_t step) {
  if (step != 0 || factor >= 2) return std::nullopt;
  return base::make_error("-f: the factor must be at least 2");
}

base::Result<std::vector<std::uint64_t>> sweep_sizes(std::uint64_t begin, std::uint64_t end,
                                                     std::uint64_t factor, std::uint64_t step,
                                                     std::uint64_t element_bytes,
                                                     std::vector<std::uint64_t>* left_out) {
  SBRDMA_CHECK(element_bytes > 0);
  if (auto errors = sweep_errors(begin, end, factor, step); !errors.empty()) {
    return errors.front();
  }
  std::vector<std::uint64_t> out;
  std::size_t whole = 0;  // sizes kept that hold an element (those below one are left out)
  for (std::uint64_t s = begin; s <= end;) {
    // A size holding as many whole elements as the one kept before it runs once.
    const std::uint64_t count = s / element_bytes;
    if (count == 0 || out.empty() || out.back() / element_bytes != count) {
      // A size that is no new row counts for nothing; nor does one below an element, unless
      // every size is (then the sweep is an error anyway, at its first size).
      if (whole == kMaxSweepSizes || (count == 0 && out.size() == kMaxSweepSizes)) {
        return base::make_error(fmt::format(
            "-b {} to -e {} in steps of {}: more than {} sizes", begin, end,
            step != 0 ? fmt::format("+{}", step) : fmt::format("x{}", factor), kMaxSweepSizes));
      }
      out.push_back(s);
      if (count > 0) ++whole;
    }
    // The next size past 64 bits is past -e too: the sweep ends (a wrapped product can look
    // like a small factor: 1K x (2^54 + 2) is 2K modulo 2^64).
    const std::uint64_t room = std::numeric_limits<std::uint64_t>::max();
    if (step != 0 ? s > room - step : s > room / factor) break;
    s = step != 0 ? s + step : s * factor;
  }
  // Sizes below one element come first; with a size that holds one after them they are left
  // out (said by the caller), alone they stay and fail with their own message.
  const auto first_whole = std::find_if(out.begin(), out.end(),
                                        [&](std::uint64_t size) { return size >= element_bytes; });
  if (first_whole != out.begin() && first_whole != out.end()) {
    if (left_out != nullptr) left_out->assign(out.begin(), first_whole);
    out.erase(out.begin(), first_whole);
  }
  return out;
}

std::unique_ptr<device::DenseBuffer> map_dense_buffer(std::uint64_t bytes) {
  auto b = std::make_unique<device::DenseBuffer>(bytes);
  if (!b->mapped()) return nullptr;
  return b;
}

std::optional<MemcpyRate> measure_memcpy(std::uint64_t bytes, std::uint64_t chunk,
                                         const MapBuffer& map) {
  if (bytes == 0) return MemcpyRate{};
  chunk = std::clamp<std::uint64_t>(std::min(chunk, bytes), 64, 64ULL << 20);
  const std::uint64_t asked = std::max(chunk, std::min<std::uint64_t>(bytes, 64ULL << 20));
  std::uint64_t span = asked;
  // Memory like a dense SBUF's (device::DenseBuffer), written once and then copied across once
  // untimed: the figure is a steady memcpy. (Freshly mapped 4 KiB-page buffers, measured as
  // the first memcpy of a bench process, ran at about half the rate the same measurement gave
  // later in that process, and varied with it.)
  std::unique_ptr<device::DenseBuffer> src_buf;
  std::unique_ptr<device::DenseBuffer> dst_buf;
  for (;;) {
    src_buf = map(span);
    if (src_buf) dst_buf = map(span);
    if (dst_buf) break;
    src_buf.reset();  // before the smaller pair is tried
    if (span <= kMemcpyMinSpan) return std::nullopt;
    span = std::max(kMemcpyMinSpan, span / 2);
    chunk = std::min(chunk, span);
  }
  device::DenseBuffer& src = *src_buf;
  device::DenseBuffer& dst = *dst_buf;
  std::memset(src.data(), 1, span);
  std::memcpy(dst.data(), src.data(), span);
  const auto t0 = Clock::now();
  std::uint64_t done = 0;
  std::uint64_t at = 0;
  while (done < bytes) {
    const std::uint64_t n = std::min({chunk, bytes - done, span - at});
    std::memcpy(dst.data() + at, src.data() + at, n);
    done += n;
    at = at + n >= span ? 0 : at + n;
  }
  const double s = seconds_since(t0);
  volatile std::uint8_t sink = dst.data()[span / 2];  // keep the copies
  (void)sink;
  return MemcpyRate{s > 0 ? static_cast<double>(bytes) / s : 0, span == asked ? 0 : span};
}

namespace {

/// The job of one row of the sweep (the last row adds its programs and trace).
CollectiveJob job_of(const BenchOptions& o, const device::Topology& topology,
                     const collectives::Communicator& comm, std::uint64_t bytes,
                     collectives::Algorithm alg) {
  CollectiveJob job;
  job.topology = &topology;
  job.comm = comm;
  job.request.op = o.op;
  job.request.dtype = o.dtype;
  job.request.reduce = o.reduce;
  job.request.bytes = bytes;
  job.request.algorithm = alg;
  job.request.iterations = o.iterations;
  job.request.pairs = o.pairs;
  job.warmups = o.warmups;
  job.timing_only = o.timing_only;
  job.check = o.check;
  job.seed = o.seed;
  job.tie_seed = o.tie_seed;
  job.check_races = o.check_races;
  job.breakdown = o.breakdown;
  job.host_memory = o.host_memory;
  job.address_space = o.address_space;
  return job;
}

/// An error of one row, saying which.
base::Error size_error(std::uint64_t bytes, collectives::Algorithm alg, const base::Error& e) {
  return base::make_error(
      fmt::format("{} B ({}): {}", bytes, collectives::algorithm_name(alg), e.message));
}

/// The groups of `o`: its own (--custom-replica-groups, --data-parallel-dimension), or the
/// first -r cores, checked against the topology.
base::Result<collectives::Communicator> communicator_of(const BenchOptions& o,
                                                        const collectives::Geometry& geom) {
  collectives::Communicator comm;
  if (o.groups) {
    comm = *o.groups;
  } else {
    auto c = collectives::default_communicator(geom, o.ranks);
    if (!c) return c.error();
    comm = std::move(*c);
  }
  SBRDMA_TRY(collectives::check_communicator(geom, comm));
  return comm;
}

/// Why `alg` (named, not auto) does not apply to `comm`, if it does not: the rules of the
/// algorithm, which no size changes.
base::Status applies(const BenchOptions& o, const device::Topology& topology,
                     const collectives::Geometry& geom, const collectives::Communicator& comm,
                     collectives::Algorithm alg) {
  if (alg == collectives::Algorithm::kAuto || o.sizes.empty()) return base::ok_status();
  auto resolved = collectives::resolve_algorithm(
      geom, comm, job_of(o, topology, comm, o.sizes.front(), alg).request);
  if (!resolved) return resolved.error();
  return base::ok_status();
}

}  // namespace

base::Result<std::vector<collectives::Algorithm>> applicable_algorithms(
    const BenchOptions& o, const device::Topology& topology, std::vector<std::string>& left_out) {
  const collectives::Geometry geom = geometry_of(topology);
  auto comm = communicator_of(o, geom);
  if (!comm) return comm.error();
  std::vector<collectives::Algorithm> out;
  std::vector<std::string> why;
  for (const collectives::Algorithm alg : o.algorithms) {
    if (auto st = applies(o, topology, geom, *comm, alg); !st) {
      why.push_back(st.error().message);
    } else {
      out.push_back(alg);
    }
  }
  if (out.empty() && !why.empty()) return base::make_error(fmt::format("{}", fmt::join(why, "; ")));
  left_out.insert(left_out.end(), why.begin(), why.end());
  return out;
}

base::Result<BenchResult> run_bench(const BenchOptions& o, const device::Topology& topology,
                                    const Progress& progress) {
  const auto t0 = Clock::now();
  const double system0 = system_seconds_now();
  const collectives::Geometry geom = geometry_of(topology);
  auto made = communicator_of(o, geom);
  if (!made) return made.error();
  const collectives::Communicator& comm = *made;
  const unsigned R = comm.ranks();
  BenchResult out;
  out.groups = static_cast<unsigned>(comm.groups.size());
  for (const auto& group : comm.groups) {
    out.cores.insert(out.cores.end(), group.begin(), group.end());
    out.several_chips = out.several_chips || collectives::chips_spanned(geom, group) > 1;
  }
  std::sort(out.cores.begin(), out.cores.end());
  // An algorithm asked for by name that does not apply to these groups (RDH on 6 ranks,
  // hierarchical on one chip) is told without a size: it applies to none.
  for (const collectives::Algorithm alg : o.algorithms) {
    SBRDMA_TRY(applies(o, topology, geom, comm, alg));
  }
  // The rows, in order: the sizes of the first algorithm, then of the next.
  const std::size_t rows = o.algorithms.size() * o.sizes.size();
  const auto job_at = [&](std::size_t k) {
    return job_of(o, topology, comm, o.sizes[k % o.sizes.size()], o.algorithms[k / o.sizes.size()]);
  };
  // Every size and algorithm is checked before any runs: a sweep whose last size does not fit
  // fails at once, not after the sizes before it have run. (A single row is not planned
  // twice: its lowering refuses what the check would, as early.)
  // The error names the first row that cannot run; where a shorter sweep would run whole
  // (every algorithm's sizes up to some -e pass), it says which -e. The checks also give each
  // row's memory estimate, for rows that run at once (D48).
  std::vector<std::uint64_t> row_bytes(rows, 0);
  std::vector<bool> row_alone(rows, false);
  if (rows > 1) {
    std::optional<base::Error> first;
    std::pair<std::size_t, collectives::Algorithm> first_at{};  // its row
    std::size_t runs = o.sizes.size();  // sizes[0, runs) pass with every algorithm
    collectives::Algorithm limiting = o.algorithms.front();  // whose failure set `runs`
    for (std::size_t ai = 0; ai < o.algorithms.size(); ++ai) {
      const collectives::Algorithm alg = o.algorithms[ai];
      for (std::size_t si = 0; si < runs; ++si) {
        const std::size_t k = ai * o.sizes.size() + si;
        if (auto st = check_collective(job_at(k))) {
          row_bytes[k] = std::max(st->at_most, st->simulator);
          row_alone[k] = st->whole_sbufs;
        } else {
          if (!first) {
            first = size_error(o.sizes[si], alg, st.error());
            first_at = {si, alg};
          }
          runs = si;
          limiting = alg;
        }
      }
    }
    if (first) {
      if (runs == 0) return *first;
      // The size as -e takes it: the sweep's own (a row shows it rounded to whole elements,
      // which could fall below -b), so that -e gives back exactly the sizes that run.
      const std::uint64_t last = o.sizes[runs - 1];
      const std::string also = first_at == std::pair{runs, limiting}
                                   ? std::string()
                                   : fmt::format(" {} B ({}) cannot run either:", o.sizes[runs],
                                                 collectives::algorithm_name(limiting));
      return base::make_error(fmt::format("{};{} the sweep runs whole up to -e {} ({} B)",
                                          first->message, also, size_name(last), last));
    }
  }
  // Rows run o.jobs at a time, each on one thread with its data work on that thread while
  // others run, and report in order (base::run_ordered): the same rows, trace and programs as
  // one at a time. Their estimated memory together stays within the budget. [D48]
  std::mutex progress_mu;  // rows running at once report through one line writer
  const auto say = [&](const std::string& line) {
    const std::lock_guard<std::mutex> lock(progress_mu);
    progress(line);
  };
  /// What a row leaves for the sweep's totals and its progress line.
  struct RowRun {
    BenchRow row;
    std::uint64_t data_descriptors = 0;
    std::uint64_t data_bytes = 0;
    std::vector<std::pair<Clock::time_point, Clock::time_point>> sim_spans;
    std::string line;  ///< its progress line
    std::string trace_json;
    std::vector<collectives::CoreProgram> programs;
  };
  std::vector<base::Result<RowRun>> ran(rows, base::make_error("not run"));
  const auto run_row = [&](std::size_t k) {
    const std::size_t ai = k / o.sizes.size();
    const std::size_t si = k % o.sizes.size();
    const auto p0 = Clock::now();
    const bool last = k + 1 == rows;
    CollectiveJob job = job_at(k);
    // Under an address-space limit, what the earlier sizes left mapped (the page pool keeps
    // it) counts against this one's warning.
    if (o.address_space && k > 0) job.address_space_left = address_space_available();
    job.request.notes = o.keep_programs && last;
    job.trace = o.trace && last;
    if (job.trace) {
      for (const auto& group : comm.groups) {
        for (const unsigned r : o.trace_ranks) job.trace_cores.push_back(group[r]);
      }
    }
    const std::uint64_t element = collectives::dtype_bytes(o.dtype);
    const std::uint64_t shown = o.sizes[si] / element * element;  // as the row will say
    auto last_line = p0;
    job.progress_beat_events = o.progress_beat_events;
    if (progress) {
      job.on_warning = [&](const std::string& w) {
        say(fmt::format("bench: {} {} ({} B): warning: {}", collectives::op_name(o.op),
                        size_name(shown), shown, w));
      };
      job.on_iteration = [&](RunPart part, collectives::Algorithm alg, std::size_t done,
                             std::size_t total) {
        // Also called while an iteration runs: a long single iteration reports too.
        if (done == total || seconds_since(last_line) < o.progress_every_s) return;
        last_line = Clock::now();
        const std::string_view run = part == RunPart::kCheck   ? "data check's run, "
                                     : part == RunPart::kTrace ? "trace's run, "
                                                               : "";
        say(fmt::format("bench: {} {} ({} B), {}: {}{} of {} iterations done, {:.1f} s wall",
                        collectives::op_name(o.op), size_name(shown), shown,
                        algorithm_text(o, o.algorithms[ai], alg), run, done, total,
                        seconds_since(p0)));
      };
    }
    auto r = run_collective(job);
    if (!r) {
      ran[k] = size_error(o.sizes[si], o.algorithms[ai], r.error());
      return false;
    }
    RowRun done;
    BenchRow& row = done.row;
    row.requested = o.algorithms[ai];
    row.algorithm = r->algorithm;
    row.count = r->count;
    row.size = r->count * collectives::dtype_bytes(o.dtype);
    std::vector<double> us;
    for (base::Tick t : r->iterations) us.push_back(t.us());
    std::sort(us.begin(), us.end());
    // The mean from the whole picoseconds in one division, so that it is the double nearest
    // the exact mean (a JSON reader sees 19.939603, not 19.939602999999998). The iterations
    // are consecutive spans of one run's 64-bit clock, so their sum cannot overflow.
    std::uint64_t sum_ps = 0;
    for (base::Tick t : r->iterations) sum_ps += t.ps;
    row.avg_us =
        us.empty() ? 0 : static_cast<double>(sum_ps) / (static_cast<double>(us.size()) * 1e6);
    row.times_us = std::move(us);
    row.algbw = row.avg_us > 0 ? static_cast<double>(row.size) / row.avg_us / 1e3 : 0;
    row.busbw = row.algbw * collectives::busbw_factor(o.op, R);
    row.wrong = r->wrong;
    row.descriptors = r->descriptors;
    row.copied_bytes = r->copied_bytes;
    row.race_checked_accesses = r->race_checked_accesses;
    row.sim_seconds = r->sim_seconds;
    row.wall_seconds = seconds_since(p0);
    row.breakdown = r->breakdown;
    done.data_descriptors = r->stats.descriptors - r->stats.semaphore_writes;
    done.data_bytes = r->stats.data_bytes;  // the timed run's, as its descriptors
    done.sim_spans = std::move(r->sim_spans);
    if (last) {
      done.trace_json = std::move(r->trace_json);
      if (o.keep_programs) done.programs = std::move(r->programs);
    }
    if (progress) {
      // The row's figures too: the table waits for the whole sweep (its columns fit every
      // row), so a long sweep shows its results here as they come.
      done.line = fmt::format(
          "bench: {} {} ({} B), {}: {} iteration{}{}{} in {:.2f} s wall, {} "
          "descriptors; avg {} us, busbw {:.2f} GB/s{}",
          collectives::op_name(o.op), size_name(row.size), row.size, row_algorithm_text(o, row),
          o.warmups + o.iterations, o.warmups + o.iterations == 1 ? "" : "s",
          r->check_run ? ", a check run" : "", r->trace_run ? ", a traced run" : "",
          row.wall_seconds, row.descriptors, time_us_text(row.avg_us), row.busbw,
          row.wrong ? fmt::format(", #wrong {}", *row.wrong) : std::string());
    }
    ran[k] = std::move(done);
    return true;
  };
  base::JobLimits limits;
  limits.threads = o.jobs;
  limits.budget = o.memory_budget;
  limits.cost = [&](std::size_t k) { return row_bytes[k]; };
  // A row whose SBUFs are backed whole copies much per event: alone it has the helper core
  // for its copies and the memory bandwidth to itself, and beside another it ran slower
  // (8 ranks, 4M to 16M: 0.42 s against 0.37 s one at a time). [CHOICE D48]
  // The race checker's memory is in no row's estimate (several times the run's, D49): a
  // checked row runs alone.
  limits.alone = [&](std::size_t k) { return o.check_races || row_alone[k]; };
  const base::OrderedRun sweep = base::run_ordered(rows, limits, run_row, [&](std::size_t k) {
    if (progress) say(ran[k]->line);
  });
  if (sweep.failed < rows) return ran[sweep.failed].error();
  std::uint64_t data_descriptors = 0;  // of the timed runs, for the memcpy's chunk
  std::uint64_t data_bytes = 0;
  std::vector<std::pair<Clock::time_point, Clock::time_point>> spans;
  for (std::size_t k = 0; k < rows; ++k) {
    RowRun& r = *ran[k];
    data_descriptors += r.data_descriptors;
    data_bytes += r.data_bytes;
    out.cost.descriptors += r.row.descriptors;
    out.cost.copied_bytes += r.row.copied_bytes;
    out.cost.race_checked_accesses += r.row.race_checked_accesses;
    spans.insert(spans.end(), r.sim_spans.begin(), r.sim_spans.end());
    if (k + 1 == rows) {
      out.trace_json = std::move(r.trace_json);
      out.programs = std::move(r.programs);
    }
    out.rows.push_back(std::move(r.row));
  }
  // Wall time inside some simulation: the rows' runs, overlapping ones counted once.
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 0; i < spans.size();) {
    auto [from, to] = spans[i];
    for (++i; i < spans.size() && spans[i].first <= to; ++i) to = std::max(to, spans[i].second);
    out.cost.sim_seconds += std::chrono::duration<double>(to - from).count();
  }
  out.cost.wall_seconds = seconds_since(t0);
  out.cost.system_seconds = std::max(0.0, system_seconds_now() - system0);
  out.cost.timing_only = o.timing_only;
  out.cost.jobs = std::max(sweep.most, 1U);
  const std::uint64_t chunk =
      data_descriptors == 0 ? 4096 : data_bytes / std::max<std::uint64_t>(data_descriptors, 1);
  device::wait_prefault();  // the memcpy gets the memory to itself
  // A sample of at most kMemcpySampleBytes: the rate is what the line compares, and a long
  // sweep's whole volume took seconds more after its last row, outside its wall time.
  out.cost.memcpy = measure_memcpy(std::min(out.cost.copied_bytes, kMemcpySampleBytes), chunk);
  return out;
}

}  // namespace sbrdma::platform
