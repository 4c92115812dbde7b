// PagedMemory: lazy pages, zero reads, valid ranges with holes, run-wise copies.
#include "device/paged_memory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <numeric>
#include <optional>
#include <span>
#include <vector>

#include "support/vm_flags.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace sbrdma::device {
namespace {

TEST(PagedMemory, ReadsOfUntouchedMemoryAreZeroAndAllocateNothing) {
  PagedMemory m(1 << 20, 64 << 10, 64 << 10);
  std::vector<std::uint8_t> out(100, 0xAA);
  m.read(12345, out);
  EXPECT_EQ(out, std::vector<std::uint8_t>(100, 0));
  EXPECT_EQ(m.allocated_pages(), 0U);
  const std::vector<std::uint8_t> in{1, 2, 3};
  m.write((64 << 10) - 1, in);  // straddles pages 0 and 1
  EXPECT_EQ(m.allocated_pages(), 2U);
  std::vector<std::uint8_t> back(3);
  m.read((64 << 10) - 1, back);
  EXPECT_EQ(back, in);
}

TEST(PagedMemory, HolesAreOutsideEveryValidRange) {
  PagedMemory sbuf(4 * 256, 256, 224);  // 4 partitions, 224 of 256 bytes active
  EXPECT_TRUE(sbuf.valid_range(0, 224));
  EXPECT_FALSE(sbuf.valid_range(0, 225));
  EXPECT_FALSE(sbuf.valid_range(224, 1));
  EXPECT_TRUE(sbuf.valid_range(256 + 200, 24));
  EXPECT_FALSE(sbuf.valid_range(256 + 200, 60));  // would run into the hole and beyond
  EXPECT_FALSE(sbuf.valid_range(4 * 256, 1));
  EXPECT_TRUE(sbuf.valid_range(4 * 256, 0));
  EXPECT_FALSE(sbuf.valid_range(~std::uint64_t{0}, 2));
}

TEST(PagedMemory, PagesOfAnySizeNotOnlyPowersOfTwo) {
  // Power-of-two pages index by shift and mask; any other size by division. Both must agree
  // on pages, holes and runs.
  for (const std::uint64_t page : {std::uint64_t{4096}, std::uint64_t{3000}}) {
    const std::uint64_t valid = page * 2 / 3;
    PagedMemory m(5 * page, page, valid);
    for (std::uint64_t p = 0; p < 5; ++p) {
      const std::uint64_t at = p * page;
      EXPECT_TRUE(m.valid_range(at + valid - 1, 1)) << page;
      EXPECT_FALSE(m.valid_range(at + valid, 1)) << page;
      std::vector<std::uint8_t> in(valid - 100);
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 7 + p);
      m.write(at + 100, in);
      EXPECT_EQ(m.read_run(at + 500, page).size(), valid - 500) << page;
      std::vector<std::uint8_t> back(in.size());
      m.read(at + 100, back);
      EXPECT_EQ(back, in) << page << " page " << p;
      EXPECT_EQ(m.allocated_pages(), p + 1) << page;
    }
  }
}

TEST(PagedMemory, CopyAcrossPagesAndOverlapping) {
  PagedMemory a(1 << 20, 4096, 4096);
  std::vector<std::uint8_t> src(10000);
  std::iota(src.begin(), src.end(), 0);
  a.write(100, src);
  PagedMemory b(1 << 20, 4096, 4096);
  copy_bytes(a, 100, b, 5000, src.size());
  std::vector<std::uint8_t> got(src.size());
  b.read(5000, got);
  EXPECT_EQ(got, src);
  copy_bytes(a, 100, a, 150, src.size());  // overlapping, forward: memmove semantics
  a.read(150, got);
  EXPECT_EQ(got, src);
}

/// The first `pages` pages of `m`, taken for writing, hold only zeros.
void expect_zero_pages(PagedMemory& m, std::uint64_t pages) {
  const std::vector<std::uint8_t> zeros(m.valid_bytes(), 0);
  for (std::uint64_t p = 0; p < pages; ++p) {
    const auto run = m.write_run(p * m.page_bytes(), m.valid_bytes());
    ASSERT_EQ(run.size(), m.valid_bytes());
    EXPECT_EQ(std::vector<std::uint8_t>(run.begin(), run.end()), zeros) << "page " << p;
  }
}

