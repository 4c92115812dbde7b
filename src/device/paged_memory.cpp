#include "device/paged_memory.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "base/bits.h"
#include "base/check.h"
#include "base/mapped_block.h"
#include "base/stop_signals.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define SBRDMA_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define SBRDMA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define SBRDMA_POISON(p, n) ((void)(p), (void)(n))
#define SBRDMA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace sbrdma::device {
namespace {

/// Backs [p, p + n) now, as writes to it would, without changing its bytes.
void populate(std::uint8_t* p, std::uint64_t n) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  madvise(p, n, MADV_POPULATE_WRITE);  // advice only: an old kernel refuses, harmlessly
#else
  (void)p;
  (void)n;
#endif
}

/// What untouched pages read as.
constexpr std::uint64_t kZeroBytes = 64 * 1024;
const std::array<std::uint8_t, kZeroBytes> kZeros{};

/// `bytes` of zeroed memory, 2 MiB-aligned (base::map_block, with no swap reserved: an
/// arena's tail may never be touched), or calloc's where nothing can be mapped. Nothing of the
/// simulation is advised for transparent huge pages: on this project's VM the OS took longer
/// to find and zero 2 MiB pages than the TLB saved, most on the first run after other work
/// (D33). nullptr where the memory cannot be mapped (nor calloc'd).
std::uint8_t* try_map_arena(std::uint64_t bytes) {
  void* p = base::kCanMap ? base::map_block(bytes, base::Reserve::kNo)
                          : std::calloc(1, std::max<std::uint64_t>(bytes, 1));
  return static_cast<std::uint8_t*>(p);
}

/// try_map_arena, or the end of the process with an out-of-memory error.
std::uint8_t* map_arena(std::uint64_t bytes) {
  std::uint8_t* p = try_map_arena(bytes);
  if (p == nullptr) base::out_of_memory("cannot map the simulated memories' pages");
  return p;
}

/// Gives back (try_)map_arena(bytes).
void unmap_arena(std::uint8_t* p, std::uint64_t bytes) {
  if (base::kCanMap) {
    base::unmap_block(p, bytes);
  } else {
    std::free(p);
  }
}

/// Page memory for every PagedMemory of the process, by page size and backing. Fresh pages are
/// carved from arenas mapped zero-filled by the OS, which backs them 4 KiB at a time where
/// written, or ahead of the writes for a dense memory (prefault). Pages given back are kept with
/// the extent their owner wrote, poisoned for ASan, and that extent is zeroed when they are taken
/// again. Memory is never returned to the OS: the pool stays as large as the most pages ever alive
/// at once, which a bench run reaches with its first Simulation.
class PagePool {
 public:
  static PagePool& instance() {
    static PagePool* pool = new PagePool;  // never destroyed: pages may die at exit
    return *pool;
  }

  /// A page of `bytes` and the extent [begin, end) that may be non-zero (empty: all zero).
  struct Used {
    std::uint8_t* page = nullptr;
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
  };

  /// A page of `bytes` with the given backing, zero outside the extent it comes with.
  Used take(std::uint64_t bytes, PageBacking backing) {
    const std::lock_guard<std::mutex> lock(mu_);
    SizeClass& c = classes_[Kind{bytes, backing}];
    if (!c.free.empty()) {
      const Used u = c.free.back();
      c.free.pop_back();
      SBRDMA_UNPOISON(u.page, bytes);
      return u;
    }
    const std::uint64_t step = step_of(bytes);
    if (c.left < step) new_arena(c, step);
    std::uint8_t* p = c.next;
    c.next += step;
    c.left -= step;
    return Used{p, 0, 0};
  }

