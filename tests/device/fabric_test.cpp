// The link calendar and the cut-through chunk model of the Fabric.
#include "device/fabric.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <vector>

namespace sbrdma::device {
namespace {

using base::Tick;

TEST(LinkCalendar, BooksInOrderAndFillsGaps) {
  LinkCalendar c;
  EXPECT_EQ(c.book(Tick{100}, Tick{10}, Tick{0}), Tick{100});
  EXPECT_EQ(c.book(Tick{110}, Tick{10}, Tick{0}), Tick{110});  // touching: merged
  EXPECT_EQ(c.intervals(), 1U);
  EXPECT_EQ(c.book(Tick{200}, Tick{10}, Tick{0}), Tick{200});
  EXPECT_EQ(c.book(Tick{105}, Tick{30}, Tick{0}), Tick{120});  // gap [120, 200) holds it
  EXPECT_EQ(c.book(Tick{0}, Tick{100}, Tick{0}), Tick{0});     // gap before everything
  EXPECT_EQ(c.book(Tick{150}, Tick{60}, Tick{0}), Tick{210});  // [150,200) too short
  EXPECT_EQ(c.busy_until(), Tick{270});
  EXPECT_EQ(c.book(Tick{300}, Tick{0}, Tick{0}), Tick{300});  // nothing to book
  // Forgetting the past: intervals that end by the horizon go.
  EXPECT_EQ(c.book(Tick{280}, Tick{5}, Tick{275}), Tick{280});
  EXPECT_EQ(c.intervals(), 1U);
  // What was booked in all, forgotten intervals too (bench --breakdown's link figure).
  EXPECT_EQ(c.booked_total(), Tick{10 + 10 + 10 + 30 + 100 + 60 + 5});
}

TEST(LinkCalendar, TheTimeBookedFromAMomentOnCountsWhatLiesAfterIt) {
  LinkCalendar c;
  c.book(Tick{100}, Tick{50}, Tick{0});   // [100, 150)
  c.book(Tick{200}, Tick{100}, Tick{0});  // [200, 300)
  EXPECT_EQ(c.booked_from(Tick{0}), Tick{150});
  EXPECT_EQ(c.booked_from(Tick{120}), Tick{30 + 100});  // a part of the first
  EXPECT_EQ(c.booked_from(Tick{150}), Tick{100});
  EXPECT_EQ(c.booked_from(Tick{250}), Tick{50});
  EXPECT_EQ(c.booked_from(Tick{300}), Tick{});
  // Forgotten intervals ended before the horizon, so before any moment asked about.
  c.book(Tick{400}, Tick{10}, Tick{160});
  EXPECT_EQ(c.booked_from(Tick{160}), Tick{110});
  EXPECT_EQ(c.booked_total(), Tick{160});
}

TEST(LinkCalendar, ABookingWhereAForgottenIntervalEndedIsKept) {
  // A forgotten interval stays in the buffer, behind the head index, until the buffer is
  // compacted. A booking that starts exactly where it ended, before the intervals kept, is a
  // new interval: merged into the forgotten one it would be lost, and the next booking would
  // overlap it.
  LinkCalendar c;
  EXPECT_EQ(c.book(Tick{0}, Tick{10}, Tick{0}), Tick{0});
  EXPECT_EQ(c.book(Tick{50}, Tick{10}, Tick{0}), Tick{50});
  EXPECT_EQ(c.book(Tick{10}, Tick{5}, Tick{10}), Tick{10});  // [0, 10) forgotten first
  EXPECT_EQ(c.intervals(), 2U);                              // [10, 15) [50, 60)
  EXPECT_EQ(c.book(Tick{10}, Tick{5}, Tick{10}), Tick{15});  // after [10, 15), not on it
  EXPECT_EQ(c.intervals(), 2U);                              // [10, 20) [50, 60)
  EXPECT_EQ(c.busy_until(), Tick{60});
}

/// The calendar as first written (a plain vector, forgotten intervals erased at once): the
/// reference the head-index calendar must match booking for booking.
class ReferenceCalendar {
 public:
  std::uint64_t book(std::uint64_t earliest, std::uint64_t d, std::uint64_t horizon) {
    std::erase_if(busy_, [&](const Busy& b) { return b.end <= horizon; });
    if (d == 0) return earliest;
    auto it = std::upper_bound(busy_.begin(), busy_.end(), earliest,
                               [](std::uint64_t t, const Busy& b) { return t < b.end; });
    std::uint64_t t = earliest;
    for (; it != busy_.end(); ++it) {
      if (it->start >= t + d) break;
      t = std::max(t, it->end);
    }
    const bool join_prev = it != busy_.begin() && std::prev(it)->end == t;
    const bool join_next = it != busy_.end() && it->start == t + d;
    if (join_prev && join_next) {
      std::prev(it)->end = it->end;
      busy_.erase(it);
    } else if (join_prev) {
      std::prev(it)->end = t + d;
    } else if (join_next) {
      it->start = t;
    } else {
      busy_.insert(it, Busy{t, t + d});
    }
    return t;
  }
  [[nodiscard]] std::size_t intervals() const { return busy_.size(); }
  [[nodiscard]] std::uint64_t busy_until() const { return busy_.empty() ? 0 : busy_.back().end; }

