#include "device/semaphore_bank.h"

#include <fmt/format.h>

namespace sbrdma::device {

namespace {

/// Error unless `idx` is a slot of a window with `n` slots.
base::Status check_slot(soc::SemWindow w, unsigned idx, std::size_t n) {
  if (idx < n) return base::ok_status();
  return base::make_error(
      fmt::format("{} slot {} out of range (0..{})", soc::sem_window_name(w), idx, n - 1));
}

}  // namespace

SemaphoreBank::SemaphoreBank(sim::Kernel& kernel, std::string name, unsigned count, unsigned events)
    : signal_(kernel, std::move(name)), values_(count, 0), events_(events, 0) {}

std::uint32_t SemaphoreBank::value(unsigned idx) const {
  SBRDMA_CHECK(idx < values_.size());
  return values_[idx];
}

std::uint32_t SemaphoreBank::event(unsigned idx) const {
  SBRDMA_CHECK(idx < events_.size());
  return events_[idx];
}

std::uint32_t SemaphoreBank::value_after(soc::SemWindow w, std::uint32_t cur, std::uint32_t data) {
  SBRDMA_CHECK(value_window(w));
  return w == soc::SemWindow::kSet ? data : w == soc::SemWindow::kInc ? cur + data : cur - data;
}

base::Status SemaphoreBank::write(soc::SemWindow w, unsigned idx, std::uint32_t data) {
  SBRDMA_TRY(check_slot(w, idx, w == soc::SemWindow::kEvents ? events_.size() : values_.size()));
  switch (w) {
    case soc::SemWindow::kRead:
      return base::make_error(
          fmt::format("write of {:#x} to the read-only READ window (semaphore {})", data, idx));
    case soc::SemWindow::kEvents:
      events_[idx] = data & 1U;
      break;
    case soc::SemWindow::kSet:
    case soc::SemWindow::kInc:
    case soc::SemWindow::kDec:
      values_[idx] = value_after(w, values_[idx], data);
      break;
  }
  ++writes_;
  if (log_ != nullptr && w != soc::SemWindow::kEvents) log_->push_back(SemChange{tag_, idx});
  signal_.notify();
  return base::ok_status();
}

base::Result<std::uint32_t> SemaphoreBank::read(soc::SemWindow w, unsigned idx) const {
  SBRDMA_TRY(check_slot(w, idx, w == soc::SemWindow::kEvents ? events_.size() : values_.size()));
  switch (w) {
    case soc::SemWindow::kRead:
      return values_[idx];
    case soc::SemWindow::kEvents:
      return events_[idx];
    default:
      return base::make_error(fmt::format("read of the write-only {} window (semaphore {})",
                                          soc::sem_window_name(w), idx));
  }
}

void SemaphoreBank::set(unsigned idx, std::uint32_t v) {
  SBRDMA_CHECK(idx < values_.size());
  values_[idx] = v;
  if (log_ != nullptr) log_->push_back(SemChange{tag_, idx});
  signal_.notify();
}

}  // namespace sbrdma::device
