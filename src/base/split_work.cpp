#include "base/split_work.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>

#include "base/check.h"
#include "base/stop_signals.h"

#if defined(__linux__)
#include <sched.h>
#endif

namespace sbrdma::base {
namespace {

/// Set while this thread runs a piece (in_piece()).
thread_local bool running_piece = false;

/// Runs piece(i) with running_piece set.
void run_piece(const std::function<void(std::size_t)>& piece, std::size_t i) {
  running_piece = true;
  piece(i);
  running_piece = false;
}

/// Polls of a flag before sleeping on it: about 80-130 us on this project's VM. Bulk jobs come in
/// bursts (the reduces of one simulated step), so a helper that has just finished one usually
/// finds the next before it sleeps; one that sleeps costs nothing, since the caller claims every
/// piece the helper has not.
constexpr int kSpins = 4096;

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

/// Waits until `flag` differs from `seen`: polls, then sleeps on it. Returns the new value.
template <typename T>
T await_change(const std::atomic<T>& flag, T seen) {
  for (int k = 0; k < kSpins; ++k) {
    const T v = flag.load(std::memory_order_acquire);
    if (v != seen) return v;
    relax();
  }
  flag.wait(seen, std::memory_order_acquire);
  return flag.load(std::memory_order_acquire);
}

/// A job's pieces are claimed one at a time by whichever thread is free, from `claim_`: the
/// job's ticket in the high half, the next unclaimed piece in the low half. The helper claims
/// with compare-and-swap, so a claim can never land on a job other than the one it read; the
/// caller waits only for pieces already claimed, never for a helper still asleep.
///
///   claim_:   | ticket (32) | next piece (32) |
///   caller:   post --> claim, run, claim, run ... --> (none left) wait until all finished
///   helper:   wake --> claim, run ... --> (none left, or a newer ticket) back to waiting
class Helper {
 public:
  /// The process's helper, started on first use; never destroyed (a detached thread waits on
  /// it until the process exits).
  static Helper& instance() {
    static Helper* helper = new Helper;
    return *helper;
  }

  void run(std::uint32_t n, const std::function<void(std::size_t)>& piece) {
    post(n, piece);
    finish();
  }

  /// Hands the job to the helper and returns; `piece` must live until finish(). Holds the
  /// job lock until finish(), on this thread.
  void post(std::uint32_t n, const std::function<void(std::size_t)>& piece) {
    mu_.lock();
    const std::uint64_t ticket = (claim_.load(std::memory_order_relaxed) >> 32) + 1;
    // The new ticket first: a helper late for the last job may still hold a claim on it, and
    // must not see the new count while that claim can still succeed (the last job's claim
    // index is past its own count, but can be below the new one: the piece would run twice
    // and count twice).
    claim_.store(ticket << 32);              // seq_cst
    n_.store(n, std::memory_order_release);  // after the ticket, for a helper that reads n_
    piece_.store(&piece, std::memory_order_relaxed);
    finished_.store(0, std::memory_order_relaxed);
    posted_.store(static_cast<std::uint32_t>(ticket));  // seq_cst: the helper wakes on it
    posted_.notify_one();
  }

  /// Runs the posted job's unclaimed pieces here, waits for the claimed ones, and lets the
  /// next job in.
  void finish() {
    const std::uint32_t n = n_.load(std::memory_order_relaxed);
    const auto& piece = *piece_.load(std::memory_order_relaxed);
    for (;;) {
      const std::uint64_t i = claim_.fetch_add(1, std::memory_order_acq_rel) & kIndex;
      if (i >= n) break;
      run_piece(piece, i);
      finished_.fetch_add(1, std::memory_order_acq_rel);
    }
    for (std::uint32_t f = finished_.load(std::memory_order_acquire); f != n;) {
      f = await_change(finished_, f);
      SBRDMA_CHECK_MSG(f <= n, "split_work: more pieces finished than the job has");
    }
    mu_.unlock();
  }

 private:
  static constexpr std::uint64_t kIndex = 0xffffffffULL;

  Helper() {
    // The stop signals are not its to take. Without a thread (the system refused one) the
    // caller runs every piece: finish() claims whatever no helper has.
    std::thread t = worker_thread([this] { loop(); });
    if (t.joinable()) t.detach();
  }

