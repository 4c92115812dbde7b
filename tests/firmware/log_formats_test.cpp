// The DEBUG log: the format table against the spec (offsets, texts), and the lines gen and
// start emit, byte for byte.
#include "firmware/log_formats.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "firmware/fixtures.h"

namespace sbrdma::firmware {
namespace {

using testing::Core;
using testing::make_gen;

TEST(LogFormats, DramOffsetsFollowFromTheStringLengths) {
  // In the DRAM image each string is followed by its NUL, so a string that follows another
  // directly starts at offset + strlen + 1. The gaps hold strings the table does not carry
  // (the SB2SB region's iDMA guard, alias and function names, the window remapper's strings).
  // One byte after the trigger helper's line (0x47f4 + 91 + 1 = 0x4850, gen_start at 0x4851)
  // is not accounted for: padding, or a byte the digest's form of that string lacks.
  const std::map<std::uint32_t, std::uint32_t> gaps{{0x0a20, 107},   {0x0afe, 192}, {0x0c3e, 456},
                                                    {0x0e71, 14673}, {0x47f4, 1},   {0x4e07, 16},
                                                    {0x4f8e, 143}};
  int checked = 0;
  for (std::size_t i = 0; i + 1 < kLogFormats.size(); ++i) {
    const LogFormat& a = kLogFormats[i];
    const LogFormat& b = kLogFormats[i + 1];
    if (a.source != LogSource::kQ7Dram || b.source != LogSource::kQ7Dram) continue;
    const auto gap = gaps.count(a.dram_offset) ? gaps.at(a.dram_offset) : 0U;
    EXPECT_EQ(b.dram_offset, a.dram_offset + std::strlen(a.format) + 1 + gap)
        << a.name << " -> " << b.name;
    ++checked;
  }
  EXPECT_EQ(checked, 35);
}

TEST(LogFormats, LogStringsEndInNewlineTokensDoNot) {
  for (const LogFormat& f : kLogFormats) {
    if (f.source != LogSource::kQ7Dram) continue;
    const std::string_view s = f.format;
    const bool token =
        s.find('%') == std::string_view::npos && s.find(':') == std::string_view::npos;
    EXPECT_EQ(s.ends_with('\n'), !token) << f.name;
  }
}

TEST(LogFormats, MatchTheSpecTexts) {
  // The spec (§3) prints each string after "…" or in full; ours must end with that text.
  const std::vector<std::pair<std::string_view, std::string_view>> spec{
      {"gen_start", "P%i: Q7: rdma_desc_gen [%s] Start, cpu_id=%d"},
      {"gen_inputs",
       "ring_num=%d, tpb_idx=%d, free_dim_bytes=%d, remote_tpb_idx=%d, routing_id=%d, "
       "dma_mask=0x%x"},
      {"gen_mask", "dma_mask=0x%04x, n_active_dmas=%d"},
      {"gen_addrs", "src_addr=0x%llx, dst_addr=0x%llx"},
      {"gen_folded", "after remote_routing_id=$%d, dst_addr=0x%llx, n_active_dmas=%d"},
      {"gen_loop", "Starting descriptor loop, num_indices=%d, num_dma_descs=%d"},
      {"gen_loop_iter", "Loop iter %zu/%d: base_addr=0x%llx, n_active_dmas=%d, bytes_per_P=%d"},
      {"gen_local_sem", "Pushing local semaphore descriptor, tpb_idx=%d, sem=%d"},
      {"gen_remote_sem",
       "Pushing remote semaphore descriptor, remote_tpb=%d, routing_id=%d, sem=%d"},
      {"gen_end", "End"},
      {"start_start", "P%i: Q7: rdma_desc_start [%s] Start, cpu_id=%d"},
      {"start_ring", "ring_num=%d, num_descriptors=%d, sdma_bcast_base=0x%08x"},
      {"start_trigger", "Trigger %s DMA; addr=0x%08x, mask=0x%04x, n_desc=%d"},
      {"start_draining", "Draining descriptor writes"},
      {"start_drained", "Descriptor writes drained"},
      {"tx_waiting", "P%i: Q7: rdma_desc_start [TX] Waiting for RX sync (left_pop)"},
      {"tx_writing", "[TX] Writing tail pointer increment"},
      {"tx_written", "[TX] Tail pointer increment written"},
      {"rx_writing", "[RX] Writing tail pointer increment"},
      {"rx_signaling", "[RX] Signaling TX to proceed (right_push)"},
      {"rx_signaled", "[RX] TX signaled"},
      {"start_end", "End"},
      {"stream_error", "P%i: ERROR: DescriptorStream wrote %d descriptors, expected %d"},
      // wiki-facts §2.1 (0x47f4) and the wiki's firmware/kernels/sb2sb-remote-copy.md §3
      {"trigger_dma",
       "P%i: Trigger DMA; sdma_bcast_base = 0x%08x, trigger addr = 0x%08x, mask = 0x%08x "
       "n_desc=%d"},
      {"sb2sb_totals",
       "P%i: SB2SB_Collective : total_src_nelem = %zu, total_dst_nelem = %zu, dtype=%d, "
       "dst_nc=%zu, src_nc=%zu, mask=0x%x"},
      {"sb2sb_decode", "P%i: Decode : SB2SB_Collective"},
      {"sb2sb_pre_sync",
       "P%i: SB2SB Pre-sync: This TPB (NC %u) is letting NC %u know that we are ready to "
       "receive data."},
      {"sb2sb_pre_sync_remote",
       "P%i: SB2SB Pre-sync: remote_pool_xt_addr=0x%x, remote_q7_xt_addr=0x%x, "
       "sb2sb_ready_to_receive_remote=0x%x"},
      {"sb2sb_chans", "P%i: SB2SB_Collective: num_chans=%0d, tpb_idx=%u"},
  };
  for (const auto& [name, text] : spec) {
    const auto it = std::find_if(kLogFormats.begin(), kLogFormats.end(),
                                 [&](const LogFormat& f) { return f.name == name; });
    ASSERT_NE(it, kLogFormats.end()) << name;
    const std::string want = std::string(text) + "\n";
    EXPECT_TRUE(std::string_view(it->format).ends_with(want)) << name << ": " << it->format;
  }
}

/// A regex that matches exactly the lines `format` can produce.
std::regex line_regex(std::string_view format) {
  std::string re;
  for (std::size_t i = 0; i < format.size(); ++i) {
    const char ch = format[i];
    if (ch == '\n') continue;
    if (ch != '%') {
      if (std::strchr(".^$|()[]{}*+?\\", ch) != nullptr) re += '\\';
      re += ch;
      continue;
    }
    std::size_t j = i + 1;
    while (j < format.size() && std::strchr("0123456789lz", format[j]) != nullptr) ++j;
    const char conv = format[j];
    re += conv == 's' ? "[A-Z0-9]+" : conv == 'x' ? "[0-9a-f]+" : "-?[0-9]+";
    i = j;
  }
  return std::regex(re);
}

/// The name of the table format a line is an instance of, or "".
std::string_view classify(const std::string& line) {
  static const std::vector<std::regex> regexes = [] {
    std::vector<std::regex> out;
    for (const LogFormat& f : kLogFormats) out.push_back(line_regex(f.format));
    return out;
  }();
  for (std::size_t i = 0; i < kLogFormats.size(); ++i) {
    if (std::regex_match(line, regexes[i])) return kLogFormats[i].name;
  }
  return "";
}

std::vector<std::string> gen_start_log() {
  Core c(0, 0);
  EXPECT_TRUE(c.gen(make_gen(0x3, 256, 0x100, 0x200, 4, 0)).ok());
  EXPECT_TRUE(c.start().ok());
  return c.env.lines;
}

TEST(DebugLog, EveryLineIsAnInstanceOfAFirmwareFormat) {
  const auto lines = gen_start_log();
  std::vector<std::string_view> names;
  for (const std::string& l : lines) {
    const std::string_view n = classify(l);
    EXPECT_FALSE(n.empty()) << l;
    if (names.empty() || names.back() != n) names.push_back(n);  // runs of loop iterations
  }
  const std::vector<std::string_view> gen_role{
      "gen_start",     "gen_inputs",  "gen_mask",     "gen_addrs",      "gen_folded",    "gen_loop",
      "gen_loop_iter", "gen_swizzle", "gen_xt_addrs", "gen_remote_sem", "gen_local_sem", "gen_end"};
  std::vector<std::string_view> want;
  for (int role = 0; role < 2; ++role) want.insert(want.end(), gen_role.begin(), gen_role.end());
  want.insert(want.end(),
              {"start_start", "start_ring",  "start_trigger", "start_draining", "start_drained",
               "rx_writing",  "trigger_dma", "rx_signaling",  "rx_signaled",    "start_end",
               "start_start", "start_ring",  "start_trigger", "start_draining", "start_drained",
               "tx_waiting",  "tx_writing",  "trigger_dma",   "tx_written",     "start_end"});
  EXPECT_EQ(names, want);
}

TEST(DebugLog, LinesByteForByte) {
  const auto lines = gen_start_log();
  auto has = [&](const std::string& l) {
    return std::find(lines.begin(), lines.end(), l) != lines.end();
  };
  EXPECT_EQ(lines.front(), "P0: Q7: rdma_desc_gen [RX] Start, cpu_id=0");
  EXPECT_TRUE(has("P1: Q7: rdma_desc_gen [TX] Start, cpu_id=1"));
  EXPECT_TRUE(
      has("P0: Q7: rdma_desc_gen [RX] ring_num=0, tpb_idx=0, free_dim_bytes=256, "
          "remote_tpb_idx=4, routing_id=0, dma_mask=0x3"));
  EXPECT_TRUE(has("P0: Q7: rdma_desc_gen [RX] dma_mask=0x0003, n_active_dmas=2"));
  EXPECT_TRUE(has("P0: Q7: rdma_desc_gen [RX] src_addr=0x2000000100, dst_addr=0x802000000200"));
  EXPECT_TRUE(
      has("P0: Q7: rdma_desc_gen [RX] after remote_routing_id=$0, "
          "dst_addr=0x58802000000200, n_active_dmas=2"));
  EXPECT_TRUE(
      has("P0: Q7: rdma_desc_gen [RX] Starting descriptor loop, num_indices=64, "
          "num_dma_descs=64"));
  EXPECT_TRUE(
      has("P1: Q7: rdma_desc_gen [TX] Loop iter 1/64: base_addr=0x2000040100, "
          "n_active_dmas=2, bytes_per_P=256"));
  EXPECT_TRUE(
      has("P0: Q7: rdma_desc_gen [RX] Loop iter 1/64: base_addr=0x58802000040200, "
          "n_active_dmas=2, bytes_per_P=256"));
  EXPECT_TRUE(
      has("P0: Q7:   shuffled_sbuf_swizzle[16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, "
          "12, 13, 14, 15]"));
  EXPECT_TRUE(
      has("P0: Q7:   xt_addrs[16] = [0x0058802000000200, 0x0058802001000200, "
          "0x0000000000000000, 0x0000000000000000, 0x0000000000000000, "
          "0x0000000000000000, 0x0000000000000000, 0x0000000000000000, "
          "0x0000000000000000, 0x0000000000000000, 0x0000000000000000, "
          "0x0000000000000000, 0x0000000000000000, 0x0000000000000000, "
          "0x0000000000000000, 0x0000000000000000]"));
  EXPECT_TRUE(
      has("P0: Q7: rdma_desc_gen [RX] Pushing remote semaphore descriptor, "
          "remote_tpb=4, routing_id=0, sem=5"));
  EXPECT_TRUE(
      has("P1: Q7: rdma_desc_gen [TX] Pushing local semaphore descriptor, tpb_idx=0, "
          "sem=3"));
  EXPECT_TRUE(has("P1: Q7: rdma_desc_gen [TX] End"));
  EXPECT_TRUE(has("P0: Q7: rdma_desc_start [RX] Start, cpu_id=0"));
  // num_descriptors is the tail increment (spec §4.6), the active engines' 66 per ring, not
  // the 146 written over all 16 rings.
  EXPECT_TRUE(
      has("P0: Q7: rdma_desc_start [RX] ring_num=0, num_descriptors=66, "
          "sdma_bcast_base=0x02080000"));
  EXPECT_TRUE(
      has("P0: Q7: rdma_desc_start [RX] Trigger S2M DMA; addr=0x020a1038, mask=0x0003, "
          "n_desc=66"));
  EXPECT_TRUE(
      has("P1: Q7: rdma_desc_start [TX] Trigger M2S DMA; addr=0x02081038, mask=0xfffc, "
          "n_desc=1"));
  // The trigger helper's line, as each trigger is written (after the handshake). [HIGH]
  // wiki-facts §2.1 (DRAM 0x47f4); the values [CHOICE D22c]
  EXPECT_TRUE(
      has("P0: Trigger DMA; sdma_bcast_base = 0x02080000, trigger addr = 0x020a1038, "
          "mask = 0x00000003 n_desc=66"));
  EXPECT_TRUE(
      has("P1: Trigger DMA; sdma_bcast_base = 0x02080000, trigger addr = 0x02081038, "
          "mask = 0x0000fffc n_desc=1"));
  EXPECT_TRUE(has("P1: Q7: rdma_desc_start [TX] Waiting for RX sync (left_pop)"));
  EXPECT_TRUE(has("P0: Q7: rdma_desc_start [RX] Signaling TX to proceed (right_push)"));
  EXPECT_EQ(lines.back(), "P1: Q7: rdma_desc_start [TX] End");
}

TEST(DebugLog, MatchesTheGoldenFile) {
  const auto lines = gen_start_log();
  std::ostringstream got;
  for (const std::string& l : lines) got << l << '\n';
  const std::string path = std::string(SBRDMA_TEST_DATA) + "/firmware/gen_start_mask3.log";
  if (std::getenv("SBRDMA_UPDATE_GOLDEN") != nullptr) std::ofstream(path) << got.str();
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing " << path;
  std::ostringstream want;
  want << in.rdbuf();
  EXPECT_EQ(got.str(), want.str());
}

TEST(DebugLog, NothingIsFormattedWhenDebugIsOff) {
  Core c(0, 0);
  c.env.debug = false;
  ASSERT_TRUE(c.gen(make_gen(0x3, 256, 0x100, 0x200, 4, 0)).ok());
  ASSERT_TRUE(c.start().ok());
  EXPECT_TRUE(c.env.lines.empty());
}

TEST(DebugLog, RenderDropsTheTrailingNewline) {
  EXPECT_EQ(render(log_fmt::kStreamError, 1, 3, 5),
            "P1: ERROR: DescriptorStream wrote 3 descriptors, expected 5");
  EXPECT_EQ(render(log_fmt::kUnknownOpcode, 0xb8U), "UNKNOWN OPCODE=0xb8");
}

}  // namespace
}  // namespace sbrdma::firmware
