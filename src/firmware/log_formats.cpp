#include "firmware/log_formats.h"

#include <cstdarg>
#include <cstdio>

namespace sbrdma::firmware {

std::string render(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<std::size_t>(n) + 1);
    std::vsnprintf(out.data(), out.size(), format, again);
    out.resize(static_cast<std::size_t>(n));
  }
  va_end(again);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string_view sem_compare_symbol(SemCompare cmp) {
  switch (cmp) {
    case SemCompare::kEq:
      return "==";
    case SemCompare::kLt:
      return "<";
    case SemCompare::kLe:
      return "<=";
    case SemCompare::kGt:
      return ">";
    case SemCompare::kGe:
      return ">=";
  }
  return "?";
}

}  // namespace sbrdma::firmware
