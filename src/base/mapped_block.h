#pragma once
/// Anonymous, zero-filled memory mapped in 2 MiB-aligned blocks: the one place the simulator
/// asks the OS for memory directly (the page pool's arenas, the object pool's chunks, the
/// event arrays, the bench's memcpy buffers). 2 MiB alignment lets a caller that wants
/// transparent huge pages advise the block (only the memcpy reference does, D33).
///
///   mmap(len + 2 MiB) -> |head| 2 MiB-aligned block of len bytes |tail|  (head, tail unmapped)

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace sbrdma::base {

/// A block's alignment, and the unit its length is rounded up to.
inline constexpr std::size_t kMapBlockBytes = std::size_t{2} << 20;

/// True where map_block can map memory.
#if defined(__linux__)
inline constexpr bool kCanMap = true;
#else
inline constexpr bool kCanMap = false;
#endif

/// Whether the OS reserves swap for the mapping up front (kNo: memory the caller may never
/// touch, such as a page arena's tail, does not count against overcommit).
enum class Reserve : std::uint8_t { kYes, kNo };

/// `bytes` rounded up to whole blocks.
constexpr std::size_t map_block_length(std::size_t bytes) {
  return (bytes + kMapBlockBytes - 1) / kMapBlockBytes * kMapBlockBytes;
}

/// Maps map_block_length(bytes) zeroed bytes, 2 MiB-aligned; nullptr if the mapping fails (or
/// !kCanMap). Give it back with unmap_block(p, bytes).
inline void* map_block(std::size_t bytes, Reserve reserve = Reserve::kYes) {
#if defined(__linux__)
  const std::size_t len = map_block_length(bytes);
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | (reserve == Reserve::kNo ? MAP_NORESERVE : 0);
  void* raw = ::mmap(nullptr, len + kMapBlockBytes, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kMapBlockBytes - 1) / kMapBlockBytes * kMapBlockBytes;
  if (aligned > start) ::munmap(raw, aligned - start);
  const std::uintptr_t tail = start + len + kMapBlockBytes - (aligned + len);
  if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + len), tail);
  return reinterpret_cast<void*>(aligned);
#else
  (void)bytes;
  (void)reserve;
  return nullptr;
#endif
}

/// Unmaps a block that map_block(bytes) returned.
inline void unmap_block(void* p, std::size_t bytes) {
#if defined(__linux__)
  ::munmap(p, map_block_length(bytes));
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace sbrdma::base
