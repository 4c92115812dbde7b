#pragma once
/// C++20 coroutine building blocks shared by sim/ (the event kernel) and firmware/ (which may
/// not see sim/, see DESIGN.md "Layers"):
///
///   Task<T>  a lazily started, move-only coroutine that returns T and can `co_await` other
///            Tasks. A Task owns its frame; destroying the outermost Task of a suspended
///            chain destroys every frame of the chain, leaf first, without recursion.
///   Suspend  a type-erased suspension point. The layer that implements a wait (sim/ or
///            platform/) hands firmware a Suspend; firmware `co_await`s it without knowing who
///            resumes it.
///   resume() the one way to resume a suspended Task frame from outside (a scheduler, a test).
///
/// Control transfer: a Task that awaits a child, and a child that ends, do not call into each
/// other. They leave the next frame to run in a per-thread slot and return to the loop in
/// resume() (a trampoline), which runs it. So nesting depth and loops of awaits use constant
/// machine stack at every optimisation level. (Symmetric transfer would need the compiler to
/// turn the transfer into a tail call: GCC 12 does so only with sibling-call optimisation, and
/// not under ASan, so a Debug build overflowed after ~10^5 awaits in a plain loop.)
///
/// Exceptions are not part of the model: one escaping a coroutine body is our bug and aborts
/// through check_failed (error kind 3).
///
/// Ownership of a chain (parent awaits child awaits leaf):
///
///   Task (owner) --> [parent frame] --child--> [child frame] --child--> [leaf frame]
///                                   <-parent--               <-parent--
///
/// While a child runs, the parent's promise links to it (`child`) and the child links back
/// (`parent`, and `continuation` = whom to run when it ends). A finished child is destroyed by
/// the parent's await_resume, which also collects its result.

#include <concepts>
#include <coroutine>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

#include "base/check.h"

namespace sbrdma::base {

template <typename T = void>
class Task;

/// Resumes the suspended coroutine `h` and runs frames handed over by Tasks (awaits, ends)
/// until the chain suspends on something external or ends. Contract: every resumption of a
/// Task frame goes through here (a bare h.resume() is caught by a check at the first hand-off).
void resume(std::coroutine_handle<> h);

namespace detail {

/// The per-thread hand-off slot of resume()'s loop.
struct Trampoline {
  std::coroutine_handle<> next;
  bool active = false;
};
inline Trampoline& trampoline() noexcept {
  thread_local Trampoline t;
  return t;
}
/// Leaves `h` for resume()'s loop to run next.
inline void hand_off(std::coroutine_handle<> h) noexcept {
  Trampoline& t = trampoline();
  SBRDMA_CHECK_MSG(t.active, "a Task frame was resumed without base::resume()");
  SBRDMA_CHECK(!t.next);
  t.next = h;
}

/// The links every Task frame carries (see the diagram above).
struct PromiseBase {
  /// This frame's handle, for destroy_chain.
  std::coroutine_handle<> self;
  /// The frame to resume when this one ends; null for an outermost Task.
  std::coroutine_handle<> continuation;
  /// The awaiting frame's promise, or null.
  PromiseBase* parent = nullptr;
  /// The promise of the Task this frame is currently awaiting, or null.
  PromiseBase* child = nullptr;

  /// Tasks are lazy: the body runs only when first resumed (or awaited).
  [[nodiscard]] std::suspend_always initial_suspend() const noexcept { return {}; }

  /// At the end, hand off to the awaiting frame (or just return to whoever resumed us).
  struct FinalAwaiter {
    [[nodiscard]] bool await_ready() const noexcept { return false; }
    template <typename P>
    void await_suspend(std::coroutine_handle<P> h) const noexcept {
      const std::coroutine_handle<> next = h.promise().continuation;
      if (next) hand_off(next);
    }
    void await_resume() const noexcept {}
  };
  [[nodiscard]] FinalAwaiter final_suspend() const noexcept { return {}; }

  /// Contract: never returns; an exception leaving a coroutine is an internal error.
  [[noreturn]] void unhandled_exception() const noexcept;
};

/// Destroys `top`'s frame and every frame it is (transitively) awaiting, leaf first, with a
/// loop instead of recursion. Contract: `top` is an outermost frame (no parent).
void destroy_chain(PromiseBase* top) noexcept;

/// Promise of a Task<T>: stores the co_returned value until the awaiter takes it.
template <typename T>
class Promise : public PromiseBase {
 public:
  Task<T> get_return_object() noexcept;
  void return_value(T value) { value_.emplace(std::move(value)); }
  /// Contract: the body has co_returned.
  T take() {
    SBRDMA_CHECK_MSG(value_.has_value(), "Task result taken twice or before the end");
    T v = std::move(*value_);
    value_.reset();
    return v;
  }

