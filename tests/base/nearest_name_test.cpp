// base/nearest_name.h: the edit distance and the "did you mean" pick.
#include "base/nearest_name.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>

namespace sbrdma::base {
namespace {

TEST(EditDistance, CountsInsertsDeletesReplacementsAndSwaps) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", "abc"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("remote_core", "remote_core_id"), 3u);  // three inserted
  EXPECT_EQ(edit_distance("rdma_desc_strt", "rdma_desc_start"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);  // one swap, not two replacements
  EXPECT_EQ(edit_distance("local_sme", "local_sem"), 1u);
  EXPECT_EQ(edit_distance("abc", "xyz"), 3u);
}

TEST(NearestName, PicksTheOneCloseNameOrNone) {
  const std::array<std::string_view, 4> fields{"local_sem", "remote_sem", "remote_core_id",
                                               "remote_routing_id"};
  EXPECT_EQ(nearest_name("remote_core", fields), "remote_core_id");
  EXPECT_EQ(nearest_name("local_sme", fields), "local_sem");
  EXPECT_EQ(nearest_name("remote_sem", fields), "remote_sem");  // a known name is its own
  EXPECT_EQ(nearest_name("LOCAL_SEM", fields), "local_sem");    // case aside
  // Too far from everything: no guess.
  EXPECT_EQ(nearest_name("free_dim_bytes", fields), std::nullopt);
  EXPECT_EQ(nearest_name("x", fields), std::nullopt);
  EXPECT_EQ(nearest_name("", fields), std::nullopt);
  // Two names equally close: no guess either.
  const std::array<std::string_view, 2> twins{"ab1", "ab2"};
  EXPECT_EQ(nearest_name("ab", twins), std::nullopt);
  // A different field is no slip, however few the edits: each typed word must be a word of
  // the name or a slip for one.
  const std::array<std::string_view, 5> gen{"local_sem", "remote_sem", "remote_core_id",
                                            "remote_routing_id", "src_mem_pattern.start_addr"};
  EXPECT_EQ(nearest_name("remote_tpb", gen), std::nullopt);      // 3 edits from remote_sem
  EXPECT_EQ(nearest_name("remote_chip_id", gen), std::nullopt);  // 3 edits from remote_core_id
  EXPECT_EQ(nearest_name("remote_id", gen), std::nullopt);
  EXPECT_EQ(nearest_name("src_mem_pattern.start", gen), "src_mem_pattern.start_addr");
  const std::array<std::string_view, 3> ops{"ext_copy", "ext_engine_nop", "rdma_desc_start"};
  // 2 edits from ext_copy, no slip for it: ext_engine_nop shortened.
  EXPECT_EQ(nearest_name("ext_nop", ops), "ext_engine_nop");
  EXPECT_EQ(nearest_name("rdma_desc_strt", ops), "rdma_desc_start");
  // Never every character of a short name.
  const std::array<std::string_view, 1> cd{"cd"};
  EXPECT_EQ(nearest_name("ab", cd), std::nullopt);
  // A token far longer than any name gets no hint (and costs no distance table).
  EXPECT_EQ(nearest_name(std::string(65, 'a'), std::array<std::string_view, 1>{"a"}), std::nullopt);
  // The limit: max(2, length / 3) edits.
  const std::array<std::string_view, 1> one{"abcdefghijkl"};  // 12 characters
  EXPECT_EQ(nearest_name("abcdefghi", one), "abcdefghijkl");  // 3 edits, 9 / 3 = 3
  EXPECT_EQ(nearest_name("abcdefgh", one), std::nullopt);     // 4 edits, 8 / 3 = 2
}

TEST(NearestName, ANameShortenedByWholeWordsOrAbbreviatedWordsIsFound) {
  // The timing parameters (sbrdma info params): a name typed with a word left out or cut
  // short is too far from the full one for a slip.
  const std::array<std::string_view, 9> params{
      "dma_engine_rate", "q7_desc_gen_cost", "c2c_bandwidth",      "c2c_z_bandwidth",
      "c2c_latency",     "gpsimd_clock",     "mmio_write_latency", "semaphore_write_latency",
      "d2d_latency"};
  EXPECT_EQ(nearest_name("q7_desc_gen", params), "q7_desc_gen_cost");
  EXPECT_EQ(nearest_name("q7_gen_cost", params), "q7_desc_gen_cost");
  EXPECT_EQ(nearest_name("Q7_DESC_GEN", params), "q7_desc_gen_cost");
  EXPECT_EQ(nearest_name("dma_rate", params), "dma_engine_rate");
  EXPECT_EQ(nearest_name("c2c_lat", params), "c2c_latency");
  EXPECT_EQ(nearest_name("gpsimd_clk", params), "gpsimd_clock");
  EXPECT_EQ(nearest_name("c2c_z_bw", params), "c2c_z_bandwidth");
  // More than one name it could shorten: no guess.
  EXPECT_EQ(nearest_name("c2c_bw", params), std::nullopt);     // c2c_bandwidth, c2c_z_bandwidth
  EXPECT_EQ(nearest_name("write_lat", params), std::nullopt);  // mmio_ or semaphore_
  EXPECT_EQ(nearest_name("sem_write_lat", params), "semaphore_write_latency");
  // One word alone, words out of order, a word more, or a word that stands for none: no
  // guess.
  EXPECT_EQ(nearest_name("gpsimd", params), std::nullopt);
  EXPECT_EQ(nearest_name("cost_q7", params), std::nullopt);
  EXPECT_EQ(nearest_name("bandwidth_c2c", params), std::nullopt);
  EXPECT_EQ(nearest_name("dma_speed", params), std::nullopt);
  EXPECT_EQ(nearest_name("q7_desc_gen_cost_max", params), std::nullopt);
  // A single letter stands only for itself: y_bandwidth and c_bandwidth are no
  // c2c_z_bandwidth.
  EXPECT_EQ(nearest_name("z_bandwidth", params), "c2c_z_bandwidth");
  EXPECT_EQ(nearest_name("y_bandwidth", params), std::nullopt);
  EXPECT_EQ(nearest_name("c_bandwidth", params), std::nullopt);
  // Letters that merely occur in a word, in order, are no abbreviation of it: len is not
  // latency, op not onchip (a vowel: only a beginning of three letters or more, or
  // consonants alone, abbreviate).
  const std::array<std::string_view, 3> more{"sbuf_port_latency", "onchip_bandwidth",
                                             "c2c_latency"};
  EXPECT_EQ(nearest_name("sbuf_len", more), std::nullopt);
  EXPECT_EQ(nearest_name("op_bandwidth", more), std::nullopt);
  EXPECT_EQ(nearest_name("c2c_len", more), std::nullopt);
  EXPECT_EQ(nearest_name("sbuf_lat", more), "sbuf_port_latency");
  // rdma_desc_gen's fields: ring is no routing, and a word of some name (in, is) stands only
  // for itself, not for info or inst.
  const std::array<std::string_view, 6> fields{
      "remote_routing_id", "inst_word_len", "completion_info.has_read",
      "is_remote",         "in_order",      "dma_engine_mask"};
  EXPECT_EQ(nearest_name("ring_id", fields), std::nullopt);
  EXPECT_EQ(nearest_name("is_wr", fields), std::nullopt);
  EXPECT_EQ(nearest_name("in_read", fields), std::nullopt);
  EXPECT_EQ(nearest_name("dma_mask", fields), "dma_engine_mask");
  EXPECT_EQ(nearest_name("compl_read", fields), "completion_info.has_read");
  // A name listed twice is one name, no tie.
  const std::array<std::string_view, 2> twice{"dma_engine_rate", "dma_engine_rate"};
  EXPECT_EQ(nearest_name("dma_rate", twice), "dma_engine_rate");
}

}  // namespace
}  // namespace sbrdma::base
