#pragma once
/// A table of non-overlapping address regions (Spike's bus rule: the table refuses an
/// overlapping region instead of letting one shadow another).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/units.h"

namespace sbrdma::soc {

/// What a region is. The address decoder refines some kinds further.
enum class RegionKind {
  kStateBuf,            ///< SBUF (STATE_BUF)
  kStateBufScratchRam,  ///< STATE_BUF_SCRATCH_RAM
  kDgeMemory,           ///< DGE_MEMORY (descriptor staging)
  kTpbReservedSbuf,     ///< TPB_RESERVED_SBUF
  kPsumBuf,             ///< PSUM_BUF
  kEvtSem,              ///< EVT_SEM: events + READ/SET/INC/DEC semaphore windows
  kQ7Iram,              ///< POOL_Q7_CORE{n}_IRAM
  kQ7Dram,              ///< POOL_Q7_CORE{n}_DRAM
  kUdmaM2s,             ///< an engine's UDMA_M2S block
  kUdmaS2m,             ///< an engine's UDMA_S2M block
  kUdmaGen,             ///< UDMA_GEN
  kUdmaGenEx,           ///< UDMA_GEN_EX
  kSdmaMisc,            ///< SDMA wrapper (MISC: tdma_model, NOTIFIC)
  kBcastM2s,            ///< BCAST_UDMA M2S mirror (channels 0 and 16 of a cluster)
  kBcastS2m,            ///< BCAST_UDMA S2M mirror
  kBcastGen,            ///< BCAST_UDMA GEN mirror
  kBcastGenEx,          ///< BCAST_UDMA GEN_EX mirror
  kTopSp,               ///< a TOP_SP (CC-core) window: decoded, not modelled
};

/// One region of a chip's address space (chip-relative: DIE bit | LOCAL).
struct Region {
  std::string name;  ///< e.g. "TPB_3.EVT_SEM", "SE_1.SDMA_5.UDMA_M2S"
  base::SocAddr base;
  std::uint64_t size = 0;
  RegionKind kind = RegionKind::kStateBuf;
  unsigned die = 0;
  int core = -1;      ///< the TPB (core on the chip) it belongs to, -1 if none
  int engine = -1;    ///< DMA engine index within `core` for SDMA regions, else -1
  int instance = -1;  ///< Q7 core for IRAM/DRAM; SDMA channel within its cluster; else -1
  [[nodiscard]] std::uint64_t end() const { return base.v + size; }  ///< one past the last
  [[nodiscard]] bool contains(base::SocAddr a) const { return a.v >= base.v && a.v < end(); }
};

/// Regions sorted by base; lookups are O(log n), a binary search over the bases alone (a few
/// cache lines for a chip's ~500 regions, where the records would take one line per step).
class RegionTable {
 public:
  /// Adds `r`. Errors: zero size, wrap past 2^64, or overlap with an existing region (the
  /// message names both).
  base::Status insert(Region r);
  /// The region containing `a`, or nullptr ("hits nothing").
  [[nodiscard]] const Region* find(base::SocAddr a) const;
  /// All regions, sorted by base.
  [[nodiscard]] std::span<const Region> regions() const { return regions_; }

 private:
  std::vector<Region> regions_;
  std::vector<std::uint64_t> bases_;  ///< regions_[i].base.v, for find()
};

}  // namespace sbrdma::soc
