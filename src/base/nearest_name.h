#pragma once
/// nearest_name: the known name a mistyped one most likely meant, for "did you mean" hints in
/// error messages ("unknown field 'remote_core' for rdma_desc_gen; did you mean
/// 'remote_core_id'?").

#include <optional>
#include <span>
#include <string_view>

namespace sbrdma::base {

/// Edits (insert, delete or replace one character, or swap two adjacent ones) that turn `a`
/// into `b`: the optimal-string-alignment distance.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The name in `known` closest to `typed`, case aside, if it is close enough to be what was
/// meant and no other name is as close. Close enough: at most max(2, |typed| / 3) edits, fewer
/// than |typed|, and every word of `typed` (its parts between '_' and '.') a word of the name
/// or within max(1, |word| / 2) edits of one, so that a different field (remote_tpb for
/// remote_sem) is never offered. Failing that, the one name that `typed` shortens: two words
/// or more, each standing in order for a word of the name (itself; its beginning, three
/// letters or more; or, all consonants, its first letter and others of its consonants in
/// order; a word of some known name stands only for itself), the name longer (q7_desc_gen
/// for q7_desc_gen_cost, c2c_lat for c2c_latency, gpsimd_clk for gpsimd_clock, c2c_z_bw for
/// c2c_z_bandwidth). nullopt for an empty `typed` or one over 64 characters.
std::optional<std::string_view> nearest_name(std::string_view typed,
                                             std::span<const std::string_view> known);

}  // namespace sbrdma::base
