#include "device/reg_file.h"

#include <fmt/format.h>

#include <algorithm>

namespace sbrdma::device {
namespace {
constexpr std::size_t kNone = static_cast<std::size_t>(-1);
}  // namespace

std::string describe_reg(const soc::RegBank& bank, const soc::RegDesc& r) {
  return fmt::format("{} ({} +{:#x})", r.name, bank.name, r.offset);
}

RegFile::RegFile(const soc::RegBank& bank) : bank_(&bank) {
  SBRDMA_CHECK_MSG(bank.regs.size() <= kMaxRegs, "a register bank larger than RegFile holds");
  reset();
}

void RegFile::reset() {
  for (std::size_t i = 0; i < bank_->regs.size(); ++i) values_[i] = bank_->regs[i].reset;
}

std::size_t RegFile::index_of(std::uint32_t offset) const {
  const auto regs = bank_->regs;
  const auto it =
      std::lower_bound(regs.begin(), regs.end(), offset,
                       [](const soc::RegDesc& r, std::uint32_t off) { return r.offset < off; });
  if (it == regs.end() || it->offset != offset) return kNone;
  return static_cast<std::size_t>(it - regs.begin());
}

const soc::RegDesc* RegFile::find(std::uint32_t offset) const {
  const std::size_t i = index_of(offset);
  return i == kNone ? nullptr : &bank_->regs[i];
}

std::size_t RegFile::index(std::uint32_t offset) const {
  const std::size_t i = index_of(offset);
  SBRDMA_CHECK_MSG(i != kNone, "no register at this offset");
  return i;
}

std::uint32_t RegFile::get(std::uint32_t offset) const {
  const std::size_t i = index_of(offset);
  SBRDMA_CHECK_MSG(i != kNone, "no register at this offset");
  return values_[i];
}

void RegFile::set(std::uint32_t offset, std::uint32_t v) {
  const std::size_t i = index_of(offset);
  SBRDMA_CHECK_MSG(i != kNone, "no register at this offset");
  values_[i] = v;
}

base::Result<std::uint32_t> RegFile::read(std::uint32_t offset) const {
  const std::size_t i = index_of(offset);
  if (i == kNone) {
    return base::make_error(
        fmt::format("read of {} +{:#x}: no register there", bank_->name, offset));
  }
  const soc::RegDesc& r = bank_->regs[i];
  if (r.access == soc::Access::kWO) {
    return base::make_error(fmt::format("read of write-only register {}", describe_reg(*bank_, r)));
  }
  return values_[i];
}

base::Result<const soc::RegDesc*> RegFile::write(std::uint32_t offset, std::uint32_t v) {
  const std::size_t i = index_of(offset);
  if (i == kNone) {
    return base::make_error(
        fmt::format("write of {:#x} to {} +{:#x}: no register there", v, bank_->name, offset));
  }
  const soc::RegDesc& r = bank_->regs[i];
  if (r.access == soc::Access::kRO) {
    return base::make_error(
        fmt::format("write of {:#x} to read-only register {}", v, describe_reg(*bank_, r)));
  }
  if ((r.flags & soc::reg_flag::kCommand) == 0) values_[i] = v;
  return &r;
}

}  // namespace sbrdma::device
