#include "platform/host_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

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

/// The lines of `text`, without their newlines (these files are a few hundred lines at most).
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    out.push_back(text.substr(at, eol - at));
    at = eol + 1;
  }
  return out;
}

/// The smaller of `room` and `r`, either of which may be unknown.
std::optional<std::uint64_t> least(std::optional<std::uint64_t> room,
                                   std::optional<std::uint64_t> r) {
  if (!r) return room;
  return std::min(room.value_or(*r), *r);
}

}  // namespace

std::optional<std::uint64_t> parse_mem_available(std::string_view meminfo) {
  constexpr std::string_view kKey = "MemAvailable:";
  for (std::string_view line : lines_of(meminfo)) {
    if (!line.starts_with(kKey)) continue;
    line.remove_prefix(kKey.size());
    // "MemAvailable:   21337944 kB": the kernel always gives kB (1024 bytes).
    constexpr std::string_view kUnit = "kB";
    if (!line.ends_with(kUnit)) return std::nullopt;
    const auto kib = whole_number(line.substr(0, line.size() - kUnit.size()));
    if (!kib || *kib > std::numeric_limits<std::uint64_t>::max() / 1024) return std::nullopt;
    return *kib * 1024;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> stat_value(std::string_view stat, std::string_view key) {
  for (const std::string_view line : lines_of(stat)) {
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ' ') {
      return whole_number(line.substr(key.size() + 1));
    }
  }
  return std::nullopt;
}

std::optional<std::uint64_t> cgroup_room(std::string_view max, std::string_view current,
                                         std::uint64_t reclaimable) {
  const auto used = whole_number(current);
  if (!used) return std::nullopt;
  const std::uint64_t working = *used - std::min(*used, reclaimable);
  if (auto limit = whole_number(max)) return *limit > working ? *limit - working : 0;
  return std::nullopt;  // "max" (no limit) or not a number
}

std::optional<std::uint64_t> address_space_room(std::optional<std::uint64_t> limit,
                                                std::string_view statm, std::uint64_t page_bytes) {
  if (!limit) return std::nullopt;
  // "size resident shared text lib data dt", in pages.
  const auto pages = whole_number(statm.substr(0, statm.find(' ')));
  if (!pages || page_bytes == 0 ||
      *pages > std::numeric_limits<std::uint64_t>::max() / page_bytes) {
    return std::nullopt;
  }
  const std::uint64_t mapped = *pages * page_bytes;
  return *limit > mapped ? *limit - mapped : 0;
}

namespace {

/// The least room under the memory limits of `dir` and its ancestors up to `root`, with the
/// file names of one cgroup version; nullopt if none has a limit.
std::optional<std::uint64_t> least_room(std::string dir, const std::string& root,
                                        const char* max_file, const char* current_file,
                                        std::string_view inactive_key) {
  std::optional<std::uint64_t> room;
  for (;;) {
    auto max = slurp((dir + "/" + max_file).c_str());
    auto current = slurp((dir + "/" + current_file).c_str());
    if (max && current) {
      const auto stat = slurp((dir + "/memory.stat").c_str());
      const std::uint64_t inactive =
          stat ? stat_value(*stat, inactive_key).value_or(0) : std::uint64_t{0};
      room = least(room, cgroup_room(*max, *current, inactive));
    }
    if (dir.size() <= root.size()) return room;
    dir.erase(std::max(dir.rfind('/'), root.size()));
  }
}

}  // namespace

base::Result<std::optional<std::uint64_t>> host_memory_available() {
  const char* set = std::getenv(std::string(kMemoryLimitVar).c_str());
  if (set != nullptr && *set != '\0') {  // empty: as unset
    auto v = parse_size(set, kMemoryLimitVar);
    if (!v) return v.error();
    return std::optional<std::uint64_t>(*v);
  }
  std::optional<std::uint64_t> room;
  if (auto info = slurp("/proc/meminfo")) room = parse_mem_available(*info);
  // The cgroups this process runs in, one line each: "0::/path" (v2) or "N:a,memory,b:/path"
  // (v1's memory controller).
  const std::string self = slurp("/proc/self/cgroup").value_or("");
  for (const std::string_view line : lines_of(self)) {
    const std::size_t c1 = line.find(':');
    const std::size_t c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    std::string path(line.substr(c2 + 1));
    while (!path.empty() && path.back() == '/') path.pop_back();
    const std::string_view controllers = line.substr(c1 + 1, c2 - c1 - 1);
    if (line.starts_with("0::")) {
      const std::string root = "/sys/fs/cgroup";
      room = least(room,
                   least_room(root + path, root, "memory.max", "memory.current", "inactive_file"));
    } else if (("," + std::string(controllers) + ",").find(",memory,") != std::string::npos) {
      const std::string root = "/sys/fs/cgroup/memory";
      room = least(room, least_room(root + path, root, "memory.limit_in_bytes",
                                    "memory.usage_in_bytes", "total_inactive_file"));
    }
  }
  return room;
}

std::optional<std::uint64_t> address_space_available() {
#if defined(__linux__)
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY) return std::nullopt;
  const long page = sysconf(_SC_PAGESIZE);
  const std::uint64_t limit = as.rlim_cur;
  // Where what is mapped already is unknown (no page size, statm unreadable), the limit bounds
  // the room.
  if (page <= 0) return limit;
  return address_space_room(limit, slurp("/proc/self/statm").value_or(""),
                            static_cast<std::uint64_t>(page))
      .value_or(limit);
#else
  return std::nullopt;
#endif
}

