#include "device/udma_engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace sbrdma::device {
namespace {

namespace rf = soc::reg_field;
constexpr std::array kStateFields{rf::kStateCompCtrl, rf::kStateStreamIf, rf::kStateDataRdCtrl,
                                  rf::kStateDescPref};

}  // namespace

UdmaEngine::UdmaEngine(CoreId core, unsigned index, unsigned queues)
    : core_(core),
      index_(index),
      queues_(queues),
      m2s_(soc::engine_bank(soc::Direction::kM2S)),
      s2m_(soc::engine_bank(soc::Direction::kS2M)),
      misc_(soc::misc_bank()) {
  SBRDMA_CHECK_MSG(queues <= kMaxQueues, "more queues than pref_queue_en has bits");
}

UdmaQueue& UdmaEngine::create_queue(soc::Direction d, unsigned q) {
  std::unique_ptr<UdmaQueue>& p = queues_by_dir_[slot(d)][q];
  p = std::make_unique<UdmaQueue>(d);
  return *p;
}

const UdmaQueue* UdmaEngine::find_queue(soc::Direction d, unsigned q) const {
  SBRDMA_CHECK(q < queues_);
  return queues_by_dir_[slot(d)][q].get();
}

const UdmaQueue& UdmaEngine::queue(soc::Direction d, unsigned q) const {
  if (const UdmaQueue* p = find_queue(d, q)) return *p;
  static const UdmaQueue kResetM2s(soc::Direction::kM2S);
  static const UdmaQueue kResetS2m(soc::Direction::kS2M);
  return d == soc::Direction::kM2S ? kResetM2s : kResetS2m;
}

void UdmaEngine::change_state(soc::Direction d, std::uint32_t cmd) {
  EngineState& s = state_[slot(d)];
  if (rf::kChangeStateAbort.get(cmd) != 0) {
    s = EngineState::kAbort;
  } else if (rf::kChangeStateDis.get(cmd) != 0) {
    s = EngineState::kDisabled;
  } else if (rf::kChangeStateNormal.get(cmd) != 0) {
    s = EngineState::kNormal;
  }
  if (d == soc::Direction::kM2S) {
    engine_regs(d).set(soc::engine_offsets(d).state,
                       static_cast<std::uint32_t>(rf::kM2sStateLastChangeStateCmd.set(0, cmd)));
  }
}

std::uint32_t UdmaEngine::state_register(soc::Direction d) const {
  const EngineState s = state(d);
  bool moving = false;
  if (s == EngineState::kNormal) {
    for (unsigned q = 0; q < queues_ && !moving; ++q) {
      const UdmaQueue* uq = find_queue(d, q);
      moving = uq != nullptr && can_run(d, q, *uq) && uq->completion() != uq->tail();
    }
  }
  const unsigned sub = s == EngineState::kAbort ? 2 : moving ? 1 : 0;
  std::uint64_t reg = engine_regs(d).get(soc::engine_offsets(d).state);
  for (const base::BitField& f : kStateFields) reg = f.set(reg, sub);
  return static_cast<std::uint32_t>(reg);
}

void UdmaEngine::latch_error(soc::Direction d, base::BitField bit) {
  RegFile& r = engine_regs(d);
  const std::uint32_t reg = soc::engine_offsets(d).err_log_mask;
  r.set(reg, r.get(reg) | static_cast<std::uint32_t>(bit.mask()));
}

std::string UdmaEngine::blocked_reason(soc::Direction d, unsigned q) const {
  const UdmaQueue& uq = queue(d, q);
  const std::string_view dn = soc::direction_name(d);
  if (uq.stopped()) return fmt::format("{} queue {} stopped ({})", dn, q, uq.stop_reason());
  switch (state(d)) {
    case EngineState::kDisabled:
      return fmt::format("{} engine not in NORMAL state (change_state.normal not written)", dn);
    case EngineState::kAbort:
      return fmt::format("{} engine aborted", dn);
    case EngineState::kNormal:
      break;
  }
  if (!pref_queue_enabled(d, q)) return fmt::format("{} pref_queue_en bit {} clear", dn, q);
  if (!uq.enabled()) {
    return fmt::format("{} queue {} not enabled (cfg.en_pref and cfg.{} needed)", dn, q,
                       d == soc::Direction::kM2S ? "en_scheduling" : "en_stream");
  }
  return {};
}

void UdmaEngine::post_batch(unsigned q, Batch b) {
  queue(soc::Direction::kM2S, q).batches.push_back(b);
  with_batches_ |= 1U << q;
}

bool UdmaEngine::runnable(unsigned q) {
  const UdmaQueue& uq = *queues_by_dir_[0][q];  // it got a batch, so it exists
  if (uq.batches.empty()) {
    with_batches_ &= ~(1U << q);
    return false;
  }
  return uq.posted() != 0 && can_run(soc::Direction::kM2S, q, uq);
}

UdmaEngine::Pick UdmaEngine::pick(base::Tick now) {
  // Round robin from rr_: the queues with a batch, in the order rr_, rr_+1, ..., wrapping.
  Pick p;
  const std::uint32_t all = with_batches_;
  const std::uint32_t from_rr = all & ~((1U << rr_) - 1);  // queues rr_.. first
  for (std::uint32_t pass : {from_rr, all & ~from_rr}) {
    for (; pass != 0; pass &= pass - 1) {
      const auto q = static_cast<unsigned>(std::countr_zero(pass));
      if (!runnable(q)) continue;
      const UdmaQueue& uq = *queues_by_dir_[0][q];
      const base::Tick ready = std::max(uq.batches.front().ready, uq.not_before);
      if (ready <= now) {
        p.queue = q;
        return p;
      }
      if (!p.next || ready < *p.next) p.next = ready;
    }
  }
  return p;
}

bool UdmaEngine::has_work() {
  for (std::uint32_t m = with_batches_; m != 0; m &= m - 1) {
    if (runnable(static_cast<unsigned>(std::countr_zero(m)))) return true;
  }
  return false;
}

}  // namespace sbrdma::device
