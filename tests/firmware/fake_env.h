#pragma once
/// Test doubles for the firmware: a bus that records every access and keeps the bytes written
/// (so rings can be read back), and a scripted Q7Env with a tiny hand-driven scheduler:
///
///   - semaphore waits park until the test sets values and calls pump();
///   - writes into this core's EVT_SEM INC/DEC/SET windows update those values (as the
///     device would), so firmware-side semaphore traffic is visible;
///   - left_pop parks until a value is in the FIFO; right_push queues it;
///   - delay and write_fence never suspend (delays are summed in total_delay);
///   - every access and handshake is appended to one ordered action list.
///
/// Usage: fw.ring_init(); auto t = fw.rdma_desc_gen(g); drive(t); EXPECT_TRUE(t.take_result());

#include <coroutine>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/check.h"
#include "base/coro.h"
#include "firmware/env.h"
#include "soc/address_map.h"
#include "soc/mmio_bus.h"

namespace sbrdma::firmware::testing {

/// One thing the firmware did, in order.
struct Action {
  enum class Kind { kWrite32, kWriteBlock, kRead32, kRightPush, kLeftPop, kWaitSem, kFence, kLog };
  Kind kind;
  std::uint64_t addr = 0;   ///< bus actions; kLog: the line's index in ScriptedEnv::lines
  std::uint32_t value = 0;  ///< write32 value, pushed/popped value, wait threshold
  std::size_t bytes = 0;    ///< write_block length
  unsigned prid = 0;        ///< FIFO and fence actions
};

/// A bus with byte memory: reads return what was written (0 where nothing was).
class RecordingBus : public soc::MmioBus {
 public:
  explicit RecordingBus(std::vector<Action>& log) : log_(log) {}

  void write32(base::SocAddr a, std::uint32_t v) override {
    log_.push_back({Action::Kind::kWrite32, a.v, v});
    for (unsigned i = 0; i < 4; ++i) mem_[a.v + i] = static_cast<std::uint8_t>(v >> (8 * i));
    if (on_write32) on_write32(a, v);
  }
  std::uint32_t read32(base::SocAddr a) override {
    log_.push_back({Action::Kind::kRead32, a.v});
    if (on_read32) {
      if (auto v = on_read32(a)) return *v;
    }
    return load32(a.v);
  }
  void write_block(base::SocAddr a, std::span<const std::uint8_t> bytes) override {
    log_.push_back({Action::Kind::kWriteBlock, a.v, 0, bytes.size()});
    for (std::size_t i = 0; i < bytes.size(); ++i) mem_[a.v + i] = bytes[i];
  }

  /// Little-endian u32 at `addr` as last written.
  [[nodiscard]] std::uint32_t load32(std::uint64_t addr) const {
    std::uint32_t v = 0;
    for (unsigned i = 0; i < 4; ++i) v |= std::uint32_t{byte(addr + i)} << (8 * i);
    return v;
  }
  [[nodiscard]] std::uint8_t byte(std::uint64_t addr) const {
    auto it = mem_.find(addr);
    return it == mem_.end() ? 0 : it->second;
  }
  /// `n` bytes from `addr`.
  [[nodiscard]] std::vector<std::uint8_t> load(std::uint64_t addr, std::size_t n) const {
    std::vector<std::uint8_t> out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = byte(addr + i);
    return out;
  }
  /// Was anything written at `addr`?
  [[nodiscard]] bool written(std::uint64_t addr) const { return mem_.count(addr) != 0; }

  /// Hook after each write32 (the env's semaphore model).
  std::function<void(base::SocAddr, std::uint32_t)> on_write32;
  /// Hook before each read32: a value, or nothing to read the bytes (the semaphore model).
  std::function<std::optional<std::uint32_t>(base::SocAddr)> on_read32;

 private:
  std::vector<Action>& log_;
  std::map<std::uint64_t, std::uint8_t> mem_;
};

/// A scripted Q7Env for one core `tpb` on chip `chip`.
class ScriptedEnv : public Q7Env {
 public:
  ScriptedEnv(const soc::AddressMap& map, unsigned tpb, std::uint32_t chip)
      : bus_(actions), map_(map), tpb_(tpb), chip_(chip) {
    bus_.on_write32 = [this](base::SocAddr a, std::uint32_t v) { on_sem_write(a, v); };
    bus_.on_read32 = [this](base::SocAddr a) { return on_sem_read(a); };
  }

  std::vector<Action> actions;     ///< every action, in order
  std::vector<std::string> lines;  ///< DEBUG lines
  bool debug = true;
  /// Each DEBUG line is also a kLog action (where it falls among the writes and handshakes).
  bool log_actions = false;
  base::Tick total_delay;
  base::Tick gen_delay;                    ///< the part of total_delay charged for rdma_desc_gen
  base::Tick compute_delay;                ///< the part charged for local compute
  std::map<unsigned, std::uint32_t> sems;  ///< this core's semaphores

  soc::MmioBus& bus() override { return bus_; }
  RecordingBus& recording_bus() { return bus_; }

