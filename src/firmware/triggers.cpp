#include "firmware/triggers.h"

#include <functional>
#include <map>

namespace sbrdma::firmware {

std::vector<Trigger> plan_triggers(const DescriptorStream& stream) {
  std::map<unsigned, std::uint32_t, std::greater<>> by_count;  // largest count first
  for (unsigned e = 0; e < kRdmaEngines; ++e) {
    const unsigned n = stream.ring(e).pending;
    if (n != 0) by_count[n] |= 1U << e;
  }
  std::vector<Trigger> out;
  for (const auto& [n, mask] : by_count) out.push_back(Trigger{mask, n});
  return out;
}

}  // namespace sbrdma::firmware
