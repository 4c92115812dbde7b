#include "base/check.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace sbrdma::base {
void check_failed(const char* file, int line, const char* cond, const char* msg) {
  std::fprintf(stderr, "%s:%d: internal error: check failed: %s%s%s\n", file, line, cond,
               (msg != nullptr && msg[0] != '\0') ? ": " : "", msg != nullptr ? msg : "");
  std::fflush(stderr);
  std::_Exit(2);  // the status README gives an internal error (abort()'s would be 134)
}

namespace {
std::atomic<const char*> g_memory_hint{nullptr};
}  // namespace

void set_out_of_memory_hint(const char* hint) noexcept {
  g_memory_hint.store(hint);
}

void out_of_memory(const char* what) noexcept {
  const char* hint = g_memory_hint.load();
  if (hint != nullptr) {
    std::fprintf(stderr, "sbrdma: error: out of memory: %s (%s)\n", what, hint);
  } else {
    std::fprintf(stderr, "sbrdma: error: out of memory: %s\n", what);
  }
  std::fflush(stderr);
  std::_Exit(1);  // not exit(): other threads may still run, and static destructors with them
}
}  // namespace sbrdma::base
