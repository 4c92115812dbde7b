#include "platform/core_env.h"

#include <fmt/format.h>

#include "base/bits.h"

namespace sbrdma::platform {

CoreEnv::CoreEnv(sim::Kernel& kernel, device::Machine& machine, device::CoreId core, bool debug,
                 EnvObserver* observer)
    : kernel_(kernel), machine_(machine), core_(core), debug_(debug), observer_(observer) {
  const unsigned q7 = machine.profile().q7_cores_per_tpb;
  for (unsigned p = 0; p < q7; ++p) {
    fifos_.push_back(std::make_unique<sim::Fifo<std::uint32_t>>(
        kernel, fmt::format("core{}.q7fifo{}", core, p)));
  }
}

base::Suspend CoreEnv::delay(firmware::Q7Work what, base::Tick d) {
  return base::Suspend([this, what, d](std::coroutine_handle<> h) {
    if (d.ps == 0) return false;
    if (observer_ != nullptr) observer_->on_busy(core_, what, kernel_.now(), d);
    kernel_.sleep(h, d);
    return true;
  });
}

base::Suspend CoreEnv::wait_semaphore(unsigned idx, firmware::SemCompare cmp, std::uint32_t value) {
  return base::Suspend([this, idx, cmp, value](std::coroutine_handle<> h) {
    // The wait passes as its condition first holds: what it saw is before what follows.
    device::SemCondition cond{
        [this, idx, cmp, value](std::uint32_t cur) {
          const bool holds = firmware::sem_condition_holds(cmp, cur, value);
          if (holds) {
            machine_.note_acquire(core_, idx, [cmp, value](std::uint32_t v) {
              return firmware::sem_condition_holds(cmp, v, value);
            });
          }
          return holds;
        },
        fmt::format("{} {}", firmware::sem_compare_symbol(cmp), base::as_int32(value))};
    machine_.note_wait(core_, idx);
    const bool parked = machine_.park_on_semaphore(h, core_, idx, std::move(cond));
    if (parked) {
      CoreWait w;
      w.semaphore = idx;
      w.compare = cmp;
      w.value = value;
      note_wait(w);
    }
    return parked;
  });
}

base::Suspend CoreEnv::write_fence(unsigned prid) {
  return base::Suspend([this, prid](std::coroutine_handle<> h) {
    const base::Tick now = kernel_.now();
    const base::Tick until = machine_.writes_landed_by(core_);
    // Parked, not asleep until `until`: the process resumes after the last write took effect,
    // even when a tie seed runs that tick's landing events after its wake-up.
    if (!machine_.park_until_writes_landed(h, core_)) return false;
    // A wait before the fence has passed: the process now waits for its writes, not for it
    // (a trace ends that wait's slice here, not at the end of the word).
    wait_.reset();
    if (observer_ != nullptr) observer_->on_fence(core_, prid, now, until);
    return true;
  });
}

void CoreEnv::right_push(unsigned prid, std::uint32_t value) {
  if (observer_ != nullptr) observer_->on_push(core_, prid, kernel_.now(), value);
  fifos_[(prid + 1) % fifos_.size()]->push(value);
}

base::Task<std::uint32_t> CoreEnv::left_pop(unsigned prid) {
  sim::Fifo<std::uint32_t>& fifo = *fifos_[prid % fifos_.size()];
  if (fifo.empty()) {
    CoreWait w;
    w.prid = prid;
    note_wait(w);
  }
  co_return co_await fifo.pop();
}

void CoreEnv::debug_log(std::string_view line) {
  if (observer_ != nullptr) observer_->on_debug(core_, kernel_.now(), line);
}

base::Status CoreEnv::sbuf_read(unsigned partition, std::uint64_t offset,
                                std::span<std::uint8_t> out) {
  return machine_.sbuf_read(core_, partition, offset, out);
}

base::Status CoreEnv::sbuf_write(unsigned partition, std::uint64_t offset,
                                 std::span<const std::uint8_t> in) {
  return machine_.sbuf_write(core_, partition, offset, in);
}

std::span<std::uint8_t> CoreEnv::sbuf_partition(unsigned partition, std::uint64_t bytes) {
  if (machine_.options().timing_only) return {};  // no SBUF bytes are modelled [CHOICE D27]
  auto span = machine_.sbuf_span(core_, partition, bytes);
  return span ? *span : std::span<std::uint8_t>{};  // a bad partition: sbuf_read reports it
}

void CoreEnv::note_wait(CoreWait w) {
  w.seq = ++wait_seq_;
  w.since = kernel_.now();
  wait_ = w;
}

std::string CoreEnv::describe_wait() const {
  if (!wait_) return "nothing known";
  if (wait_->semaphore) {
    return fmt::format("sem[{}] {} {}, current {}", *wait_->semaphore,
                       firmware::sem_compare_symbol(wait_->compare), base::as_int32(wait_->value),
                       base::as_int32(machine_.semaphore(core_, *wait_->semaphore)));
  }
  return fmt::format("left_pop on Q7 P{} (its FIFO is empty)", wait_->prid);
}

}  // namespace sbrdma::platform
