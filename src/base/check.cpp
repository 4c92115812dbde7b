#include "base/check.h"

#include <cstdio>
#include <cstdlib>

namespace sbrdma::base {
void check_failed(const char* file, int line, const char* cond, const char* msg) {
  std::fprintf(stderr, "%s:%d: internal error: check failed: %s%s%s\n", file, line, cond,
               (msg != nullptr && msg[0] != '\0') ? ": " : "", msg != nullptr ? msg : "");
  std::fflush(stderr);
  std::abort();
}
}  // namespace sbrdma::base