  base::Suspend delay(Q7Work what, base::Tick d) override {
    total_delay += d;
    (what == Q7Work::kDescGen ? gen_delay : compute_delay) += d;
    return base::Suspend([](std::coroutine_handle<>) { return false; });
  }

  base::Suspend wait_semaphore(unsigned idx, SemCompare cmp, std::uint32_t value) override {
    actions.push_back({Action::Kind::kWaitSem, idx, value});
    return base::Suspend([this, idx, cmp, value](std::coroutine_handle<> h) {
      if (sem_condition_holds(cmp, sems[idx], value)) return false;
      waiters_.push_back(Waiter{h, idx, cmp, value});
      return true;
    });
  }

  base::Suspend write_fence(unsigned prid) override {
    actions.push_back({Action::Kind::kFence, 0, 0, 0, prid});
    return base::Suspend([](std::coroutine_handle<>) { return false; });
  }

  void right_push(unsigned prid, std::uint32_t value) override {
    actions.push_back({Action::Kind::kRightPush, 0, value, 0, prid});
    fifo_[prid + 1].push_back(value);
  }

  base::Task<std::uint32_t> left_pop(unsigned prid) override {
    co_await base::Suspend([this, prid](std::coroutine_handle<> h) {
      if (!fifo_[prid].empty()) return false;
      poppers_[prid] = h;
      return true;
    });
    const std::uint32_t v = fifo_[prid].front();
    fifo_[prid].pop_front();
    actions.push_back({Action::Kind::kLeftPop, 0, v, 0, prid});
    co_return v;
  }

  [[nodiscard]] bool debug_enabled() const override { return debug; }
  void debug_log(std::string_view line) override {
    lines.emplace_back(line);
    if (log_actions) actions.push_back({Action::Kind::kLog, lines.size() - 1});
  }

  /// A value from the left neighbour of `prid` (as PRID prid-1 would push it).
  void push_left(unsigned prid, std::uint32_t v) { fifo_[prid].push_back(v); }

  /// Resumes every parked waiter whose condition now holds (semaphores, FIFOs); repeats
  /// until nothing more can run. Returns how many resumptions happened.
  int pump() {
    int n = 0;
    for (bool progress = true; progress;) {
      progress = false;
      for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
        if (sem_condition_holds(it->cmp, sems[it->idx], it->value)) {
          const std::coroutine_handle<> h = it->h;
          waiters_.erase(it);
          base::resume(h);
          progress = true;
          ++n;
          break;
        }
      }
      for (auto& [prid, h] : poppers_) {
        if (h && !fifo_[prid].empty()) {
          const std::coroutine_handle<> c = std::exchange(h, {});
          base::resume(c);
          progress = true;
          ++n;
          break;
        }
      }
    }
    return n;
  }

  [[nodiscard]] std::size_t waiting() const { return waiters_.size(); }

 private:
  struct Waiter {
    std::coroutine_handle<> h;
    unsigned idx;
    SemCompare cmp;
    std::uint32_t value;
  };

  /// Writes into this core's EVT_SEM INC/DEC/SET windows change `sems`.
  /// The index and window of this core's semaphore at `a`, if it is one.
  [[nodiscard]] std::optional<soc::SemHit> own_sem(base::SocAddr a) const {
    const soc::ChipDie here{chip_, map_.die_of(tpb_).value()};
    auto d = map_.decode(a, here);
    if (!d || !d->hit || !d->hit->sem || d->target.chip != chip_) return std::nullopt;
    if (d->hit->region->core != static_cast<int>(tpb_)) return std::nullopt;
    return d->hit->sem;
  }

  /// A read of this core's READ window gives the semaphore's value.
  std::optional<std::uint32_t> on_sem_read(base::SocAddr a) {
    auto s = own_sem(a);
    if (!s || s->window != soc::SemWindow::kRead) return std::nullopt;
    return sems[s->index];
  }

  void on_sem_write(base::SocAddr a, std::uint32_t v) {
    auto s = own_sem(a);
    if (!s) return;
    const unsigned idx = s->index;
    switch (s->window) {
      case soc::SemWindow::kInc:
        sems[idx] += v;
        break;
      case soc::SemWindow::kDec:
        sems[idx] -= v;
        break;
      case soc::SemWindow::kSet:
        sems[idx] = v;
        break;
      default:
        break;
    }
  }

  RecordingBus bus_;
  const soc::AddressMap& map_;
  unsigned tpb_;
  std::uint32_t chip_;
  std::vector<Waiter> waiters_;
  std::map<unsigned, std::deque<std::uint32_t>> fifo_;  ///< by receiving PRID
  std::map<unsigned, std::coroutine_handle<>> poppers_;
};

/// The Cayman address map, built once.
inline const soc::AddressMap& cayman_map() {
  static const soc::AddressMap map = soc::AddressMap::build(soc::cayman_profile()).value();
  return map;
}

/// Starts `t` and runs it until it ends or parks. Returns true if it ended.
template <typename T>
bool drive(base::Task<T>& t) {
  base::resume(t.handle());
  return t.done();
}

}  // namespace sbrdma::firmware::testing
