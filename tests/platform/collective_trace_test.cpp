// add_step_boxes: one box per lowered step, from the words' spans in a finished trace.
#include "platform/collective_trace.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sbrdma::platform {
namespace {

using base::Tick;

constexpr const char* kTrace = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\nX\n]}\n";

collectives::CoreProgram two_steps() {
  collectives::CoreProgram p;
  p.core = 3;
  p.steps = {{0, "step a"}, {2, "step b"}};
  return p;
}

/// True if `trace` has core 3's step box `name` from `ts` for `dur` (microseconds, as printed).
bool has_box(const std::string& trace, const char* name, const char* ts, const char* dur) {
  const std::string box = std::string(R"("name":")") + name +
                          R"(","ph":"X","pid":3,"tid":50,"ts":)" + ts + R"(,"dur":)" + dur;
  return trace.find(box) != std::string::npos;
}

TEST(CollectiveTrace, TheLastStepBoxEndsWithTheLastWord) {
  const std::vector<WordSpan> words = {{3, 0, Tick{0}, Tick{1000}},
                                       {3, 1, Tick{1000}, Tick{2000}},
                                       {3, 2, Tick{2000}, Tick{3000}},
                                       {3, 3, Tick{3000}, Tick{5000}}};
  const std::string out = add_step_boxes(kTrace, words, {two_steps()});
  EXPECT_TRUE(has_box(out, "step a", "0.000000", "0.002000")) << out;
  EXPECT_TRUE(has_box(out, "step b", "0.002000", "0.003000")) << out;
  EXPECT_TRUE(out.ends_with("\n]}\n"));
  // The thread is named, and sorted like every other thread (between Q7 and DMA).
  EXPECT_NE(out.find(R"({"name":"thread_name","ph":"M","pid":3,"tid":50,"args":{"name":"steps"}})"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(R"({"name":"thread_sort_index","ph":"M","pid":3,"tid":50,)"
                     R"("args":{"sort_index":50}})"),
            std::string::npos)
      << out;
}

TEST(CollectiveTrace, AStepWithNoWordsHasNoBox) {
  collectives::CoreProgram p = two_steps();
  p.steps = {{0, "empty"}, {0, "step a"}, {2, "step b"}, {2, "empty too"}};
  const std::vector<WordSpan> words = {
      {3, 0, Tick{0}, Tick{1000}}, {3, 1, Tick{1000}, Tick{2000}}, {3, 2, Tick{2000}, Tick{3000}}};
  const std::string out = add_step_boxes(kTrace, words, {p});
  EXPECT_TRUE(has_box(out, "step a", "0.000000", "0.002000")) << out;
  EXPECT_EQ(out.find("\"empty\""), std::string::npos) << out;
  EXPECT_TRUE(has_box(out, "empty too", "0.002000", "0.001000")) << "the last mark owns word 2";
  EXPECT_EQ(out.find("\"step b\""), std::string::npos) << out;
}

TEST(CollectiveTrace, AWordRunTwiceCountsFromItsLastRun) {
  const std::vector<WordSpan> words = {{3, 0, Tick{0}, Tick{1000}},
                                       {3, 1, Tick{1000}, Tick{2000}},
                                       {3, 2, Tick{2000}, Tick{3000}},
                                       {3, 2, Tick{3000}, Tick{4000}},
                                       {3, 3, Tick{4000}, Tick{5000}}};
  const std::string out = add_step_boxes(kTrace, words, {two_steps()});
  EXPECT_TRUE(has_box(out, "step a", "0.000000", "0.003000")) << out;
  EXPECT_TRUE(has_box(out, "step b", "0.003000", "0.002000")) << out;
}

}  // namespace
}  // namespace sbrdma::platform
