#include "device/modelled_error.h"

#include <fmt/format.h>

namespace sbrdma::device {

std::string format_time(base::Tick t) {
  return fmt::format("t={}.{:03}ns", t.ps / 1000, t.ps % 1000);
}

std::string ModelledError::format() const {
  std::string out = fmt::format("{} core {}", format_time(time), core);
  if (engine) out += fmt::format(" engine {}", *engine);
  if (dir) out += fmt::format(" {}", soc::direction_name(*dir));
  if (queue) out += fmt::format(" queue {}", *queue);
  out += ": ";
  out += message;
  return out;
}

void ErrorLog::record(base::Tick time, const ErrorSite& site, std::string message,
                      std::optional<IssuedAccess> access) {
  errors_.push_back(ModelledError{time, site.core, site.engine, site.dir, site.queue,
                                  std::move(message), site.slot, access});
}

std::string ErrorLog::report() const {
  std::string out;
  for (const ModelledError& e : errors_) out += e.format() + "\n";
  return out;
}

}  // namespace sbrdma::device
