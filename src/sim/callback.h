#pragma once
/// Callback: the action of an event. A move-only `void()` callable with inline storage large
/// enough for the usual captures (a few pointers and ids, or one std::function), so that
/// scheduling an event does not allocate; larger callables fall back to the heap.
///
/// A callable may also offer `void hint() const noexcept`: a CPU cache hint that starts loading
/// what its call will touch. The kernel calls it for the event due next while the current one
/// runs, so that the next event's cache misses overlap the current one's work. A hint must have
/// no effect on the model (prefetches only).

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "base/check.h"

namespace sbrdma::sim {

class Callback;

/// A callable with a cache hint (see the top of this file).
template <typename F>
concept HintedAction = requires(const F& f) {
  { f.hint() } noexcept;
};

/// What an event can run: anything callable as `f()`, other than a Callback itself.
template <typename F>
concept EventAction = !std::is_same_v<std::remove_cvref_t<F>, Callback> &&
                      std::is_invocable_v<std::remove_cvref_t<F>&>;

class Callback {
 public:
  /// Bytes of inline storage; a callable of this size or less (and nothrow-movable) is stored
  /// in place. With the ops pointer a Callback is 64 bytes, one cache line.
  static constexpr std::size_t kInlineBytes = 56;

  Callback() noexcept = default;

  /// Wraps any callable `f()` (its result, if any, is discarded).
  template <EventAction F>
  // NOLINTNEXTLINE(google-explicit-constructor,bugprone-forwarding-reference-overload)
  Callback(F&& f) {  // implicit, so that lambdas convert; EventAction excludes Callback
    construct(std::forward<F>(f));
  }

  /// Replaces the held callable with `f`, built in place (no temporary Callback to relocate).
  template <EventAction F>
  void emplace(F&& f) {
    reset();
    construct(std::forward<F>(f));
  }

  Callback(Callback&& o) noexcept : ops_(o.ops_) {
    if (ops_ != nullptr) ops_->relocate(buf_, o.buf_);
    o.ops_ = nullptr;
  }
  Callback& operator=(Callback&& o) noexcept {
    if (this != &o) {
      reset();
      ops_ = o.ops_;
      if (ops_ != nullptr) ops_->relocate(buf_, o.buf_);
      o.ops_ = nullptr;
    }
    return *this;
  }
  Callback(const Callback&) = delete;
  Callback& operator=(const Callback&) = delete;
  ~Callback() { reset(); }

  /// True if a callable is held.
  explicit operator bool() const noexcept { return ops_ != nullptr; }

  /// Contract: holds a callable.
  void operator()() {
    SBRDMA_CHECK_MSG(ops_ != nullptr, "calling an empty Callback");
    ops_->invoke(buf_);
  }

  /// The held callable's cache hint, if it has one (no effect on the model).
  void hint() const noexcept {
    if (ops_ != nullptr && ops_->hint != nullptr) ops_->hint(buf_);
  }

  /// Drops the held callable.
  void reset() noexcept {
    if (ops_ != nullptr) ops_->destroy(buf_);
    ops_ = nullptr;
  }

 private:
  struct Ops {
    void (*invoke)(void* self);
    void (*relocate)(void* dst, void* src) noexcept;  // move-construct into dst, destroy src
    void (*destroy)(void* self) noexcept;
    void (*hint)(const void* self) noexcept;  // null: the callable has none
  };
  using HintFn = void (*)(const void*) noexcept;

  /// Builds `f` into the empty storage.
  template <EventAction F>
  void construct(F&& f) {
    using Fn = std::remove_cvref_t<F>;
    if constexpr (fits_inline<Fn>()) {
      ::new (static_cast<void*>(buf_)) Fn(std::forward<F>(f));
      ops_ = &kInlineOps<Fn>;
    } else {
      ::new (static_cast<void*>(buf_)) Fn*(new Fn(std::forward<F>(f)));
      ops_ = &kHeapOps<Fn>;
    }
  }

  template <typename Fn>
  static constexpr bool fits_inline() {
    if (sizeof(Fn) > kInlineBytes) return false;
    if (alignof(Fn) > alignof(std::max_align_t)) return false;
    return std::is_nothrow_move_constructible_v<Fn>;
  }

  template <typename Fn>
  static Fn* as(void* p) noexcept {
    return std::launder(static_cast<Fn*>(p));
  }

  template <typename Fn>
  static const Fn* as_const(const void* p) noexcept {
    return std::launder(static_cast<const Fn*>(p));
  }

  template <typename Fn>
  static constexpr HintFn inline_hint() {
    if constexpr (HintedAction<Fn>) {
      return [](const void* self) noexcept { as_const<Fn>(self)->hint(); };
    } else {
      return nullptr;
    }
  }

  template <typename Fn>
  static constexpr Ops kInlineOps{
      [](void* self) { (*as<Fn>(self))(); },
      [](void* dst, void* src) noexcept {
        ::new (dst) Fn(std::move(*as<Fn>(src)));
        as<Fn>(src)->~Fn();
      },
      [](void* self) noexcept { as<Fn>(self)->~Fn(); },
      inline_hint<Fn>(),
  };

  template <typename Fn>
  static constexpr Ops kHeapOps{
      [](void* self) { (**as<Fn*>(self))(); },
      [](void* dst, void* src) noexcept { ::new (dst) Fn*(*as<Fn*>(src)); },
      [](void* self) noexcept { delete *as<Fn*>(self); },
      nullptr,  // a heap callable's hint would first have to load it
  };

  alignas(std::max_align_t) unsigned char buf_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace sbrdma::sim
