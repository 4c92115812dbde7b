// rdma_desc_start (ExtendedInst 9): publish what rdma_desc_gen built. [HIGH] spec §4 (drain,
// role split, RX arms S2M then right_push, TX left_pop then fires M2S); the count check
// [CHOICE D6], roles [CHOICE D7, D22a], broadcast triggers [CHOICE D8, D22b].
#include <fmt/format.h>

#include "firmware/log_formats.h"
#include "firmware/pool_firmware.h"
#include "firmware/ring_layout.h"
#include "firmware/triggers.h"

namespace sbrdma::firmware {
namespace {

/// The group's BCAST_UDMA base: what `sdma_bcast_base` prints. [CHOICE D22c]
base::SocAddr bcast_base(const soc::AddressMap& map, unsigned tpb) {
  return map.engine_base(tpb, 0).value() + soc::cayman_map::kBcastOffset;
}

}  // namespace

base::Task<base::Status> PoolFirmware::rdma_desc_start() {
  if (!layout_) {
    co_return base::make_error(
        "rdma_desc_start: the RDMA rings are not initialised (no ring_init)");
  }
  if (!unstarted_) {
    co_return base::make_error(
        "rdma_desc_start: no rdma_desc_gen since the last start: nothing to start");
  }
  // 1. RX arms the S2M rings and signals TX; 2. TX waits for it, then fires the M2S rings.
  //    The two roles run in turn on one coroutine; the handshake still goes through the FIFO.
  //    [CHOICE D22a]
  if (auto rx = co_await start_role(Role::kRx); !rx) co_return rx;
  if (auto tx = co_await start_role(Role::kTx); !tx) co_return tx;
  unstarted_.reset();
  co_return base::ok_status();
}

base::Task<base::Status> PoolFirmware::start_role(Role role) {
  const bool dbg = env_.debug_enabled();
  const unsigned prid = prid_of(role);
  const int p = static_cast<int>(prid);
  const char* tok = role_token(role);
  const soc::Direction dir = direction_of(role);
  const std::uint32_t inc_reg = soc::queue_offsets(dir).doorbell;  // TDRTP_inc / RDRTP_inc
  DescriptorStream& stream = streams_[index(role)];
  const std::vector<Trigger> triggers = plan_triggers(stream);
  const base::SocAddr doorbell = map_.bcast_addr(id_.tpb, dir, cfg_.ring_num, inc_reg).value();

  // 1. Start; what is about to be published; the planned broadcast triggers.
  if (dbg) {
    // num_descriptors: the tail increment, the count the first (largest) trigger writes to
    // every ring it selects, i.e. the descriptors posted on each active engine's ring.
    // [HIGH] spec §4.6
    // (`*m2s_inc_reg = num_descriptors`); with several triggers [CHOICE D22c]
    const int num_descriptors = triggers.empty() ? 0 : static_cast<int>(triggers.front().n_desc);
    debug(render(log_fmt::kStartStart, p, tok, p));
    debug(render(log_fmt::kStartRing, p, tok, static_cast<int>(cfg_.ring_num), num_descriptors,
                 lo32(bcast_base(map_, id_.tpb))));
    for (const Trigger& t : triggers) {
      debug(render(log_fmt::kStartTrigger, p, tok,
                   role == Role::kTx ? log_fmt::kQueueM2s : log_fmt::kQueueS2m, lo32(doorbell),
                   t.mask, static_cast<int>(t.n_desc)));
    }
  }

  // 2. Drain: every descriptor write of this Q7 has landed before any doorbell. [HIGH] §4.1
  if (dbg) debug(render(log_fmt::kStartDraining, p, tok));
  co_await env_.write_fence(prid);
  if (dbg) debug(render(log_fmt::kStartDrained, p, tok));

  // 3. The stream wrote what gen expected, and 4. bit 0 of the role word is the role this Q7
  //    runs; either failing is the one fatal path that prints the stream's counts.
  //    [CHOICE D6]; [HIGH] §7 (bne a7,a6), [CHOICE D7, D36]
  if (stream.written_total() != stream.expected_total() ||
      (env_.local_load32(role_word_addr(prid)) & 1) != role_bit(role)) {
    fail_detail_ = stream_error_detail(role);
    co_return base::make_error(render(log_fmt::kStreamError, p,
                                      static_cast<int>(stream.written_total()),
                                      static_cast<int>(stream.expected_total())));
  }

  if (role == Role::kRx) {
    // 5. RX: arm the S2M rings (RDRTP_inc), then let TX proceed (right_push).
    if (dbg) debug(render(log_fmt::kRxWriting, p));
    if (auto w = write_triggers(triggers, role, inc_reg); !w) co_return w;
    if (dbg) debug(render(log_fmt::kRxSignaling, p));
    env_.right_push(prid, stream.written_total());
    if (dbg) debug(render(log_fmt::kRxSignaled, p));
  } else {
    // 6. TX: wait for RX (left_pop), then fire the M2S rings (TDRTP_inc) — the copy launch.
    if (dbg) debug(render(log_fmt::kTxWaiting, p));
    (void)co_await env_.left_pop(prid);
    if (dbg) debug(render(log_fmt::kTxWriting, p));
    if (auto w = write_triggers(triggers, role, inc_reg); !w) co_return w;
    if (dbg) debug(render(log_fmt::kTxWritten, p));
  }
  stream.publish();
  if (dbg) debug(render(log_fmt::kStartEnd, p, tok));
  co_return base::ok_status();
}

std::string PoolFirmware::stream_error_detail(Role role) const {
  const DescriptorStream& stream = streams_[index(role)];
  std::vector<unsigned> full;
  for (unsigned e = 0; e < kRdmaEngines; ++e) {
    if (stream.ring(e).expected != stream.ring(e).pending) full.push_back(e);
  }
  if (full.empty()) {
    // The counts agree: the role word is what failed. [CHOICE D36]
    return fmt::format(
        "the counts agree: bit 0 of Q7 P{}'s role word is not {}, its role's bit, D36",
        prid_of(role), role_bit(role));
  }
  // A ring holds depth - 1 descriptors until start publishes them. [CHOICE D6]
  const DescriptorStream::Ring& first = stream.ring(full.front());
  const std::string engines =
      full.size() == 1 ? fmt::format("engine {}'s ring was full", full.front())
                       : fmt::format("{} rings were full, engine {}'s", full.size(), full.front());
  // The firmware's two counts are of every engine's ring together; the one named is one ring's.
  return fmt::format(
      "those counts are every engine's together; {}: the rdma_desc_gen words since the last "
      "rdma_desc_start put {} descriptors on it, and a ring of {} holds at most {} until a start "
      "publishes them, D6",
      engines, first.expected, stream.depth(), stream.depth() - 1);
}

base::Status PoolFirmware::write_triggers(const std::vector<Trigger>& triggers, Role role,
                                          std::uint32_t inc_reg) {
  const soc::Direction dir = direction_of(role);
  auto group = bcast_group_cfg_addr(map_, id_.tpb);
  if (!group) return group.error();
  auto doorbell = map_.bcast_addr(id_.tpb, dir, cfg_.ring_num, inc_reg);
  if (!doorbell) return doorbell.error();
  const bool dbg = env_.debug_enabled();
  for (const Trigger& t : triggers) {
    if (dbg) {  // the trigger helper's own line, as each trigger is written [CHOICE D22c]
      debug(render(log_fmt::kTriggerDma, static_cast<int>(prid_of(role)),
                   lo32(bcast_base(map_, id_.tpb)), lo32(*doorbell), t.mask,
                   static_cast<int>(t.n_desc)));
    }
    env_.bus().write32(*group, t.mask);       // who takes the broadcast  [CHOICE D22b]
    env_.bus().write32(*doorbell, t.n_desc);  // tail += n_desc [23:0]    [CHOICE D8, D41r]
  }
  return base::ok_status();
}

}  // namespace sbrdma::firmware
