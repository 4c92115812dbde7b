#pragma once
/// Per-generation parameter profiles ([CHOICE D14]): cayman (NC-v3, trn2) is the reference;
/// sunda (NC-v2) and mariana (NC-v4) are parameter profiles; maverick (NC-v5) is decode-only.
/// Every number carries its provenance in profile.cpp.

#include <cstdint>
#include <span>
#include <string_view>

#include "base/result.h"
#include "base/units.h"

namespace sbrdma::soc {

/// The hardware parameters of one NeuronCore generation. A 0 count means "not public".
struct Profile {
  std::string_view name;        ///< "cayman", "sunda", "mariana", "maverick"
  std::string_view nc_version;  ///< "NC-v3", ...
  bool decode_only = false;     ///< true: words and descriptors decode, nothing runs
  bool has_address_map = true;  ///< soc::AddressMap can be built for it
  /// The POOL firmware has the SB2SB_Collective (0xBF) handler: NC-v3 and later.
  bool sb2sb_collective = true;
  /// S2M descriptor bit 29 is STRONG_ORDER_WR ("V3+ only"; v2 reads it as NO_SNOOP_H).
  /// [DRV] udma-facts §1.1
  bool s2m_strong_order_write = true;
  unsigned cores_per_chip = 0;  ///< TPBs (NeuronCores) per chip
  unsigned dies_per_chip = 0;
  unsigned tpbs_per_die = 0;
  unsigned max_chips = 0;            ///< routing ids available (CAYMAN_ID is 6 bits)
  unsigned dma_engines_per_tpb = 0;  ///< DMA_ENGINE_COUNT_PER_TPB
  unsigned queues_per_engine = 0;
  unsigned q7_cores_per_tpb = 0;  ///< GPSIMD Q7 cores per NeuronCore (PRID 0..7)
  unsigned sbuf_partitions = 0;
  base::Bytes partition_stride;  ///< address distance between SBUF partitions
  base::Bytes partition_active;  ///< bytes of each partition that exist
  base::Bytes state_buf_size;    ///< STATE_BUF aperture per TPB
  unsigned semaphores = 0;       ///< per TPB
  unsigned events = 0;           ///< per TPB
  base::Bytes dma_data_width;    ///< DMA_ENGINE_DATA_WIDTH_BYTES
  base::Bytes max_desc_len;      ///< largest byte count of one UDMA descriptor
  /// TOP_SP LOCAL_REG doorbells: host_trigger START's offset in a TOP_SP window, and whether
  /// the others (INIT, TSYNC, STOP, basic_block_switch) sit at Cayman's offsets (the record
  /// gives only START for sunda). [HIGH] wiki-facts §4.2
  std::uint64_t top_sp_start_doorbell = 0x615a0;
  bool top_sp_cayman_doorbells = true;
};

/// All known profiles, reference (cayman) first.
std::span<const Profile> profiles();
/// The reference profile (cayman).
const Profile& cayman_profile();
/// The profile called `name`; an unknown name is an error listing the known ones.
base::Result<const Profile*> find_profile(std::string_view name);

/// "unknown profile '<name>' (known: a, b, c)", the name cut and escaped (base::printable_brief):
/// the one wording for every profile lookup, each with its own list of known names.
base::Error unknown_profile(std::string_view name, std::span<const std::string_view> known);

}  // namespace sbrdma::soc
