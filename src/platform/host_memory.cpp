#include "platform/host_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

#include "platform/bench.h"

namespace sbrdma::platform {
namespace {

/// A whole decimal number with nothing around it but ASCII white space; nullopt otherwise.
std::optional<std::uint64_t> whole_number(std::string_view s) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

/// The whole text of `path`; nullopt if it cannot be read.
std::optional<std::string> slurp(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(s).str();
}

}  // namespace

std::optional<std::uint64_t> parse_mem_available(std::string_view meminfo) {
  constexpr std::string_view kKey = "MemAvailable:";
  std::size_t at = 0;
  while (at < meminfo.size()) {
    const std::size_t eol = std::min(meminfo.find('\n', at), meminfo.size());
    std::string_view line = meminfo.substr(at, eol - at);
    at = eol + 1;
    if (!line.starts_with(kKey)) continue;
    line.remove_prefix(kKey.size());
    // "MemAvailable:   21337944 kB": the kernel always gives kB (1024 bytes).
    constexpr std::string_view kUnit = "kB";
    const std::size_t unit = line.rfind(kUnit);
    if (unit == std::string_view::npos || unit + kUnit.size() != line.size()) return std::nullopt;
    const auto kib = whole_number(line.substr(0, unit));
    if (!kib || *kib > std::numeric_limits<std::uint64_t>::max() / 1024) return std::nullopt;
    return *kib * 1024;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> cgroup_room(std::string_view max, std::string_view current) {
  const auto used = whole_number(current);
  if (!used) return std::nullopt;
  if (auto limit = whole_number(max)) return *limit > *used ? *limit - *used : 0;
  return std::nullopt;  // "max" (no limit) or not a number
}

base::Result<std::optional<std::uint64_t>> host_memory_available() {
  if (const char* set = std::getenv(std::string(kMemoryLimitVar).c_str())) {
    auto v = parse_size(set, kMemoryLimitVar);
    if (!v) return v.error();
    return std::optional<std::uint64_t>(*v);
  }
  std::optional<std::uint64_t> room;
  if (auto info = slurp("/proc/meminfo")) room = parse_mem_available(*info);
  // The cgroup this process runs in: "0::/path" on cgroup v2.
  if (auto self = slurp("/proc/self/cgroup"); self && self->starts_with("0::")) {
    std::string dir = self->substr(3);
    while (!dir.empty() && (dir.back() == '\n' || dir.back() == '/')) dir.pop_back();
    const std::string base = "/sys/fs/cgroup" + dir;
    auto max = slurp((base + "/memory.max").c_str());
    auto current = slurp((base + "/memory.current").c_str());
    if (max && current) {
      if (auto c = cgroup_room(*max, *current)) room = std::min(room.value_or(*c), *c);
    }
  }
  return room;
}

base::Result<std::optional<std::string>> judge_memory(const MemoryNeed& need,
                                                      std::optional<std::uint64_t> available) {
  if (!available) return std::optional<std::string>();
  if (need.at_least > *available) {
    return base::make_error(fmt::format(
        "the simulated SBUFs need at least {} of host memory for the ranks' buffers, and {} is "
        "available ({} sets the figure to plan with); use fewer ranks, a smaller size or "
        "--timing-only",
        human_bytes(need.at_least), human_bytes(*available), kMemoryLimitVar));
  }
  if (need.at_most > *available) {
    return std::optional<std::string>(fmt::format(
        "the simulation may need up to {} of host memory (SBUF scratch and the simulator's "
        "own included), and {} is available: the run may run out of memory",
        human_bytes(need.at_most), human_bytes(*available)));
  }
  return std::optional<std::string>();
}

std::string human_bytes(std::uint64_t bytes) {
  constexpr std::string_view kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double v = static_cast<double>(bytes) / 1024;
  std::size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(kUnits)) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{:.{}f} {}", v, v < 10 ? 2 : v < 100 ? 1 : 0, kUnits[u]);
}

}  // namespace sbrdma::platform