TEST(PagedMemory, PagesOfADeadMemoryComeBackZeroed) {
  // The pool hands a dead memory's pages to the next memory of the same page size: they must
  // read as zero there, however they were written before.
  const std::vector<std::uint8_t> ones(224, 0xFF);
  {
    PagedMemory first(8 * 256, 256, 224);
    for (std::uint64_t p = 0; p < 8; ++p) first.write(p * 256, ones);
    EXPECT_EQ(first.allocated_pages(), 8U);
  }
  PagedMemory second(8 * 256, 256, 224);
  expect_zero_pages(second, 8);
  EXPECT_EQ(second.allocated_pages(), 8U);
}

TEST(PagedMemory, PagesWrittenInPartComeBackZeroedEverywhere) {
  // Only the written extent of a dead page is zeroed again: the rest must still be zero.
  const std::vector<std::uint8_t> ones(10, 0xFF);
  {
    PagedMemory first(4 * 4096, 4096, 4096);
    for (std::uint64_t p = 0; p < 4; ++p) {
      first.write(p * 4096 + 100, ones);
      first.write(p * 4096 + 3000, ones);
    }
    std::uint8_t buf[4] = {};
    copy_bytes(first, 100, first, 4090, 4);  // a copy's run writes too
    first.read(4090, buf);
    EXPECT_EQ(buf[0], 0xFF);
  }
  PagedMemory second(4 * 4096, 4096, 4096);
  expect_zero_pages(second, 4);
}

TEST(PagedMemory, ARecycledPageReadsZeroAroundWhatIsOverwritten) {
  // A dead memory's bytes are not zeroed when the page is reused: they must read as zero
  // until overwritten, through reads, write runs and copies, and again in the next owner.
  constexpr std::uint64_t kPage = 3 * 4096;
  const std::vector<std::uint8_t> ones(kPage, 0xFF);
  {
    PagedMemory first(2 * kPage, kPage, kPage);
    first.write(0, ones);
    first.write(kPage, ones);
  }
  PagedMemory second(2 * kPage, kPage, kPage);
  std::vector<std::uint8_t> mid(100);
  std::iota(mid.begin(), mid.end(), 1);
  second.write(5000, mid);  // in the middle of the old bytes
  std::vector<std::uint8_t> want(kPage, 0);
  std::copy(mid.begin(), mid.end(), want.begin() + 5000);
  std::vector<std::uint8_t> got(kPage);
  second.read(0, got);
  EXPECT_EQ(got, want);
  const auto run = second.write_run(9000, 50);  // handed out to be read: zeros
  EXPECT_EQ(std::vector<std::uint8_t>(run.begin(), run.end()), std::vector<std::uint8_t>(50, 0));
  run[0] = 7;
  want[9000] = 7;
  PagedMemory src(kPage, kPage, kPage);
  src.write(0, mid);
  copy_bytes(src, 0, second, 200, mid.size());                  // before the written part
  copy_bytes(src, 0, second, kPage + kPage - 100, mid.size());  // the second page's tail
  std::copy(mid.begin(), mid.end(), want.begin() + 200);
  second.read(0, got);
  EXPECT_EQ(got, want);
  std::vector<std::uint8_t> want2(kPage, 0);
  std::copy(mid.begin(), mid.end(), want2.end() - 100);
  second.read(kPage, got);
  EXPECT_EQ(got, want2);
}

TEST(PagedMemory, TheNextOwnerOfARecycledPageSeesZerosToo) {
  constexpr std::uint64_t kPage = 2 * 4096;
  {
    PagedMemory first(kPage, kPage, kPage);
    first.write(0, std::vector<std::uint8_t>(kPage, 0xFF));
  }
  {
    PagedMemory second(kPage, kPage, kPage);  // overwrites a little, leaves the rest stale
    second.write(4000, std::vector<std::uint8_t>(10, 0xEE));
  }
  PagedMemory third(kPage, kPage, kPage);
  expect_zero_pages(third, 1);
}

TEST(PagedMemory, FarPagesOfALargeSparseMemory) {
  // 32 GiB of 64 KiB pages: pages far apart live in different leaves of the page table.
  PagedMemory m(32ULL << 30, 64 << 10, 64 << 10);
  const std::vector<std::uint8_t> a{1, 2, 3, 4};
  const std::vector<std::uint8_t> b{5, 6, 7, 8};
  m.write(0, a);
  m.write((32ULL << 30) - 4, b);
  std::vector<std::uint8_t> got(4);
  m.read(0, got);
  EXPECT_EQ(got, a);
  m.read((32ULL << 30) - 4, got);
  EXPECT_EQ(got, b);
  m.read(16ULL << 30, got);
  EXPECT_EQ(got, std::vector<std::uint8_t>(4, 0));
  EXPECT_EQ(m.allocated_pages(), 2U);
}

