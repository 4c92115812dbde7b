#include "base/coro.h"

namespace sbrdma::base {

void resume(std::coroutine_handle<> h) {
  SBRDMA_CHECK_MSG(h && !h.done(), "resume of an empty or finished coroutine");
  detail::Trampoline& t = detail::trampoline();
  // Nesting is allowed (a driver inside a driver): keep the outer loop's state.
  const detail::Trampoline outer = t;
  t.active = true;
  t.next = h;
  while (t.next) {
    const std::coroutine_handle<> c = t.next;
    t.next = {};
    c.resume();
  }
  t = outer;
}

namespace detail {

void PromiseBase::unhandled_exception() const noexcept {
  check_failed(__FILE__, __LINE__, "unhandled_exception",
               "an exception escaped a coroutine (sbrdma does not use exceptions)");
}

void destroy_chain(PromiseBase* top) noexcept {
  SBRDMA_CHECK_MSG(top->parent == nullptr, "destroy_chain on a frame that is being awaited");
  PromiseBase* p = top;
  while (p->child != nullptr) p = p->child;
  // Leaf first: each parent's awaiter has handed ownership of its child to the chain, so
  // destroying the parent afterwards does not touch the (already freed) child.
  for (;;) {
    PromiseBase* up = p->parent;
    const bool last = (p == top);
    if (up != nullptr) up->child = nullptr;
    p->self.destroy();
    if (last) break;
    SBRDMA_CHECK(up != nullptr);  // every frame below `top` has a parent
    p = up;
  }
}

}  // namespace detail
}  // namespace sbrdma::base
