#pragma once
/// The only way firmware reaches hardware (DESIGN.md: firmware talks to hardware ONLY via the
/// MMIO bus, as real firmware does). Addresses are full SoC addresses (routed with
/// soc::fold_route when the target is another die or chip). platform/ implements it on top of
/// the device model; tests implement it to record the writes.

#include <cstdint>
#include <span>

#include "base/units.h"

namespace sbrdma::soc {

/// A 32-bit MMIO bus at SoC addresses.
class MmioBus {
 public:
  virtual ~MmioBus() = default;

  /// Contract: a posted 32-bit write at a SoC address. Its effect (e.g. a doorbell starting an
  /// engine) may be scheduled for later, never performed inline. Writes from one issuer reach
  /// the same target in issue order. A write that decodes to nothing or hits a read-only
  /// register is a modelled programming error (recorded by the implementation), not a crash.
  virtual void write32(base::SocAddr a, std::uint32_t v) = 0;

  /// Contract: a 32-bit read at a SoC address; reads have no side effects on registers
  /// (read-to-clear is not modelled). An address that hits nothing reads as 0 and is recorded
  /// as a programming error.
  virtual std::uint32_t read32(base::SocAddr a) = 0;

  /// Contract: bulk write of bytes starting at `a` (descriptor staging into DGE memory or
  /// SBUF), equivalent to posted writes of those bytes in order; `bytes` may be any length.
  virtual void write_block(base::SocAddr a, std::span<const std::uint8_t> bytes) = 0;
};

}  // namespace sbrdma::soc
