#pragma once
/// ObjectPool: process-wide storage for the many small, long-lived objects a large machine
/// touches at random on every event (DMA engines, their queues, per-core state). Blocks are
/// carved from 16 MiB mappings (base::map_block), 64-byte aligned
/// (an object starts on a cache line), and recycled per size through free lists; the
/// mappings are kept for the process's life, so a later machine reuses them.
///
///   chunk (16 MiB)      : [obj][obj][obj]...[  uncarved  ]
///   free lists          : size class (64-byte steps) -> freed blocks, linked through them
///
/// A class opts in with these members:
///   static void* operator new(std::size_t n) { return sim::ObjectPool::allocate(n); }
///   static void operator delete(void* p, std::size_t n) noexcept {
///     sim::ObjectPool::deallocate(p, n); }
/// Thread-safe (one mutex; allocation is rare next to use). Under AddressSanitizer every
/// block comes from operator new (use-after-free stays detectable).

#include <cstddef>

#include "base/mapped_block.h"

namespace sbrdma::sim {

/// True when the build runs under AddressSanitizer.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

class ObjectPool {
 public:
  /// Alignment of every block.
  static constexpr std::size_t kAlign = 64;
  /// Whether blocks come from the pool (Linux, not under AddressSanitizer) or operator new.
  static constexpr bool kPooled = base::kCanMap && !kAddressSanitizer;
  /// Largest block served from the pool; larger ones come from operator new.
  static constexpr std::size_t kMaxBlock = std::size_t{1} << 20;

  /// A block of at least `bytes`, kAlign-aligned. Out of memory: base::out_of_memory().
  [[nodiscard]] static void* allocate(std::size_t bytes);
  /// Returns a block from allocate(bytes) (same `bytes`).
  static void deallocate(void* p, std::size_t bytes) noexcept;
};

}  // namespace sbrdma::sim
