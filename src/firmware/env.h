#pragma once
/// What the POOL firmware of one NeuronCore needs from the machine it runs on. platform/
/// implements it on the device model and the sim kernel; tests implement it with a recording
/// bus and a scripted scheduler (tests/firmware/fake_env.h). Firmware reaches hardware ONLY
/// through bus() (DESIGN.md), and suspends only through the base::Suspend / base::Task values
/// handed back here, so it never sees device/ or sim/.
///
/// One Q7Env serves one NeuronCore: its POOL sequencer and its GPSIMD Q7 cores. Calls that
/// belong to one Q7 core take its PRID.
///
///   PRID 0 (RX) --right_push(0, v)--> FIFO --left_pop(1)--> PRID 1 (TX)      [CHOICE D22a]

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string_view>

#include "base/bits.h"
#include "base/coro.h"
#include "base/result.h"
#include "base/units.h"
#include "soc/mmio_bus.h"
#include "soc/udma_regs.h"

namespace sbrdma::firmware {

/// A Q7 core's role in an RDMA pair, by PRID parity: even = RX, odd = TX. [CHOICE D7]
enum class Role : std::uint8_t { kRx, kTx };

/// The Q7 pair that runs rdma_desc_gen/rdma_desc_start. [CHOICE D22a]
inline constexpr unsigned kRxPrid = 0;
inline constexpr unsigned kTxPrid = 1;

// The pair keeps the parity rule: even PRID = RX, odd = TX. [CHOICE D7]
static_assert(kRxPrid % 2 == 0 && kTxPrid % 2 == 1);
/// PRID that plays `r`. [CHOICE D22a]
constexpr unsigned prid_of(Role r) {
  return r == Role::kRx ? kRxPrid : kTxPrid;
}

/// The role whose rings carry `dir`'s descriptors: RX writes the S2M rings, TX the M2S rings.
/// [CHOICE D22a]
constexpr Role role_of(soc::Direction dir) {
  return dir == soc::Direction::kS2M ? Role::kRx : Role::kTx;
}

/// The value of bit 0 of a Q7's role word for `r`: 0 = RX, 1 = TX (rdma_desc_start takes the
/// RX path on 0). [HIGH] wiki-facts §7
constexpr std::uint32_t role_bit(Role r) {
  return r == Role::kTx ? 1 : 0;
}
/// Where each Q7 of the pair keeps its role word: this offset in its own Q7 DRAM (its last
/// word). [CHOICE D36]
inline constexpr std::uint64_t kRoleWordOffset = 0x3fffc;

/// The compare of a semaphore wait against its immediate. GE is `>=`, GT is strict.
/// [HIGH] wiki-facts §1.4, [CHOICE D11]
enum class SemCompare : std::uint8_t { kEq, kLt, kLe, kGt, kGe };

/// True if a semaphore holding `current` satisfies `current <cmp> value`. Both are signed 32-bit
/// (semaphore values are; udma-facts §4.4): a semaphore decremented below 0 is less than 1.
/// The one definition of the wait semantics: platform/ uses it in its wait predicate.
constexpr bool sem_condition_holds(SemCompare cmp, std::uint32_t current, std::uint32_t value) {
  const std::int32_t c = base::as_int32(current);
  const std::int32_t v = base::as_int32(value);
  switch (cmp) {
    case SemCompare::kEq:
      return c == v;
    case SemCompare::kLt:
      return c < v;
    case SemCompare::kLe:
      return c <= v;
    case SemCompare::kGt:
      return c > v;
    case SemCompare::kGe:
      return c >= v;
  }
  return false;
}

/// "==", "<", "<=", ">", ">=" (for wait descriptions in deadlock reports).
std::string_view sem_compare_symbol(SemCompare cmp);

/// What a Q7 delay() charges time for: building descriptors (rdma_desc_gen) or local compute
/// (TENSOR_TENSOR_ARITH). Reports only (bench's --breakdown, D45); the time is the same.
enum class Q7Work : std::uint8_t { kDescGen, kCompute };

/// The environment of one NeuronCore's POOL firmware.
class Q7Env {
 public:
  virtual ~Q7Env() = default;

  /// Contract: the SoC MMIO bus as this core's Q7 cores see it (posted writes in issue
  /// order, side-effect-free reads). Lives as long as the Env.
  virtual soc::MmioBus& bus() = 0;

  /// Contract: resumes the caller `d` later (Q7 time spent on `what`). A zero delay may not
  /// suspend.
  virtual base::Suspend delay(Q7Work what, base::Tick d) = 0;

  /// Contract: resumes the caller once semaphore `idx` of this core satisfies
  /// sem_condition_holds(cmp, sem[idx], value); does not suspend if it already does. A wait
  /// that can never end is the platform's deadlock report (core, semaphore, condition, value).
  virtual base::Suspend wait_semaphore(unsigned idx, SemCompare cmp, std::uint32_t value) = 0;

  /// Contract: resumes Q7 `prid` once every bus write it issued before has reached its
  /// target (the DescriptorStream drain before a doorbell). No suspension if none is pending.
  virtual base::Suspend write_fence(unsigned prid) = 0;

