#pragma once
/// Lanes: how a hierarchical collective splits its cross-chip work when the chips of a group
/// hold different numbers of ranks. [CHOICE D30d]
///
///   Chip c holds n_c ranks (c, j), j = 0..n_c-1; N = max n_c lanes p = 0..N-1. Lane p's rank
///   on chip c is (c, owner(c, p)), owner = floor(p * n_c / N): a chip of N ranks gives each
///   rank one lane, a smaller chip each of its ranks a run of consecutive lanes.
///
///        lanes      0   1   2   3   4   5   6   7
///        chip 0 (8) 0   1   2   3   4   5   6   7     local index of the lane's rank
///        chip 1 (4) 0   0   1   1   2   2   3   3
///
///   Rank (c, j)'s own block (an all-gather's, a reduce-scatter's, an all-to-all's target)
///   goes with the first lane it holds, lane_of_block(c, j) = ceil(j * N / n_c). A phase
///   among lane 0's ranks (one a chip) shares rank (1, 0) with lane 1's above, so such phases
///   run in rounds: round(p) puts lanes in order, each in the first round where none of its
///   ranks is busy yet. With equal chips lane p is local index p and there is one round.

#include <vector>

namespace sbrdma::collectives {

struct Lanes {
  /// Contract: `sizes` (ranks a chip, chips in order) not empty, each at least 1.
  explicit Lanes(std::vector<unsigned> sizes);

  [[nodiscard]] unsigned chips() const { return static_cast<unsigned>(sizes_.size()); }
  [[nodiscard]] unsigned size(unsigned c) const { return sizes_[c]; }
  [[nodiscard]] const std::vector<unsigned>& sizes() const { return sizes_; }
  /// N.
  [[nodiscard]] unsigned count() const { return count_; }
  /// The local index of lane p's rank on chip c.
  [[nodiscard]] unsigned owner(unsigned c, unsigned p) const;
  /// The lane rank (c, j)'s own block goes with.
  [[nodiscard]] unsigned lane_of_block(unsigned c, unsigned j) const;
  /// The round lane p runs in.
  [[nodiscard]] unsigned round(unsigned p) const { return round_[p]; }
  [[nodiscard]] unsigned rounds() const { return rounds_; }

 private:
  std::vector<unsigned> sizes_;
  unsigned count_ = 0;
  std::vector<unsigned> round_;
  unsigned rounds_ = 0;
};

}  // namespace sbrdma::collectives
