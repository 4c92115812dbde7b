#include "base/split_work.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>

namespace sbrdma::base {
namespace {

/// Polls of a flag before sleeping on it: a few microseconds, about the gap between the reduces
/// of one simulated step, far less than one reduce of the size split_work is used for.
constexpr int kSpins = 4096;

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

/// Waits until `flag` differs from `seen`: polls, then sleeps on it. Returns the new value.
std::uint32_t await_change(const std::atomic<std::uint32_t>& flag, std::uint32_t seen) {
  for (int k = 0; k < kSpins; ++k) {
    const std::uint32_t v = flag.load(std::memory_order_acquire);
    if (v != seen) return v;
    relax();
  }
  flag.wait(seen, std::memory_order_acquire);
  return flag.load(std::memory_order_acquire);
}

class Helper {
 public:
  /// The process's helper, started on first use; never destroyed (a detached thread waits on
  /// it until the process exits).
  static Helper& instance() {
    static Helper* helper = new Helper;
    return *helper;
  }

  void run(std::size_t n, const std::function<void(std::size_t)>& piece) {
    const std::lock_guard<std::mutex> lock(mu_);
    n_ = n;
    piece_ = &piece;
    const std::uint32_t ticket = posted_.load(std::memory_order_relaxed) + 1;
    posted_.store(ticket, std::memory_order_release);
    posted_.notify_one();
    for (std::size_t i = 0; i < n; i += 2) piece(i);
    for (std::uint32_t d = done_.load(std::memory_order_acquire); d != ticket;) {
      d = await_change(done_, d);
    }
  }

 private:
  Helper() {
    std::thread([this] { loop(); }).detach();
  }

  [[noreturn]] void loop() {
    std::uint32_t seen = 0;
    for (;;) {
      seen = await_change(posted_, seen);
      for (std::size_t i = 1; i < n_; i += 2) (*piece_)(i);
      done_.store(seen, std::memory_order_release);
      done_.notify_one();
    }
  }

  std::mutex mu_;  ///< one job at a time
  // The job: written by the caller before posted_ is released, read by the helper after it
  // acquires posted_.
  std::size_t n_ = 0;
  const std::function<void(std::size_t)>* piece_ = nullptr;
  std::atomic<std::uint32_t> posted_{0};  ///< the last job's ticket
  std::atomic<std::uint32_t> done_{0};    ///< the last ticket the helper finished
};

}  // namespace

bool split_work_parallel() {
  static const bool parallel = std::thread::hardware_concurrency() >= 2;
  return parallel;
}

void split_work(std::size_t n, const std::function<void(std::size_t)>& piece) {
  if (n < 2 || !split_work_parallel()) {
    for (std::size_t i = 0; i < n; ++i) piece(i);
    return;
  }
  Helper::instance().run(n, piece);
}

}  // namespace sbrdma::base