TEST(PagedMemory, SparseAndDensePagesComeFromSeparatePools) {
  // A page size no other test uses, so the process-wide pool's free lists are this test's.
  constexpr std::uint64_t kPage = 12 * 1024 + 64;
  const std::vector<std::uint8_t> word{9, 9, 9, 9};
  const std::uint8_t* sparse_page = nullptr;
  {
    PagedMemory a(2 * kPage, kPage, kPage);
    EXPECT_EQ(a.backing(), PageBacking::kSparse);
    a.write(0, word);
    sparse_page = a.write_run(0, 1).data();
  }
  PagedMemory dense(2 * kPage, kPage, kPage, PageBacking::kDense);
  EXPECT_EQ(dense.backing(), PageBacking::kDense);
  EXPECT_NE(dense.write_run(0, 1).data(), sparse_page);  // not the sparse page given back
  PagedMemory again(2 * kPage, kPage, kPage);
  const auto run = again.write_run(0, kPage);
  EXPECT_EQ(run.data(), sparse_page);  // reused, and zeroed where it was written
  EXPECT_EQ(std::vector<std::uint8_t>(run.begin(), run.begin() + 4),
            std::vector<std::uint8_t>(4, 0));
}

TEST(PagedMemory, LongCopiesAtEveryAlignmentLandExactly) {
  // Copies of 4 KiB and more into a dense memory go past the cache in 64-byte blocks after
  // aligning the destination: every alignment of both ends, lengths around the block and the
  // threshold.
  constexpr std::uint64_t kPage = 64 * 1024;
  PagedMemory src(2 * kPage, kPage, kPage);
  std::vector<std::uint8_t> bytes(kPage);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 7 + 3);
  src.write(0, bytes);
  for (const std::uint64_t len : {4095U, 4096U, 4097U, 4096U + 63U, 12345U}) {
    for (std::uint64_t from = 0; from < 64; from += 5) {
      for (std::uint64_t to = 0; to < 64; to += 3) {
        PagedMemory dst(2 * kPage, kPage, kPage, PageBacking::kDense);
        const std::vector<std::uint8_t> canvas(len + 256, 0xEE);
        dst.write(0, canvas);
        copy_bytes(src, from, dst, 100 + to, len);
        std::vector<std::uint8_t> got(len + 256);
        dst.read(0, got);
        for (std::size_t i = 0; i < got.size(); ++i) {
          const bool inside = i >= 100 + to && i < 100 + to + len;
          const std::uint8_t want = inside ? bytes[from + i - 100 - to] : 0xEE;
          ASSERT_EQ(got[i], want) << "len " << len << " from " << from << " to " << to << " byte "
                                  << i;
        }
      }
    }
  }
}

TEST(DenseBuffer, IsZeroedWritableAnd2MiBAligned) {
  constexpr std::uint64_t kBytes = (3ULL << 20) + 100;  // not a whole number of 2 MiB blocks
  DenseBuffer b(kBytes);
  ASSERT_TRUE(b.mapped());
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(b.size(), kBytes);
#if defined(__linux__)
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % (2ULL << 20), 0U);
#endif
  EXPECT_TRUE(std::all_of(b.data(), b.data() + kBytes, [](std::uint8_t v) { return v == 0; }));
  b.data()[0] = 1;
  b.data()[kBytes - 1] = 2;
  EXPECT_EQ(b.data()[0] + b.data()[kBytes - 1], 3);
#if defined(__linux__)
  if (std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good()) {  // a THP kernel
    EXPECT_EQ(testing::advised_huge(b.data()), std::optional<bool>(true));
  }
#endif
}

#if defined(__linux__)
TEST(DenseBuffer, ThatCannotBeMappedSaysSoAndIsNoError) {
  // More than any address space: the mapping fails, and that is the caller's to handle (the
  // bench's memcpy reference tries smaller buffers), not the end of the process.
  DenseBuffer b(std::uint64_t{1} << 62);
  EXPECT_FALSE(b.mapped());
  EXPECT_EQ(b.data(), nullptr);
}
#endif