  /// Has the OS back, on a background thread, the memory the next `count` takes of `bytes`
  /// pages will hand out that it has not backed yet (pages taken back already are).
  void prefault(std::uint64_t bytes, PageBacking backing, std::uint64_t count) {
    std::vector<std::pair<std::uint8_t*, std::uint64_t>> spans;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      SizeClass& c = classes_[Kind{bytes, backing}];
      if (c.free.size() >= count) return;
      const std::uint64_t step = step_of(bytes);
      std::uint64_t want = (count - c.free.size()) * step;
      if (c.left < want) {
        // The rest of the current arena is handed out first, as free pages that were never
        // written; a new arena takes all the others.
        if (c.left >= step) spans.emplace_back(c.next, c.left / step * step);
        const std::size_t first = c.free.size();
        for (; c.left >= step; c.next += step, c.left -= step) {
          SBRDMA_POISON(c.next, bytes);
          c.free.push_back(Used{c.next, 0, 0});
        }
        // take() hands out the back first: the lowest address, as a fresh arena's pages go,
        // so that the first writes and populate() (from the far end down) meet once.
        std::reverse(c.free.begin() + static_cast<std::ptrdiff_t>(first), c.free.end());
        want = c.free.size() >= count ? 0 : (count - c.free.size()) * step;
        if (want > 0) new_arena(c, want);
      }
      if (want > 0) spans.emplace_back(c.next, want);
    }
    if (spans.empty()) return;
    const std::lock_guard<std::mutex> lock(worker_mu_);
    finish_job();
    auto job = std::make_shared<PrefaultJob>();
    // Each span from its far end down, a mapping block (2 MiB) at a time: the caller's first
    // writes start at the near end, and the two meet once instead of contending for every page.
    for (const auto& [p, n] : spans) {
      for (std::uint64_t left = n; left > 0;) {
        const std::uint64_t k = left % kPopulateStep != 0 ? left % kPopulateStep : kPopulateStep;
        left -= k;
        job->blocks.emplace_back(p + left, k);
      }
    }
    job_ = job;
    // Stop signals: not its to take. No thread (the system refused one): wait_prefault() does
    // it all, or the pages are backed where first written, as without a prefault.
    worker_ = base::worker_thread([job = std::move(job)] { job->work(); });
  }

  /// Returns once the last prefault is done, backing what is left of it on this thread too.
  void wait_prefault() {
    const std::lock_guard<std::mutex> lock(worker_mu_);
    finish_job();
  }

  /// Takes back a page from take(bytes, backing), non-zero at most in [begin, end).
  void give(std::uint8_t* p, std::uint64_t bytes, PageBacking backing, std::uint64_t begin,
            std::uint64_t end) {
    const std::lock_guard<std::mutex> lock(mu_);
    SBRDMA_POISON(p, bytes);
    classes_[Kind{bytes, backing}].free.push_back(Used{p, begin, end});
  }

 private:
  static constexpr std::uint64_t kArenaBytes = 64ULL << 20;
  struct Kind {
    std::uint64_t bytes = 0;
    PageBacking backing = PageBacking::kSparse;
    bool operator<(const Kind& o) const noexcept {
      return bytes != o.bytes ? bytes < o.bytes : backing < o.backing;
    }
  };
  struct SizeClass {
    std::vector<Used> free;
    std::uint8_t* next = nullptr;  ///< the current arena's uncarved rest
    std::uint64_t left = 0;
  };

  static std::uint64_t round_up(std::uint64_t n, std::uint64_t to) {
    return (n + to - 1) / to * to;
  }
  /// Makes `c` carve from a fresh arena of at least `bytes` (whole 2 MiB blocks).
  static void new_arena(SizeClass& c, std::uint64_t bytes) {
    c.left = base::map_block_length(std::max(bytes, kArenaBytes));  // all of the mapping
    c.next = map_arena(c.left);  // never given back: the pool keeps its arenas
  }
  /// Arena bytes one page of `bytes` takes.
  static std::uint64_t step_of(std::uint64_t bytes) {
    return round_up(bytes, bytes < 4096 ? 64 : 4096);
  }

  static constexpr std::uint64_t kPopulateStep = base::kMapBlockBytes;
  /// The blocks one prefault backs, taken in order by whichever thread is free: its worker,
  /// and the caller of wait_prefault(), which would otherwise only wait.
  struct PrefaultJob {
    std::vector<std::pair<std::uint8_t*, std::uint64_t>> blocks;
    std::atomic<std::size_t> next{0};
    void work() {
      for (std::size_t i = next.fetch_add(1, std::memory_order_relaxed); i < blocks.size();
           i = next.fetch_add(1, std::memory_order_relaxed)) {
        populate(blocks[i].first, blocks[i].second);
      }
    }
  };

  /// Helps the current job to its end and joins its worker. Contract: worker_mu_ held.
  void finish_job() {
    if (job_) job_->work();
    if (worker_.joinable()) worker_.join();
    job_.reset();
  }

  std::mutex mu_;
  std::map<Kind, SizeClass> classes_;
  std::mutex worker_mu_;
  std::thread worker_;                ///< the last prefault's, joined before the next starts
  std::shared_ptr<PrefaultJob> job_;  ///< the last prefault's blocks (null once finished)
};

}  // namespace

void prefault_pages(std::uint64_t valid_bytes, PageBacking backing, std::uint64_t count) {
  PagePool::instance().prefault(valid_bytes, backing, count);
}

void wait_prefault() {
  PagePool::instance().wait_prefault();
}

