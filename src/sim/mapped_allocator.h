#pragma once
/// MappedAllocator<T>: a std::allocator for the kernel's large, randomly accessed arrays
/// (the event heap and the event slots). Blocks of 2 MiB or more are mapped on their own,
/// 2 MiB-aligned, and unmapped when freed (a queue that once held millions of events does not
/// keep that memory); smaller blocks come from operator new, as does every block off Linux.
/// The blocks are not advised for transparent huge pages: on this project's VM the advice cost
/// more in the OS's time to find and zero 2 MiB pages than it saved in TLB misses (D33).
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

/// Bytes from which a block is mapped on its own (and its alignment).
inline constexpr std::size_t kMapBlockBytes = std::size_t{2} << 20;

/// True where map_block can map memory.
#if defined(__linux__)
inline constexpr bool kCanMap = true;
#else
inline constexpr bool kCanMap = false;
#endif

/// Maps `bytes` (rounded up to 2 MiB) 2 MiB-aligned; nullptr if the mapping fails (or
/// !kCanMap).
inline void* map_block(std::size_t bytes) {
#if defined(__linux__)
  const std::size_t len = (bytes + kMapBlockBytes - 1) / kMapBlockBytes * kMapBlockBytes;
  void* raw = ::mmap(nullptr, len + kMapBlockBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kMapBlockBytes - 1) / kMapBlockBytes * kMapBlockBytes;
  if (aligned > start) ::munmap(raw, aligned - start);
  const std::uintptr_t tail = start + len + kMapBlockBytes - (aligned + len);
  if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + len), tail);
  return reinterpret_cast<void*>(aligned);
#else
  (void)bytes;
  return nullptr;
#endif
}

/// Unmaps a block from map_block of `bytes`.
inline void unmap_block(void* p, std::size_t bytes) {
#if defined(__linux__)
  const std::size_t len = (bytes + kMapBlockBytes - 1) / kMapBlockBytes * kMapBlockBytes;
  ::munmap(p, len);
#else
  (void)p;
  (void)bytes;
#endif
}

/// See the top of this file. Stateless: all instances are equal. `Align` (at least alignof(T)):
/// the alignment of every block, e.g. a cache line for an array laid out in line-sized groups.
template <typename T, std::size_t Align = alignof(T)>
class MappedAllocator {
 public:
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = MappedAllocator<U, (Align > alignof(U) ? Align : alignof(U))>;
  };

  MappedAllocator() noexcept = default;
  template <typename U, std::size_t A>
  // NOLINTNEXTLINE(google-explicit-constructor): allocators convert implicitly (rebind)
  MappedAllocator(const MappedAllocator<U, A>& /*other*/) noexcept {}

  [[nodiscard]] T* allocate(std::size_t n) {
    static_assert(Align >= alignof(T) && Align <= kMapBlockBytes);
    const std::size_t bytes = n * sizeof(T);
    if (!mapped(bytes)) {
      void* small = ::operator new (bytes, std::align_val_t{Align});
      return static_cast<T*>(small);
    }
    void* p = map_block(bytes);
    if (p == nullptr) base::out_of_memory("cannot map the simulator's event arrays");
    return static_cast<T*>(p);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (mapped(bytes)) {
      unmap_block(p, bytes);
    } else {
      ::operator delete (p, std::align_val_t{Align});
    }
  }

  template <typename U, std::size_t A>
  bool operator==(const MappedAllocator<U, A>& /*other*/) const noexcept {
    return true;
  }

 private:
  /// Whether a block of `bytes` comes from map_block (else from operator new).
  static constexpr bool mapped(std::size_t bytes) noexcept {
    return kCanMap && bytes >= kMapBlockBytes;
  }
};

}  // namespace sbrdma::sim
