#pragma once
/// A chip's SoC address map as data (Cayman reference layout), the address helpers firmware
/// and the device model use, and the decoder behind `sbrdma decode addr`.
///
///  One TPB (NeuronCore) window, offsets from TPB_n base   [HIGH] wiki-facts §4.2
///  +0x000000000 STATE_BUF (SBUF) 32 MiB: partition p at p*stride (256 KiB), active bytes first
///  +0x004000000 STATE_BUF_SCRATCH_RAM 32 MiB
///  +0x040000000 DGE_MEMORY 1 GiB (descriptor staging)
///  +0x800000000 TPB_RESERVED_SBUF 32 MiB
///  +0x802000000 PSUM_BUF 4 MiB
///  +0x802700000 EVT_SEM 1 MiB: events +0x0, READ +0x1000, SET +0x1400, INC +0x1800,
///               DEC +0x1C00; 256 x 4-byte slots each
///  +0x803100000 + n*1 MiB  POOL_Q7_CORE{n}_IRAM 128 KiB;  +0x803180000 + n*1 MiB  _DRAM 256 KiB
///
///  SDMA: cluster SE_c (c = 2*die + k), 32 channels of 1 MiB each  [HIGH] wiki-facts §3.1
///   channel base = SE region (0x1000000000 | 0x5000000000, |bit47 on die 1)
///                  + (k ? 0x4000000 : 0x2000000) + n*0x100000
///   +0x00000 UDMA_M2S, +0x20000 UDMA_S2M, +0x38000 GEN, +0x3C000 GEN_EX, +0x40000 MISC,
///   +0x80000 BCAST_UDMA (M2S, S2M +0xA0000, GEN +0xB8000, GEN_EX +0xBC000) on n = 0, 16 only
///  TPB local index i on its die owns cluster k = i/2, channels (i%2)*16 .. +15 [CHOICE D18]
///
///  TOP_SP: 10 windows per die of 4 MiB at 0x8280000000 + i*0x40000000 (|bit47 on die 1),
///   semaphore windows READ/SET/INC/DEC at +0x1000/+0x1400/+0x1800/+0x1C00, LOCAL_REG at
///   +0x60000 (doorbells INIT +0x1540 ... basic_block_switch +0x15e0). Decoded for `decode
///   addr`; the device model does not run them.  [HIGH] wiki-facts §4.2

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "base/result.h"
#include "base/units.h"
#include "soc/address.h"
#include "soc/profile.h"
#include "soc/region_table.h"
#include "soc/udma_descriptor.h"
#include "soc/udma_regs.h"