#if defined(__linux__)
// The simulation's pages are 4 KiB ones, dense or sparse: huge-page advice cost more than it
// saved on this project's VM (D33).
TEST(PagedMemory, NoPageIsAdvisedForHugePages) {
  for (const PageBacking backing : {PageBacking::kSparse, PageBacking::kDense}) {
    PagedMemory m(4ULL << 20, 1ULL << 20, 1ULL << 20, backing);
    const std::span<std::uint8_t> run = m.write_run(3ULL << 20, 4096);
    ASSERT_FALSE(run.empty());
    EXPECT_EQ(testing::advised_huge(run.data()), std::optional<bool>(false));
  }
}
#endif

#if defined(__linux__)
TEST(DenseBuffer, GivesItsMemoryBackToTheOs) {
  std::uint8_t* p = nullptr;
  {
    DenseBuffer b(1ULL << 20);
    p = b.data();
    p[0] = 1;
    unsigned char v = 0;
    ASSERT_EQ(mincore(p, 4096, &v), 0);  // mapped
  }
  unsigned char v = 0;
  errno = 0;
  EXPECT_EQ(mincore(p, 4096, &v), -1);  // no longer mapped
  EXPECT_EQ(errno, ENOMEM);
}
#endif

#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
/// True if the OS has backed the 4 KiB page at `p` (page aligned).
bool resident(const std::uint8_t* p) {
  unsigned char v = 0;
  EXPECT_EQ(mincore(const_cast<std::uint8_t*>(p), 4096, &v), 0);
  return (v & 1) != 0;
}

/// True if this kernel populates ahead (MADV_POPULATE_WRITE, Linux 5.14).
bool kernel_populates() {
  void* m = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return false;
  const bool ok = madvise(m, 4096, MADV_POPULATE_WRITE) == 0;
  munmap(m, 4096);
  return ok;
}

TEST(PagedMemory, PrefaultedPagesAreBackedBeforeTheirFirstWriteAndReadZero) {
  if (!kernel_populates()) GTEST_SKIP() << "this kernel cannot populate ahead";
  // Page sizes no other test uses (sparse: backed 4 KiB at a time), one prefaulted, one not.
  constexpr std::uint64_t kValid = 44 * 1024;
  constexpr std::uint64_t kControl = 52 * 1024;
  constexpr std::uint64_t kPages = 8;
  prefault_pages(kValid, PageBacking::kSparse, kPages);
  wait_prefault();
  PagedMemory ahead(kPages * 64 * 1024, 64 * 1024, kValid);
  PagedMemory control(kPages * 64 * 1024, 64 * 1024, kControl);
  for (std::uint64_t p = 0; p < kPages; ++p) {
    // The page's last 4 KiB, taken for writing but not written (overwrite_run: no zeroing, no
    // backing of its own), are backed only if the prefault backed them.
    const auto run = ahead.overwrite_run(p * 64 * 1024 + kValid - 4096, 4096);
    ASSERT_EQ(run.size(), 4096U);
    EXPECT_TRUE(resident(run.data())) << "page " << p;
    const auto cold = control.overwrite_run(p * 64 * 1024 + kControl - 4096, 4096);
    EXPECT_FALSE(resident(cold.data())) << "page " << p;
  }
  expect_zero_pages(ahead, kPages);  // backing ahead changed no byte
}

TEST(PagedMemory, UnwrittenBytesReadFromZerosAndLeaveThePageUnbacked) {
  // A read of a page's bytes that no write run covered must not touch the page: it would map
  // the OS's zero page there, and the first write after it would cost a second fault and a
  // TLB flush on every core. Page size unused by other tests: the page is fresh from the OS.
  constexpr std::uint64_t kValid = 40 * 1024;
  PagedMemory m(64 * 1024, 64 * 1024, kValid);
  const std::vector<std::uint8_t> ones(4096, 1);
  m.write(0, ones);
  const std::uint8_t* base = m.read_run(0, 1).data();  // the page's own memory
  const auto inside = m.read_run(2048, 8192);
  EXPECT_EQ(inside.data(), base + 2048);
  EXPECT_EQ(inside.size(), 2048U);  // up to the end of what was written
  const auto outside = m.read_run(8192, 4096);
  ASSERT_EQ(outside.size(), 4096U);
  EXPECT_NE(outside.data(), base + 8192);
  EXPECT_TRUE(std::all_of(outside.begin(), outside.end(), [](std::uint8_t b) { return b == 0; }));
  std::vector<std::uint8_t> got(kValid - 4096);
  m.read(4096, got);  // every unwritten byte, through read()
  EXPECT_TRUE(std::all_of(got.begin(), got.end(), [](std::uint8_t b) { return b == 0; }));
  for (std::uint64_t off = 4096; off + 4096 <= kValid; off += 4096) {
    EXPECT_FALSE(resident(base + off)) << "offset " << off;
  }
}

