#pragma once
/// MappedAllocator<T>: a std::allocator for the kernel's large, randomly accessed arrays
/// (the event heap and the event slots). Blocks of 2 MiB or more are mapped on their own,
/// 2 MiB-aligned, and unmapped when freed (a queue that once held millions of events does not
/// keep that memory); smaller blocks come from operator new, as does every block off Linux.
/// The blocks are not advised for transparent huge pages: on this project's VM the advice cost
/// more in the OS's time to find and zero 2 MiB pages than it saved in TLB misses (D33).
/// The blocks are base::map_block's.

#include <cstddef>
#include <cstdint>
#include <new>

#include "base/check.h"
#include "base/mapped_block.h"

namespace sbrdma::sim {

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
    static_assert(Align >= alignof(T) && Align <= base::kMapBlockBytes);
    const std::size_t bytes = n * sizeof(T);
    if (!mapped(bytes)) {
      void* small = ::operator new (bytes, std::align_val_t{Align});
      return static_cast<T*>(small);
    }
    void* p = base::map_block(bytes);
    if (p == nullptr) base::out_of_memory("cannot map the simulator's event arrays");
    return static_cast<T*>(p);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (mapped(bytes)) {
      base::unmap_block(p, bytes);
    } else {
      ::operator delete (p, std::align_val_t{Align});
    }
  }

  template <typename U, std::size_t A>
  bool operator==(const MappedAllocator<U, A>& /*other*/) const noexcept {
    return true;
  }

 private:
  /// Whether a block of `bytes` comes from base::map_block (else from operator new).
  static constexpr bool mapped(std::size_t bytes) noexcept {
    return base::kCanMap && bytes >= base::kMapBlockBytes;
  }
};

}  // namespace sbrdma::sim
