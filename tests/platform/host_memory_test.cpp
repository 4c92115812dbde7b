// The host memory check of data runs [CHOICE D43]: reading what the OS has, and the verdict.
#include "platform/host_memory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace sbrdma::platform {
namespace {

TEST(HostMemory, MemAvailableIsReadInKibibytes) {
  const std::string info =
      "MemTotal:       24589464 kB\n"
      "MemFree:        20905172 kB\n"
      "MemAvailable:   21337944 kB\n"
      "Buffers:          123456 kB\n";
  EXPECT_EQ(parse_mem_available(info), std::uint64_t{21337944} * 1024);
  EXPECT_EQ(parse_mem_available("MemAvailable: 7 kB"), 7U * 1024);  // last line, no newline
  EXPECT_FALSE(parse_mem_available("MemTotal: 5 kB\nMemFree: 4 kB\n").has_value());
  // 2^54 kB is 2^64 bytes: too large, not 0; one less fits.
  EXPECT_FALSE(parse_mem_available("MemAvailable: 18014398509481984 kB\n").has_value());
  EXPECT_EQ(parse_mem_available("MemAvailable: 18014398509481983 kB\n"), ~std::uint64_t{0} - 1023);
  EXPECT_FALSE(parse_mem_available("MemAvailable: x kB\n").has_value());
  EXPECT_FALSE(parse_mem_available("MemAvailable: 12\n").has_value());     // no unit
  EXPECT_FALSE(parse_mem_available("MemAvailable: 12 MB\n").has_value());  // not the kernel's
  EXPECT_FALSE(parse_mem_available("MemAvailable: -3 kB\n").has_value());
  EXPECT_FALSE(parse_mem_available("MemAvailable: 99999999999999999999 kB\n").has_value());
  EXPECT_FALSE(parse_mem_available("").has_value());
}

TEST(HostMemory, CgroupRoomIsTheLimitLessTheUsageWithoutItsInactiveCache) {
  EXPECT_EQ(cgroup_room("8589934592\n", "1073741824\n"), std::uint64_t{7} << 30);
  // 1 GiB used, 768 MiB of it inactive page cache: 256 MiB in the working set.
  EXPECT_EQ(cgroup_room("8589934592\n", "1073741824\n", 768U << 20),
            (std::uint64_t{8} << 30) - (256U << 20));
  EXPECT_EQ(cgroup_room("100\n", "50\n", 80), 100U);      // more "inactive" than used: all room
  EXPECT_EQ(cgroup_room("100\n", "250\n"), 0U);           // past the limit: no room
  EXPECT_FALSE(cgroup_room("max\n", "5\n").has_value());  // no limit
  EXPECT_FALSE(cgroup_room("12x\n", "5\n").has_value());
  EXPECT_FALSE(cgroup_room("100\n", "\n").has_value());
}

TEST(HostMemory, AddressSpaceRoomIsTheLimitLessWhatIsMapped) {
  // /proc/self/statm: size resident shared text lib data dt, in pages.
  constexpr std::string_view kStatm = "25000 4000 1000 300 0 9000 0\n";
  EXPECT_EQ(address_space_room(400'000'000, kStatm, 4096),
            std::optional<std::uint64_t>(400'000'000 - 25'000ULL * 4096));
  EXPECT_EQ(address_space_room(std::nullopt, kStatm, 4096), std::nullopt);  // no limit
  EXPECT_EQ(address_space_room(50'000'000, kStatm, 4096), std::optional<std::uint64_t>(0));
  EXPECT_EQ(address_space_room(400'000'000, "x 1 2", 4096), std::nullopt);
  EXPECT_EQ(address_space_room(400'000'000, "", 4096), std::nullopt);
  EXPECT_EQ(address_space_room(400'000'000, "99999999999999999 1", 4096), std::nullopt);
}

TEST(HostMemory, MemoryStatValuesAreFoundByWholeKey) {
  const std::string stat =
      "anon 100\nfile 900\nactive_file 300\ninactive_file 600\ntotal_inactive_file 7\n";
  EXPECT_EQ(stat_value(stat, "inactive_file"), 600U);  // not active_file's nor total_'s
  EXPECT_EQ(stat_value(stat, "total_inactive_file"), 7U);
  EXPECT_EQ(stat_value(stat, "file"), 900U);
  EXPECT_FALSE(stat_value(stat, "inactive").has_value());
  EXPECT_FALSE(stat_value("inactive_file x\n", "inactive_file").has_value());
  // A longer key that starts with this one is another key.
  EXPECT_EQ(stat_value("inactive_filex 5\ninactive_file 600\n", "inactive_file"), 600U);
}

TEST(HostMemory, TheVerdictRefusesBuffersThatDoNotFitAndWarnsOfScratchThatMayNot) {
  const MemoryNeed need{8U << 20, 24U << 20};
  auto unknown = judge_memory(need, std::nullopt);
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown->has_value());
  auto fits = judge_memory(need, 24U << 20);
  ASSERT_TRUE(fits.ok());
  EXPECT_FALSE(fits->has_value());
  auto tight = judge_memory(need, 8U << 20);
  ASSERT_TRUE(tight.ok());
  ASSERT_TRUE(tight->has_value());
  EXPECT_EQ(**tight,
            "the simulation may need up to 24.0 MiB of host memory (SBUF scratch and the "
            "simulator's own included), and 8.00 MiB is available: the run may run out of memory");
  auto refused = judge_memory(need, 5U << 20);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "the simulated SBUFs need at least 8.00 MiB of host memory for the ranks' buffers, "
            "and 5.00 MiB is available (SBRDMA_MEMORY_LIMIT sets the figure to plan with); use "
            "fewer ranks, a smaller size or --timing-only");
  // Figures that read alike give their bytes.
  auto just = judge_memory(need, (8U << 20) - 1);
  ASSERT_FALSE(just.ok());
  EXPECT_NE(just.error().message.find("8.00 MiB (8388608 B) of host memory for the ranks' "
                                      "buffers, and 8.00 MiB (8388607 B) is available"),
            std::string::npos)
      << just.error().message;
  EXPECT_TRUE(judge_memory(MemoryNeed{}, 0).ok());  // a timing-only run needs nothing
}

// `sbrdma run` refuses a program's .init regions in the same two ways, naming them (D43e).
TEST(HostMemory, TheRefusalsNameWhatThePagesAreFor) {
  const MemoryNeed need{552U << 10, 0, 131 * std::uint64_t{229376}, 0};
  const auto refusal = [&](std::optional<std::uint64_t> memory,
                           std::optional<std::uint64_t> address_space) {
    auto v = judge_memory(need, memory, address_space, std::nullopt, kProgramInits);
    return v.ok() ? std::string("(not refused)") : v.error().message;
  };
  EXPECT_EQ(refusal(4096, std::nullopt),
            "the simulated SBUFs need at least 552 KiB of host memory for the program's .init "
            "regions, and 4.00 KiB is available (SBRDMA_MEMORY_LIMIT sets the figure to plan "
            "with); use fewer or smaller .init regions");
  EXPECT_EQ(refusal(std::nullopt, 1 << 20),
            "the simulated SBUFs map at least 28.7 MiB of address space for the program's .init "
            "regions (each SBUF partition written takes a whole partition's), and the "
            "address-space limit (ulimit -v) leaves 1.00 MiB; use fewer .init regions or fewer "
            "partitions in them (each partition written maps whole)");
  // Nothing past the certain pages: no warning, whatever the room.
  EXPECT_FALSE(judge_memory(need, 1U << 20, 30U << 20, 0, kProgramInits)->has_value());
}

TEST(HostMemory, TheVerdictRefusesBuffersThatMapMoreThanTheAddressSpaceLeft) {
  const MemoryNeed need{8U << 20, 24U << 20, 224U << 20, 240U << 20};
  // No limit, or room enough: the memory's verdict alone.
  EXPECT_FALSE(judge_memory(need, 24U << 20, std::nullopt)->has_value());
  EXPECT_FALSE(judge_memory(need, 24U << 20, 240U << 20)->has_value());
  // Room for the buffers' partitions, not for every partition: a warning.
  auto tight = judge_memory(need, 24U << 20, 224U << 20);
  ASSERT_TRUE(tight.ok());
  ASSERT_TRUE(tight->has_value());
  EXPECT_EQ(**tight,
            "the simulation may map up to 240 MiB of address space (every partition of the "
            "participating SBUFs, whole, and the simulator's own mappings), and the address-space "
            "limit (ulimit -v) leaves 224 MiB: the run may run out of memory");
  // The memory's warning comes first.
  EXPECT_NE(judge_memory(need, 8U << 20, 224U << 20)->value().find("of host memory"),
            std::string::npos);
  // Warned of where the memory is unknown too.
  EXPECT_TRUE(judge_memory(need, std::nullopt, 224U << 20)->has_value());
  // After earlier runs (a sweep's page pool keeps their mappings) the room left now sets the
  // warning; the refusal stays with the room the process started with.
  auto later = judge_memory(need, 24U << 20, 240U << 20, 100U << 20);
  ASSERT_TRUE(later.ok());
  ASSERT_TRUE(later->has_value());
  EXPECT_NE((*later)->find("leaves 100 MiB"), std::string::npos) << **later;
  EXPECT_TRUE(judge_memory(need, 24U << 20, 240U << 20, 0).ok());
  auto refused = judge_memory(need, 24U << 20, (224U << 20) - 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "the simulated SBUFs map at least 224 MiB (234881024 B) of address space for the "
            "ranks' buffers (each SBUF partition written takes a whole partition's), and the "
            "address-space limit (ulimit -v) leaves 224 MiB (234881023 B); use fewer ranks or "
            "--timing-only (a rank's buffers use every partition, whatever their size)");
  // Checked even where the memory is unknown.
  EXPECT_FALSE(judge_memory(need, std::nullopt, 100U << 20).ok());
}

TEST(HostMemory, BytesReadForAPerson) {
  EXPECT_EQ(human_bytes(0), "0 B");
  EXPECT_EQ(human_bytes(1023), "1023 B");
  EXPECT_EQ(human_bytes(1024), "1.00 KiB");
  EXPECT_EQ(human_bytes(3U << 20), "3.00 MiB");
  EXPECT_EQ(human_bytes(15U << 20), "15.0 MiB");
  EXPECT_EQ(human_bytes(100U << 20), "100 MiB");
  EXPECT_EQ(human_bytes(102359), "100 KiB");  // 99.96 KiB rounds up to three figures
  EXPECT_EQ(human_bytes(std::uint64_t{3} << 29), "1.50 GiB");
  EXPECT_EQ(human_bytes(~std::uint64_t{0}), "16.0 EiB");
  EXPECT_EQ(human_bytes((std::uint64_t{1} << 30) - 1), "1.00 GiB");  // not "1024 MiB"
  EXPECT_EQ(human_bytes(10229), "9.99 KiB");
  EXPECT_EQ(human_bytes(10235), "10.0 KiB");
}

/// Sets SBRDMA_MEMORY_LIMIT for a scope and puts back what was there.
class LimitVar {
 public:
  LimitVar() {
    if (const char* v = std::getenv("SBRDMA_MEMORY_LIMIT")) saved_ = v;
  }
  ~LimitVar() {
    if (saved_) {
      setenv("SBRDMA_MEMORY_LIMIT", saved_->c_str(), 1);
    } else {
      unsetenv("SBRDMA_MEMORY_LIMIT");
    }
  }
  LimitVar(const LimitVar&) = delete;
  LimitVar& operator=(const LimitVar&) = delete;
  static void set(const char* v) { ASSERT_EQ(setenv("SBRDMA_MEMORY_LIMIT", v, 1), 0); }

 private:
  std::optional<std::string> saved_;
};

TEST(HostMemory, TheEnvironmentVariableSetsTheFigure) {
  const LimitVar restore;
  LimitVar::set("3M");
  auto set = host_memory_available();
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(*set, std::optional<std::uint64_t>(3U << 20));
  LimitVar::set("lots");
  auto bad = host_memory_available();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("SBRDMA_MEMORY_LIMIT"), std::string::npos)
      << bad.error().message;
  // Empty is as unset: the OS's figure (MemAvailable is there on Linux).
  LimitVar::set("");
  auto os = host_memory_available();
  ASSERT_TRUE(os.ok()) << os.error().message;
  EXPECT_TRUE(os->has_value());
}

}  // namespace
}  // namespace sbrdma::platform
