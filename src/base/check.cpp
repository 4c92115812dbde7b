#include "base/check.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#if defined(__linux__)
#include <sys/resource.h>
#endif

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
  // An address-space limit is often the cause (it counts mappings, which the simulator makes
  // generously): named as the user set it, in KiB. Nothing here may allocate.
  unsigned long long limit_kib = 0;
#if defined(__linux__)
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    limit_kib = static_cast<unsigned long long>(as.rlim_cur) / 1024;
  }
#endif
  char limit[64] = "";
  if (limit_kib != 0) {
    std::snprintf(limit, sizeof limit, "%sthe address-space limit is ulimit -v %llu",
                  hint != nullptr ? "; " : "", limit_kib);
  }
  if (hint != nullptr || limit_kib != 0) {
    std::fprintf(stderr, "sbrdma: error: out of memory: %s (%s%s)\n", what,
                 hint != nullptr ? hint : "", limit);
  } else {
    std::fprintf(stderr, "sbrdma: error: out of memory: %s\n", what);
  }
  std::fflush(stderr);
  std::_Exit(1);  // not exit(): other threads may still run, and static destructors with them
}
}  // namespace sbrdma::base
