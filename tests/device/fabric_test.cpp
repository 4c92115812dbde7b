// The link calendar and the cut-through chunk model of the Fabric.
#include "device/fabric.h"

#include <gtest/gtest.h>

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
