#include <gtest/gtest.h>

#include <cstdint>
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

TEST(CallbackEmplace, ReplacesTheHeldCallable) {
  std::vector<std::string> log;
  Callback c = Hinted{&log, "old"};
  c.emplace(Hinted{&log, "new"});
  c();
  EXPECT_EQ(log, (std::vector<std::string>{"run new"}));
}

TEST(EventQueueEmplace, CallablesAndCallbacksShareOneOrder) {
  // Callables built in the slot (template push) and ready Callbacks take sequence numbers
  // from one counter: same-time events pop in push order whichever way they came in.
  std::vector<std::string> log;
  EventQueue q;
  q.push(Tick{5}, Hinted{&log, "1"}, "1");
  q.push(Tick{5}, Callback(Hinted{&log, "2"}), "2");
  const std::uint64_t s3 = q.reserve_seq();
  q.push(Tick{5}, Hinted{&log, "4"}, "4");
  q.push_reserved(Tick{5}, s3, Hinted{&log, "3"}, "3");
  std::vector<std::uint64_t> seqs;
  while (!q.empty()) {
    Event ev = q.pop();
    seqs.push_back(ev.seq);
    ev.fn();
  }
  EXPECT_EQ(seqs, (std::vector<std::uint64_t>{0, 1, 2, 3}));
  std::vector<std::string> runs;
  for (const std::string& l : log) {
    if (l.rfind("run ", 0) == 0) runs.push_back(l);
  }
  EXPECT_EQ(runs, (std::vector<std::string>{"run 1", "run 2", "run 3", "run 4"}));
}

}  // namespace
}  // namespace sbrdma::sim
