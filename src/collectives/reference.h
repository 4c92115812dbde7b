#pragma once
/// The data side of a collective, on the CPU: inputs (`-c random|all_ones`, seeded), the
/// expected outputs, and the count of wrong elements. Elements are little-endian bytes of the
/// dtype; a rank's input and output are the logical element sequences of lower.h (blocks in
/// order), independent of where they sit in SBUF.
///
/// Exactness ([CHOICE D30f]): integer sums wrap (local compute's rule, D28), so any order
/// gives the same bits and the check is exact (sums of up to 2^20 inputs are exact in the
/// double accumulator before they wrap); max and min are exact. Float sums depend on the
/// order the algorithm adds in, so a float element is wrong when it is off by more than
/// ranks x unit roundoff x (sum of |inputs|) — the bound of recursive summation in any
/// order. Random float inputs are multiples of 1/8 in [-1, 1] (exact in every dtype), so fp32
/// sums of up to 2^20 ranks are exact anyway.

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "collectives/src_target_pairs.h"
#include "collectives/types.h"

namespace sbrdma::collectives {

/// How inputs are filled.
enum class DataFill : std::uint8_t {
  kRandom,   ///< `-c random`: seeded per (seed, group, rank, element)
  kAllOnes,  ///< `-c all_ones`: every element 1
};

/// The input of rank `rank` of group `group`: `elements` elements.
std::vector<std::uint8_t> make_input(DataType dt, std::uint64_t elements, DataFill fill,
                                     std::uint64_t seed, unsigned group, unsigned rank);
/// Elements first, first + stride, ... (n of them) of that input, into `out` (n elements of
/// `dt`, back to back). Each element is a hash of (seed, group, rank) and its index alone, so
/// any of them can be made on its own: a partition's share of a tile is one call with stride =
/// partitions. Contract: element indices below 2^32 (a rank's buffer fits one SBUF).
void make_input_range(DataType dt, DataFill fill, std::uint64_t seed, unsigned group,
                      unsigned rank, std::uint64_t first, std::uint64_t n, std::uint8_t* out,
                      std::uint64_t stride = 1);

/// Where a run of one rank's output elements comes from: the reduction of every rank's input
/// elements [in_first, in_first + n), or rank `rank`'s input elements there.
struct OutputSource {
  std::uint64_t out_first = 0;  ///< first output element of the run
  std::uint64_t n = 0;          ///< elements
  bool reduced = false;         ///< every rank's input, reduced; else `rank`'s input
  unsigned rank = 0;
  std::uint64_t in_first = 0;
  bool operator==(const OutputSource&) const = default;
};

/// The sources of rank `rank`'s output of `op`, in output order, covering it exactly, given
/// the element counts of every rank's input and output, and for permute the group's pairs
/// (none: the ring; p2p_dest).
std::vector<OutputSource> output_sources(Op op, const std::vector<std::uint64_t>& in_elements,
                                         const std::vector<std::uint64_t>& out_elements,
                                         unsigned rank, std::span<const SrcTarget> pairs = {});

/// What one rank must end with.
struct Expected {
  std::vector<std::uint8_t> bytes;  ///< exact result (non-float, or non-reduction)
  std::vector<double> value;        ///< float reductions: the exact sum / max / min
  std::vector<double> abs_sum;      ///< float sums: sum of |inputs| per element
};

/// The expected outputs of a group's ranks (all-reduce ranks share one).
struct ExpectedOutputs {
  std::vector<Expected> distinct;
  std::vector<unsigned> of_rank;  ///< index into `distinct` per rank
  const Expected& operator[](unsigned rank) const { return distinct[of_rank[rank]]; }
};

/// Expected outputs of the ranks of one group of `op`, given every rank's input (logical
/// elements), the element counts of each rank's output and the group's permute pairs (as
/// output_sources). Contract: the inputs have the sizes lower.h gives them.
ExpectedOutputs expected_outputs(Op op, DataType dt, ReduceOp red,
                                 const std::vector<std::vector<std::uint8_t>>& inputs,
                                 const std::vector<std::uint64_t>& out_elements,
                                 std::span<const SrcTarget> pairs = {});

/// Elements of `got` that are wrong against `want` (see the tolerance above). Contract:
/// got.size() == the expected byte count.
std::uint64_t count_wrong(DataType dt, unsigned ranks, std::span<const std::uint8_t> got,
                          const Expected& want);

/// Writes input elements first, first + stride, ... (n of them) of rank `rank` to `out`.
using InputRange = std::function<void(unsigned rank, std::uint64_t first, std::uint64_t n,
                                      std::uint64_t stride, std::uint8_t* out)>;

/// Buffers expected_range reuses from call to call.
struct RangeScratch {
  std::vector<std::uint8_t> input;
  std::vector<double> acc;
};

/// Output elements first, first + stride, ... (n of them) of a rank whose output comes from
/// `sources`, into `out` (its buffers reused), with the inputs of `ranks` ranks taken from
/// `input`: the bytes, values and sums expected_outputs gives for those elements (elements
/// no source covers are expected zero). `bytes_only` leaves value and abs_sum empty (the
/// bytes are the same): enough to see that a result is bit-exact, not to count with the float
/// tolerance. Contract: the sources are all reductions or none, in output order without
/// overlaps (as output_sources gives them).
void expected_range(DataType dt, ReduceOp red, unsigned ranks,
                    std::span<const OutputSource> sources, std::uint64_t first, std::uint64_t n,
                    std::uint64_t stride, const InputRange& input, Expected& out,
                    RangeScratch& scratch, bool bytes_only = false);

/// The value of one element as a double (floats widened exactly, integers as numbers).
double element_value(DataType dt, const std::uint8_t* p);
/// Stores `v` as an element of `dt` (floats rounded to nearest even; integers wrap).
void store_element(DataType dt, double v, std::uint8_t* p);

}  // namespace sbrdma::collectives