  /// Contract: Q7 `prid` pushes `value` into the FIFO to its right neighbour (PRID prid+1).
  /// Never blocks; values arrive in push order.
  virtual void right_push(unsigned prid, std::uint32_t value) = 0;

  /// Contract: Q7 `prid` pops the oldest value of the FIFO from its left neighbour (PRID
  /// prid-1), waiting while it is empty. The Task is started by the caller's co_await.
  virtual base::Task<std::uint32_t> left_pop(unsigned prid) = 0;

  /// Contract: a Q7's own load and store of a 32-bit word of its core's local memory (Q7
  /// DRAM): no MMIO, no time, seen by later loads. The default keeps the words in the
  /// environment (the device model's memory would grow every core's page directory to the
  /// top of the TPB window for one word). [CHOICE D36]
  virtual std::uint32_t local_load32(base::SocAddr a) {
    const auto it = local_words_.find(a.v);
    return it == local_words_.end() ? 0 : it->second;
  }
  virtual void local_store32(base::SocAddr a, std::uint32_t v) { local_words_[a.v] = v; }

  /// Contract: true if DEBUG lines are wanted (`--log debug`); false lets the firmware skip
  /// formatting them.
  [[nodiscard]] virtual bool debug_enabled() const = 0;

  /// Contract: one DEBUG line, already formatted in the firmware's own format string, without
  /// a trailing newline. Called only when debug_enabled().
  virtual void debug_log(std::string_view line) = 0;

  /// Contract: the sequencer starts word `pc` of the core's program (for reports that name
  /// the word an access came from; the default ignores it).
  virtual void word_started(std::size_t pc) { (void)pc; }
  /// Contract: true if ring_written wants to be told of the rings' writes (for reports that
  /// name the word an error comes from).
  [[nodiscard]] virtual bool wants_origins() const { return false; }
  /// Contract: the word at `pc` is about to post one bus block write of `count` descriptors
  /// into `role`'s ring of `engine`, slots [first_slot, first_slot + count), at address `at`.
  /// For reports that name the word a descriptor came from; called only when
  /// wants_origins().
  virtual void ring_written(Role role, unsigned engine, unsigned first_slot, unsigned count,
                            base::SocAddr at, std::size_t pc) {
    (void)role, (void)engine, (void)first_slot, (void)count, (void)at, (void)pc;
  }

  // ---- local compute: the GPSIMD cores are wired to this core's SBUF partitions -----------
  // Not pure: environments without local compute (the firmware's scripted tests) keep
  // compiling, and a TENSOR_TENSOR_ARITH word on them fails with the default's error.

  /// Contract: true when data is not modelled (`--timing-only`): local compute then reads and
  /// writes no SBUF bytes; its time and everything else are unchanged. [CHOICE D27, D28]
  [[nodiscard]] virtual bool timing_only() const { return false; }

  /// Contract: copies `out.size()` bytes at byte `offset` of SBUF partition `partition` of
  /// this core into `out`, untimed (the caller charges time with delay()). Errors (nothing
  /// copied): partition or range outside the partition's active bytes.
  virtual base::Status sbuf_read(unsigned partition, std::uint64_t offset,
                                 std::span<std::uint8_t> out) {
    (void)partition, (void)offset, (void)out;
    return base::make_error("local SBUF access is not wired in this environment");
  }
  /// Contract: as sbuf_read, copying `in` into the partition.
  virtual base::Status sbuf_write(unsigned partition, std::uint64_t offset,
                                  std::span<const std::uint8_t> in) {
    (void)partition, (void)offset, (void)in;
    return base::make_error("local SBUF access is not wired in this environment");
  }
  /// Contract: the first `bytes` active bytes of SBUF partition `partition` of this core
  /// (bytes <= the active size), to be read and written in place during the caller's current
  /// step (no suspension in between); an empty span if the environment cannot expose them
  /// (then sbuf_read/sbuf_write serve). A view saves local compute two copies per operand byte.
  /// Views of different partitions taken in one step stay valid together and never overlap, so
  /// their bytes may be worked on from two threads at once (apply_tensor_tensor_arith).
  virtual std::span<std::uint8_t> sbuf_partition(unsigned partition, std::uint64_t bytes) {
    (void)partition, (void)bytes;
    return {};
  }
  /// Contract: true if sbuf_accessed wants to be told of local compute's accesses (a checker
  /// of unordered accesses runs); false lets local compute skip listing them. [CHOICE D49]
  [[nodiscard]] virtual bool wants_accesses() const { return false; }
  /// Contract: local compute reads (or, `write`, writes) bytes [lo, hi) of each of `runs`
  /// (ascending, disjoint) of each SBUF partition [0, partitions) now, whether or not data is
  /// modelled: for a checker of unordered accesses (the default ignores it). Called only when
  /// wants_accesses().
  virtual void sbuf_accessed(unsigned partitions,
                             std::span<const std::pair<std::uint64_t, std::uint64_t>> runs,
                             bool write) {
    (void)partitions, (void)runs, (void)write;
  }

 private:
  std::map<std::uint64_t, std::uint32_t> local_words_;  ///< the default local memory
};

}  // namespace sbrdma::firmware
