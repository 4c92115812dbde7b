#pragma once
// A test rig that drives a device::Machine the way a driver does: only MMIO writes through a
// core's bus (ring registers, descriptors into DGE memory with write_block, doorbells), then
// the kernel runs. Direct accessors are used only to seed and check memory.

#include <gtest/gtest.h>

#include <memory>
#include <string_view>
#include <vector>

#include "device/machine.h"
#include "device/udma_driver.h"
#include "sim/kernel.h"
#include "soc/address.h"

namespace sbrdma::device::testing {

using base::SocAddr;
using soc::Direction;

/// Bytes i*mul + add (mod 256), a pattern that differs between buffers.
inline std::vector<std::uint8_t> pattern(std::size_t n, unsigned mul = 7, unsigned add = 3) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(i * mul + add);
  return v;
}

/// One engine queue pair opened by the driver: its rings live in the core's DGE memory.
struct Channel {
  CoreId core = 0;
  unsigned engine = 0;
  unsigned queue = 0;
  RingWriter m2s;
  RingWriter s2m;
};

class Rig {
 public:
  /// `tie_seed` non-zero: the kernel shuffles same-tick events (sim::Kernel).
  explicit Rig(std::string_view topology = "trn2", MachineOptions opts = {},
               std::uint64_t tie_seed = 0)
      : kernel(tie_seed) {
    auto t = builtin_topology(topology);
    SBRDMA_CHECK(t.ok());
    init(std::move(t).value(), opts);
  }
  Rig(Topology t, MachineOptions opts, std::uint64_t tie_seed = 0) : kernel(tie_seed) {
    init(std::move(t), opts);
  }

  sim::Kernel kernel;
  std::unique_ptr<Machine> m;

  [[nodiscard]] const soc::AddressMap& map() const { return m->address_map(); }
  [[nodiscard]] soc::MmioBus& bus(CoreId c) { return m->bus(c); }
  [[nodiscard]] unsigned tpb(CoreId c) const { return m->topology().locate(c).tpb; }

  /// The chip-local address of `c`'s SBUF partition p, byte off.
  [[nodiscard]] SocAddr sbuf(CoreId c, unsigned p, std::uint64_t off) const {
    return map().sbuf_addr(tpb(c), p, off).value();
  }
  /// `peer_local` (an address on core `peer`'s chip) as core `issuer` must write it: plain on
  /// the same die, neighbour fold across dies, chip-id fold across chips. [CHOICE D9]
  [[nodiscard]] SocAddr routed(CoreId issuer, SocAddr peer_local, CoreId peer) const {
    const CoreLoc i = m->topology().locate(issuer);
    const CoreLoc p = m->topology().locate(peer);
    const soc::LocalAddr la(peer_local);
    return soc::fold_route(la.local(), soc::ChipDie{i.chip, i.die}, soc::ChipDie{p.chip, la.die()})
        .value();
  }
  /// A semaphore's INC window slot on `c` (chip-local).
  [[nodiscard]] SocAddr sem_inc(CoreId c, unsigned idx) const {
    return map().sem_window_addr(tpb(c), soc::SemWindow::kInc, idx).value();
  }
  /// Where the rig's "1" word lives on core `c` (DGE memory, written by one_word()).
  [[nodiscard]] SocAddr one_addr(CoreId c) const {
    return map().dge_memory_base(tpb(c)).value() + 0x3F000000;
  }

  /// Starts the engine and opens queue `q` of engine `e` of core `c` with rings of `depth`.
  Channel open(CoreId c, unsigned e, unsigned q, std::uint32_t depth) {
    const SocAddr dge = map().dge_memory_base(tpb(c)).value();
    const std::uint64_t slot = (std::uint64_t{e} * 16 + q) * 2;
    const SocAddr m2s_ring = dge + slot * 0x10000;
    const SocAddr s2m_ring = dge + (slot + 1) * 0x10000;
    EXPECT_TRUE(start_engine(bus(c), map(), tpb(c), e).ok());
    return rings_at(c, e, q, m2s_ring, s2m_ring, depth);
  }

