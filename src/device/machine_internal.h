#pragma once
/// Private types of Machine, shared by machine.cpp, machine_mmio.cpp and machine_dma.cpp.
/// Not part of the device layer's interface.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "device/machine.h"
#include "device/ordered_arrivals.h"
#include "sim/object_pool.h"

namespace sbrdma::device {

/// Page size of the non-SBUF memories (DGE_MEMORY, scratch RAM, PSUM, Q7 RAMs).
inline constexpr std::uint64_t kMemPageBytes = 4 * 1024;

/// Memory regions of a TPB window other than SBUF: the engines read and write them as bytes.
inline bool is_plain_memory(soc::RegionKind k) {
  switch (k) {
    case soc::RegionKind::kStateBufScratchRam:
    case soc::RegionKind::kDgeMemory:
    case soc::RegionKind::kTpbReservedSbuf:
    case soc::RegionKind::kPsumBuf:
    case soc::RegionKind::kQ7Iram:
    case soc::RegionKind::kQ7Dram:
      return true;
    default:
      return false;
  }
}

/// What an address hits, seen from an issuer: the global core that owns the region and the hit.
struct Machine::Resolved {
  CoreId core = 0;
  soc::RegionHit hit;
};

/// A byte range's start in a core's SBUF or other memory.
struct Machine::MemRef {
  CoreId core = 0;
  bool sbuf = false;
  std::uint64_t offset = 0;
};

/// Where an S2M descriptor writes: memory, or consecutive slots of an EVT_SEM window.
struct Machine::DmaDest {
  CoreId core = 0;
  bool semaphore = false;
  MemRef mem;                                    ///< when !semaphore
  soc::SemWindow window = soc::SemWindow::kInc;  ///< when semaphore
  unsigned first_slot = 0;
};

/// One memory region as an engine's addresses reach it: the routed SoC addresses
/// [lo, lo + size) decode, for this engine's core, to the region's bytes 0..size-1 on `core`.
/// The map is static and decoding depends only on address bits [63:47] (route, chip, die),
/// which are equal across the window, and on the chip-local address, which moves with the
/// address inside the region; so the window stays right for the whole run.
///
///   routed address a:  [63:47] route/chip/die (fixed) | [46:0] local
///   a in [lo, lo+size)  ==>  region offset a - lo, memory offset mem_base + (a - lo)
struct Machine::AddrWindow {
  std::uint64_t lo = 0;
  std::uint64_t size = 0;  ///< 0: empty
  CoreId core = 0;
  bool sbuf = false;
  std::uint64_t mem_base = 0;        ///< memory offset of the region's byte 0
  const PagedMemory* mem = nullptr;  ///< the SBUF, for its valid_range check
};

/// The windows an engine's addresses fell in lately (two, replaced in turn).
struct Machine::AddrCache {
  std::array<AddrWindow, 2> windows;
  unsigned next = 0;
};

/// An EVT_SEM window (not READ) as an engine's addresses reach it: the routed addresses
/// [lo, lo + 4 * slots) are its slots 0..slots-1 on `core`, one 4-byte word each (the window
/// is linear in the address, and the route bits are fixed across it, as for AddrWindow).
struct Machine::SemCache {
  std::uint64_t lo = 0;
  std::uint32_t slots = 0;  ///< 0: empty
  CoreId core = 0;
  soc::SemWindow window = soc::SemWindow::kInc;
};

/// What one core's MMIO bus resolved lately. The map is static, so a resolution depends only
/// on the issuer and the address: an exact address resolves as it did before (doorbells, the
/// broadcast group register, semaphore slots), and inside a plain memory region (the DGE
/// memory the descriptor rings live in) every address resolves to the same core and region at
/// its own offset, by the argument of AddrWindow. Failed resolutions are never remembered, so
/// every error comes from a fresh decode.
///
///   window:  routed [lo, lo + size) --> {core, region, offset a - lo}   (plain memory only)
///   exact:   four addresses --> their Resolved, replaced in turn
struct Machine::BusCache {
  struct Exact {
    std::uint64_t addr = 0;
    bool valid = false;
    Resolved r;
  };
  std::uint64_t lo = 0;
  std::uint64_t size = 0;  ///< 0: no window
  Resolved window;         ///< resolved for `lo` (offset 0)
  std::array<Exact, 4> exact;
  unsigned next = 0;  ///< the exact entry replaced next
};

/// A data route an engine used lately: data_route(src, engine, dst), kept in the machine's
/// route table (Machine::shared_route), so that an entry is 16 bytes and the four of an
/// engine share one cache line.
struct Machine::RouteEntry {
  CoreId src = 0;
  CoreId dst = 0;
  const Route* route = nullptr;  ///< null: the entry is empty
};

/// Per engine, what its descriptors resolved to lately: ring slots, M2S sources, S2M
/// destinations, and its last few data routes (a collective step alternates between a couple
/// of them, e.g. data and the semaphore write behind it).
struct Machine::EngineCache {
  static constexpr unsigned kRoutes = 4;
  AddrCache ring;
  AddrCache src;
  AddrCache dst;
  std::array<RouteEntry, kRoutes> routes;
  unsigned next_route = 0;  ///< the entry replaced next
  /// The writable EVT_SEM windows its S2M side wrote last. Two: a leg's pairs end with a
  /// semaphore write on the engine's own core and one on the peer's.
  std::array<SemCache, 2> sems;
  unsigned sem_victim = 0;  ///< the entry not used last, replaced next
};

/// A descriptor pair in flight, applied at its landing tick.
struct Machine::Landing {
  UdmaQueue* m2s = nullptr;  ///< the pair's queues (they live as long as the machine)
  UdmaQueue* s2m = nullptr;
  MemRef src;
  DmaDest dst;
  std::uint32_t len = 0;
  std::uint32_t race_pair = 0;  ///< RaceChecker's id of the pair, 0 if unchecked
};

/// A data pair's landing that has no kernel event (elide_data_landings): what applying it
/// does in timing-only mode, and the sequence number its event would have run under. [D35]
struct Machine::ElidedLanding {
  std::uint64_t seq = 0;
  UdmaQueue* m2s = nullptr;
  UdmaQueue* s2m = nullptr;
  std::uint32_t len = 0;
};

/// A posted MMIO write on its way to its target: a 32-bit write or a block, resolved when it
/// was issued (the map is static, so the issue-time resolution holds when it lands).
struct Machine::PostedWrite {
  base::SocAddr addr;
  Resolved target;
  bool block = false;
  std::uint32_t value = 0;          ///< write32
  std::vector<std::uint8_t> bytes;  ///< a block's bytes
};

/// One core's hardware.
struct Machine::CoreState {
  CoreState(sim::Kernel& kernel, CoreId core, const soc::Profile& p, PageBacking sbuf_backing);
  /// Per-core state lives in the object pool (touched at random on every event).
  static void* operator new(std::size_t n) { return sim::ObjectPool::allocate(n); }
  static void operator delete(void* p, std::size_t n) noexcept {
    sim::ObjectPool::deallocate(p, n);
  }
  /// STATE_BUF: one page per partition, only its active bytes kept.
  PagedMemory sbuf;
  /// The TPB window's other memories, by offset from the TPB base: mostly descriptor rings,
  /// which are filled whole (PageBacking::kDense).
  PagedMemory mem;
  SemaphoreBank sems;
  /// Engines by index, created on first use.
  std::vector<std::unique_ptr<UdmaEngine>> engines;
  /// Per engine, its descriptor pairs in flight: same-tick landings apply in the order the
  /// engine took them (and so a queue's semaphore write after its data). [CHOICE D26d]
  /// Only the earliest one's event is in the kernel's queue.
  std::vector<ChainedArrivals<Landing>> landings;
  /// Per engine, its data landings that have no event (elide_data_landings), by tick and then
  /// take order, which is sequence order. [CHOICE D35]
  std::vector<OrderedArrivals<ElidedLanding>> elided;
  /// Per engine, its resolution caches.
  std::vector<EngineCache> caches;
  /// What this core's bus writes and reads resolved to lately.
  BusCache bus;
};

// Inline: the engines' steps and the posted writes look cores and memories up on every pair,
// from three files.
inline Machine::CoreState& Machine::core_state(CoreId core) {
  SBRDMA_CHECK(core < cores_.size());
  return *cores_[core];
}

inline const Machine::CoreState& Machine::core_state(CoreId core) const {
  SBRDMA_CHECK(core < cores_.size());
  return *cores_[core];
}

inline base::Status Machine::write_semaphore(CoreId core, soc::SemWindow w, unsigned idx,
                                             std::uint32_t v) {
  SemaphoreBank& sems = core_state(core).sems;
  // The checker hears of a value write before the bank's signal wakes its waiters, so the
  // look at a waiter as the write takes effect sees it, with where the wait was issued.
  // [CHOICE D49d]
  if (races_ && idx < sems.count() && SemaphoreBank::value_window(w)) {
    const std::uint32_t before = sems.value(idx);
    const std::uint32_t after = SemaphoreBank::value_after(w, before, v);
    races_->on_semaphore_write(core, w, idx, before, after);
  }
  return sems.write(w, idx, v);
}

// Held landing copies are SBUF to SBUF: any other use of an SBUF runs them first.
inline PagedMemory& Machine::memory(const MemRef& m) {
  CoreState& cs = core_state(m.core);
  if (!m.sbuf) return cs.mem;
  if (!copies_.empty()) copies_.run();
  return cs.sbuf;
}

inline const PagedMemory& Machine::memory(const MemRef& m) const {
  const CoreState& cs = core_state(m.core);
  if (!m.sbuf) return cs.mem;
  if (!copies_.empty()) copies_.run();
  return cs.sbuf;
}

// Inline: every pair reads two ring slots and its source through these, nearly always a hit.
inline std::optional<Machine::MemRef> Machine::window_ref(const AddrCache& cache, base::SocAddr a,
                                                          std::uint64_t len) {
  for (const AddrWindow& w : cache.windows) {
    const std::uint64_t off = a.v - w.lo;  // wraps to a huge value below lo
    if (off >= w.size) continue;
    // The range checks of memory_ref; a failing range takes the slow path for its message.
    if (w.sbuf) {
      if (!w.mem->valid_range(off, len)) return std::nullopt;
    } else if (len > w.size - off) {
      return std::nullopt;
    }
    return MemRef{w.core, w.sbuf, w.mem_base + off};
  }
  return std::nullopt;
}

inline base::Result<Machine::MemRef> Machine::cached_ref(AddrCache& cache, CoreId issuer,
                                                         base::SocAddr a, std::uint64_t len) const {
  if (auto hit = window_ref(cache, a, len)) return *hit;
  return cached_ref_miss(cache, issuer, a, len);
}

/// The MMIO view of one core.
class Machine::CoreBus final : public soc::MmioBus {
 public:
  CoreBus(Machine& m, CoreId core) : m_(&m), core_(core) {}
  void write32(base::SocAddr a, std::uint32_t v) override { m_->bus_write32(core_, a, v); }
  std::uint32_t read32(base::SocAddr a) override { return m_->bus_read32(core_, a); }
  void write_block(base::SocAddr a, std::span<const std::uint8_t> bytes) override {
    m_->bus_write_block(core_, a, bytes);
  }

 private:
  Machine* m_;
  CoreId core_;
};

}  // namespace sbrdma::device
