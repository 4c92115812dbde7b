#pragma once
/// Driver-side UDMA programming as MMIO writes only: what the public driver and runtime do at
/// bring-up (udma-facts §3.1-§3.3), for tests and for the platform layer's initialisation.
/// Every function only issues bus writes (and reads for read-modify-write); nothing here
/// touches the model directly. TPB indices are chip-local, addresses unrouted, so a bus of a
/// core on the same chip reaches them.
///
///  Queue bring-up (per direction):           Transfer:
///   1. cfg &= ~(en_pref | en_sched/stream)     1. RingWriter::push descriptors (write_block)
///   2. q_sw_ctrl = rst_q                       2. S2M doorbell RDRTP_inc += n   (RX arms first)
///   3. DRBP_low, DRBP_high, DRL                3. M2S doorbell TDRTP_inc += n   (TX fires)
///   4. cfg |= en_pref | en_sched/stream
///  Engine: change_state = normal on M2S and S2M.

#include <cstdint>

#include "base/result.h"
#include "soc/address_map.h"
#include "soc/mmio_bus.h"
#include "soc/udma_descriptor.h"

namespace sbrdma::device {

/// Writes change_state.normal to both blocks of an engine.
base::Status start_engine(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                          unsigned engine);

/// Programs one queue's ring (base, length in descriptors) and enables it, as the driver's
/// queue init does. Errors: bad ids.
base::Status init_queue(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                        unsigned engine, soc::Direction dir, unsigned queue, base::SocAddr ring,
                        std::uint32_t ring_len);

/// Writes `n` to a queue's doorbell (TDRTP_inc / RDRTP_inc).
base::Status ring_doorbell(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                           unsigned engine, soc::Direction dir, unsigned queue, std::uint32_t n);

/// Writes `n` to the doorbell of queue `queue` in `tpb`'s broadcast aperture ([CHOICE D8]).
base::Status ring_broadcast_doorbell(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                                     soc::Direction dir, unsigned queue, std::uint32_t n);

/// Sets the broadcast group mask of `tpb`'s engine group ([CHOICE D22b]: BROADCAST_CFG_GROUP of
/// the group's first channel).
base::Status set_broadcast_group(soc::MmioBus& bus, const soc::AddressMap& map, unsigned tpb,
                                 std::uint16_t mask);

/// The software producer of one ring: writes each descriptor into the next slot with the ring
/// id the hardware expects there (1 on the first pass, then (id + 1) mod 4 per wrap).
/// [CHOICE D2], udma-facts §1.4
class RingWriter {
 public:
  /// Contract: ring_len > 0.
  RingWriter(base::SocAddr base, std::uint32_t ring_len);

  /// Stamps the ring id into `d` and writes it at the next slot by write_block; returns the
  /// slot it used.
  std::uint32_t push(soc::MmioBus& bus, soc::UdmaDescriptor d);

  /// The slot the next push uses.
  [[nodiscard]] std::uint32_t next_slot() const noexcept { return slot_; }
  /// The ring id the next push stamps.
  [[nodiscard]] unsigned ring_id() const noexcept { return ring_id_; }
  /// Ring base address.
  [[nodiscard]] base::SocAddr base() const noexcept { return base_; }
  /// Ring length in descriptors.
  [[nodiscard]] std::uint32_t ring_len() const noexcept { return len_; }

 private:
  base::SocAddr base_;
  std::uint32_t len_;
  std::uint32_t slot_ = 0;
  unsigned ring_id_ = soc::kInitialRingId;
};

}  // namespace sbrdma::device