DenseBuffer::DenseBuffer(std::uint64_t bytes) : data_(try_map_arena(bytes)), size_(bytes) {
#if defined(__linux__)
  // Advice only: failure is harmless. Whole blocks, as mapped.
  if (data_ != nullptr) madvise(data_, base::map_block_length(bytes), MADV_HUGEPAGE);
#endif
}

DenseBuffer::~DenseBuffer() {
  if (data_ != nullptr) unmap_arena(data_, size_);
}

PagedMemory::PagedMemory(std::uint64_t size, std::uint64_t page_bytes, std::uint64_t valid_bytes,
                         PageBacking backing)
    : size_(size),
      page_bytes_(page_bytes),
      page_shift_(page_bytes > 1 && std::has_single_bit(page_bytes)
                      ? static_cast<unsigned>(std::countr_zero(page_bytes))
                      : 0),
      valid_bytes_(valid_bytes),
      backing_(backing),
      tracked_(valid_bytes <= 64 * kOsPage) {
  SBRDMA_CHECK(page_bytes > 0 && valid_bytes > 0 && valid_bytes <= page_bytes);
  SBRDMA_CHECK(size % page_bytes == 0);
}

PagedMemory::~PagedMemory() {
  PagePool& pool = PagePool::instance();
  for (Leaf& leaf : dir_) {
    if (!leaf) continue;
    for (std::size_t i = 0; i < (std::size_t{1} << kLeafBits); ++i) {
      const Slot& s = leaf[i];
      if (s.data == nullptr) continue;
      std::uint64_t begin = s.dirty_begin;
      std::uint64_t end = s.dirty_end;
      if (s.stale_begin < s.stale_end) {
        begin = std::min(begin, s.stale_begin);
        end = std::max(end, s.stale_end);
      }
      pool.give(s.data, valid_bytes_, backing_, begin, end);
    }
  }
}

PagedMemory::Slot& PagedMemory::page(std::uint64_t index) {
  // The directory grows to the highest leaf written: a 32 GiB window of 4 KiB pages would
  // otherwise zero a 64 KiB directory per core for the few low pages a run writes.
  const std::uint64_t li = index >> kLeafBits;
  if (li >= dir_.size()) dir_.resize(li + 1);
  Leaf& leaf = dir_[li];
  if (!leaf) leaf = std::make_unique<Slot[]>(std::size_t{1} << kLeafBits);
  Slot& s = leaf[index & ((1U << kLeafBits) - 1)];
  if (s.data == nullptr) {
    const PagePool::Used u = PagePool::instance().take(valid_bytes_, backing_);
    s.data = u.page;
    s.stale_begin = u.begin;
    s.stale_end = u.end;
    ++allocated_;
  }
  return s;
}

std::span<const std::uint8_t> PagedMemory::read_run(std::uint64_t offset, std::uint64_t max) const {
  SBRDMA_CHECK(valid_range(offset, 1));
  const std::uint64_t in_page = this->in_page(offset);
  std::uint64_t n = std::min(max, valid_bytes_ - in_page);
  const Slot* s = find_slot(page_of(offset));
  // Bytes of OS pages that no run has touched are zero (fresh, or stale): read them from
  // kZeros, not from the page, whose memory the OS may not have backed. A read there would map
  // the OS's shared zero page, and the first write after it costs a second fault and, in a
  // process with more than one thread, a TLB flush on every core.
  if (s != nullptr && tracked_) {
    const auto g = static_cast<unsigned>(in_page / kOsPage);
    const std::uint64_t ahead = s->touched >> g;  // bit 0: this OS page
    const auto same = static_cast<std::uint64_t>((ahead & 1) != 0 ? std::countr_one(ahead)
                                                                  : std::countr_zero(ahead));
    n = std::min(n, (g + same) * kOsPage - in_page);  // to the first page that differs
    if ((ahead & 1) == 0) s = nullptr;
  }
  if (s != nullptr && s->stale_begin < s->stale_end && in_page < s->stale_end) {
    if (in_page >= s->stale_begin) {  // stale bytes read as zero
      n = std::min(n, s->stale_end - in_page);
      s = nullptr;
    } else {
      n = std::min(n, s->stale_begin - in_page);
    }
  }
  if (s == nullptr) return {kZeros.data(), static_cast<std::size_t>(std::min(n, kZeroBytes))};
  return {s->data + in_page, static_cast<std::size_t>(n)};
}

