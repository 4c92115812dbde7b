#pragma once
/// DeferredCopies: data-landing copies held back and run in batches on a second core while
/// the simulation goes on. A 16 MiB all-reduce lands about 16 KiB per descriptor, one
/// descriptor per event: copied one by one on the simulation's thread, the copies were half
/// the run while the second core waited for the next reduce. Held, a full batch (128 copies or
/// 2 MiB) runs in the background (base::BackgroundWork) while the simulation's thread handles
/// the events that follow, which touch descriptor rings, registers and semaphores but no SBUF
/// byte until the owner calls run().
///
/// Copies in one batch are independent: a copy that reads bytes a held one writes, or writes
/// bytes one reads or writes, runs the held ones first. Independent copies give the same bytes
/// in any order and on any thread, and a batch starts only once the one before it has finished,
/// so the simulation stays deterministic. The owner (Machine) calls run() before anything else
/// reads or writes the memories involved, so no one sees a copy late.
///
///   add(a -> b) ... add(y -> z)   [full: starts in the background]   add ... add
///        \______ batch 1 ______/ --> helper copies                    \_ batch 2 _/
///   SBUF read or write elsewhere: run() = wait for batch 1, run batch 2 here (split in two)
///
/// [CHOICE D44]

#include <cstdint>
#include <thread>
#include <vector>

#include "base/split_work.h"
#include "device/paged_memory.h"

namespace sbrdma::device {

class DeferredCopies {
 public:
  /// Held copies start, as a background job, as soon as they are this many, or this many bytes.
  static constexpr std::size_t kMaxCopies = 128;
  static constexpr std::uint64_t kMaxBytes = 2ULL << 20;
  /// From this many bytes, run() splits the copies it runs itself across two cores.
  static constexpr std::uint64_t kSplitBytes = 128 * 1024;

  DeferredCopies() = default;
  DeferredCopies(const DeferredCopies&) = delete;
  DeferredCopies& operator=(const DeferredCopies&) = delete;

  /// Holds a copy of `len` bytes from `src` at `src_off` to `dst` at `dst_off` (first running
  /// what is held, if the copy depends on it), or returns false and holds nothing when the copy
  /// cannot be held: its ranges overlap in one memory, or the destination spans pages.
  /// Contract: both ranges valid; the memories are neither read nor written, except through
  /// this object, until run().
  bool add(const PagedMemory& src, std::uint64_t src_off, PagedMemory& dst, std::uint64_t dst_off,
           std::uint64_t len);
  /// Runs every held copy (waiting for a batch running in the background) and holds none.
  /// Contract: called on the thread that added the copies.
  void run();
  [[nodiscard]] bool empty() const noexcept { return open_.empty() && !background_.running(); }
  /// Held copies started so far, and the batches they started in (for tests and tuning).
  [[nodiscard]] std::uint64_t copies_run() const noexcept { return copies_run_; }
  [[nodiscard]] std::uint64_t batches_run() const noexcept { return batches_run_; }
  /// Of those, the full batches handed to base::BackgroundWork (which runs them at once where
  /// there is no second core).
  [[nodiscard]] std::uint64_t background_batches() const noexcept { return background_batches_; }

 private:
  struct Copy {
    const PagedMemory* src = nullptr;
    std::uint64_t src_off = 0;
    PagedMemory* dst = nullptr;
    std::uint64_t dst_off = 0;
    std::uint64_t len = 0;
    std::uint8_t* to = nullptr;  ///< the destination run, taken when the batch starts
  };
  /// True if `c` reads what a copy of `held` writes or writes what one reads or writes.
  [[nodiscard]] static bool depends(const std::vector<Copy>& held, const Copy& c) noexcept;
  /// Takes the open batch's destination runs (pages are taken on this thread, with no batch
  /// running) and counts the batch; returns its pieces' first copies, and its end.
  std::vector<std::size_t> start_batch();
  /// Waits for the background batch.
  void finish_background();
  static void run_one(const Copy& c);
  /// Piece `k` of a batch cut at `starts` (start_batch()).
  static void run_piece(const std::vector<Copy>& batch, const std::vector<std::size_t>& starts,
                        std::size_t k);

  std::vector<Copy> open_;  ///< held, not started
  std::uint64_t open_bytes_ = 0;
  std::vector<Copy> running_;  ///< the background batch (valid while background_ runs)
  std::vector<std::size_t> running_starts_;
  std::uint64_t copies_run_ = 0;
  std::uint64_t batches_run_ = 0;
  std::uint64_t background_batches_ = 0;
  std::thread::id owner_;            ///< the thread that holds the copies (and alone may run them)
  base::BackgroundWork background_;  ///< last: destroyed first, finishing the batch
};

}  // namespace sbrdma::device
