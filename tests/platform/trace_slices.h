#pragma once
/// Reads the complete ("X") events of a Chrome trace back, per thread, to check what the
/// format demands of them: on one thread they nest or are disjoint, never partly overlap
/// (Perfetto drops or misdraws the rest). Times are read back as the exact picoseconds the
/// trace prints (6 decimals of a microsecond), so touching slices do not count as overlap.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace sbrdma::platform::testing_trace {

struct TraceSlices {
  std::size_t dma = 0;          ///< slices on the "DMA e" threads and their lanes
  std::size_t crossing = 0;     ///< slices that partly overlap another on their thread
  std::string examples;         ///< the first few crossing pairs, one a line
  std::size_t spare_lanes = 0;  ///< DMA threads beyond the most pairs an engine had in flight
  /// Slices written before an instruction word's slice (args.pc) of the same span on the same
  /// thread: a viewer makes the first of two equal slices the parent, so the wait or "q7
  /// busy" would show where the word's name should.
  std::size_t inner_before_word = 0;
  std::map<std::pair<int, int>, std::string> names;  ///< (pid, tid) -> thread name
  std::map<std::pair<int, int>, int> sort_index;     ///< (pid, tid) -> thread sort index
};

/// A trace time in picoseconds, as printed.
inline std::int64_t trace_ps(const nlohmann::json& v) {
  return std::llround(v.get<double>() * 1e6);
}

inline TraceSlices trace_slices(const std::string& json) {
  const nlohmann::json doc = nlohmann::json::parse(json);
  TraceSlices out;
  struct Slice {
    std::int64_t from;
    std::int64_t to;
    std::string name;
    bool word;  ///< an instruction word's slice (it has args.pc)
  };
  std::map<std::pair<int, int>, std::vector<Slice>> threads;
  for (const auto& e : doc.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "M" && e.at("name") == "thread_name") {
      out.names[{e.at("pid"), e.at("tid")}] = e.at("args").at("name");
    } else if (ph == "M" && e.at("name") == "thread_sort_index") {
      out.sort_index[{e.at("pid"), e.at("tid")}] = e.at("args").at("sort_index");
    } else if (ph == "X") {
      const std::int64_t from = trace_ps(e.at("ts"));
      threads[{e.at("pid"), e.at("tid")}].push_back(
          {from, from + trace_ps(e.at("dur")), e.at("name"),
           e.contains("args") && e.at("args").contains("pc")});
    }
  }
  // Per engine ((pid, "DMA e")): its slices over all its lanes, as +1 at a start, -1 at an
  // end; and its lanes.
  std::map<std::pair<int, std::string>, std::vector<std::pair<std::int64_t, int>>> engine_steps;
  std::map<std::pair<int, std::string>, std::size_t> engine_lanes;
  for (auto& [key, slices] : threads) {
    const std::string& name = out.names[key];
    if (name.starts_with("DMA ")) {
      out.dma += slices.size();
      const std::pair<int, std::string> engine{key.first, name.substr(0, name.find(" ("))};
      ++engine_lanes[engine];
      for (const Slice& s : slices) {
        engine_steps[engine].emplace_back(s.from, 1);
        engine_steps[engine].emplace_back(s.to, -1);
      }
    }
    // By start, the longer first: a slice must end by the end of every open one it starts in.
    std::stable_sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
      return a.from != b.from ? a.from < b.from : a.to > b.to;
    });
    std::vector<const Slice*> open;
    std::vector<const Slice*> crossing;
    for (std::size_t i = 1; i < slices.size(); ++i) {  // file order within equal spans
      const Slice& a = slices[i - 1];
      const Slice& b = slices[i];
      if (a.from == b.from && a.to == b.to && !a.word && b.word) ++out.inner_before_word;
    }
    for (const Slice& s : slices) {
      while (!open.empty() && open.back()->to <= s.from) open.pop_back();
      if (!open.empty() && open.back()->to < s.to) {
        crossing.push_back(open.back());
        crossing.push_back(&s);
        if (std::count(out.examples.begin(), out.examples.end(), '\n') < 5) {
          out.examples += fmt::format("pid {} \"{}\": {} [{}, {}) crosses {} [{}, {}) ps\n",
                                      key.first, out.names[key], open.back()->name,
                                      open.back()->from, open.back()->to, s.name, s.from, s.to);
        }
      }
      open.push_back(&s);
    }
    std::sort(crossing.begin(), crossing.end());
    out.crossing += std::unique(crossing.begin(), crossing.end()) - crossing.begin();
  }
  for (auto& [engine, steps] : engine_steps) {
    std::sort(steps.begin(), steps.end());  // at one tick, ends (-1) before starts
    int depth = 0;
    int most = 0;
    for (const auto& [at, d] : steps) most = std::max(most, depth += d);
    out.spare_lanes += engine_lanes[engine] - static_cast<std::size_t>(most);
  }
  return out;
}

/// Each semaphore wait slice ("wait sem[i] >= v") of a trace, against its core's counter:
/// `waits` counts them, `wrong` says, one a line, each that does not end at the tick its
/// counter first reaches v (or begins after it), e.g. one that also spans what the word does
/// after its wait.
struct WaitEnds {
  std::size_t waits = 0;
  std::string wrong;
};

inline WaitEnds wait_ends(const std::string& json) {
  const nlohmann::json doc = nlohmann::json::parse(json);
  std::map<std::pair<int, std::string>, std::vector<std::pair<std::int64_t, std::int64_t>>>
      counters;  // (pid, "sem[i]") -> (ps, value)
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") == "C") {
      counters[{e.at("pid").get<int>(), e.at("name").get<std::string>()}].emplace_back(
          trace_ps(e.at("ts")), e.at("args").at("value").get<std::int64_t>());
    }
  }
  WaitEnds out;
  for (const auto& e : doc.at("traceEvents")) {
    const std::string name = e.at("name");
    unsigned sem = 0;
    long long want = 0;
    if (e.at("ph") != "X" || std::sscanf(name.c_str(), "wait sem[%u] >= %lld", &sem, &want) != 2) {
      continue;
    }
    ++out.waits;
    const int pid = e.at("pid").get<int>();
    const std::int64_t from = trace_ps(e.at("ts"));
    const std::int64_t to = from + trace_ps(e.at("dur"));
    const auto& c = counters[{pid, fmt::format("sem[{}]", sem)}];
    auto reached =
        std::find_if(c.begin(), c.end(), [&](const auto& p) { return p.second >= want; });
    if (reached == c.end()) {
      out.wrong += fmt::format("core {} {}: never reached\n", pid, name);
    } else if (reached->first != to || reached->first < from) {
      out.wrong += fmt::format("core {} {}: [{}, {}) ps, reached at {} ps\n", pid, name, from, to,
                               reached->first);
    }
  }
  return out;
}

/// One instruction word's POOL slice (a slice with args.pc): its name and length in ps.
struct WordSlice {
  std::string name;
  std::int64_t dur = 0;
};
/// Core `core`'s word slices, by pc (each slice of a pc, in the order written).
inline std::map<unsigned, std::vector<WordSlice>> word_slices(const std::string& json,
                                                              unsigned core) {
  const nlohmann::json doc = nlohmann::json::parse(json);
  std::map<unsigned, std::vector<WordSlice>> out;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") == "X" && e.at("pid") == core && e.contains("args") &&
        e.at("args").contains("pc")) {
      out[e.at("args").at("pc").get<unsigned>()].push_back({e.at("name"), trace_ps(e.at("dur"))});
    }
  }
  return out;
}

}  // namespace sbrdma::platform::testing_trace
