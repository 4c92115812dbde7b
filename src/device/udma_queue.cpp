#include "device/udma_queue.h"

#include <fmt/format.h>

namespace sbrdma::device {
namespace {

namespace rf = soc::reg_field;

}  // namespace

const std::array<UdmaQueue::Rows, 2> UdmaQueue::kRows = [] {
  auto make = [](soc::Direction d) {
    const RegFile regs(soc::queue_bank(d));
    const soc::QueueRegOffsets& r = soc::queue_offsets(d);
    return Rows{regs.index(r.ring_base_low), regs.index(r.ring_base_high),
                regs.index(r.ring_len),      regs.index(r.head),
                regs.index(r.tail),          regs.index(r.current),
                regs.index(r.comp_head),     regs.index(r.cfg),
                regs.index(r.status),        regs.index(r.comp_head_internal),
                regs.index(r.packets)};
  };
  return std::array<Rows, 2>{make(soc::Direction::kM2S), make(soc::Direction::kS2M)};
}();

UdmaQueue::UdmaQueue(soc::Direction dir) : dir_(dir), regs_(soc::queue_bank(dir)) {
  recount();
}

RingPos UdmaQueue::tail() const {
  return ring_pos(regs_.get_at(rows().tail));
}
RingPos UdmaQueue::current() const {
  return ring_pos(regs_.get_at(rows().current));
}
RingPos UdmaQueue::completion() const {
  return ring_pos(regs_.get_at(rows().completion));
}

std::uint64_t UdmaQueue::abs_pos(RingPos p) const {
  return std::uint64_t{p.ring_id} * ring_len() + p.offset;
}

void UdmaQueue::recount() {
  const std::uint64_t len = ring_len();
  if (len == 0) {
    posted_ = 0;
    return;
  }
  const std::uint64_t span = kRingIds * len;
  std::uint64_t t = abs_pos(tail());
  std::uint64_t h = abs_pos(head());
  // Positions within the span (the usual case) need no division.
  if (t >= span) t %= span;
  if (h >= span) h %= span;
  posted_ = static_cast<std::uint32_t>(t >= h ? t - h : t + span - h);
}

base::Result<const soc::RegDesc*> UdmaQueue::write_reg(std::uint32_t offset, std::uint32_t v) {
  auto w = regs_.write(offset, v);
  // Of the count's inputs only DRL is writable (head and tail are read-only to software).
  if (w && offset == soc::queue_offsets(dir_).ring_len) {
    recount();
    update_status();
  }
  return w;
}

void UdmaQueue::set_pos(std::size_t row, RingPos p) {
  regs_.set_at(row, ring_pos_reg(p));
  if (row == rows().tail || row == rows().head) recount();
}

base::Status UdmaQueue::add_tail(std::uint32_t n) {
  const std::uint32_t len = ring_len();
  if (len == 0) {
    return base::make_error(
        fmt::format("doorbell +{} on a ring of length 0 (DRL not programmed)", n));
  }
  if (n == 0) return base::make_error("doorbell with an increment of 0");
  const std::uint32_t before = posted();
  if (std::uint64_t{before} + n > len) {
    return base::make_error(fmt::format(
        "tail beyond ring: doorbell +{} with {} of {} descriptors already posted", n, before, len));
  }
  advance(rows().tail, n);
  update_status();
  return base::ok_status();
}

void UdmaQueue::trim_batches() {
  std::uint64_t total = 0;
  for (const Batch& b : batches) total += b.remaining;
  std::uint32_t want = posted();
  while (total > want && !batches.empty()) {
    Batch& last = batches.back();
    const std::uint64_t drop = std::min<std::uint64_t>(last.remaining, total - want);
    last.remaining -= static_cast<std::uint32_t>(drop);
    total -= drop;
    if (last.remaining == 0) batches.pop_back();
  }
}

void UdmaQueue::sw_ctrl(std::uint32_t v) {
  const RingPos fresh{};
  const bool all = rf::kQSwCtrlRstQ.get(v) != 0;
  if (all || rf::kQSwCtrlRstTailPtr.get(v) != 0) set_pos(rows().tail, fresh);
  if (all || rf::kQSwCtrlRstHeadPtr.get(v) != 0) set_pos(rows().head, fresh);
  if (all || rf::kQSwCtrlRstCurrentPtr.get(v) != 0) set_pos(rows().current, fresh);
  if (all) {
    set_pos(rows().completion, fresh);
    // The head before the coalescing FIFO returns to its reset value; the packet count is a
    // statistic, not a pointer, and keeps counting. [CHOICE D41m]
    regs_.set_at(rows().completion_internal, 0);
    stopped_ = false;
    stop_reason_.clear();
    batches.clear();
  }
  trim_batches();
  update_status();
}

void UdmaQueue::stop(std::string reason) {
  if (stopped_) return;
  stopped_ = true;
  stop_reason_ = std::move(reason);
}

}  // namespace sbrdma::device