std::span<std::uint8_t> PagedMemory::take_run(std::uint64_t offset, std::uint64_t max, bool zero) {
  SBRDMA_CHECK(valid_range(offset, 1));
  const std::uint64_t lo = in_page(offset);
  const std::uint64_t hi = lo + std::min(max, valid_bytes_ - lo);
  Slot& s = this->page(page_of(offset));
  if (tracked_ && hi > lo) {
    const auto g0 = static_cast<unsigned>(lo / kOsPage);
    const auto g1 = static_cast<unsigned>((hi - 1) / kOsPage + 1);
    const std::uint64_t run_bits = base::low_mask(g1 - g0) << g0;
    std::uint64_t fresh = run_bits & ~s.touched;
    s.touched |= run_bits;
    // The caller may read before it writes (an in-place reduce): back the run's untouched OS
    // pages now, rather than let that read map the OS's zero page first (see read_run). A
    // dense memory was backed ahead; an overwrite_run's caller writes first.
    while (zero && backing_ == PageBacking::kSparse && fresh != 0) {
      const auto first = static_cast<unsigned>(std::countr_zero(fresh));
      const auto count = static_cast<unsigned>(std::countr_one(fresh >> first));
      populate(s.data + std::uint64_t{first} * kOsPage, std::uint64_t{count} * kOsPage);
      fresh &= ~(base::low_mask(count) << first);
    }
  }
  s.dirty_begin = std::min(s.dirty_begin, lo);
  s.dirty_end = std::max(s.dirty_end, hi);
  const std::uint64_t a = std::max(lo, s.stale_begin);
  const std::uint64_t b = std::min(hi, s.stale_end);
  if (a < b) {  // the run meets the stale extent: [a, b) leaves it
    if (zero) std::memset(s.data + a, 0, b - a);
    // What stays stale is [stale_begin, a) and [b, stale_end): zero the shorter, keep the other.
    if (a - s.stale_begin <= s.stale_end - b) {
      std::memset(s.data + s.stale_begin, 0, a - s.stale_begin);
      s.stale_begin = b;
    } else {
      std::memset(s.data + b, 0, s.stale_end - b);
      s.stale_end = a;
    }
  }
  return {s.data + lo, static_cast<std::size_t>(hi - lo)};
}

std::span<std::uint8_t> PagedMemory::write_run(std::uint64_t offset, std::uint64_t max) {
  return take_run(offset, max, true);
}

std::span<std::uint8_t> PagedMemory::overwrite_run(std::uint64_t offset, std::uint64_t max) {
  return take_run(offset, max, false);
}

void PagedMemory::read(std::uint64_t offset, std::span<std::uint8_t> out) const {
  SBRDMA_CHECK(valid_range(offset, out.size()));
  std::size_t done = 0;
  while (done < out.size()) {
    const auto run = read_run(offset + done, out.size() - done);
    std::memcpy(out.data() + done, run.data(), run.size());
    done += run.size();
  }
}

void PagedMemory::write(std::uint64_t offset, std::span<const std::uint8_t> in) {
  SBRDMA_CHECK(valid_range(offset, in.size()));
  std::size_t done = 0;
  while (done < in.size()) {
    const auto run = overwrite_run(offset + done, in.size() - done);
    std::memcpy(run.data(), in.data() + done, run.size());
    done += run.size();
  }
}

void copy_bytes(const PagedMemory& src, std::uint64_t src_off, PagedMemory& dst,
                std::uint64_t dst_off, std::uint64_t len) {
  SBRDMA_CHECK(src.valid_range(src_off, len) && dst.valid_range(dst_off, len));
  const bool overlap = &src == &dst && src_off < dst_off + len && dst_off < src_off + len;
  if (overlap && src_off == dst_off) return;  // a copy onto itself
  if (overlap) {
    // Run-by-run copying could overwrite source bytes of a later run: stage the bytes.
    std::vector<std::uint8_t> tmp(len);
    src.read(src_off, tmp);
    dst.write(dst_off, tmp);
    return;
  }
  // Plain memcpy, dense or sparse: the bytes a large collective copies are read again soon (a
  // reduce reads what landed, all-gather forwards it), and non-temporal stores, which skip the
  // cache, made 16 MiB all-reduce on 8 ranks about 10% slower in alternating runs.
  std::uint64_t done = 0;
  while (done < len) {
    // Take the destination run first: allocating its page may not move the source's page
    // (pages live behind stable pointers), so the source run stays valid.
    const auto d = dst.overwrite_run(dst_off + done, len - done);
    const auto s = src.read_run(src_off + done, d.size());
    std::memcpy(d.data(), s.data(), s.size());  // disjoint: overlaps were staged above
    done += s.size();
  }
}

}  // namespace sbrdma::device