 private:
  std::optional<T> value_;
};

template <>
class Promise<void> : public PromiseBase {
 public:
  Task<void> get_return_object() noexcept;
  void return_void() const noexcept {}
  void take() const noexcept {}
};

/// What `co_await std::move(task)` evaluates to: hands off to the child and, when the child
/// ends, yields its result and destroys its frame.
template <typename T>
class TaskAwaiter {
 public:
  using Handle = std::coroutine_handle<Promise<T>>;
  explicit TaskAwaiter(Handle child) noexcept : child_(child) {}
  TaskAwaiter(const TaskAwaiter&) = delete;
  TaskAwaiter& operator=(const TaskAwaiter&) = delete;
  /// Once linked, the chain owns the child (destroy_chain), so the awaiter must not free it.
  ~TaskAwaiter() {
    if (child_ && !linked_) child_.destroy();
  }

  [[nodiscard]] bool await_ready() const noexcept { return false; }

  template <std::derived_from<PromiseBase> P>
  void await_suspend(std::coroutine_handle<P> parent) noexcept {
    PromiseBase& c = child_.promise();
    c.continuation = parent;
    c.parent = &parent.promise();
    parent.promise().child = &c;
    linked_ = true;
    hand_off(child_);
  }

  T await_resume() {
    Promise<T>& c = child_.promise();
    c.parent->child = nullptr;
    // Destroy the finished frame on every path, also after moving the value out of it.
    struct Release {
      Handle& h;
      ~Release() {
        h.destroy();
        h = {};
      }
    } release{child_};
    return c.take();
  }

 private:
  Handle child_;
  bool linked_ = false;
};

}  // namespace detail

/// A lazily started coroutine producing a T (or nothing for Task<void>).
///
/// Use: `Task<int> f() { co_return 1 + co_await g(); }`. Awaiting consumes the Task, so an
/// lvalue is awaited as `co_await std::move(t)`. A Task that is never awaited nor started is
/// simply destroyed with its (unstarted) frame.
///
/// Pitfall shared by all C++ coroutines: a coroutine lambda's captures live in the lambda
/// object, not in the frame. Prefer free functions with by-value parameters.
template <typename T>
class [[nodiscard]] Task {
  static_assert(!std::is_reference_v<T>, "Task<T&> is not supported; return a pointer");

 public:
  using promise_type = detail::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() noexcept = default;
  explicit Task(Handle h) noexcept : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { reset(); }

  /// True if this Task owns a frame.
  [[nodiscard]] bool valid() const noexcept { return static_cast<bool>(h_); }
  /// True once the body has run to its end. Contract: valid().
  [[nodiscard]] bool done() const {
    SBRDMA_CHECK(valid());
    return h_.done();
  }
  /// The outermost frame, for a driver (the sim kernel, a test) to start with base::resume().
  /// Contract: valid(). Later resumptions go to whatever leaf frame suspended, not here.
  [[nodiscard]] std::coroutine_handle<> handle() const {
    SBRDMA_CHECK(valid());
    return h_;
  }
  /// The co_returned value of a Task driven by hand. Contract: done(); called at most once.
  T take_result() {
    SBRDMA_CHECK(valid() && h_.done());
    return h_.promise().take();
  }
  /// Destroys the frame chain now (as the destructor does).
  void reset() noexcept {
    if (h_) detail::destroy_chain(&h_.promise());
    h_ = {};
  }

  /// `co_await std::move(task)`: runs the Task to its end inside the awaiting coroutine and
  /// yields its value. Contract: valid() and not yet started.
  detail::TaskAwaiter<T> operator co_await() && {
    SBRDMA_CHECK_MSG(valid(), "co_await on an empty Task");
    return detail::TaskAwaiter<T>(std::exchange(h_, {}));
  }

 private:
  Handle h_;
};

namespace detail {
template <typename T>
Task<T> Promise<T>::get_return_object() noexcept {
  auto h = std::coroutine_handle<Promise<T>>::from_promise(*this);
  self = h;
  return Task<T>(h);
}
inline Task<void> Promise<void>::get_return_object() noexcept {
  auto h = std::coroutine_handle<Promise<void>>::from_promise(*this);
  self = h;
  return Task<void>(h);
}
}  // namespace detail

/// A type-erased suspension point. The implementing layer builds it from a `Park` function;
/// `co_await suspend` calls `park(h)` with the suspending coroutine's handle `h`:
///
///  - park returns true: the implementer took `h` and will resume it later, exactly once,
///    with base::resume(h) from its scheduler (never from inside park);
///  - park returns false: nothing to wait for (e.g. the condition already holds), the
///    coroutine continues at once.
///
/// Example (platform/, with a sim::Signal `sig` guarding a semaphore):
///   base::Suspend wait_ge(int idx, uint32_t v) {
///     return base::Suspend([this, idx, v](std::coroutine_handle<> h) {
///       return sig_.park(h, [=, this] { return sem_[idx] >= v; }, describe(idx, v));
///     });
///   }
class [[nodiscard]] Suspend {
 public:
  /// Contract: see the class comment.
  using Park = std::function<bool(std::coroutine_handle<>)>;
  explicit Suspend(Park park) : park_(std::move(park)) {
    SBRDMA_CHECK_MSG(static_cast<bool>(park_), "Suspend needs a park function");
  }

  [[nodiscard]] bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) { return park_(h); }
  void await_resume() const noexcept {}

 private:
  Park park_;
};

}  // namespace sbrdma::base
