// platform/run_report.h: how report_failures tells device errors: engines folded into one line
// per word, an engine's second error on a line of its own, and at most kShownDeviceErrorLines
// lines before one that counts the rest.
#include "platform/run_report.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sbrdma::platform {
namespace {

device::ModelledError engine_error(std::uint64_t ps, device::CoreId core, unsigned engine,
                                   std::string message) {
  device::ModelledError e;
  e.time = base::Tick{ps};
  e.core = core;
  e.engine = engine;
  e.dir = soc::Direction::kM2S;
  e.queue = 0;
  e.slot = 4;
  e.message = std::move(message);
  return e;
}

std::vector<std::string> messages(const RunReport& r) {
  std::vector<std::string> out;
  for (const base::Error& e : report_failures(r)) out.push_back(e.message);
  return out;
}

TEST(RunReport, AnEnginesJthErrorJoinsTheJthLineOfItsKind) {
  // Engines 0, 1 and 2 fail alike (addresses apart); engine 0 twice and engine 1 twice, so
  // the second line holds their second errors and engine 2 has none there.
  RunReport r;
  r.device_errors = {
      engine_error(1000, 0, 0, "stopped at 0x10"), engine_error(1000, 0, 1, "stopped at 0x20"),
      engine_error(1000, 0, 2, "stopped at 0x30"), engine_error(2000, 0, 0, "stopped at 0x40"),
      engine_error(2000, 0, 1, "stopped at 0x50"), engine_error(3000, 0, 3, "another kind")};
  EXPECT_EQ(messages(r),
            (std::vector<std::string>{
                "device: t=1.000ns core 0 engine 0 M2S queue 0: stopped at 0x10; the same on "
                "engines 1-2",
                "device: t=2.000ns core 0 engine 0 M2S queue 0: stopped at 0x40; the same on "
                "engine 1",
                "device: t=3.000ns core 0 engine 3 M2S queue 0: another kind"}));
  // Errors from different words are told apart, each at its own line.
  r.device_error_origins = {ErrorOrigin{0, {"p.s", 2}, true},
                            ErrorOrigin{0, {"p.s", 2}, true},
                            ErrorOrigin{1, {"p.s", 3}, true},
                            std::nullopt,
                            std::nullopt,
                            std::nullopt};
  const std::vector<base::Error> lines = report_failures(r);
  ASSERT_EQ(lines.size(), 4U);
  EXPECT_EQ(lines[0].format(),
            "p.s:2: error: device: t=1.000ns core 0 engine 0 M2S queue 0: stopped at 0x10; "
            "word 0 wrote this descriptor (ring slot 4); the same on engine 1");
  EXPECT_EQ(lines[1].format(),
            "p.s:3: error: device: t=1.000ns core 0 engine 2 M2S queue 0: stopped at 0x30; "
            "word 1 wrote this descriptor (ring slot 4)");
  EXPECT_EQ(lines[2].message,
            "device: t=2.000ns core 0 engine 0 M2S queue 0: stopped at 0x40; the same on "
            "engine 1");
}

TEST(RunReport, AtMostFiftyDeviceErrorLinesThenACount) {
  // Errors of different cores never fold: one line each.
  RunReport r;
  for (unsigned c = 0; c < kShownDeviceErrorLines; ++c) {
    r.device_errors.push_back(engine_error(1000 * (c + 1), c, 0, "stopped"));
  }
  EXPECT_EQ(messages(r).size(), kShownDeviceErrorLines);
  // One line more is given as it is, not counted.
  r.device_errors.push_back(engine_error(99999, 99, 0, "stopped"));
  EXPECT_EQ(messages(r).back(), "device: t=99.999ns core 99 engine 0 M2S queue 0: stopped");
  EXPECT_EQ(messages(r).size(), kShownDeviceErrorLines + 1);
  r.device_errors.pop_back();
  for (unsigned c = 0; c < 10; ++c) {
    r.device_errors.push_back(engine_error(100000 + c, 100 + c, 0, "stopped"));
    r.device_errors.push_back(engine_error(100000 + c, 100 + c, 1, "stopped"));  // folds
  }
  const std::vector<std::string> m = messages(r);
  ASSERT_EQ(m.size(), kShownDeviceErrorLines + 1);
  EXPECT_EQ(m[kShownDeviceErrorLines - 1],
            fmt::format("device: t={}.000ns core {} engine 0 M2S queue 0: stopped",
                        kShownDeviceErrorLines, kShownDeviceErrorLines - 1));
  EXPECT_EQ(m.back(),
            "device: ... and 10 more lines of device errors (70 device errors in all; the first "
            "ones are the ones to read, the later ones mostly following from them)");
}

}  // namespace
}  // namespace sbrdma::platform
