#pragma once
/// Fifo<T>: an unbounded first-in first-out channel between processes (later the Q7
/// `left_pop`/`right_push` FIFOs). push() never blocks; `co_await fifo.pop()` takes the oldest
/// item, waiting while the Fifo is empty.
///
/// Poppers are served in the order they started waiting: a push while someone waits hands the
/// item straight to the oldest waiter (whose resume event runs at now()), so a later popper
/// cannot overtake it. Hence the invariant: items are queued only while nobody waits.
/// The Fifo must outlive the waits on it.

#include <coroutine>
#include <deque>
#include <optional>
#include <string>
#include <utility>

#include "sim/kernel.h"

namespace sbrdma::sim {

template <typename T>
class Fifo {
 public:
  /// `co_await fifo.pop()` yields the item. Lives in the waiting frame; not movable.
  class PopAwaiter {
   public:
    explicit PopAwaiter(Fifo& f) noexcept : fifo_(f) {}
    PopAwaiter(const PopAwaiter&) = delete;
    PopAwaiter& operator=(const PopAwaiter&) = delete;

    [[nodiscard]] bool await_ready() const noexcept { return !fifo_.items_.empty(); }
    void await_suspend(std::coroutine_handle<> h) {
      Fifo& f = fifo_;
      f.kernel_.block(h, [&f] { return "pop from empty fifo " + f.name_; });
      f.poppers_.push_back(Popper{f.kernel_.current_process(), &slot_});
    }
    T await_resume() {
      if (slot_.has_value()) return std::move(*slot_);
      SBRDMA_CHECK(!fifo_.items_.empty());
      T v = std::move(fifo_.items_.front());
      fifo_.items_.pop_front();
      return v;
    }

   private:
    Fifo& fifo_;
    std::optional<T> slot_;
  };

  Fifo(Kernel& kernel, std::string name) : kernel_(kernel), name_(std::move(name)) {}
  Fifo(const Fifo&) = delete;
  Fifo& operator=(const Fifo&) = delete;

  /// Appends `v`, or hands it to the oldest waiting popper and wakes it at now().
  void push(T v) {
    if (poppers_.empty()) {
      items_.push_back(std::move(v));
      return;
    }
    const Popper p = poppers_.front();
    poppers_.pop_front();
    p.slot->emplace(std::move(v));
    kernel_.wake(p.pid);
  }

  /// `co_await fifo.pop()`.
  [[nodiscard]] PopAwaiter pop() noexcept { return PopAwaiter(*this); }

  /// Takes the oldest item without waiting, if there is one.
  std::optional<T> try_pop() {
    if (items_.empty()) return std::nullopt;
    std::optional<T> v(std::move(items_.front()));
    items_.pop_front();
    return v;
  }

  /// Items queued (not yet popped).
  [[nodiscard]] std::size_t size() const noexcept { return items_.size(); }
  [[nodiscard]] bool empty() const noexcept { return items_.empty(); }
  /// Processes waiting in pop().
  [[nodiscard]] std::size_t waiting() const noexcept { return poppers_.size(); }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

 private:
  struct Popper {
    ProcessId pid;
    std::optional<T>* slot;
  };

  Kernel& kernel_;
  std::string name_;
  std::deque<T> items_;
  std::deque<Popper> poppers_;
};

}  // namespace sbrdma::sim