TEST(PagedMemory, AWriteRunOfASparseMemoryIsBackedAtOnceAnOverwriteRunIsNot) {
  if (!kernel_populates()) GTEST_SKIP() << "this kernel cannot populate ahead";
  // write_run's caller may read before it writes (an in-place reduce): its OS pages are backed
  // at once, so that the read does not map the zero page (see above). overwrite_run's caller
  // writes first: nothing to do.
  constexpr std::uint64_t kValid = 28 * 1024;
  PagedMemory m(32 * 1024, 32 * 1024, kValid);
  const auto cold = m.overwrite_run(16384, 4096);
  ASSERT_EQ(cold.size(), 4096U);
  EXPECT_FALSE(resident(cold.data()));
  const auto warm = m.write_run(0, 8192);
  ASSERT_EQ(warm.size(), 8192U);
  EXPECT_TRUE(resident(warm.data()));
  EXPECT_TRUE(resident(warm.data() + 4096));
  EXPECT_FALSE(resident(warm.data() + 8192));  // beyond the run: unwritten and not backed
  // A later run adds to the written extent on both sides: the added parts are backed.
  const auto wider = m.write_run(0, 24 * 1024);
  EXPECT_TRUE(resident(wider.data() + 8192));
  EXPECT_TRUE(resident(wider.data() + 20480));
  EXPECT_TRUE(std::all_of(wider.begin(), wider.end(), [](std::uint8_t b) { return b == 0; }));
}

TEST(PagedMemory, APageOf64PiecesTracksItsLastOne) {
  // A 256 KiB page (a 256 KiB SBUF partition) has all 64 pieces of the mask: a run over all of
  // them, and a read of the last piece alone.
  constexpr std::uint64_t kPage = 256 * 1024;
  PagedMemory m(2 * kPage, kPage, kPage);
  const std::vector<std::uint8_t> sevens(100, 7);
  m.write(kPage - 100, sevens);  // the last piece, page 0
  const auto tail = m.read_run(kPage - 4096, 4096);
  ASSERT_EQ(tail.size(), 4096U);
  EXPECT_EQ(tail[4095], 7);
  EXPECT_EQ(tail[0], 0);
  const auto before = m.read_run(kPage - 8192, 8192);  // piece 62: untouched, up to 63
  EXPECT_EQ(before.size(), 4096U);
  EXPECT_TRUE(std::all_of(before.begin(), before.end(), [](std::uint8_t b) { return b == 0; }));
  const auto whole = m.write_run(kPage, kPage);  // page 1, every piece at once
  ASSERT_EQ(whole.size(), kPage);
  std::fill(whole.begin(), whole.end(), std::uint8_t{9});
  std::vector<std::uint8_t> got(kPage);
  m.read(kPage, got);
  EXPECT_TRUE(std::all_of(got.begin(), got.end(), [](std::uint8_t b) { return b == 9; }));
  EXPECT_EQ(m.read_run(kPage, kPage).size(), kPage);  // one run: every piece touched
}

TEST(PagedMemory, APrefaultOfSeveralBlocksIsBackedWholeOnceWaitedFor) {
  if (!kernel_populates()) GTEST_SKIP() << "this kernel cannot populate ahead";
  // 100 pages of 36 KiB: 3.5 MiB, backed in 2 MiB blocks from the far end (a 1.5 MiB one
  // first) by the background thread and the waiting one together. Every page, first and last
  // 4 KiB, is backed when wait_prefault() returns.
  constexpr std::uint64_t kValid = 36 * 1024;
  constexpr std::uint64_t kPages = 100;
  prefault_pages(kValid, PageBacking::kSparse, kPages);
  wait_prefault();
  PagedMemory ahead(kPages * 64 * 1024, 64 * 1024, kValid);
  for (std::uint64_t p = 0; p < kPages; ++p) {
    // overwrite_run: write_run would back its pieces itself.
    const auto first = ahead.overwrite_run(p * 64 * 1024, 4096);
    const auto last = ahead.overwrite_run(p * 64 * 1024 + kValid - 4096, 4096);
    ASSERT_EQ(first.size(), 4096U);
    ASSERT_EQ(last.size(), 4096U);
    EXPECT_TRUE(resident(first.data())) << "page " << p;
    EXPECT_TRUE(resident(last.data())) << "page " << p;
  }
  expect_zero_pages(ahead, kPages);
}
#endif

}  // namespace
}  // namespace sbrdma::device