namespace sbrdma::soc {

/// The Cayman layout constants. [HIGH] wiki-facts §3.1, §4.2, §5 unless tagged.
namespace cayman_map {
inline constexpr std::array<std::uint64_t, 4> kTpbBase{0x2000000000, 0x3000000000, 0x6000000000,
                                                       0x7000000000};  ///< die 0, by local index
inline constexpr std::uint64_t kDieBit = std::uint64_t{1} << 47;
inline constexpr std::uint64_t kTpbRegionSize = 0x804000000;
inline constexpr std::uint64_t kStateBuf = 0x0;
inline constexpr std::uint64_t kStateBufScratchRam = 0x4000000;
inline constexpr std::uint64_t kDgeMemory = 0x40000000;
inline constexpr std::uint64_t kDgeMemorySize = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kTpbReservedSbuf = 0x800000000;
inline constexpr std::uint64_t kPsumBuf = 0x802000000;
inline constexpr std::uint64_t kEvtSem = 0x802700000;  ///< [HIGH] + DIGEST-NOTE per tile
inline constexpr std::uint64_t kEvtSemSize = 0x100000;
inline constexpr std::uint64_t kQ7Iram = 0x803100000;
inline constexpr std::uint64_t kQ7Dram = 0x803180000;
inline constexpr std::uint64_t kQ7Pitch = 0x100000;
inline constexpr std::array<std::uint64_t, 2> kSeRegion{0x1000000000, 0x5000000000};
inline constexpr std::array<std::uint64_t, 2> kSdma0Offset{0x2000000, 0x4000000};
inline constexpr std::uint64_t kChannelStride = 0x100000;
inline constexpr unsigned kChannelsPerCluster = 32;
inline constexpr unsigned kClustersPerDie = 2;
inline constexpr std::uint32_t kBcastOffset = 0x80000;
inline constexpr std::uint32_t kSemSlotBytes = 4;
inline constexpr std::uint64_t kTopSpBase = 0x8280000000;
inline constexpr std::uint64_t kTopSpStride = 0x40000000;
inline constexpr std::uint64_t kTopSpSize = 4ULL << 20;
inline constexpr unsigned kTopSpPerDie = 10;
inline constexpr std::uint64_t kTopSpLocalReg = 0x60000;
}  // namespace cayman_map

/// "M2S", "S2M" (Direction is in soc/udma_regs.h).
std::string_view direction_name(Direction d);

/// The EVT_SEM windows. [HIGH] wiki-facts §5; udma-facts §4.4 (events 4 B each at +0)
enum class SemWindow { kEvents, kRead, kSet, kInc, kDec };
/// "EVENTS", "READ", "SET", "INC", "DEC".
std::string_view sem_window_name(SemWindow w);
/// Offset of a window inside EVT_SEM: 0x0, 0x1000, 0x1400, 0x1800, 0x1C00.
std::uint32_t sem_window_offset(SemWindow w);

/// Where a TPB's DMA engine sits: cluster SE_c on the chip and channel within it.
struct EngineLoc {
  unsigned cluster = 0;  ///< 0..3 on Cayman (SE_2/3 on die 1)
  unsigned channel = 0;  ///< 0..31
};

/// Refinement of an EVT_SEM hit.
struct SemHit {
  SemWindow window = SemWindow::kRead;
  std::uint32_t index = 0;  ///< semaphore (or event) number
};
/// Refinement of a STATE_BUF hit.
struct SbufHit {
  unsigned partition = 0;
  std::uint64_t byte = 0;  ///< offset inside the partition
  bool active = true;      ///< byte < the profile's active bytes per partition
};
/// Refinement of a UDMA block hit (M2S/S2M, direct or broadcast).
struct UdmaHit {
  Direction dir = Direction::kM2S;
  bool broadcast = false;
  std::optional<unsigned> queue;  ///< nullopt: engine-global space (or beyond the queues)
  std::uint32_t reg_offset = 0;   ///< in the queue bank, or in the block when no queue
  const RegDesc* reg = nullptr;   ///< the register there, nullptr if none is known
};

/// What a chip-relative address hits.
struct RegionHit {
  const Region* region = nullptr;  ///< points into the AddressMap's table
  std::uint64_t offset = 0;        ///< from region->base
  std::optional<SemHit> sem;
  std::optional<SbufHit> sbuf;
  std::optional<UdmaHit> udma;
};

/// The TOP_SP LOCAL_REG doorbell at offset `off` of a TOP_SP window of profile `p`, or ""
/// (computed on demand: RegionHit is kept in the engines' caches, so it carries no field for
/// it). [HIGH] wiki-facts §4.2
std::string_view top_sp_local_reg(std::uint64_t off, const Profile& p);

/// A routed address decoded from an issuer's point of view.
struct DecodedAddr {
  RouteTarget target;
  std::optional<RegionHit> hit;  ///< nullopt: hits nothing
};

/// A semaphore a descriptor writes to.
struct SemTarget {
  std::uint32_t chip = 0;
  unsigned core = 0;
  SemHit sem;
};

/// One chip's address map for a profile. Addresses are chip-relative (DIE | LOCAL); use
/// fold_route to reach another chip or die.
class AddressMap {
 public:
  /// The map of `p` (Cayman layout). Error if the profile has no public map (maverick) or
  /// does not fit the layout.
  static base::Result<AddressMap> build(const Profile& p);

