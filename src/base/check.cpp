#include "base/check.h"

#include <cstdio>
#include <cstdlib>

namespace sbrdma::base {
void check_failed(const char* file, int line, const char* cond, const char* msg) {
  std::fprintf(stderr, "%s:%d: internal error: check failed: %s%s%s\n", file, line, cond,
               (msg != nullptr && msg[0] != '\0') ? ": " : "", msg != nullptr ? msg : "");
  std::fflush(stderr);
  std::_Exit(2);  // the status README gives an internal error (abort()'s would be 134)
}

void out_of_memory(const char* what) noexcept {
  std::fprintf(stderr,
               "sbrdma: error: out of memory: %s (a smaller run needs less: fewer ranks, "
               "iterations or bytes, or --timing-only)\n",
               what);
  std::fflush(stderr);
  std::_Exit(1);  // not exit(): other threads may still run, and static destructors with them
}
}  // namespace sbrdma::base
