#pragma once
/// How collective buffers sit in SBUF. rdma_desc_gen moves one free-dim slice
/// [offset, offset + bytes) of all 128 partitions at once, so the lowering cuts buffers into
/// column ranges ("columns" = element positions along the free dimension).
///
/// A buffer is a row of blocks; block b holds counts[b] elements as a column-major tile:
///
///              col0[b]            col0[b] + cols(b)            (cols(b) = ceil(n / 128))
///   partition 0   | e0    e128   e256  ...
///   partition 1   | e1    e129   ...
///     ...         |
///   partition 127 | e127  e255   ...                 element e -> (e % 128, col0 + e / 128)
///
/// so a column range of a block is a contiguous run of its elements. Unused tail cells
/// (count not a multiple of 128) are padding: moved and reduced, never checked. [CHOICE D30a]

#include <cstdint>
#include <vector>

namespace sbrdma::collectives {

/// A column range [begin, end).
struct Cols {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  [[nodiscard]] std::uint64_t size() const { return end - begin; }
  [[nodiscard]] bool empty() const { return end <= begin; }
  bool operator==(const Cols&) const = default;
};

/// A piece of a buffer: column ranges in order (adjacent ranges are merged).
using Segments = std::vector<Cols>;

/// Columns in `s`.
std::uint64_t total_cols(const Segments& s);
/// Appends `c` to `s`, merging it with the last range when they touch; empty ranges vanish.
void append(Segments& s, Cols c);
/// `parts` near-equal consecutive ranges of `c` (the first ones one column longer).
std::vector<Cols> split_even(Cols c, unsigned parts);
/// Part `k` of `parts` near-equal parts of `s`, cut by column count.
Segments split_piece(const Segments& s, unsigned parts, unsigned k);

/// Elements per block when `count` elements are cut into `parts` near-equal blocks (the
/// first count % parts blocks one longer).
std::vector<std::uint64_t> even_counts(std::uint64_t count, unsigned parts);

/// A row of column-major tiles (see the diagram above).
struct Tiled {
  std::uint64_t base = 0;  ///< byte offset of column 0 in each partition
  unsigned elem_bytes = 1;
  unsigned partitions = 128;
  std::vector<std::uint64_t> counts;  ///< elements of each block
  std::vector<std::uint64_t> col0;    ///< first column of each block

  [[nodiscard]] std::size_t blocks() const { return counts.size(); }
  /// Columns block `b` spans.
  [[nodiscard]] Cols block_cols(std::size_t b) const;
  /// One past the last column of any block.
  [[nodiscard]] std::uint64_t end_col() const;
  /// All elements, blocks in order.
  [[nodiscard]] std::uint64_t elements() const;
  /// Byte offset of column `col` in every partition.
  [[nodiscard]] std::uint64_t byte_of(std::uint64_t col) const { return base + col * elem_bytes; }
  /// The block `b` alone (same base and columns).
  [[nodiscard]] Tiled block(std::size_t b) const;
};

/// One partition's share of one block: logical elements first, first + P, first + 2P, ...
/// (n of them, P = partitions) stored back to back from byte `offset` of `partition`. The
/// logical index runs over the blocks in order.
struct TileRun {
  unsigned partition = 0;
  std::uint64_t offset = 0;
  std::uint64_t first = 0;
  std::uint64_t n = 0;
};
/// The runs of `t` (non-empty ones), block by block, partition by partition.
std::vector<TileRun> runs(const Tiled& t);
/// The SBUF bytes of run `r` taken from `logical` (elements of `eb` bytes, blocks in order).
/// Contract: `out` holds r.n * eb bytes; `logical` holds the run's elements.
void pack_run(const TileRun& r, const std::uint8_t* logical, unsigned eb, unsigned partitions,
              std::uint8_t* out);
/// The inverse: SBUF bytes of run `r` into their places in `logical`.
void unpack_run(const TileRun& r, const std::uint8_t* bytes, unsigned eb, unsigned partitions,
                std::uint8_t* logical);

/// Blocks of `counts` elements side by side from column 0 at byte `base`.
Tiled tile_blocks(std::uint64_t base, unsigned elem_bytes, unsigned partitions,
                  const std::vector<std::uint64_t>& counts);
/// Columns `n` elements take.
std::uint64_t cols_for(std::uint64_t n, unsigned partitions);

}  // namespace sbrdma::collectives
