// Lanes of a hierarchical collective over chips of different sizes (see lanes.h).
#include "collectives/lanes.h"

#include <algorithm>
#include <cstdint>

#include "base/check.h"

namespace sbrdma::collectives {

Lanes::Lanes(std::vector<unsigned> sizes) : sizes_(std::move(sizes)) {
  SBRDMA_CHECK(!sizes_.empty());
  for (unsigned n : sizes_) SBRDMA_CHECK(n > 0);
  count_ = *std::max_element(sizes_.begin(), sizes_.end());
  round_.resize(count_);
  std::vector<std::vector<std::vector<bool>>> busy;  // [round][chip][local index]
  for (unsigned p = 0; p < count_; ++p) {
    unsigned r = 0;
    for (;; ++r) {
      if (r == busy.size()) {
        busy.emplace_back();
        for (unsigned n : sizes_) busy.back().emplace_back(n, false);
      }
      bool free = true;
      for (unsigned c = 0; c < chips(); ++c) free = free && !busy[r][c][owner(c, p)];
      if (free) break;
    }
    for (unsigned c = 0; c < chips(); ++c) busy[r][c][owner(c, p)] = true;
    round_[p] = r;
  }
  rounds_ = static_cast<unsigned>(busy.size());
}

unsigned Lanes::owner(unsigned c, unsigned p) const {
  return static_cast<unsigned>(std::uint64_t{p} * sizes_[c] / count_);
}

unsigned Lanes::lane_of_block(unsigned c, unsigned j) const {
  return static_cast<unsigned>((std::uint64_t{j} * count_ + sizes_[c] - 1) / sizes_[c]);
}

}  // namespace sbrdma::collectives
