#pragma once
/// Fabric: the link-level timing model. Every transfer's bytes cross the links of its route
/// (topology.route); each link direction is a serial resource with a "next free" time, so
/// transfers that share a link direction share its bandwidth. Deterministic: the order in
/// which transfers reserve a link is the event order. [CHOICE D26]
///
/// A descriptor's bytes are cut into chunks of kChunkBytes. The engine emits them at its
/// streaming rate; each chunk then crosses the hops cut-through:
///
///   stage 0 (engine):  chunk k leaves at   e_end(k) = t0 + bytes(0..k) / rate
///   hop h:             start_h = the earliest idle slot of size/bw_h on the link direction
///                                at or after start_{h-1} + lat_{h-1} (the head's arrival)
///                      busy    [start_h, start_h + size/bw_h)   (the link is busy at its rate)
///                      end_h   = max(start_h + size/bw_h, end_{h-1} + lat_{h-1})
///                                (the tail cannot overtake the previous stage)
///   arrival            = end_H + lat_H of the last chunk
///
/// So a link slower than its load serialises the chunks (throughput = its bandwidth), a fast
/// link carries several slower engines side by side, and a transfer booked later fills the
/// idle gaps that earlier, slower transfers left (each link direction keeps a calendar of
/// busy intervals; intervals in the past are forgotten).
///
/// Uncontended, with every link faster than the engine, the last byte arrives exactly at
///   t0 + transfer_time(len, rate) + sum of the route's link latencies.

#include <cstdint>
#include <vector>

#include "base/check.h"
#include "base/units.h"
#include "device/params_units.h"
#include "device/topology.h"

namespace sbrdma::device {

/// Bytes per fabric chunk. [CHOICE D26]
inline constexpr std::uint64_t kChunkBytes = 4096;

/// The busy intervals of one link direction: sorted, disjoint, none touching. Forgotten
/// intervals leave from the front by moving a head index (the buffer is compacted now and
/// then), so a booking in the usual order neither shifts nor allocates.
class LinkCalendar {
 public:
  /// Books `d` at the earliest time >= `earliest` at which the link is idle for `d`, and
  /// returns that time. Intervals that end at or before `horizon` are forgotten first.
  /// Contract: horizon <= earliest.
  /// Inline: the fabric books every hop of every chunk, nearly always after every booking.
  base::Tick book(base::Tick earliest, base::Tick d, base::Tick horizon) {
    SBRDMA_CHECK(horizon <= earliest);
    forget(horizon.ps);  // nothing can be booked before `horizon` any more
    if (d.ps == 0) return earliest;
    booked_ps_ += d.ps;
    // Fast path: after every booking (the usual, in-order case). An empty calendar takes it
    // too unless the booking goes before the end of the last interval forgotten (an earlier
    // call's horizon was later), and then book_between books the same.
    if (earliest.ps < last_end_) return book_between(earliest, d);
    const std::uint64_t end = earliest.ps + d.ps;
    if (first_end_ == kNone) {  // nothing kept: the one interval
      busy_.push_back(Busy{earliest.ps, end});
      first_end_ = end;
    } else if (last_end_ == earliest.ps) {            // touches the last one: extend it
      if (first_end_ == last_end_) first_end_ = end;  // it is also the first (ends increase)
      busy_.back().end = end;
    } else {
      busy_.push_back(Busy{earliest.ps, end});
    }
    last_end_ = end;
    return earliest;
  }
  /// End of the last booking (0 if none).
  [[nodiscard]] base::Tick busy_until() const {
    return head_ == busy_.size() ? base::Tick{} : base::Tick{last_end_};
  }
  /// All the time booked so far (reports: how busy the link direction was).
  [[nodiscard]] base::Tick booked_total() const { return base::Tick{booked_ps_}; }
  /// The booked time that lies at or after `t`. Contract: nothing booked after `t` was
  /// forgotten (`t` is at or after the last horizon).
  [[nodiscard]] base::Tick booked_from(base::Tick t) const;
  /// Number of disjoint busy intervals kept.
  [[nodiscard]] std::size_t intervals() const noexcept { return busy_.size() - head_; }

