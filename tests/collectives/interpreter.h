#pragma once
/// A small, timing-free interpreter of lowered programs, for tests only. It runs every core's
/// words with the firmware's meaning (gen queues a transfer, start hands it to 16 engines,
/// waits block on semaphores, TENSOR_TENSOR_ARITH reduces) and lets a seeded random scheduler
/// decide everything timing would: which core or engine moves next, when data lands, when
/// each semaphore write lands. An engine handles its transfers in order; a transfer's
/// semaphore writes land after its data, in order per engine and target, but later data of the
/// same engine may overtake them. A lowering that is only right under one timing fails here.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "collectives/geometry.h"
#include "collectives/program.h"

namespace sbrdma::collectives::testing {

class Interpreter {
 public:
  Interpreter(const Geometry& g, std::uint64_t sbuf_bytes, std::uint64_t seed);

  /// Bytes [offset, offset + out.size()) of partition `p` of `core`.
  void read(CoreId core, unsigned p, std::uint64_t offset, std::uint8_t* out, std::size_t n);
  void write(CoreId core, unsigned p, std::uint64_t offset, const std::uint8_t* in, std::size_t n);

  /// Runs `programs` to the end. Returns "" or what went wrong (deadlock, ring overflow, a
  /// word it cannot run, an address out of range).
  std::string run(const std::vector<CoreProgram>& programs);

  /// Makes `core` the slowest: its words run only when nothing else can move (its engines and
  /// semaphore writes still go at random). An adversary for races that random schedules
  /// rarely reach: every other core runs as far ahead as the semaphores let it.
  void slow_down(CoreId core) { slow_ = core; }

  /// Legs started, for tests that count them.
  [[nodiscard]] std::uint64_t legs() const { return legs_; }

 private:
  struct Leg {
    CoreId src = 0;
    CoreId dst = 0;
    std::uint32_t src_off = 0;
    std::uint32_t dst_off = 0;
    std::uint32_t bytes = 0;
    unsigned local_sem = 0;
    unsigned remote_sem = 0;
    std::uint32_t mask = 0;
  };
  struct Job {  // one engine's share of a leg
    Leg leg;
    unsigned first_p = 0;
    unsigned parts = 0;  // 0: semaphores only
    bool remote = false;
    unsigned descs = 0;
  };
  struct SemWrite {
    CoreId core;
    unsigned sem;
  };
  struct Engine {
    std::deque<Job> jobs;
    std::deque<SemWrite> sems;  // landed data's semaphore writes, in order
    unsigned outstanding = 0;   // descriptors generated and not yet taken
  };
  struct Core {
    const CoreProgram* prog = nullptr;
    std::size_t pc = 0;
    std::vector<std::uint32_t> sem;
    std::vector<Leg> pending;  // gens since the last start
    std::vector<Engine> engines;
    std::vector<std::uint8_t> sbuf;  // partitions x sbuf_bytes
  };

  bool step_core(Core& c, std::string& err);
  void land(Engine& e);
  std::uint8_t* at(CoreId core, unsigned p, std::uint64_t offset);

  Geometry g_;
  std::uint64_t sbuf_bytes_;
  std::uint64_t rng_;
  std::vector<Core> cores_;
  std::uint64_t legs_ = 0;
  std::optional<CoreId> slow_;
};

}  // namespace sbrdma::collectives::testing
