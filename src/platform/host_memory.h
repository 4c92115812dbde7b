#pragma once
/// The host memory a data run needs, and whether this machine has it. [CHOICE D43]
///
/// A functional run backs every participating core's SBUF with host pages (device/paged_memory.h,
/// D33): a large group with large buffers needs gigabytes. Such a run is refused before it
/// starts when even the pages its input and output buffers certainly take do not fit the memory
/// available, and warned about when everything its lowering may touch does not: the OS would
/// otherwise kill the process part way through, with nothing said.
///
///   available: SBRDMA_MEMORY_LIMIT (bytes, K/M/G suffixes) if set and not empty, else the
///              smallest of /proc/meminfo's MemAvailable and the room left under the memory
///              limits of this process's cgroup and its ancestors (v2 memory.max or v1
///              memory.limit_in_bytes, less the usage without its inactive page cache);
///              unknown when none of these can be read
///   address space: the room under the address-space limit (RLIMIT_AS, `ulimit -v`), if one
///              is set, less what the process maps already. It counts mappings, and a
///              simulated SBUF partition maps whole once written (D33), so it is set against
///              what the buffers certainly map, not against the bytes they back.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sbrdma::platform {

/// Host bytes a run's simulated memory takes.
struct MemoryNeed {
  std::uint64_t at_least = 0;  ///< pages certainly written (the buffers)
  std::uint64_t at_most = 0;   ///< all the lowering may touch, and the simulator's own
  /// Address space the buffers certainly map: a whole partition for each partition written.
  std::uint64_t mapped_at_least = 0;
  /// Address space the run may map: every partition of every participating core, whole, and
  /// the simulator's own mappings (an estimate).
  std::uint64_t mapped_at_most = 0;
  /// The simulator's own share of at_most, also for a timing-only run (whose other figures
  /// are 0): judge_memory() does not look at it; a sweep running rows at once does (D48).
  std::uint64_t simulator = 0;
  /// The SBUFs are backed whole and prefaulted (D33): a few ranks with large buffers, whose
  /// run copies much per event and gains from the helper core (a sweep runs it alone, D48).
  bool whole_sbufs = false;
};

/// The environment variable that sets the memory sbrdma plans with.
inline constexpr std::string_view kMemoryLimitVar = "SBRDMA_MEMORY_LIMIT";

/// MemAvailable of a /proc/meminfo text, in bytes; nullopt if absent or malformed.
std::optional<std::uint64_t> parse_mem_available(std::string_view meminfo);

/// The value of `key` in a memory.stat text ("key N" lines); nullopt if absent or malformed.
std::optional<std::uint64_t> stat_value(std::string_view stat, std::string_view key);

/// The room under a cgroup limit: the limit's text (v2 memory.max, v1 memory.limit_in_bytes)
/// less the usage's (memory.current, memory.usage_in_bytes) without its `reclaimable` bytes
/// (the inactive page cache, which the kernel takes back before it kills): "max" is no limit,
/// nullopt; a usage past the limit gives 0. nullopt if either text is malformed.
std::optional<std::uint64_t> cgroup_room(std::string_view max, std::string_view current,
                                         std::uint64_t reclaimable = 0);

/// The room under an address-space limit (RLIMIT_AS, `ulimit -v`) of `limit` bytes (nullopt:
/// none) for a process that maps what the first field of its /proc/self/statm text says, in
/// pages of `page_bytes`: 0 past the limit; nullopt without a limit or with a malformed text.
/// Address space is at least what is backed, so a need that does not fit this cannot run.
std::optional<std::uint64_t> address_space_room(std::optional<std::uint64_t> limit,
                                                std::string_view statm, std::uint64_t page_bytes);

/// The memory this process may still take, as the file comment says. Errors: a malformed
/// SBRDMA_MEMORY_LIMIT.
base::Result<std::optional<std::uint64_t>> host_memory_available();

/// The address space this process may still map, as the file comment says; nullopt without a
/// limit (or where it cannot be read).
std::optional<std::uint64_t> address_space_available();

/// What a refusal says the certain pages are for, and what would bring them down.
struct NeedWords {
  std::string_view what;        ///< "the ranks' buffers"
  std::string_view map_advice;  ///< after an address-space refusal
  std::string_view advice;      ///< after a memory refusal
};
/// A collective's data run (bench).
inline constexpr NeedWords kRankBuffers{
    "the ranks' buffers",
    "use fewer ranks or --timing-only (a rank's buffers use every partition, whatever their "
    "size)",
    "use fewer ranks, a smaller size or --timing-only"};
/// A program file's `.init` regions (run), which are filled in every mode.
inline constexpr NeedWords kProgramInits{
    "the program's .init regions",
    "use fewer .init regions or fewer partitions in them (each partition written maps whole)",
    "use fewer or smaller .init regions"};

/// What a run of `need` may do with `available` bytes (nullopt: unknown, anything goes) and
/// `address_space` (nullopt: no limit): an error when need.mapped_at_least does not fit the
/// address space or need.at_least the memory, a warning (returned) when need.at_most does not
/// fit the memory or need.mapped_at_most the address space (`address_space_left`, where
/// given: the room now, after earlier runs of the process), nothing otherwise. The messages name
/// both figures (with their bytes when they read alike), and `words` what the pages are for.
base::Result<std::optional<std::string>> judge_memory(
    const MemoryNeed& need, std::optional<std::uint64_t> available,
    std::optional<std::uint64_t> address_space = std::nullopt,
    std::optional<std::uint64_t> address_space_left = std::nullopt,
    const NeedWords& words = kRankBuffers);

/// `bytes` for a person: "512 B", "3.00 MiB", "15.0 MiB", "1.50 GiB" (binary units, 3
/// significant digits).
std::string human_bytes(std::uint64_t bytes);

}  // namespace sbrdma::platform
