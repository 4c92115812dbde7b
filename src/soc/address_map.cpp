// Building the Cayman-layout address map and the address helpers. Decoding is in
// address_decode.cpp.
#include "soc/address_map.h"

#include <fmt/format.h>

#include <array>

namespace sbrdma::soc {
namespace {

using namespace cayman_map;  // NOLINT(google-build-using-namespace): the layout's own names

/// One kind of region inside a TPB window. [HIGH] wiki-facts §4.2
struct TpbRegionSpec {
  std::string_view name;
  RegionKind kind;
  std::uint64_t offset;
  std::uint64_t size;
  bool per_q7 = false;  ///< one per Q7 core at offset + n*kQ7Pitch, named with the core
};

constexpr std::array kTpbRegions{
    TpbRegionSpec{"STATE_BUF", RegionKind::kStateBuf, kStateBuf, 0},  // size: profile
    TpbRegionSpec{"STATE_BUF_SCRATCH_RAM", RegionKind::kStateBufScratchRam, kStateBufScratchRam,
                  32ULL << 20},
    TpbRegionSpec{"DGE_MEMORY", RegionKind::kDgeMemory, kDgeMemory, kDgeMemorySize},
    TpbRegionSpec{"TPB_RESERVED_SBUF", RegionKind::kTpbReservedSbuf, kTpbReservedSbuf, 32ULL << 20},
    // 4 MiB, 2 MiB of it backed in no stated layout: all of it bytes here. [CHOICE D41j]
    TpbRegionSpec{"PSUM_BUF", RegionKind::kPsumBuf, kPsumBuf, 4ULL << 20},
    TpbRegionSpec{"EVT_SEM", RegionKind::kEvtSem, kEvtSem, kEvtSemSize},
    TpbRegionSpec{"IRAM", RegionKind::kQ7Iram, kQ7Iram, 128ULL << 10, true},
    TpbRegionSpec{"DRAM", RegionKind::kQ7Dram, kQ7Dram, 256ULL << 10, true},
};

/// One block inside a channel slot. [HIGH] wiki-facts §3.1
struct ChannelBlockSpec {
  std::string_view name;
  RegionKind kind;
  std::uint32_t offset;
  std::uint32_t size;
  bool broadcast;  ///< only on the first channel of an engine group
};

constexpr std::array kChannelBlocks{
    ChannelBlockSpec{"UDMA_M2S", RegionKind::kUdmaM2s, udma::kM2sBlock, udma::kM2sBlockSize, false},
    ChannelBlockSpec{"UDMA_S2M", RegionKind::kUdmaS2m, udma::kS2mBlock, udma::kS2mBlockSize, false},
    ChannelBlockSpec{"UDMA_GEN", RegionKind::kUdmaGen, udma::kGenBlock, 0x4000, false},
    ChannelBlockSpec{"UDMA_GEN_EX", RegionKind::kUdmaGenEx, udma::kGenExBlock, 0x4000, false},
    ChannelBlockSpec{"MISC", RegionKind::kSdmaMisc, udma::kMiscBlock, 0x40000, false},
    ChannelBlockSpec{"BCAST_UDMA_M2S", RegionKind::kBcastM2s, kBcastOffset + udma::kM2sBlock,
                     udma::kM2sBlockSize, true},
    ChannelBlockSpec{"BCAST_UDMA_S2M", RegionKind::kBcastS2m, kBcastOffset + udma::kS2mBlock,
                     udma::kS2mBlockSize, true},
    ChannelBlockSpec{"BCAST_UDMA_GEN", RegionKind::kBcastGen, kBcastOffset + udma::kGenBlock,
                     0x4000, true},
    ChannelBlockSpec{"BCAST_UDMA_GEN_EX", RegionKind::kBcastGenEx, kBcastOffset + udma::kGenExBlock,
                     0x4000, true},
};

/// `reg` as a 4-byte-aligned offset inside a bank of `size` bytes.
base::Status check_reg_offset(std::uint32_t reg, std::uint32_t size, std::string_view bank) {
  if (reg >= size || reg % 4 != 0) {
    return base::make_error(
        fmt::format("{} register offset {:#x} is not a 4-byte offset inside the {:#x}-byte bank",
                    bank, reg, size));
  }
  return base::ok_status();
}

constexpr std::uint32_t dir_block(Direction d) {
  return d == Direction::kM2S ? udma::kM2sBlock : udma::kS2mBlock;
}

}  // namespace

std::string_view direction_name(Direction d) {
  return d == Direction::kM2S ? "M2S" : "S2M";
}

base::Result<AddressMap> AddressMap::build(const Profile& p) {
  if (!p.has_address_map || p.decode_only) {
    return base::make_error(fmt::format("profile {} has no public SoC address map", p.name));
  }
  if (p.tpbs_per_die == 0 || p.tpbs_per_die > kTpbBase.size() || p.dies_per_chip == 0 ||
      p.dies_per_chip > 2 || p.cores_per_chip != p.tpbs_per_die * p.dies_per_chip ||
      2 * p.dma_engines_per_tpb != kChannelsPerCluster ||  // two engine groups per cluster
      p.queues_per_engine > udma::kQueues ||
      p.sbuf_partitions * p.partition_stride.n > p.state_buf_size.n ||
      p.q7_cores_per_tpb * kQ7Pitch > kTpbRegionSize - kQ7Iram) {
    return base::make_error(fmt::format("profile {} does not fit the Cayman layout", p.name));
  }
  AddressMap m;
  m.profile_ = &p;
  for (unsigned core = 0; core < p.cores_per_chip; ++core) {
    const unsigned die = core / p.tpbs_per_die;
    const std::uint64_t tpb = m.tpb_base(core).value().v;
    for (const TpbRegionSpec& s : kTpbRegions) {
      const unsigned n_inst = s.per_q7 ? p.q7_cores_per_tpb : 1;
      for (unsigned n = 0; n < n_inst; ++n) {
        Region r;
        r.name = s.per_q7 ? fmt::format("TPB_{}.POOL_Q7_CORE{}_{}", core, n, s.name)
                          : fmt::format("TPB_{}.{}", core, s.name);
        r.base = base::SocAddr{tpb + s.offset + n * kQ7Pitch};
        r.size = s.kind == RegionKind::kStateBuf ? p.state_buf_size.n : s.size;
        r.kind = s.kind;
        r.die = die;
        r.core = static_cast<int>(core);
        r.instance = s.per_q7 ? static_cast<int>(n) : -1;
        SBRDMA_TRY(m.regions_.insert(std::move(r)));
      }
    }
    for (unsigned e = 0; e < p.dma_engines_per_tpb; ++e) {
      const EngineLoc loc = m.engine_loc(core, e).value();
      const std::uint64_t chan = m.engine_base(core, e).value().v;
      for (const ChannelBlockSpec& b : kChannelBlocks) {
        if (b.broadcast && e != 0) continue;  // the group's first channel carries BCAST_UDMA
        Region r;
        r.name = fmt::format("SE_{}.SDMA_{}.{}", loc.cluster, loc.channel, b.name);
        r.base = base::SocAddr{chan + b.offset};
        r.size = b.size;
        r.kind = b.kind;
        r.die = die;
        r.core = static_cast<int>(core);
        r.engine = b.broadcast ? -1 : static_cast<int>(e);
        r.instance = static_cast<int>(loc.channel);
        SBRDMA_TRY(m.regions_.insert(std::move(r)));
      }
    }
  }
  // The TOP_SP windows of each die, numbered on through die 1. [CHOICE D18d]
  for (unsigned die = 0; die < p.dies_per_chip; ++die) {
    for (unsigned i = 0; i < kTopSpPerDie; ++i) {
      Region r;
      r.name = fmt::format("TOP_SP_{}", die * kTopSpPerDie + i);
      r.base = base::SocAddr{(kTopSpBase + i * kTopSpStride) | (die != 0 ? kDieBit : 0)};
      r.size = kTopSpSize;
      r.kind = RegionKind::kTopSp;
      r.die = die;
      r.instance = static_cast<int>(die * kTopSpPerDie + i);
      SBRDMA_TRY(m.regions_.insert(std::move(r)));
    }
  }
  return m;
}

base::Status AddressMap::check_core(unsigned core) const {
  if (core >= profile_->cores_per_chip) {
    return base::make_error(fmt::format("core {} out of range (0..{} on {})", core,
                                        profile_->cores_per_chip - 1, profile_->name));
  }
  return base::ok_status();
}

base::Status AddressMap::check_engine(unsigned core, unsigned engine) const {
  SBRDMA_TRY(check_core(core));
  if (engine >= profile_->dma_engines_per_tpb) {
    return base::make_error(fmt::format("DMA engine {} out of range (0..{})", engine,
                                        profile_->dma_engines_per_tpb - 1));
  }
  return base::ok_status();
}

base::Result<unsigned> AddressMap::die_of(unsigned core) const {
  SBRDMA_TRY(check_core(core));
  return core / profile_->tpbs_per_die;
}

base::Result<base::SocAddr> AddressMap::tpb_base(unsigned core) const {
  SBRDMA_TRY(check_core(core));
  const unsigned die = core / profile_->tpbs_per_die;
  const unsigned local = core % profile_->tpbs_per_die;
  return base::SocAddr{kTpbBase[local] | (die != 0 ? kDieBit : 0)};  // TPB_4..7 = TPB_0..3|b47
}

base::Result<base::SocAddr> AddressMap::sbuf_addr(unsigned core, unsigned partition,
                                                  std::uint64_t offset) const {
  auto tpb = tpb_base(core);
  if (!tpb) return tpb.error();
  if (partition >= profile_->sbuf_partitions) {
    return base::make_error(fmt::format("SBUF partition {} out of range (0..{})", partition,
                                        profile_->sbuf_partitions - 1));
  }
  if (offset >= profile_->partition_active.n) {
    return base::make_error(
        fmt::format("SBUF offset {:#x} beyond the {} active bytes of a "
                    "partition",
                    offset, profile_->partition_active.n));
  }
  return *tpb + (kStateBuf + partition * profile_->partition_stride.n + offset);
}

base::Result<base::SocAddr> AddressMap::sem_window_addr(unsigned core, SemWindow w,
                                                        unsigned idx) const {
  auto tpb = tpb_base(core);
  if (!tpb) return tpb.error();
  const unsigned count = w == SemWindow::kEvents ? profile_->events : profile_->semaphores;
  if (idx >= count) {
    return base::make_error(
        fmt::format("{} index {} out of range (0..{})", sem_window_name(w), idx, count - 1));
  }
  return *tpb + (kEvtSem + sem_window_offset(w) + std::uint64_t{idx} * kSemSlotBytes);
}

base::Result<base::SocAddr> AddressMap::dge_memory_base(unsigned core) const {
  auto tpb = tpb_base(core);
  if (!tpb) return tpb.error();
  return *tpb + kDgeMemory;
}

base::Result<EngineLoc> AddressMap::engine_loc(unsigned core, unsigned engine) const {
  SBRDMA_TRY(check_engine(core, engine));
  // [CHOICE D18] local TPB i on die d: cluster 2d + i/2, channels (i%2)*16 + engine.
  const unsigned die = core / profile_->tpbs_per_die;
  const unsigned local = core % profile_->tpbs_per_die;
  return EngineLoc{die * kClustersPerDie + local / 2,
                   (local % 2) * profile_->dma_engines_per_tpb + engine};
}

base::Result<base::SocAddr> AddressMap::engine_base(unsigned core, unsigned engine) const {
  auto loc = engine_loc(core, engine);
  if (!loc) return loc.error();
  const unsigned k = loc->cluster % kClustersPerDie;
  const unsigned die = loc->cluster / kClustersPerDie;
  // [HIGH] wiki-facts §3.1: chan_base = SE region + (odd ? 0x4000000 : 0x2000000) + n*0x100000
  return base::SocAddr{(kSeRegion[k] | (die != 0 ? kDieBit : 0)) + kSdma0Offset[k] +
                       loc->channel * kChannelStride};
}

base::Result<base::SocAddr> AddressMap::engine_reg_addr(unsigned core, unsigned engine,
                                                        Direction dir, std::uint32_t reg) const {
  auto eng = engine_base(core, engine);
  if (!eng) return eng.error();
  SBRDMA_TRY(check_reg_offset(reg, udma::kEngineGlobalSize, direction_name(dir)));
  // [HIGH] wiki-facts §3.1/§3.2: engine + block + reg
  return *eng + (dir_block(dir) + reg);
}

base::Result<base::SocAddr> AddressMap::misc_reg_addr(unsigned core, unsigned engine,
                                                      std::uint32_t reg) const {
  auto eng = engine_base(core, engine);
  if (!eng) return eng.error();
  SBRDMA_TRY(check_reg_offset(reg, misc::kBankSize, "MISC"));
  return *eng + (udma::kMiscBlock + reg);  // [HIGH] wiki-facts §3.1
}

base::Result<base::SocAddr> AddressMap::queue_reg_addr(unsigned core, unsigned engine,
                                                       Direction dir, unsigned queue,
                                                       std::uint32_t reg) const {
  auto eng = engine_base(core, engine);
  if (!eng) return eng.error();
  if (queue >= profile_->queues_per_engine) {
    return base::make_error(
        fmt::format("queue {} out of range (0..{})", queue, profile_->queues_per_engine - 1));
  }
  if (reg >= udma::kQueueBankStride || reg % 4 != 0) {
    return base::make_error(
        fmt::format("queue register offset {:#x} is not a 4-byte offset "
                    "inside the {:#x}-byte queue bank",
                    reg, udma::kQueueBankStride));
  }
  // [HIGH] wiki-facts §3.3: engine + block + 0x1000 + q*0x1000 + reg
  return *eng + (dir_block(dir) + udma::kQueueBankBase + queue * udma::kQueueBankStride + reg);
}

base::Result<base::SocAddr> AddressMap::bcast_addr(unsigned core, Direction dir, unsigned queue,
                                                   std::uint32_t reg) const {
  const RegBank& bank = queue_bank(dir);
  const RegDesc* r = find_reg(bank.regs, reg);
  if (r == nullptr || (r->flags & reg_flag::kBroadcast) == 0) {
    return base::make_error(
        fmt::format("{} queue register {:#x} is not broadcast-capable", direction_name(dir), reg));
  }
  // [HIGH] wiki-facts §3.6: bcast region + (S2M ? 0x20000 : 0) + (q+1)<<12 + reg
  auto direct = queue_reg_addr(core, 0, dir, queue, reg);
  if (!direct) return direct.error();
  return *direct + kBcastOffset;
}

}  // namespace sbrdma::soc
