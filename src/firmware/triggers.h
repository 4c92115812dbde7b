#pragma once
/// The broadcast doorbell writes rdma_desc_start makes for one role. [CHOICE D8, D22b]
///
/// One broadcast write advances the tail of every engine of the group mask by the same
/// n_desc, so engines whose pending counts differ need separate triggers: active engines hold
/// data + REMOTE + LOCAL, the others LOCAL only. Each trigger is two writes:
///   BROADCAST_CFG_GROUP <- mask, then BCAST {T,R}DRTP_inc (queue ring_num) <- n_desc.

#include <cstdint>
#include <vector>

#include "firmware/descriptor_stream.h"

namespace sbrdma::firmware {

/// One broadcast trigger.
struct Trigger {
  std::uint32_t mask = 0;  ///< engines of the group that take it
  unsigned n_desc = 0;     ///< tail increment, descriptors
  bool operator==(const Trigger&) const = default;
};

/// The triggers that publish `stream`'s pending descriptors: engines grouped by pending
/// count, largest count first; engines with nothing pending get none.
std::vector<Trigger> plan_triggers(const DescriptorStream& stream);

}  // namespace sbrdma::firmware