  /// (Re-)initialises queue `q` of engine `e` on core `c` with its rings at `m2s_ring` and
  /// `s2m_ring` (the driver's queue init: disable, rst_q, base, length, enable).
  Channel rings_at(CoreId c, unsigned e, unsigned q, SocAddr m2s_ring, SocAddr s2m_ring,
                   std::uint32_t depth) {
    EXPECT_TRUE(init_queue(bus(c), map(), tpb(c), e, Direction::kM2S, q, m2s_ring, depth).ok());
    EXPECT_TRUE(init_queue(bus(c), map(), tpb(c), e, Direction::kS2M, q, s2m_ring, depth).ok());
    return Channel{c, e, q, RingWriter(m2s_ring, depth), RingWriter(s2m_ring, depth)};
  }

  /// Puts the semaphore operand "1" into core `c`'s DGE memory by an MMIO block write.
  void one_word(CoreId c) {
    const std::uint8_t one[4] = {1, 0, 0, 0};
    bus(c).write_block(one_addr(c), one);
  }

  /// Appends a copy pair (M2S reads `src`, S2M writes `dst`), `len` 1..65536.
  void copy(Channel& ch, SocAddr src, SocAddr dst, std::uint32_t len) {
    ch.m2s.push(bus(ch.core), soc::make_copy_descriptor(src, len, 0).value());
    ch.s2m.push(bus(ch.core), soc::make_copy_descriptor(dst, len, 0).value());
  }
  /// Appends a semaphore-increment pair ([CHOICE D5]): 4 bytes from the "1" word into `inc`.
  void sema(Channel& ch, SocAddr inc) {
    ch.m2s.push(bus(ch.core), soc::make_copy_descriptor(one_addr(ch.core), 4, 0).value());
    ch.s2m.push(bus(ch.core), soc::make_sema_inc_descriptor(inc, 0).value());
  }
  /// The driver's start: S2M doorbell first, then M2S (udma-facts §3.3).
  void start(Channel& ch, std::uint32_t n) {
    const unsigned t = tpb(ch.core);
    EXPECT_TRUE(
        ring_doorbell(bus(ch.core), map(), t, ch.engine, Direction::kS2M, ch.queue, n).ok());
    EXPECT_TRUE(
        ring_doorbell(bus(ch.core), map(), t, ch.engine, Direction::kM2S, ch.queue, n).ok());
  }

  /// Seeds SBUF bytes directly.
  void seed(CoreId c, unsigned p, std::uint64_t off, const std::vector<std::uint8_t>& bytes) {
    ASSERT_TRUE(m->sbuf_write(c, p, off, bytes).ok());
  }
  [[nodiscard]] std::vector<std::uint8_t> read(CoreId c, unsigned p, std::uint64_t off,
                                               std::size_t n) const {
    std::vector<std::uint8_t> v(n);
    EXPECT_TRUE(m->sbuf_read(c, p, off, v).ok());
    return v;
  }
  [[nodiscard]] QueueState queue(const Channel& ch, Direction d) const {
    return m->queue_state(ch.core, ch.engine, d, ch.queue);
  }

  /// Runs to the end; expects no deadlock.
  sim::RunResult run() {
    sim::RunResult r = kernel.run();
    EXPECT_FALSE(r.deadlocked()) << r.deadlock_report();
    return r;
  }
  /// True if some error's message contains `text`.
  [[nodiscard]] bool has_error(std::string_view text) const {
    for (const ModelledError& e : m->errors()) {
      if (e.message.find(text) != std::string::npos) return true;
    }
    return false;
  }

 private:
  void init(Topology t, MachineOptions opts) {
    auto made = Machine::create(kernel, std::move(t), opts);
    SBRDMA_CHECK_MSG(made.ok(), "machine failed to build");
    m = std::move(made).value();
  }
};

}  // namespace sbrdma::device::testing
