#include "base/result.h"

#include "base/printable.h"

namespace sbrdma::base {
std::string Error::format() const {
  std::string out;
  if (!loc.file.empty()) {
    out += printable(loc.file);  // a file name is user text: no control byte reaches the terminal
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