 private:
  struct Busy {
    std::uint64_t start;
    std::uint64_t end;
  };
  std::vector<Busy> busy_;
};

TEST(LinkCalendar, MatchesTheReferenceOnRandomBookings) {
  LinkCalendar c;
  ReferenceCalendar ref;
  std::mt19937_64 rng(5);
  std::uint64_t now = 0;
  std::size_t most = 0;
  for (int i = 0; i < 20000; ++i) {
    if (rng() % 8 == 0) now += rng() % 400;  // time moves on: the past is forgotten
    // Mostly in order after the last booking, sometimes into the gaps behind it.
    const std::uint64_t earliest =
        rng() % 3 == 0 ? now + rng() % 300 : std::max(now, ref.busy_until()) + rng() % 20;
    const std::uint64_t d = rng() % 6 == 0 ? 0 : 1 + rng() % 40;
    const std::uint64_t want = ref.book(earliest, d, now);
    ASSERT_EQ(c.book(Tick{earliest}, Tick{d}, Tick{now}), Tick{want}) << "booking " << i;
    ASSERT_EQ(c.intervals(), ref.intervals()) << "booking " << i;
    ASSERT_EQ(c.busy_until(), Tick{ref.busy_until()}) << "booking " << i;
    most = std::max(most, ref.intervals());
  }
  EXPECT_GT(most, 40U);  // long calendars, so the head index moved far and compacted
}

TEST(LinkCalendar, MatchesTheReferenceWithHundredsOfIntervalsAhead) {
  // Short bookings spread over a window far ahead of the present, as on a link that many
  // engines' small transfers cross (a 256-rank all-to-all of 64 KiB: 171 kept on average
  // when a booking goes into a gap): hundreds of intervals, most bookings into a gap in the
  // middle, some long enough to close gaps and merge intervals, and the present catching up
  // now and then, or jumping ahead.
  for (std::uint64_t seed : {1U, 2U, 3U}) {
    LinkCalendar c;
    ReferenceCalendar ref;
    std::mt19937_64 rng(seed);
    std::uint64_t now = 0;
    std::size_t most = 0;
    for (int i = 0; i < 60000; ++i) {
      const std::uint64_t r = rng() % 1000;
      if (r == 0) now += rng() % 20000;  // a jump: much of the calendar is forgotten
      if (r < 200) now += rng() % 30;
      const std::uint64_t earliest = now + rng() % 20000;
      const std::uint64_t d = rng() % 50 == 0 ? 20 + rng() % 400 : 1 + rng() % 8;
      const std::uint64_t want = ref.book(earliest, d, now);
      ASSERT_EQ(c.book(Tick{earliest}, Tick{d}, Tick{now}), Tick{want})
          << "seed " << seed << " booking " << i;
      ASSERT_EQ(c.intervals(), ref.intervals()) << "seed " << seed << " booking " << i;
      ASSERT_EQ(c.busy_until(), Tick{ref.busy_until()}) << "seed " << seed << " booking " << i;
      most = std::max(most, ref.intervals());
    }
    EXPECT_GT(most, 300U) << "seed " << seed;
  }
}

TEST(Fabric, UncontendedTransferIsRatePlusLatencies) {
  const Topology t = builtin_topology("trn2").value();
  Fabric f(t);
  const Route r = f.data_route(0, 0, 6);  // core 0 to core 6 (other die)
  Tick lat;
  for (const Hop& h : r) lat += t.link(h.link).latency;
  const Bandwidth rate = t.params().dma_engine_rate;
  const Tick t0{1000000};
  const Tick arrival = f.transfer(r, base::Bytes{100000}, t0, rate, Tick{});
  EXPECT_EQ(arrival, t0 + transfer_time(base::Bytes{100000}, rate) + lat);
  // A later transfer on the same route and time shares the fast links without delay.
  EXPECT_EQ(f.transfer(r, base::Bytes{100000}, t0, rate, Tick{}), arrival);
  // No bytes: the latencies alone, and no link is booked.
  EXPECT_EQ(f.transfer(r, base::Bytes{0}, t0, rate, Tick{}), t0 + lat);
  Fabric g(t);
  EXPECT_EQ(g.transfer(r, base::Bytes{0}, t0, rate, Tick{}), t0 + lat);
  for (const Hop& h : r) EXPECT_EQ(g.busy_until(h), Tick{});
}

TEST(Fabric, ASlowLinkSerialisesTransfers) {
  TopologySpec spec = builtin_topology_spec("trn2.48xlarge").value();
  spec.params.push_back({"c2c_bandwidth", 4});  // below the engine rate
  const Topology t = build_topology(spec).value();
  Fabric f(t);
  const Bandwidth rate = t.params().dma_engine_rate;
  const Route a = f.data_route(0, 0, 8);  // chip 0 -> chip 1 over the x link
  const Route b = f.data_route(1, 1, 9);
  const Tick one = f.transfer(a, base::Bytes{1 << 20}, Tick{}, rate, Tick{});
  const Tick two = f.transfer(b, base::Bytes{1 << 20}, Tick{}, rate, Tick{});
  const Tick link_time = transfer_time(base::Bytes{1 << 20}, bytes_per_ns(4));
  EXPECT_GE(one, link_time);
  EXPECT_LT(one, link_time + Tick{2000000});
  EXPECT_GE(two, one + link_time - Tick{1000000});  // waited for most of the first
}

TEST(Fabric, ASlowLinkCarriesTheChunksBackToBackAtItsRate) {
  // c2c at 4 B/ns, far below the engine rate: chunk 0's head reaches the c2c link after the
  // latencies of the hops before it, then the chunks cross it back to back, each taking a full
  // chunk's time at the link's bandwidth; the last tail has only the latencies from there on.
  // So, exactly: t0 + the route's latencies + chunks x chunk time on the slow link.
  TopologySpec spec = builtin_topology_spec("trn2.48xlarge").value();
  spec.params.push_back({"c2c_bandwidth", 4});
  const Topology t = build_topology(spec).value();
  Fabric f(t);
  const Route r = f.data_route(0, 0, 8);  // chip 0 -> chip 1 over the x link
  Tick lat;
  int slow = 0;
  for (const Hop& h : r) {
    lat += t.link(h.link).latency;
    if (t.link(h.link).kind == LinkKind::kC2c) ++slow;
  }
  ASSERT_EQ(slow, 1);
  constexpr std::uint64_t kChunks = 16;
  const Tick chunk_time = transfer_time(base::Bytes{kChunkBytes}, bytes_per_ns(4));
  const Tick t0{1000000};
  EXPECT_EQ(f.transfer(r, base::Bytes{kChunks * kChunkBytes}, t0, t.params().dma_engine_rate, t0),
            t0 + lat + Tick{kChunks * chunk_time.ps});
}

TEST(Fabric, EachLinkIsBusyUntilTheLastFourKibChunkHasCrossedIt) {
  // Every link of the route is faster than the engine, so each chunk crosses a link as soon as
  // its head arrives. The last chunk of 64 KiB is bytes [60 KiB, 64 KiB) (chunks are 4 KiB,
  // [CHOICE D26]): its head leaves the engine once 60 KiB have streamed and reaches hop h after
  // the latencies of the hops before it; hop h is then busy for 4 KiB at its own bandwidth.
  const Topology t = builtin_topology("trn2.48xlarge").value();
  Fabric f(t);
  const Route r = f.data_route(0, 0, 8);
  const Bandwidth rate = t.params().dma_engine_rate;
  const Tick t0{1000000};
  f.transfer(r, base::Bytes{65536}, t0, rate, t0);
  Tick head = t0 + transfer_time(base::Bytes{65536 - 4096}, rate);
  for (const Hop& h : r) {
    const Link& l = t.link(h.link);
    ASSERT_GT(l.bandwidth.bytes_per_us, rate.bytes_per_us) << l.name;
    EXPECT_EQ(f.busy_until(h), head + transfer_time(base::Bytes{4096}, l.bandwidth)) << l.name;
    head += l.latency;
  }
}

TEST(Fabric, TheTwoDirectionsOfALinkAreSeparateResources) {
  // Links are full duplex: each direction has its own calendar. Chip 0 -> chip 1 and chip 1 ->
  // chip 0 at once over a slow x link each take what they take alone.
  TopologySpec spec = builtin_topology_spec("trn2.48xlarge").value();
  spec.params.push_back({"c2c_bandwidth", 4});
  const Topology t = build_topology(spec).value();
  const Bandwidth rate = t.params().dma_engine_rate;
  const Tick t0{1000000};
  Fabric f(t);
  const Route there = f.data_route(0, 0, 8);
  const Route back = f.data_route(8, 8, 0);
  bool shared = false;  // the same link, the other way
  for (const Hop& a : there) {
    for (const Hop& b : back) shared |= a.link == b.link && a.reverse != b.reverse;
  }
  ASSERT_TRUE(shared);
  Fabric alone(t);
  const Tick want = alone.transfer(back, base::Bytes{65536}, t0, rate, t0);
  f.transfer(there, base::Bytes{65536}, t0, rate, t0);
  EXPECT_EQ(f.transfer(back, base::Bytes{65536}, t0, rate, t0), want);
}

TEST(Fabric, MmioLatencyIsTheRoutesLatenciesWithoutTheSbufPorts) {
  const Topology t = builtin_topology("trn2.48xlarge").value();
  const Fabric f(t);
  // Core 1 (chip 0) to core 10 (chip 1): sbuf, onchip, c2c, onchip, sbuf; a write to a
  // register does not enter either SBUF.
  EXPECT_EQ(f.mmio_latency(t.route(1, 10)).ps, (20 + 200 + 20) * 1000);
  EXPECT_EQ(f.mmio_latency(t.route(1, 1)), Tick{});  // the core's own: SBUF ports only
}

TEST(Fabric, RememberedChunkTimesGiveWhatAFreshFabricGives) {
  // Partial chunks of changing sizes, two engine rates, a slow c2c link among fast ones: each
  // transfer, uncontended, must arrive when it would on a fabric that never saw another.
  TopologySpec spec = builtin_topology_spec("trn2.48xlarge").value();
  spec.params.push_back({"c2c_bandwidth", 4});
  const Topology t = build_topology(spec).value();
  Fabric shared(t);
  const Route routes[] = {shared.data_route(0, 0, 8), shared.data_route(2, 2, 6)};
  const Bandwidth rates[] = {t.params().dma_engine_rate, bytes_per_ns(3)};
  const std::uint64_t sizes[] = {100, 100, 3000, 4096 + 100, 100, 8192 + 7, 3000, 64};
  Tick t0{1000000};
  int n = 0;
  for (const std::uint64_t size : sizes) {
    for (const Route& r : routes) {
      for (const Bandwidth rate : rates) {
        Fabric fresh(t);
        const Tick want = fresh.transfer(r, base::Bytes{size}, t0, rate, t0);
        EXPECT_EQ(shared.transfer(r, base::Bytes{size}, t0, rate, t0), want) << size;
        EXPECT_EQ(shared.stream_time(base::Bytes{size}, rate),
                  transfer_time(base::Bytes{size}, rate));
        t0 += Tick{100000000};  // 100 us apart: nothing shared
        ++n;
      }
    }
  }
  EXPECT_EQ(n, 32);
}

TEST(Fabric, RemoteReadRoutesThroughTheEnginesCore) {
  const Topology t = builtin_topology("trn2").value();
  Fabric f(t);
  const Route r = f.data_route(1, 0, 2);  // engine of core 0 reads core 1, writes core 2
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r.front(), (Hop{t.sbuf_port(1), false}));
  EXPECT_EQ(r.back(), (Hop{t.sbuf_port(2), true}));
  for (const Hop& h : r) EXPECT_NE(h.link, t.sbuf_port(0));  // never enters core 0's SBUF
}

}  // namespace
}  // namespace sbrdma::device
