#include "base/result.h"

namespace sbrdma::base {
std::string Error::format() const {
  std::string out;
  if (!loc.file.empty()) {
    out += loc.file;
    if (loc.line > 0) {
      out += ':';
      out += std::to_string(loc.line);
    }
    out += ": ";
  }
  out += "error: ";
  out += message;
  return out;
}
}  // namespace sbrdma::base
