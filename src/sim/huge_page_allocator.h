#pragma once
/// HugePageAllocator<T>: a std::allocator for the kernel's large, randomly accessed arrays
/// (the event heap and the event slots). Blocks of 2 MiB or more are mapped 2 MiB-aligned and
/// advised for transparent huge pages, so that a queue of 100k+ pending events does not pay
/// a TLB miss on nearly every heap level and slot it touches; smaller blocks come from
/// operator new. Where madvise(MADV_HUGEPAGE) is refused it is plain mapped memory; off Linux
/// every block comes from operator new.
///
///   mmap(len + 2 MiB) -> |head| 2 MiB-aligned block of len bytes |tail|  (head, tail unmapped)

#include <cstddef>
#include <cstdint>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "base/check.h"

namespace sbrdma::sim {

/// Bytes from which a block is mapped with huge pages (one huge page).
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// True where map_huge can map memory.
#if defined(__linux__)
inline constexpr bool kCanMapHuge = true;
#else
inline constexpr bool kCanMapHuge = false;
#endif

/// Maps `bytes` (rounded up to huge pages) 2 MiB-aligned and advised for huge pages; nullptr
/// if the mapping fails (or !kCanMapHuge).
inline void* map_huge(std::size_t bytes) {
#if defined(__linux__)
  const std::size_t len = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* raw = ::mmap(nullptr, len + kHugePageBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (aligned > start) ::munmap(raw, aligned - start);
  const std::uintptr_t tail = start + len + kHugePageBytes - (aligned + len);
  if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + len), tail);
  void* p = reinterpret_cast<void*>(aligned);
  ::madvise(p, len, MADV_HUGEPAGE);  // a refusal leaves ordinary pages: still correct
  return p;
#else
  (void)bytes;
  return nullptr;
#endif
}

/// Unmaps a block from map_huge of `bytes`.
inline void unmap_huge(void* p, std::size_t bytes) {
#if defined(__linux__)
  const std::size_t len = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  ::munmap(p, len);
#else
  (void)p;
  (void)bytes;
#endif
}

/// See the top of this file. Stateless: all instances are equal. `Align` (at least alignof(T)):
/// the alignment of every block, e.g. a cache line for an array laid out in line-sized groups.
template <typename T, std::size_t Align = alignof(T)>
class HugePageAllocator {
 public:
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = HugePageAllocator<U, (Align > alignof(U) ? Align : alignof(U))>;
  };

  HugePageAllocator() noexcept = default;
  template <typename U, std::size_t A>
  // NOLINTNEXTLINE(google-explicit-constructor): allocators convert implicitly (rebind)
  HugePageAllocator(const HugePageAllocator<U, A>& /*other*/) noexcept {}

  [[nodiscard]] T* allocate(std::size_t n) {
    static_assert(Align >= alignof(T) && Align <= kHugePageBytes);
    const std::size_t bytes = n * sizeof(T);
    if (!mapped(bytes)) {
      void* small = ::operator new (bytes, std::align_val_t{Align});
      return static_cast<T*>(small);
    }
    void* p = map_huge(bytes);
    if (p == nullptr) base::out_of_memory("cannot map the simulator's event arrays");
    return static_cast<T*>(p);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (mapped(bytes)) {
      unmap_huge(p, bytes);
    } else {
      ::operator delete (p, std::align_val_t{Align});
    }
  }

  template <typename U, std::size_t A>
  bool operator==(const HugePageAllocator<U, A>& /*other*/) const noexcept {
    return true;
  }

 private:
  /// Whether a block of `bytes` comes from map_huge (else from operator new).
  static constexpr bool mapped(std::size_t bytes) noexcept {
    return kCanMapHuge && bytes >= kHugePageBytes;
  }
};

}  // namespace sbrdma::sim
