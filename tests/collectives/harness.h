#pragma once
/// Lower a collective, fill its inputs, run it on the test interpreter and count wrong
/// output elements against the CPU reference.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectives/interpreter.h"
#include "collectives/lower.h"
#include "collectives/reference.h"

namespace sbrdma::collectives::testing {

struct Outcome {
  std::string error;          ///< lowering or interpreter error, "" if it ran
  std::uint64_t wrong = 0;    ///< wrong output elements over all ranks
  std::uint64_t checked = 0;  ///< output elements checked
  Lowered lowered;
};

/// A geometry of `chips` trn2 chips with partitions shrunk to `partition_bytes` (tests keep
/// SBUF small so the interpreter stays cheap).
inline Geometry small_geometry(unsigned chips, std::uint64_t partition_bytes = 16 << 10) {
  Geometry g = Geometry::of(soc::cayman_profile(), chips);
  g.partition_bytes = partition_bytes;
  return g;
}

/// Lowers `req`, runs it in the Interpreter under schedule `sched_seed` (with core `slow`
/// slowed down, if given) and checks every rank's output.
inline Outcome run_collective(const Geometry& g, const Communicator& c, const LowerRequest& req,
                              DataFill fill = DataFill::kRandom, std::uint64_t sched_seed = 1,
                              std::optional<CoreId> slow = std::nullopt) {
  Outcome out;
  auto low = lower(g, c, req);
  if (!low) {
    out.error = low.error().message;
    return out;
  }
  out.lowered = std::move(*low);
  const Lowered& L = out.lowered;
  Interpreter in(g, std::max<std::uint64_t>(L.sbuf_bytes, 64), sched_seed);
  if (slow) in.slow_down(*slow);
  const unsigned eb = dtype_bytes(req.dtype);
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {  // 1. fill every rank's input
    for (unsigned r = 0; r < c.ranks(); ++r) {
      const RankBuffers& b = L.buffers[gi][r];
      const auto input =
          make_input(req.dtype, b.in.elements(), fill, 7, static_cast<unsigned>(gi), r);
      for (const TileRun& run : runs(b.in)) {
        std::vector<std::uint8_t> bytes(run.n * eb);
        pack_run(run, input.data(), eb, b.in.partitions, bytes.data());
        in.write(c.groups[gi][r], run.partition, run.offset, bytes.data(), bytes.size());
      }
    }
  }
  out.error = in.run(L.programs);  // 2. run
  if (!out.error.empty()) return out;
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {  // 3. check every rank's output
    std::vector<std::vector<std::uint8_t>> inputs;
    std::vector<std::uint64_t> out_elems;
    for (unsigned r = 0; r < c.ranks(); ++r) {
      const RankBuffers& b = L.buffers[gi][r];
      inputs.push_back(
          make_input(req.dtype, b.in.elements(), fill, 7, static_cast<unsigned>(gi), r));
      out_elems.push_back(b.out.elements());
    }
    const auto pairs = pairs_of(req.pairs, gi);
    auto want = expected_outputs(req.op, req.dtype, req.reduce, inputs, out_elems, pairs);
    // In-place reductions reduce their own result again on every further iteration.
    for (unsigned it = 1; it < req.iterations && is_reduction(req.op); ++it) {
      for (unsigned r = 0; r < c.ranks(); ++r) {
        std::uint64_t first = 0;  // reduce-scatter: rank r's block follows the blocks of ranks < r
        for (unsigned s = 0; s < r && req.op == Op::kReduceScatter; ++s) first += out_elems[s];
        std::copy(want[r].bytes.begin(), want[r].bytes.end(),
                  inputs[r].begin() + static_cast<std::ptrdiff_t>(first * eb));
      }
      want = expected_outputs(req.op, req.dtype, req.reduce, inputs, out_elems, pairs);
    }
    for (unsigned r = 0; r < c.ranks(); ++r) {
      const RankBuffers& b = L.buffers[gi][r];
      std::vector<std::uint8_t> got(b.out.elements() * eb);
      for (const TileRun& run : runs(b.out)) {
        std::vector<std::uint8_t> bytes(run.n * eb);
        in.read(c.groups[gi][r], run.partition, run.offset, bytes.data(), bytes.size());
        unpack_run(run, bytes.data(), eb, b.out.partitions, got.data());
      }
      out.wrong += count_wrong(req.dtype, c.ranks(), got, want[r]);
      out.checked += b.out.elements();
    }
  }
  return out;
}

}  // namespace sbrdma::collectives::testing
