#include "base/result.h"

#include "base/printable.h"

namespace sbrdma::base {
std::string Error::where() const {
  std::string out;
  if (!loc.file.empty()) {
    out += printable(loc.file);  // a file name is user text: no control byte reaches the terminal
    if (loc.line > 0) {
      out += ':';
      out += std::to_string(loc.line);
    }
    out += ": ";
  }
  return out;
}

std::string Error::format() const {
  std::string out = where();
  out += "error: ";
  // Messages quote user text (a flag's value, a JSON string, a word of a file): every byte of
  // it that is not printable ASCII is escaped here, once for all of them, so that none reaches
  // the terminal and a NUL cannot cut the line short. Text already escaped stays as it is.
  out += printable(message);
  return out;
}
}  // namespace sbrdma::base
