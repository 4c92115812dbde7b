#pragma once
/// Lowering of the SB2SB collective word (0xBF S3D3_COLLECTIVE) to the rdma_desc_gen
/// parameters the Q7 leg runs with. [HIGH] wiki-facts §1.10, §6; [CHOICE D12, D24]
///
///  TENSOR3D pattern (per partition, in elements)         lowered to gen's contiguous span
///  start_addr = partition << 18 | byte                   src_addr / dst_addr = byte
///  num_elem[3], step_elem[3]                              free_dim_bytes = elements * dtype
///  num_active_channels partitions from start's partition  all 128 partitions
///
///  Expressible: start partition 0 and num_active_channels = 128 (gen moves every partition),
///  a contiguous pattern (every dimension with more than one element steps by the product of
///  the counts before it), equal source and destination element counts. Anything else is a
///  firmware error naming what cannot be lowered.

#include <cstdint>

#include "base/result.h"
#include "firmware/config.h"
#include "isa/views.h"
#include "soc/profile.h"

namespace sbrdma::firmware {

/// An SB2SB word lowered for core `id`.
struct Sb2sbLowering {
  unsigned peer = 0;           ///< the peer core on this chip [CHOICE D12]
  std::uint64_t elements = 0;  ///< per partition
  unsigned element_bytes = 0;  ///< dtype size
  isa::RdmaDescGen gen;        ///< what the leg's gen runs
};

/// Bytes per element of a dtype, 0 if it has no fixed size (INVALID).
unsigned dtype_bytes(isa::Dtype d);

/// Lowers `s` (already valid per isa::validate) for core `id`. Errors name the field that
/// cannot be lowered.
base::Result<Sb2sbLowering> lower_sb2sb(const isa::Sb2sbCollective& s, const soc::Profile& p,
                                        const CoreIdentity& id, const Sb2sbSemaphores& sems);

}  // namespace sbrdma::firmware
