#include "device/deferred_copies.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "base/check.h"
#include "base/split_work.h"

namespace sbrdma::device {
namespace {

/// True if [a, a + alen) and [b, b + blen) share a byte.
bool overlap(std::uint64_t a, std::uint64_t alen, std::uint64_t b, std::uint64_t blen) {
  return a < b + blen && b < a + alen;
}

}  // namespace

bool DeferredCopies::depends(const std::vector<Copy>& held, const Copy& c) noexcept {
  for (const Copy& h : held) {
    if ((h.dst == c.src && overlap(c.src_off, c.len, h.dst_off, h.len)) ||  // reads h's bytes
        (h.dst == c.dst && overlap(c.dst_off, c.len, h.dst_off, h.len)) ||  // writes them
        (h.src == c.dst && overlap(c.dst_off, c.len, h.src_off, h.len))) {  // writes h's source
      return true;
    }
  }
  return false;
}

bool DeferredCopies::add(const PagedMemory& src, std::uint64_t src_off, PagedMemory& dst,
                         std::uint64_t dst_off, std::uint64_t len) {
  SBRDMA_CHECK(src.valid_range(src_off, len) && dst.valid_range(dst_off, len));
  if (len == 0) return true;
  if (&src == &dst && overlap(src_off, len, dst_off, len)) return false;
  // One run of one page (a valid range inside one page lies in its valid part).
  if (dst_off / dst.page_bytes() != (dst_off + len - 1) / dst.page_bytes()) return false;
  if (open_.empty() && !background_.running()) owner_ = std::this_thread::get_id();
  const Copy c{&src, src_off, &dst, dst_off, len};
  // The open batch starts only once the running one has finished, so a copy depends on the
  // open batch alone.
  if (depends(open_, c)) run();
  open_.push_back(c);
  open_bytes_ += len;
  if (open_.size() >= kMaxCopies || open_bytes_ >= kMaxBytes) {
    // The batch goes to the helper; this thread goes on with the simulation, which touches no
    // SBUF byte until it calls run().
    finish_background();
    running_starts_ = start_batch();
    ++background_batches_;
    running_.swap(open_);  // open_ gets the empty vector finish_background() left
    open_bytes_ = 0;
    background_.start(running_starts_.size() - 1,
                      [this](std::size_t k) { run_piece(running_, running_starts_, k); });
  }
  return true;
}

std::vector<std::size_t> DeferredCopies::start_batch() {
  ++batches_run_;
  copies_run_ += open_.size();
  for (Copy& c : open_) c.to = c.dst->overwrite_run(c.dst_off, c.len).data();
  // Pieces of about equal bytes, a few per core, so that whichever thread is free takes the
  // next (a helper slow to wake leaves the caller to run them).
  constexpr std::size_t kPieces = 8;
  std::vector<std::size_t> starts{0};
  const std::uint64_t per_piece = open_bytes_ / kPieces + 1;
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < open_.size(); ++i) {
    acc += open_[i].len;
    if (acc >= per_piece && i + 1 < open_.size()) {
      starts.push_back(i + 1);
      acc = 0;
    }
  }
  starts.push_back(open_.size());
  return starts;
}

void DeferredCopies::finish_background() {
  background_.finish();
  running_.clear();
}

void DeferredCopies::run_one(const Copy& c) {
  // Sources are read here, maybe on the helper thread: read_run changes nothing, and no page
  // is taken or changed while copies run.
  std::uint64_t done = 0;
  while (done < c.len) {
    const auto s = c.src->read_run(c.src_off + done, c.len - done);
    std::memcpy(c.to + done, s.data(), s.size());
    done += s.size();
  }
}

void DeferredCopies::run_piece(const std::vector<Copy>& batch,
                               const std::vector<std::size_t>& starts, std::size_t k) {
  for (std::size_t i = starts[k]; i < starts[k + 1]; ++i) run_one(batch[i]);
}

void DeferredCopies::run() {
  if (empty()) return;
  // Two threads must not run one batch: a split_work piece that reaches an SBUF with copies
  // held (on the helper, or on this thread while the helper runs its sibling pieces).
  SBRDMA_CHECK_MSG(std::this_thread::get_id() == owner_ && !base::in_piece(),
                   "held SBUF copies run from a thread other than the one that held them, or "
                   "from a piece of a job split across threads");
  finish_background();
  if (open_.empty()) return;
  const std::vector<std::size_t> starts = start_batch();
  if (open_bytes_ < kSplitBytes) {
    for (const Copy& c : open_) run_one(c);
  } else {
    base::split_work(starts.size() - 1, [&](std::size_t k) { run_piece(open_, starts, k); });
  }
  open_.clear();
  open_bytes_ = 0;
}

}  // namespace sbrdma::device
