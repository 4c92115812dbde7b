#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/callback.h"
#include "sim/event_queue.h"

namespace sbrdma::sim {
namespace {

using base::Tick;

/// An action that records its runs and its cache hints in `log`.
struct Hinted {
  std::vector<std::string>* log;
  std::string name;
  void operator()() const { log->push_back("run " + name); }
  void hint() const noexcept { log->push_back("hint " + name); }
};

TEST(CallbackHint, ForwardsToTheCallablesHint) {
  std::vector<std::string> log;
  Callback c = Hinted{&log, "a"};
  c.hint();
  c();
  EXPECT_EQ(log, (std::vector<std::string>{"hint a", "run a"}));
}

TEST(CallbackHint, IsANoOpWithoutOne) {
  int runs = 0;
  Callback plain = [&runs] { ++runs; };
  plain.hint();  // no hint: nothing happens
  Callback empty;
  empty.hint();
  EXPECT_EQ(runs, 0);
  plain();
  EXPECT_EQ(runs, 1);
}

TEST(CallbackHint, SurvivesAMove) {
  std::vector<std::string> log;
  Callback a = Hinted{&log, "m"};
  Callback b = std::move(a);
  b.hint();
  EXPECT_EQ(log, (std::vector<std::string>{"hint m"}));
}

TEST(CallbackHint, PopHintsTheEventDueNext) {
  // Each pop hints the event that is then earliest, before the popped one runs.
  std::vector<std::string> log;
  EventQueue q;
  q.push(Tick{20}, Hinted{&log, "b"}, "b");
  q.push(Tick{10}, Hinted{&log, "a"}, "a");
  q.push(Tick{30}, Hinted{&log, "c"}, "c");
  while (!q.empty()) q.pop().fn();
  EXPECT_EQ(log, (std::vector<std::string>{"hint b", "run a", "hint c", "run b", "run c"}));
}

}  // namespace
}  // namespace sbrdma::sim
