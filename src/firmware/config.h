#pragma once
/// Static inputs of one NeuronCore's POOL firmware: who it is, how the runtime configured it,
/// and the record of the errors it stopped on.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/result.h"
#include "base/units.h"
#include "soc/profile.h"

namespace sbrdma::firmware {

/// Engines per TPB the RDMA primitives address (dma_engine_mask is 16 bits). [HIGH] wiki-facts §1.8
inline constexpr unsigned kRdmaEngines = 16;

/// Who this NeuronCore is.
struct CoreIdentity {
  unsigned tpb = 0;        ///< TPB index on its chip (`tpb_idx` in the log)
  std::uint32_t chip = 0;  ///< this chip's routing id (CAYMAN_ID) [CHOICE D9]
};

/// The reserved semaphores of the SB2SB leg. [CHOICE D24]
struct Sb2sbSemaphores {
  unsigned ready = 253;   ///< pre-sync: the peer says "ready to receive"
  unsigned local = 254;   ///< gen's local_sem: +16 when this core's sends are done
  unsigned remote = 255;  ///< gen's remote_sem: +16 when the peer's data has landed here
};

/// The Q7 time of local compute (ExtendedInst TENSOR_TENSOR_ARITH). [CHOICE D28]
///   time = access_latency + 16 partitions x vectors per partition x cycles_per_vector / clock
/// (each Q7 runs its 16 partitions one after the other; the 8 Q7 cores run in parallel).
struct ComputeTiming {
  /// GpSimd clock. [HIGH] hw-params row "engine clocks": 1.2 GHz on trn2 (1.4 on trn1); a
  /// platform sets it from the profile's timing table (device gpsimd_clock).
  std::uint32_t clock_mhz = 1200;
  /// Bytes of one SIMD vector. [HIGH] hw-params "GPSIMD engine": 512-bit SIMD per core
  std::uint32_t vector_bytes = 64;
  /// Cycles per vector op: two source reads through one 512-bit/cycle SBUF read port, the
  /// write overlapping them. [CHOICE D28] from hw-params "512 bit/cycle read + write"
  std::uint32_t cycles_per_vector = 2;
  /// Fixed SBUF access cost per instruction. [CHOICE D16d] ~60 cycles (sbuf_port_latency)
  base::Tick access_latency = base::nanoseconds(50);
};

/// What the runtime sets up at boot. Every default is a recorded choice.
struct FirmwareConfig {
  unsigned ring_num = 0;       ///< queue of each engine reserved for RDMA [CHOICE D3]
  unsigned ring_depth = 1024;  ///< descriptors per ring [CHOICE D3, D20a]
  /// Q7 time to build one descriptor. [CHOICE D16b] 30 GpSimd cycles at 1.2 GHz
  base::Tick desc_gen_cost = base::nanoseconds(25);
  /// shuffled_sbuf_swizzle[16]: identity unless configured; logged only. [CHOICE D4]
  std::array<std::uint8_t, kRdmaEngines> sbuf_swizzle{0, 1, 2,  3,  4,  5,  6,  7,
                                                      8, 9, 10, 11, 12, 13, 14, 15};
  Sb2sbSemaphores sb2sb_sems;
  ComputeTiming compute;  ///< local compute time model [CHOICE D28]
};

/// Smallest and largest ring the UDMA queue accepts; a multiple of 16 descriptors.
/// [DRV] udma-facts §3.2 (UDMA_MIN_Q_SIZE 32; rev-4 HAL max 65536; size % 16 == 0)
inline constexpr unsigned kMinRingDepth = 32;
inline constexpr unsigned kMaxRingDepth = 65536;

/// Checks `cfg` and `id` against the profile. Error kind 1 (bad configuration).
base::Status check_config(const FirmwareConfig& cfg, const CoreIdentity& id,
                          const soc::Profile& profile);

/// A modelled firmware error (DESIGN.md kind 2): the core stopped on it.
struct FirmwareError {
  CoreIdentity core;
  std::size_t pc = 0;   ///< index of the word in the core's POOL program
  std::string message;  ///< one line, e.g. "P1: ERROR: DescriptorStream wrote 3 ..."
  /// Why, in sbrdma's words, where the firmware's own message does not say (which ring was
  /// full); empty otherwise. Not part of what the firmware prints.
  std::string detail;

  /// "chip 0 core 3 word 5: <message>".
  [[nodiscard]] std::string format() const;
};

}  // namespace sbrdma::firmware
