#pragma once
// Whether the mapping holding an address is advised for transparent huge pages, from the
// "VmFlags:" line ("hg" = MADV_HUGEPAGE) of its entry in /proc/self/smaps.

#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace sbrdma::testing {

/// True/false where /proc/self/smaps lists the mapping holding `p`; nullopt where it cannot be
/// read (not Linux) or lists no such mapping.
inline std::optional<bool> advised_huge(const void* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    std::uintptr_t lo = 0;
    std::uintptr_t hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) {
      std::istringstream flags(line.substr(8));
      for (std::string f; flags >> f;) {
        if (f == "hg") return true;
      }
      return false;
    }
  }
  return std::nullopt;
}

}  // namespace sbrdma::testing
