#pragma once
/// PagedMemory: a sparse byte memory whose pages are allocated on the first write, so that a
/// 64-chip machine whose memories are never touched costs almost nothing. Reads of untouched
/// bytes return zeros and allocate nothing.
///
///   offset 0        page_bytes      2*page_bytes                    size
///   +---------------+---------------+--------------   ...   ---------+
///   | valid | hole  | valid | hole  |                                 |
///   +---------------+---------------+--------------   ...   ---------+
///   A page keeps only its first `valid_bytes` (SBUF: a partition's active bytes); the caller
///   checks ranges with valid_range() before any access, so the hole is never touched.
///
/// Bulk copies go through runs (contiguous spans inside one page) so that a copy is a few
/// memcpy calls, never a per-byte loop.
///
/// Pages are found through a two-level table (a directory of leaves of 1024 page pointers, leaves
/// made on first use): an SBUF's 128 partitions sit in one leaf. Page memory comes from a
/// process-wide pool of large arenas and goes back to it when the memory dies, so that a second
/// Simulation in the same process reuses pages the first one already faulted in. The OS backs
/// pages 4 KiB at a time where written; a dense memory's pages (filled whole: a large collective's
/// SBUF buffers, the descriptor rings) can be backed ahead on a background thread
/// (prefault_pages). No arena is advised for transparent huge pages (D33). A fresh page is zero
/// from the OS. A reused one comes with the extent its last owner wrote, kept "stale": stale bytes
/// read as zero, and are zeroed only when a write run hands them to a caller that may read them
/// first; a caller that overwrites a whole run (write, copy_bytes) takes its bytes out of the stale
/// extent without zeroing them. The stale extent stays one interval: a run in its middle also
/// zeroes the shorter side.
/// A page of at most 256 KiB also knows which of its 4 KiB pieces runs were handed out over:
/// the others read as zeros without touching the page's memory, since a read there would map
/// the OS's shared zero page and the first write after it would cost a second fault and a TLB
/// flush on every core; a sparse memory's write_run (whose caller may read first) backs its
/// untouched pieces before handing them out.
///
///   reused page:  | written by us | stale (reads 0) |  fresh or zeroed  |
///                 0               sb                se                  valid_bytes

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace sbrdma::device {

/// How the OS backs a memory's pages (see the top of this file).
enum class PageBacking : std::uint8_t {
  kSparse,  ///< 4 KiB pages, only where written
  kDense,   ///< pages are expected to be filled whole, and may be backed ahead (prefault_pages)
};

/// A sparse, lazily allocated byte memory (see the top of this file).
class PagedMemory {
 public:
  /// Contract: page_bytes > 0, 0 < valid_bytes <= page_bytes, size a multiple of page_bytes.
  PagedMemory(std::uint64_t size, std::uint64_t page_bytes, std::uint64_t valid_bytes,
              PageBacking backing = PageBacking::kSparse);
  /// Gives the pages back to the process-wide pool.
  ~PagedMemory();
  PagedMemory(const PagedMemory&) = delete;
  PagedMemory& operator=(const PagedMemory&) = delete;

  /// Bytes of address space.
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  /// Address distance between pages.
  [[nodiscard]] std::uint64_t page_bytes() const noexcept { return page_bytes_; }
  /// Bytes at the start of each page that exist.
  [[nodiscard]] std::uint64_t valid_bytes() const noexcept { return valid_bytes_; }
  /// How the OS backs the pages.
  [[nodiscard]] PageBacking backing() const noexcept { return backing_; }
  /// Pages allocated so far.
  [[nodiscard]] std::size_t allocated_pages() const noexcept { return allocated_; }

  /// True if [offset, offset + len) lies inside the memory and inside the valid part of every
  /// page it touches. Inline: every descriptor read and every SBUF source passes it.
  [[nodiscard]] bool valid_range(std::uint64_t offset, std::uint64_t len) const noexcept {
    if (offset > size_ || len > size_ - offset) return false;
    if (len == 0) return true;
    if (valid_bytes_ == page_bytes_) return true;
    // With holes, a valid range sits inside the valid part of a single page.
    const std::uint64_t in_page = this->in_page(offset);
    return in_page < valid_bytes_ && len <= valid_bytes_ - in_page;
  }

  /// Copies bytes out; untouched bytes read as zero. Contract: valid_range(offset, out.size()).
  void read(std::uint64_t offset, std::span<std::uint8_t> out) const;
  /// Copies bytes in, allocating pages as needed. Contract: valid_range(offset, in.size()).
  void write(std::uint64_t offset, std::span<const std::uint8_t> in);

  /// The longest readable contiguous span at `offset` (at most `max` bytes, within one page's
  /// valid part). An untouched page yields a span of zeros that must not be written.
  /// Contract: valid_range(offset, 1).
  [[nodiscard]] std::span<const std::uint8_t> read_run(std::uint64_t offset,
                                                       std::uint64_t max) const;
  /// The longest writable contiguous span at `offset` (at most `max` bytes), allocating its
  /// page; the span counts as written and reads as the memory's bytes (stale ones zeroed).
  /// Contract: valid_range(offset, 1).
  [[nodiscard]] std::span<std::uint8_t> write_run(std::uint64_t offset, std::uint64_t max);
  /// write_run for a caller that stores every byte of the span before the memory is read
  /// again: its bytes are left as they are (a reused page's old bytes are not zeroed first).
  /// Contract: valid_range(offset, 1).
  [[nodiscard]] std::span<std::uint8_t> overwrite_run(std::uint64_t offset, std::uint64_t max);

 private:
  static constexpr unsigned kLeafBits = 10;  ///< 1024 pages per leaf
  /// One page: its bytes (null until written), the extent write runs handed out, and the
  /// stale extent [stale_begin, stale_end) (empty when begin >= end).
  struct Slot {
    std::uint8_t* data = nullptr;
    /// With tracked_: bit i set once a run has been handed out over OS page i (4 KiB) of the
    /// page: that OS page has been written, or backed by write_run. Reads of the others come
    /// from zeros without touching the page's memory.
    std::uint64_t touched = 0;
    std::uint64_t dirty_begin = ~std::uint64_t{0};
    std::uint64_t dirty_end = 0;
    std::uint64_t stale_begin = 0;
    std::uint64_t stale_end = 0;
  };
  using Leaf = std::unique_ptr<Slot[]>;

  /// Page `index`, or null if it was never written.
  [[nodiscard]] const Slot* find_slot(std::uint64_t index) const noexcept {
    const std::uint64_t li = index >> kLeafBits;
    if (li >= dir_.size()) return nullptr;
    const Leaf& leaf = dir_[li];
    if (!leaf) return nullptr;
    const Slot& s = leaf[index & ((1U << kLeafBits) - 1)];
    return s.data != nullptr ? &s : nullptr;
  }
  /// Page `index`, allocated if it was never written (a reused page's old bytes stale).
  Slot& page(std::uint64_t index);
  /// offset / page_bytes_ and offset % page_bytes_: a shift and a mask for the usual power-of-two
  /// page (every built-in one), where the division sat on the engines' descriptor reads.
  [[nodiscard]] std::uint64_t page_of(std::uint64_t offset) const noexcept {
    return page_shift_ != 0 ? offset >> page_shift_ : offset / page_bytes_;
  }
  [[nodiscard]] std::uint64_t in_page(std::uint64_t offset) const noexcept {
    return page_shift_ != 0 ? offset & (page_bytes_ - 1) : offset % page_bytes_;
  }
  /// The run at `offset` handed out for writing; `zero`: its stale bytes are zeroed.
  std::span<std::uint8_t> take_run(std::uint64_t offset, std::uint64_t max, bool zero);

  std::uint64_t size_;
  std::uint64_t page_bytes_;
  unsigned page_shift_ = 0;  ///< log2(page_bytes_) if a power of two above 1, else 0
  std::uint64_t valid_bytes_;
  PageBacking backing_;
  /// OS pages of 4 KiB, and whether a page's fit Slot::touched (valid_bytes <= 256 KiB: an
  /// SBUF partition, a 4 KiB ring page). A larger page is read from its memory wherever it
  /// was not written.
  static constexpr std::uint64_t kOsPage = 4096;
  bool tracked_;
  std::vector<Leaf> dir_;  ///< by page index >> kLeafBits, up to the highest leaf written
  std::size_t allocated_ = 0;
};

/// Has the OS back, on a background thread, the next `count` pages of `valid_bytes` with
/// `backing` that memories will take on first writes, so that the OS's zeroing of fresh memory
/// overlaps the caller's work instead of stalling those writes (on Linux, where the kernel can
/// populate ahead: MADV_POPULATE_WRITE; elsewhere nothing). Contents are unchanged: fresh pages
/// read as zero either way. Pages a dead memory gave back are reused first and need nothing.
void prefault_pages(std::uint64_t valid_bytes, PageBacking backing, std::uint64_t count);
/// Returns once the last prefault_pages() is done, the calling thread backing what is left of
/// it alongside the background one (before a run that will touch those pages: on a
/// multi-threaded process, a page read before the prefault reached it maps the OS's shared
/// zero page, and the first write then costs a fault and a TLB flush on every core; and before
/// timing anything that needs the memory bandwidth to itself).
void wait_prefault();

/// `bytes` of zeroed host memory, 2 MiB-aligned and advised for transparent huge pages (on
/// Linux), given back to the OS on destruction. For the bench's memcpy reference: once backed
/// (outside the timing), huge pages give the host's best copy rate, a stricter reference than
/// the 4 KiB pages the simulated SBUFs use (D33). The mapping can fail (no room left, or a
/// limit such as ulimit -v): then data() is null and mapped() false, and the caller decides.
class DenseBuffer {
 public:
  explicit DenseBuffer(std::uint64_t bytes);
  ~DenseBuffer();
  DenseBuffer(const DenseBuffer&) = delete;
  DenseBuffer& operator=(const DenseBuffer&) = delete;

  [[nodiscard]] bool mapped() const noexcept { return data_ != nullptr; }
  [[nodiscard]] std::uint8_t* data() noexcept { return data_; }
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }

 private:
  std::uint8_t* data_ = nullptr;
  std::uint64_t size_ = 0;
};

/// Copies `len` bytes from `src` at `src_off` to `dst` at `dst_off` (memmove semantics when
/// both are the same memory). Contract: both ranges valid.
void copy_bytes(const PagedMemory& src, std::uint64_t src_off, PagedMemory& dst,
                std::uint64_t dst_off, std::uint64_t len);

}  // namespace sbrdma::device
