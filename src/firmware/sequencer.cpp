// The POOL sequencer of one NeuronCore: fetch each 64-byte word in order, wait per its
// events, run the op (the _READ update fires once its reads are done), apply the _COMPLETE
// update. [HIGH] wiki-facts
// §1.4 (events), §1.2 + §6.5 (dispatch and its error strings); [CHOICE D11, D12, D23]
#include <fmt/format.h>

#include <optional>
#include <utility>

#include "firmware/gen_plan.h"
#include "firmware/log_formats.h"
#include "firmware/pool_firmware.h"
#include "firmware/tensor_tensor_arith.h"
#include "isa/enums.h"
#include "isa/op_table.h"
#include "isa/validate.h"

namespace sbrdma::firmware {
namespace {

using isa::UpdateMode;
using isa::WaitMode;

/// What an op word does once dispatched.
enum class Op { kGen, kStart, kTensorTensorArith, kSb2sb, kEventsOnly };

/// 1. Dispatch by opcode, and by extended_opcode for 0xF0. Misses are the firmware's own
///    errors; sub-ops without behaviour here are "unsupported". [CHOICE D23a] A generation
///    without the SB2SB handler (NC-v2) takes 0xBF for an unknown opcode. [HIGH] §1.10, §9.11
base::Result<Op> dispatch(const isa::Word& w, const soc::Profile& profile) {
  const std::uint8_t opcode = w[0];
  if (opcode == isa::kOpcodeSb2sbCollective && profile.sb2sb_collective) return Op::kSb2sb;
  if (opcode == isa::kOpcodeEventSemaphore) return Op::kEventsOnly;  // wait + update only
  if (opcode != isa::kOpcodeExtendedInst) {
    return base::make_error(render(log_fmt::kUnknownOpcode, unsigned{opcode}));
  }
  const std::uint8_t sub = w[12];
  const isa::OpDesc* op = isa::find_op(opcode, sub);
  if (op == nullptr) return base::make_error(render(log_fmt::kUnknownExtendedOpcode, int{sub}));
  switch (static_cast<isa::ExtendedOpcode>(sub)) {
    case isa::ExtendedOpcode::kRdmaDescGen:
      return Op::kGen;
    case isa::ExtendedOpcode::kRdmaDescStart:
      return Op::kStart;
    case isa::ExtendedOpcode::kTensorTensorArith:  // local compute [CHOICE D28]
      return Op::kTensorTensorArith;
    case isa::ExtendedOpcode::kEngineNop:
      return Op::kEventsOnly;
    case isa::ExtendedOpcode::kSbufToSbuf:  // [CHOICE D12]
      return base::make_error(
          fmt::format("{} (ExtendedInst sub-op 6): unsupported: layout not public (use the 0xBF "
                      "sb2sb_collective word)",
                      op->mnemonic));
    default:
      return base::make_error(fmt::format(
          "{} (ExtendedInst sub-op {}): unsupported: the sbrdma firmware does not run it",
          op->mnemonic, sub));
  }
}

/// The compare of an immediate wait mode, or nullopt for NONE.
base::Result<std::optional<SemCompare>> wait_compare(WaitMode m) {
  switch (m) {
    case WaitMode::kNone:
      return std::optional<SemCompare>{};
    case WaitMode::kEqImm:
      return std::optional{SemCompare::kEq};
    case WaitMode::kLtImm:
      return std::optional{SemCompare::kLt};
    case WaitMode::kLeImm:
      return std::optional{SemCompare::kLe};
    case WaitMode::kGtImm:
      return std::optional{SemCompare::kGt};
    case WaitMode::kGeImm:
      return std::optional{SemCompare::kGe};
    default:
      return base::make_error(
          fmt::format("wait_mode {}: unsupported: register and event waits are not modelled",
                      isa::enum_name(isa::kWaitModeEnum, static_cast<std::uint8_t>(m))));
  }
}

/// What an update does: which window gets which value, and when. [CHOICE D23b]
struct UpdateAction {
  bool complete = false;    ///< at _COMPLETE (else at _READ)
  soc::SemWindow window{};  ///< INC adds the written value, DEC subtracts, SET overwrites
  bool immediate = false;   ///< write semaphore_value (else 1)
};

base::Result<std::optional<UpdateAction>> update_action(UpdateMode m) {
  using W = soc::SemWindow;
  switch (m) {
    case UpdateMode::kNone:
      return std::optional<UpdateAction>{};
    case UpdateMode::kIncRead:
      return std::optional{UpdateAction{false, W::kInc, false}};
    case UpdateMode::kIncComplete:
      return std::optional{UpdateAction{true, W::kInc, false}};
    case UpdateMode::kDecRead:
      return std::optional{UpdateAction{false, W::kDec, false}};
    case UpdateMode::kDecComplete:
      return std::optional{UpdateAction{true, W::kDec, false}};
    case UpdateMode::kAddImmRead:
      return std::optional{UpdateAction{false, W::kInc, true}};
    case UpdateMode::kAddImmComplete:
      return std::optional{UpdateAction{true, W::kInc, true}};
    case UpdateMode::kSubImmRead:
      return std::optional{UpdateAction{false, W::kDec, true}};
    case UpdateMode::kSubImmComplete:
      return std::optional{UpdateAction{true, W::kDec, true}};
    case UpdateMode::kWrImmRead:
      return std::optional{UpdateAction{false, W::kSet, true}};
    case UpdateMode::kWrImmComplete:
      return std::optional{UpdateAction{true, W::kSet, true}};
    default:
      return base::make_error(
          fmt::format("update_mode {}: unsupported: register updates are not modelled",
                      isa::enum_name(isa::kUpdateModeEnum, static_cast<std::uint8_t>(m))));
  }
}

}  // namespace

base::Task<void> PoolFirmware::run(std::vector<isa::Word> program) {
  co_await run_words(program);  // the task owns `program` until then
}

base::Task<void> PoolFirmware::run_words(std::span<const isa::Word> program) {
  for (pc_ = 0; pc_ < program.size() && !halted(); ++pc_) {
    env_.word_started(pc_);
    if (auto st = co_await execute(program[pc_]); !st) {
      fail(st.error().message);
      co_return;
    }
  }
}

base::Task<base::Status> PoolFirmware::execute(isa::Word word) {
  // 1. Which op.
  auto op = dispatch(word, map_.profile());
  if (!op) co_return op.error();
  // 2. The word decodes: reserved bits clear, every enum value defined. The ops' own rules
  //    are checked by the routines, with the firmware's messages.
  if (auto pr = isa::field_problem(word)) co_return base::make_error(std::move(pr->message));
  const isa::Events ev = isa::decode_events(word);
  if (auto u = update_action(ev.update_mode); !u) co_return u.error();
  // 3. Wait before issue. The _READ update fires "after the instruction's reads finish"
  //    [HIGH] wiki-facts §1.4: gen, start and an events-only word read no operand, so at once;
  //    local compute when its time has passed (D28d), a SB2SB leg when its own engines are
  //    done (D24 step 4). [CHOICE D23b]
  if (auto st = co_await wait_events(ev); !st) co_return st;
  read_update_ = ev;
  // 4. The op.
  base::Status st = base::ok_status();
  switch (*op) {
    case Op::kGen: {
      // A refused completion_info stops the word before its reads, as start's does (D38).
      const isa::RdmaDescGen g = isa::decode_rdma_desc_gen(word).value();
      st = check_rdma_completion_info("rdma_desc_gen", g.completion_info);
      if (st) st = reads_done();
      if (st) st = co_await rdma_desc_gen(g);
      break;
    }
    case Op::kStart:
      st = check_rdma_completion_info("rdma_desc_start",
                                      isa::decode_rdma_desc_start(word).value().completion_info);
      if (st) st = reads_done();
      if (st) st = co_await rdma_desc_start();
      break;
    case Op::kTensorTensorArith:
      st = co_await run_tensor_tensor_arith(env_, map_.profile(), cfg_.compute,
                                            isa::decode_ext_tensor_tensor_arith(word).value(),
                                            [this] { return reads_done(); });
      break;
    case Op::kSb2sb:
      st = co_await sb2sb(isa::decode_sb2sb_collective(word).value());
      break;
    case Op::kEventsOnly:
      st = reads_done();
      break;
  }
  read_update_.reset();
  if (!st) co_return st;
  // 5. The _COMPLETE update. [CHOICE D11]
  co_return apply_update(ev, true);
}

base::Task<base::Status> PoolFirmware::wait_events(isa::Events ev) {
  auto cmp = wait_compare(ev.wait_mode);
  if (!cmp) co_return cmp.error();
  if (!cmp->has_value()) co_return base::ok_status();
  if (ev.wait_idx >= map_.profile().semaphores) {
    co_return base::make_error(fmt::format("wait_idx {} out of range (0..{})", ev.wait_idx,
                                           map_.profile().semaphores - 1));
  }
  co_await env_.wait_semaphore(ev.wait_idx, **cmp, ev.semaphore_value);
  co_return base::ok_status();
}

base::Status PoolFirmware::apply_update(const isa::Events& ev, bool complete) {
  auto action = update_action(ev.update_mode);
  if (!action) return action.error();
  if (!action->has_value() || (*action)->complete != complete) return base::ok_status();
  const UpdateAction& a = **action;
  return sem_write(id_.tpb, a.window, ev.update_idx, a.immediate ? ev.semaphore_value : 1);
}

base::Status PoolFirmware::reads_done() {
  if (!read_update_) return base::ok_status();
  const isa::Events ev = *read_update_;
  read_update_.reset();
  return apply_update(ev, false);
}

}  // namespace sbrdma::firmware
