#pragma once
/// RegFile: the values of one register bank, built from a soc register table (QEMU register-API
/// style: registers are data). Software reads have no side effects; software writes are
/// checked against the table's access (a write to RO, a read of WO, or an offset with no
/// register is refused with a message the caller records as a modelled error). The hardware
/// side updates RO registers (pointers, status) with set().
///
///   bank.regs:  [desc_pref_cfg 0x00 RW] [cfg 0x20 RW] [status 0x24 RO] ... [TDRTP_inc 0x38 RW] ...
///   values_:    [    0x080           ] [0x03000000 ] [     0        ] ... [      0          ] ...
///                 one 32-bit value per table row, reset from the table

#include <array>
#include <cstdint>

#include "base/result.h"
#include "soc/udma_regs.h"

namespace sbrdma::device {

/// One register bank's values (see the top of this file). The values live inline (no heap
/// block per queue: a machine has hundreds of thousands of queues).
class RegFile {
 public:
  /// Registers a bank may have (the largest, M2S_Q, has 39).
  static constexpr std::size_t kMaxRegs = 40;

  /// Contract: `bank` outlives the RegFile (the soc tables are static) and has at most
  /// kMaxRegs registers.
  explicit RegFile(const soc::RegBank& bank);

  /// The table this file was built from.
  [[nodiscard]] const soc::RegBank& bank() const noexcept { return *bank_; }
  /// The register at `offset`, or nullptr.
  [[nodiscard]] const soc::RegDesc* find(std::uint32_t offset) const;

  /// Hardware view: the stored value. Contract: a register exists at `offset`.
  [[nodiscard]] std::uint32_t get(std::uint32_t offset) const;
  /// Hardware update (RO registers included). Contract: a register exists at `offset`.
  void set(std::uint32_t offset, std::uint32_t v);

  /// The table row of the register at `offset`, for callers that keep it (hot paths).
  /// Contract: a register exists at `offset`.
  [[nodiscard]] std::size_t index(std::uint32_t offset) const;
  /// get/set by table row. Contract: i < bank().regs.size().
  [[nodiscard]] std::uint32_t get_at(std::size_t i) const { return values_[i]; }
  void set_at(std::size_t i, std::uint32_t v) { values_[i] = v; }
  /// Where row i's value is stored (for a CPU cache hint; no load).
  [[nodiscard]] const std::uint32_t* address_at(std::size_t i) const { return &values_[i]; }

  /// Software read. Errors: no register at `offset`, a write-only register.
  [[nodiscard]] base::Result<std::uint32_t> read(std::uint32_t offset) const;
  /// Software write: stores `v` (command registers are not stored: they read as their reset)
  /// and returns the register so that the owner can run its post-write hook. Errors: no
  /// register at `offset`, a read-only register (nothing is stored).
  base::Result<const soc::RegDesc*> write(std::uint32_t offset, std::uint32_t v);

  /// Every register back to its reset value.
  void reset();

 private:
  [[nodiscard]] std::size_t index_of(std::uint32_t offset) const;

  const soc::RegBank* bank_;
  std::array<std::uint32_t, kMaxRegs> values_{};  // the first bank().regs.size() are used
};

/// `name (BANK +0xNN)`, for messages.
std::string describe_reg(const soc::RegBank& bank, const soc::RegDesc& r);

}  // namespace sbrdma::device