  [[noreturn]] void loop() {
    std::uint32_t seen = 0;
    for (;;) {
      seen = await_change(posted_, seen);
      const std::uint64_t mine = std::uint64_t{seen} << 32;
      std::uint64_t c = claim_.load(std::memory_order_acquire);
      // n_ is read after claim_: a count newer than `c`'s job comes with a ticket that makes
      // the compare-and-swap below fail.
      while ((c & ~kIndex) == mine && (c & kIndex) < n_.load(std::memory_order_acquire)) {
        if (!claim_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel)) continue;
        // Claimed for this ticket: the caller waits for the piece, so the job (its piece_ and
        // n_ included) stays as it was until the piece is finished.
        run_piece(*piece_.load(std::memory_order_relaxed), c & kIndex);
        const std::uint32_t n = n_.load(std::memory_order_relaxed);
        if (finished_.fetch_add(1, std::memory_order_acq_rel) + 1 == n) finished_.notify_one();
        c = claim_.load(std::memory_order_acquire);
      }
    }
  }

  std::mutex mu_;  ///< one job at a time
  // The job: written by the caller after claim_ takes the new ticket and before posted_ is
  // stored, read by the helper after it loads them. A helper that lags a job behind may read a
  // newer job's n_; claim_ then holds the newer ticket, its compare-and-swap fails, and it
  // runs nothing.
  std::atomic<std::uint32_t> n_{0};
  std::atomic<const std::function<void(std::size_t)>*> piece_{nullptr};
  std::atomic<std::uint64_t> claim_{0};
  std::atomic<std::uint32_t> finished_{0};  ///< pieces of the current job done
  std::atomic<std::uint32_t> posted_{0};    ///< the current job's ticket (low 32 bits)
};

/// Set while an OwnCoreOnly without a count lives on this thread.
thread_local bool own_core_always = false;
/// The count of running jobs of the innermost OwnCoreOnly given one (null: none).
thread_local const std::atomic<unsigned>* own_core_running = nullptr;

/// Whether this thread's pieces stay on it now (OwnCoreOnly).
bool own_core_now() {
  return own_core_always ||
         (own_core_running != nullptr && own_core_running->load(std::memory_order_acquire) > 1);
}

}  // namespace

unsigned usable_cores() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    return std::max(1U, static_cast<unsigned>(CPU_COUNT(&set)));
  }
#endif
  return std::max(1U, std::thread::hardware_concurrency());
}

OwnCoreOnly::OwnCoreOnly() noexcept : was_always_(own_core_always), was_running_(own_core_running) {
  own_core_always = true;
}

OwnCoreOnly::OwnCoreOnly(const std::atomic<unsigned>& running) noexcept
    : was_always_(own_core_always), was_running_(own_core_running) {
  own_core_running = &running;
}

OwnCoreOnly::~OwnCoreOnly() {
  own_core_always = was_always_;
  own_core_running = was_running_;
}

bool in_piece() noexcept {
  return running_piece;
}

bool split_work_parallel() {
  static const bool parallel = usable_cores() >= 2;
  return parallel;
}

namespace {

/// This thread's background job that has not finished (at most one: a thread starts one only
/// after finishing its last).
thread_local BackgroundWork* unfinished = nullptr;

/// Whether a job of `n` pieces can go to the helper: there is one, no OwnCoreOnly scope keeps
/// this thread's pieces on it now, and below 2^31 pieces the claim index cannot carry into the
/// ticket.
bool helper_takes(std::size_t n) {
  return !own_core_now() && split_work_parallel() && n < (std::size_t{1} << 31);
}

}  // namespace

void split_work(std::size_t n, const std::function<void(std::size_t)>& piece) {
  if (unfinished != nullptr) unfinished->finish();  // the helper takes one job at a time
  if (n < 2 || !helper_takes(n)) {
    for (std::size_t i = 0; i < n; ++i) run_piece(piece, i);
    return;
  }
  Helper::instance().run(static_cast<std::uint32_t>(n), piece);
}

BackgroundWork::~BackgroundWork() {
  finish();
}

void BackgroundWork::start(std::size_t n, std::function<void(std::size_t)> piece) {
  finish();
  if (unfinished != nullptr) unfinished->finish();
  if (n == 0) return;
  if (!helper_takes(n)) {
    for (std::size_t i = 0; i < n; ++i) run_piece(piece, i);
    return;
  }
  piece_ = std::move(piece);
  Helper::instance().post(static_cast<std::uint32_t>(n), piece_);
  running_ = true;
  starter_ = std::this_thread::get_id();
  unfinished = this;
}

void BackgroundWork::finish() {
  if (!running_) return;
  // The job holds the helper's lock, which only the thread that took it may let go.
  SBRDMA_CHECK_MSG(std::this_thread::get_id() == starter_,
                   "a background job finished on a thread other than the one that started it");
  Helper::instance().finish();
  running_ = false;
  if (unfinished == this) unfinished = nullptr;
}

}  // namespace sbrdma::base
