#include "device/fabric.h"

#include <algorithm>
#include <iterator>

#include "base/check.h"
#include "base/taken_prefix.h"

namespace sbrdma::device {

base::Tick LinkCalendar::booked_from(base::Tick t) const {
  std::uint64_t ps = 0;
  for (std::size_t i = head_; i < busy_.size(); ++i) {
    const Busy& b = busy_[i];
    if (b.end > t.ps) ps += b.end - std::max(b.start, t.ps);
  }
  return base::Tick{ps};
}

void LinkCalendar::forget_ended(std::uint64_t horizon) {
  while (head_ < busy_.size() && busy_[head_].end <= horizon) ++head_;
  base::settle_taken_prefix(busy_, head_);
  first_end_ = head_ != busy_.size() ? busy_[head_].end : kNone;
}

void LinkCalendar::refresh_ends() {
  first_end_ = busy_[head_].end;
  last_end_ = busy_.back().end;
}

base::Tick LinkCalendar::book_between(base::Tick earliest, base::Tick d) {
  // First interval that ends after `earliest` (ends increase along the calendar).
  const auto first = busy_.begin() + static_cast<std::ptrdiff_t>(head_);
  auto it = std::upper_bound(first, busy_.end(), earliest.ps,
                             [](std::uint64_t t, const Busy& b) { return t < b.end; });
  std::uint64_t t = earliest.ps;
  for (; it != busy_.end(); ++it) {
    if (it->start >= t + d.ps) break;  // the gap before *it holds the booking
    t = std::max(t, it->end);
  }
  // Insert [t, t + d) before `it`, merging with the neighbours it touches.
  const bool join_prev = it != first && std::prev(it)->end == t;
  const bool join_next = it != busy_.end() && it->start == t + d.ps;
  if (join_prev && join_next) {
    std::prev(it)->end = it->end;
    busy_.erase(it);
  } else if (join_prev) {
    std::prev(it)->end = t + d.ps;
  } else if (join_next) {
    it->start = t;
  } else {
    busy_.insert(it, Busy{t, t + d.ps});
  }
  refresh_ends();
  return base::Tick{t};
}

Fabric::Fabric(const Topology& topology)
    : topo_(&topology), calendars_(topology.links().size() * 2) {
  for (const Link& l : topology.links()) {
    LinkInfo& info = links_.emplace_back();
    info.bandwidth = l.bandwidth;
    info.latency = l.latency;
    info.chunk_time = transfer_time(base::Bytes{kChunkBytes}, l.bandwidth);
  }
}

Route Fabric::data_route(CoreId src, CoreId engine, CoreId dst) const {
  if (src == engine) return topo_->route(engine, dst);
  // Remote read: src SBUF -> ... -> the engine's core, without entering its SBUF, then on.
  Route r = topo_->route(src, engine);
  r.pop_back();  // dma -> sbuf of the engine's core
  const Route out = topo_->route(engine, dst);
  r.insert(r.end(), out.begin() + 1, out.end());  // skip sbuf -> dma of the engine's core
  return r;
}

base::Tick Fabric::mmio_latency(const Route& r) const {
  base::Tick t;
  for (const Hop& h : r) {
    const Link& l = topo_->link(h.link);
    if (l.kind != LinkKind::kSbufPort) t += l.latency;
  }
  return t;
}

base::Tick Fabric::transfer(const Route& r, base::Bytes len, base::Tick t0, Bandwidth rate,
                            base::Tick now) {
  if (len.n == 0) {  // nothing to book: the head alone crosses the route
    base::Tick arrival = t0;
    for (const Hop& h : r) arrival += links_[h.link].latency;
    return arrival;
  }
  base::Tick arrival;  // the last chunk's tail sets it
  std::uint64_t sent = 0;
  base::Tick e_start = t0;
  while (sent < len.n) {
    const std::uint64_t size = std::min(kChunkBytes, len.n - sent);
    sent += size;
    const base::Tick e_end = t0 + stream_time(base::Bytes{sent}, rate);
    // The chunk's head and tail as they leave the previous stage.
    base::Tick head = e_start;
    base::Tick tail = e_end;
    for (const Hop& h : r) {
      LinkInfo& l = links_[h.link];
      const base::Tick busy =
          size == kChunkBytes ? l.chunk_time : l.partial(base::Bytes{size}, l.bandwidth);
      const base::Tick start = calendars_[slot(h)].book(head, busy, now);
      const base::Tick busy_end = start + busy;  // busy for the chunk's bytes at its own rate
      head = start + l.latency;
      tail = std::max(busy_end, tail) + l.latency;  // the tail cannot pass before it arrived
    }
    arrival = tail;
    e_start = e_end;
  }
  return arrival;
}

}  // namespace sbrdma::device