 private:
  struct Busy {
    std::uint64_t start;
    std::uint64_t end;
  };
  /// Drops the intervals that end at or before `horizon`. Inline: usually nothing ends by
  /// then, and a call to find that out cost more than the test.
  void forget(std::uint64_t horizon) {
    if (first_end_ <= horizon) forget_ended(horizon);  // kNone when nothing is kept
  }
  /// forget() once something ends by `horizon`.
  void forget_ended(std::uint64_t horizon);
  /// book() once `earliest` is before the end of the last interval kept, or forgotten, and
  /// the calendar's intervals are up to date (forget() done). Contract: d > 0.
  base::Tick book_between(base::Tick earliest, base::Tick d);
  /// Sets first_end_ and last_end_ from the intervals. Contract: some are kept.
  void refresh_ends();

  std::vector<Busy> busy_;  // busy_[head_, size) are the intervals; [0, head_) forgotten
  std::size_t head_ = 0;
  /// first_end_ when no interval is kept: forget() then needs no test of its own for that.
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  // The end of the first interval kept (kNone if none) and of the last one (valid while some
  // are; once none are, the end of the last one forgotten, or 0), so that the usual booking,
  // after all others and with nothing to forget, reads no interval.
  std::uint64_t first_end_ = kNone;
  std::uint64_t last_end_ = 0;
  std::uint64_t booked_ps_ = 0;  ///< booked_total()
};

/// transfer_time(n, bw) that keeps its last answer: the fabric asks the same question again
/// and again (a leg's pairs have one size), and transfer_time divides twice.
class TransferTimeMemo {
 public:
  [[nodiscard]] base::Tick operator()(base::Bytes n, Bandwidth bw) {
    if (n.n != bytes_ || bw != bw_) {
      bytes_ = n.n;
      bw_ = bw;
      time_ = transfer_time(n, bw);
    }
    return time_;
  }

 private:
  std::uint64_t bytes_ = ~std::uint64_t{0};
  Bandwidth bw_;
  base::Tick time_;
};

/// The links' timing state for one topology (see the top of this file).
class Fabric {
 public:
  /// Contract: `topology` outlives the Fabric.
  explicit Fabric(const Topology& topology);

  /// The links a transfer crosses when an engine of core `engine` reads from the memory of
  /// core `src` and writes into the memory of core `dst`: src's SBUF port, the fabric to the
  /// engine's core, then on to dst and its SBUF port (the engine's own SBUF port is crossed
  /// only where the data really enters or leaves that core).
  [[nodiscard]] Route data_route(CoreId src, CoreId engine, CoreId dst) const;

  /// Sum of the latencies of `r`'s links, SBUF ports excluded (an MMIO write's path).
  [[nodiscard]] base::Tick mmio_latency(const Route& r) const;

  /// Reserves `r`'s links for `len` bytes streamed by an engine from `t0` at `rate`; returns
  /// when the last byte arrives. len 0 arrives at t0 plus the latencies. `now` is the current
  /// time: no later call books before it. Contract: now <= t0.
  base::Tick transfer(const Route& r, base::Bytes len, base::Tick t0, Bandwidth rate,
                      base::Tick now);

  /// When `rate` has streamed `n` bytes: transfer_time(n, rate), remembering the last answer
  /// (an engine's pair asks it twice, and a leg's pairs have one size).
  [[nodiscard]] base::Tick stream_time(base::Bytes n, Bandwidth rate) { return stream_(n, rate); }
  /// All the time booked so far on the direction of `hop` (reports).
  [[nodiscard]] base::Tick booked_total(Hop hop) const {
    return calendars_[slot(hop)].booked_total();
  }
  /// The time booked on the direction of `hop` that lies at or after `t` (reports).
  [[nodiscard]] base::Tick booked_from(Hop hop, base::Tick t) const {
    return calendars_[slot(hop)].booked_from(t);
  }
  /// When the direction of `hop` has no booking left (tests, reports).
  [[nodiscard]] base::Tick busy_until(Hop hop) const { return calendars_[slot(hop)].busy_until(); }

 private:
  [[nodiscard]] static std::size_t slot(Hop h) {
    return std::size_t{h.link} * 2 + (h.reverse ? 1 : 0);
  }

  /// What transfer() reads of a link, copied out of the topology for the hot loop.
  struct LinkInfo {
    Bandwidth bandwidth;
    base::Tick latency;
    base::Tick chunk_time;     ///< a full chunk's time at the bandwidth
    TransferTimeMemo partial;  ///< a shorter chunk's time at the bandwidth
  };

  const Topology* topo_;
  std::vector<LinkCalendar> calendars_;  // per link direction
  std::vector<LinkInfo> links_;          // per link
  TransferTimeMemo stream_;              // the engines' streaming (stream_time)
};

}  // namespace sbrdma::device
