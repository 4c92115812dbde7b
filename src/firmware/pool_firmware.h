#pragma once
/// PoolFirmware: the POOL firmware of one NeuronCore — the instruction sequencer and the Q7
/// routines it dispatches to — with the state that lives in Q7 memory (the two
/// DescriptorStreams). Everything it does to the machine goes through its Q7Env.
///
/// Entry points for platform/:
///   PoolFirmware fw(env, map, identity, config);
///   fw.ring_init();                           // boot: program the RDMA queues (MMIO only)
///   spawn(fw.run(program));                   // the sequencer over the core's POOL words
///   ... at the end: fw.errors(), fw.halted(), fw.pc()
///
/// The routines are public so that tests and SB2SB can call them directly; each returns an
/// error Status for a fatal firmware error (already logged), after which the core must stop.

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "base/coro.h"
#include "base/result.h"
#include "firmware/config.h"
#include "firmware/descriptor_stream.h"
#include "firmware/env.h"
#include "firmware/gen_plan.h"
#include "firmware/ring_layout.h"
#include "firmware/triggers.h"
#include "isa/views.h"
#include "isa/word.h"
#include "soc/address_map.h"

namespace sbrdma::firmware {

class PoolFirmware {
 public:
  /// Contract: `env` and `map` outlive the firmware and every Task it returns; the firmware
  /// is not moved once a Task of it has started.
  PoolFirmware(Q7Env& env, const soc::AddressMap& map, CoreIdentity id, FirmwareConfig cfg);
  PoolFirmware(const PoolFirmware&) = delete;
  PoolFirmware& operator=(const PoolFirmware&) = delete;

  /// Boot: check the configuration, program every engine's RDMA queue (ring_init in
  /// ring_layout.h) and reset both DescriptorStreams. Error kind 1 for a bad configuration.
  base::Status ring_init();

  /// The sequencer: runs `program` word by word until its end or the first fatal error
  /// (recorded in errors(); the core then stops). Per word: wait per events.wait_mode, the op,
  /// the _COMPLETE update; the _READ update fires once the op's reads are done (see
  /// reads_done). [CHOICE D11, D23]
  base::Task<void> run(std::vector<isa::Word> program);
  /// run() over words the caller keeps, unchanged, until the task is done or destroyed (a
  /// Simulation's programs: a gigabyte at a large -n, not copied into the task).
  base::Task<void> run_words(std::span<const isa::Word> program);

  /// rdma_desc_gen (ExtendedInst 8): RX builds the S2M rings, TX the M2S rings. [CHOICE D22a]
  base::Task<base::Status> rdma_desc_gen(isa::RdmaDescGen g);
  /// rdma_desc_start (ExtendedInst 9): drain, check, RX arms S2M + right_push, TX left_pop +
  /// fires M2S. [CHOICE D6, D7, D8]
  base::Task<base::Status> rdma_desc_start();
  /// The SB2SB leg (0xBF): pre-sync, gen, start, wait for both directions. [CHOICE D24]
  base::Task<base::Status> sb2sb(isa::Sb2sbCollective s);

  /// Fatal errors, in the order they happened (at most one: the core stops on it).
  [[nodiscard]] const std::vector<FirmwareError>& errors() const { return errors_; }
  /// True once the core stopped on an error.
  [[nodiscard]] bool halted() const { return !errors_.empty(); }
  /// Index of the word the sequencer is at (or ended at).
  [[nodiscard]] std::size_t pc() const { return pc_; }
  /// rdma_desc_gen words whose descriptors no rdma_desc_start has published yet: the first
  /// one's word index and how many ran since the last start.
  struct UnstartedGens {
    std::size_t first_pc = 0;
    unsigned gens = 0;
  };
  /// The gens since the last start (or since boot); nullopt when there are none.
  [[nodiscard]] std::optional<UnstartedGens> unstarted() const { return unstarted_; }
  /// The producer state of a role's rings (for tests and reports).
  [[nodiscard]] const DescriptorStream& stream(Role r) const { return streams_[index(r)]; }
  [[nodiscard]] const CoreIdentity& identity() const { return id_; }
  [[nodiscard]] const FirmwareConfig& config() const { return cfg_; }

 private:
  static constexpr std::size_t index(Role r) { return r == Role::kRx ? 0 : 1; }

  // rdma_desc_gen.cpp
  void gen_role(Role role, const GenPlan& plan);
  void log_gen_header(Role role, const GenPlan& plan);
  // rdma_desc_start.cpp
  base::Task<base::Status> start_role(Role role);
  base::Status write_triggers(const std::vector<Trigger>& triggers, Role role,
                              std::uint32_t inc_reg);
  // sequencer.cpp
  base::Task<base::Status> execute(isa::Word word);
  base::Task<base::Status> wait_events(isa::Events ev);
  base::Status apply_update(const isa::Events& ev, bool complete);
  /// The running word's _READ update, the first time it is called for that word (the op's
  /// reads are done); nothing outside a word run by the sequencer. [HIGH] wiki-facts §1.4
  base::Status reads_done();
  /// A posted write into slot `idx` of an EVT_SEM window of core `core` of this chip.
  base::Status sem_write(unsigned core, soc::SemWindow w, unsigned idx, std::uint32_t value);

  /// The address of Q7 `prid`'s role word (kRoleWordOffset in its DRAM). [CHOICE D36]
  [[nodiscard]] base::SocAddr role_word_addr(unsigned prid) const;

  /// Records a fatal error at pc() (and logs it when DEBUG is on), with fail_detail_ as its
  /// detail.
  void fail(std::string message);
  /// Why start's count check failed, in sbrdma's words (FirmwareError::detail).
  [[nodiscard]] std::string stream_error_detail(Role role) const;
  /// Writes a DEBUG line. Contract: env_.debug_enabled().
  void debug(const std::string& line) { env_.debug_log(line); }

  Q7Env& env_;
  const soc::AddressMap& map_;
  CoreIdentity id_;
  FirmwareConfig cfg_;
  std::optional<RingLayout> layout_;        ///< set by a successful ring_init
  std::optional<UnstartedGens> unstarted_;  ///< gens since the last start
  std::string fail_detail_;                 ///< the next fail()'s detail
  std::array<DescriptorStream, 2> streams_{};
  std::vector<FirmwareError> errors_;
  std::size_t pc_ = 0;
  std::optional<isa::Events> read_update_;  ///< the running word's, until it fires
};

}  // namespace sbrdma::firmware