namespace {

/// human_bytes of `need` and of `available`, with the exact bytes when the two read alike.
std::pair<std::string, std::string> two_figures(std::uint64_t need, std::uint64_t available) {
  std::string a = human_bytes(need);
  std::string b = human_bytes(available);
  if (a == b) {
    a += fmt::format(" ({} B)", need);
    b += fmt::format(" ({} B)", available);
  }
  return {a, b};
}

}  // namespace

base::Result<std::optional<std::string>> judge_memory(
    const MemoryNeed& need, std::optional<std::uint64_t> available,
    std::optional<std::uint64_t> address_space, std::optional<std::uint64_t> address_space_left,
    const NeedWords& words) {
  if (address_space && need.mapped_at_least > *address_space) {
    const auto [n, a] = two_figures(need.mapped_at_least, *address_space);
    return base::make_error(fmt::format(
        "the simulated SBUFs map at least {} of address space for {} (each SBUF partition "
        "written takes a whole partition's), and the address-space limit (ulimit -v) leaves {}; "
        "{}",
        n, words.what, a, words.map_advice));
  }
  if (available && need.at_least > *available) {
    const auto [n, a] = two_figures(need.at_least, *available);
    return base::make_error(fmt::format(
        "the simulated SBUFs need at least {} of host memory for {}, and {} is available ({} "
        "sets the figure to plan with); {}",
        n, words.what, a, kMemoryLimitVar, words.advice));
  }
  if (available && need.at_most > *available) {
    const auto [n, a] = two_figures(need.at_most, *available);
    return std::optional<std::string>(
        fmt::format("the simulation may need up to {} of host memory (SBUF scratch and the "
                    "simulator's own included), and {} is available: the run may run out of "
                    "memory",
                    n, a));
  }
  if (!address_space_left) address_space_left = address_space;
  if (address_space_left && need.mapped_at_most > *address_space_left) {
    const auto [n, a] = two_figures(need.mapped_at_most, *address_space_left);
    return std::optional<std::string>(
        fmt::format("the simulation may map up to {} of address space (every partition of the "
                    "participating SBUFs, whole, and the simulator's own mappings), and the "
                    "address-space limit (ulimit -v) leaves {}: the run may run out of memory",
                    n, a));
  }
  return std::optional<std::string>();
}

std::string human_bytes(std::uint64_t bytes) {
  constexpr std::string_view kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double v = static_cast<double>(bytes) / 1024;
  std::size_t u = 0;
  // 1023.5 and up would print as 1024: the next unit's 1.00 then.
  while (v >= 1023.5 && u + 1 < std::size(kUnits)) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{:.{}f} {}", v, v < 9.995 ? 2 : v < 99.95 ? 1 : 0, kUnits[u]);
}

}  // namespace sbrdma::platform