  [[nodiscard]] const Profile& profile() const { return *profile_; }
  [[nodiscard]] const RegionTable& regions() const { return regions_; }

  /// The die core `core` sits on.
  [[nodiscard]] base::Result<unsigned> die_of(unsigned core) const;
  /// TPB_core base (its STATE_BUF).
  [[nodiscard]] base::Result<base::SocAddr> tpb_base(unsigned core) const;
  /// SBUF byte `offset` of `partition` of `core`: STATE_BUF + partition*stride + offset.
  [[nodiscard]] base::Result<base::SocAddr> sbuf_addr(unsigned core, unsigned partition,
                                                      std::uint64_t offset) const;
  /// Slot `idx` of an EVT_SEM window of `core` (EVT_SEM + window + 4*idx).
  [[nodiscard]] base::Result<base::SocAddr> sem_window_addr(unsigned core, SemWindow w,
                                                            unsigned idx) const;
  /// DGE_MEMORY base of `core` (where descriptor rings live, [CHOICE D3]).
  [[nodiscard]] base::Result<base::SocAddr> dge_memory_base(unsigned core) const;
  /// Cluster and channel of `core`'s DMA engine `engine`. [CHOICE D18]
  [[nodiscard]] base::Result<EngineLoc> engine_loc(unsigned core, unsigned engine) const;
  /// Channel base (its UDMA_M2S block) of `core`'s engine `engine`.
  [[nodiscard]] base::Result<base::SocAddr> engine_base(unsigned core, unsigned engine) const;
  /// Engine-global register `reg` (offset in the engine bank below the queues, e.g.
  /// m2s_engine::kChangeState) of an engine's UDMA_M2S or UDMA_S2M block.
  [[nodiscard]] base::Result<base::SocAddr> engine_reg_addr(unsigned core, unsigned engine,
                                                            Direction dir, std::uint32_t reg) const;
  /// MISC register `reg` (e.g. misc::kBroadcastCfgGroup) of `core`'s engine `engine`.
  [[nodiscard]] base::Result<base::SocAddr> misc_reg_addr(unsigned core, unsigned engine,
                                                          std::uint32_t reg) const;
  /// Per-queue register `reg` (offset in the queue bank) of an engine's M2S or S2M queue.
  [[nodiscard]] base::Result<base::SocAddr> queue_reg_addr(unsigned core, unsigned engine,
                                                           Direction dir, unsigned queue,
                                                           std::uint32_t reg) const;
  /// The same register in `core`'s broadcast aperture (BCAST_UDMA of the first channel of
  /// its engine group). Only broadcast-capable registers are accepted. [CHOICE D8]
  [[nodiscard]] base::Result<base::SocAddr> bcast_addr(unsigned core, Direction dir, unsigned queue,
                                                       std::uint32_t reg) const;

  /// What the chip-relative address `a` hits, or nullopt.
  [[nodiscard]] std::optional<RegionHit> lookup(base::SocAddr a) const;
  /// Unfold `a` as `issuer` sees it, then look the target up (the target chip is assumed to
  /// have this same map). Error: the address is not routable (see unfold_route).
  [[nodiscard]] base::Result<DecodedAddr> decode(base::SocAddr a, ChipDie issuer) const;

 private:
  AddressMap() = default;
  base::Status check_core(unsigned core) const;
  base::Status check_engine(unsigned core, unsigned engine) const;

  const Profile* profile_ = nullptr;
  RegionTable regions_;
};

/// If `d` writes into an EVT_SEM window (e.g. a [CHOICE D5] semaphore-increment descriptor),
/// which chip, core, window and slot; nullopt otherwise.
std::optional<SemTarget> semaphore_target(const UdmaDescriptor& d, const AddressMap& map,
                                          ChipDie issuer);

}  // namespace sbrdma::soc
