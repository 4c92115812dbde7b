#include "device/udma_engine.h"

#include <fmt/format.h>

#include <algorithm>

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
  m2s_q_.reserve(queues);
  s2m_q_.reserve(queues);
  for (unsigned q = 0; q < queues; ++q) {
    m2s_q_.emplace_back(soc::Direction::kM2S);
    s2m_q_.emplace_back(soc::Direction::kS2M);
  }
}

UdmaQueue& UdmaEngine::queue(soc::Direction d, unsigned q) {
  SBRDMA_CHECK(q < queues_);
  return d == soc::Direction::kM2S ? m2s_q_[q] : s2m_q_[q];
}

const UdmaQueue& UdmaEngine::queue(soc::Direction d, unsigned q) const {
  SBRDMA_CHECK(q < queues_);
  return d == soc::Direction::kM2S ? m2s_q_[q] : s2m_q_[q];
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
  const unsigned sub = s == EngineState::kNormal ? 1 : s == EngineState::kAbort ? 2 : 0;
  std::uint64_t reg = 0;
  for (const base::BitField& f : kStateFields) reg = f.set(reg, sub);
  if (d == soc::Direction::kM2S) reg = rf::kM2sStateLastChangeStateCmd.set(reg, cmd);
  engine_regs(d).set(soc::engine_offsets(d).state, static_cast<std::uint32_t>(reg));
}

bool UdmaEngine::pref_queue_enabled(soc::Direction d, unsigned q) const {
  const std::uint64_t en =
      rf::kPrefQueueEn.get(engine_regs(d).get(soc::engine_offsets(d).pref_queue_en));
  return base::bit(q).get(en) != 0;
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

UdmaEngine::Pick UdmaEngine::pick(base::Tick now) const {
  Pick p;
  for (unsigned i = 0; i < queues_; ++i) {
    const unsigned q = (rr_ + i) % queues_;
    const UdmaQueue& uq = m2s_q_[q];
    if (uq.batches.empty() || uq.posted() == 0) continue;
    if (!blocked_reason(soc::Direction::kM2S, q).empty()) continue;
    const base::Tick ready = std::max(uq.batches.front().ready, uq.not_before);
    if (ready <= now) {
      p.queue = q;
      return p;
    }
    if (!p.next || ready < *p.next) p.next = ready;
  }
  return p;
}

}  // namespace sbrdma::device
