#include "device/paged_memory.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "base/check.h"

namespace sbrdma::device {
namespace {

/// What untouched pages read as.
constexpr std::uint64_t kZeroBytes = 64 * 1024;
const std::array<std::uint8_t, kZeroBytes> kZeros{};

}  // namespace

PagedMemory::PagedMemory(std::uint64_t size, std::uint64_t page_bytes, std::uint64_t valid_bytes)
    : size_(size), page_bytes_(page_bytes), valid_bytes_(valid_bytes) {
  SBRDMA_CHECK(page_bytes > 0 && valid_bytes > 0 && valid_bytes <= page_bytes);
  SBRDMA_CHECK(size % page_bytes == 0);
}

bool PagedMemory::valid_range(std::uint64_t offset, std::uint64_t len) const noexcept {
  if (offset > size_ || len > size_ - offset) return false;
  if (len == 0) return true;
  if (valid_bytes_ == page_bytes_) return true;
  // With holes, a valid range sits inside the valid part of a single page.
  const std::uint64_t in_page = offset % page_bytes_;
  return in_page < valid_bytes_ && len <= valid_bytes_ - in_page;
}

std::span<const std::uint8_t> PagedMemory::read_run(std::uint64_t offset, std::uint64_t max) const {
  SBRDMA_CHECK(valid_range(offset, 1));
  const std::uint64_t page = offset / page_bytes_;
  const std::uint64_t in_page = offset % page_bytes_;
  const std::uint64_t n = std::min(max, valid_bytes_ - in_page);
  const auto it = pages_.find(page);
  if (it == pages_.end()) return {kZeros.data(), static_cast<std::size_t>(std::min(n, kZeroBytes))};
  return {it->second.get() + in_page, static_cast<std::size_t>(n)};
}

std::span<std::uint8_t> PagedMemory::write_run(std::uint64_t offset, std::uint64_t max) {
  SBRDMA_CHECK(valid_range(offset, 1));
  const std::uint64_t page = offset / page_bytes_;
  const std::uint64_t in_page = offset % page_bytes_;
  auto& p = pages_[page];
  if (!p) p = std::make_unique<std::uint8_t[]>(valid_bytes_);  // zero-filled
  return {p.get() + in_page, static_cast<std::size_t>(std::min(max, valid_bytes_ - in_page))};
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
    const auto run = write_run(offset + done, in.size() - done);
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
  std::uint64_t done = 0;
  while (done < len) {
    // Take the destination run first: allocating its page may not move the source's page
    // (pages live behind stable pointers), so the source run stays valid.
    const auto d = dst.write_run(dst_off + done, len - done);
    const auto s = src.read_run(src_off + done, d.size());
    std::memcpy(d.data(), s.data(), s.size());  // disjoint: overlaps were staged above
    done += s.size();
  }
}

}  // namespace sbrdma::device
