#include "platform/collective_data.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace sbrdma::platform {
namespace {

using collectives::Tiled;

/// Columns per chunk: a chunk of 128 partitions of 4-byte elements is 128 KiB, so it and the
/// reference's buffers for it stay in the L2 cache.
constexpr std::uint64_t kChunkCols = 256;

/// The SBUF region of block b of `t` on `core`: its columns in all partitions.
SbufRegion block_region(device::CoreId core, const Tiled& t, std::size_t b) {
  const collectives::Cols c = t.block_cols(b);
  return SbufRegion{core, t.byte_of(c.begin), c.size() * t.elem_bytes, 0, t.partitions};
}

/// A core's partitions in place, after checking every block of `t` lies inside them.
base::Result<std::vector<std::uint8_t*>> partitions(Simulation& sim, device::CoreId core,
                                                    const Tiled& t) {
  for (std::size_t b = 0; b < t.blocks(); ++b) {
    const SbufRegion r = block_region(core, t, b);
    if (r.bytes != 0) SBRDMA_TRY(sim.check_region(r));
  }
  std::vector<std::uint8_t*> out;
  if (t.elements() == 0) return out;
  for (unsigned p = 0; p < t.partitions; ++p) {
    auto s = sim.machine().sbuf_span(core, p);
    if (!s) return s.error();
    out.push_back(s->data());
  }
  return out;
}

/// One chunk of a block: logical elements [c0 * P, c0 * P + n) of the block sit in columns
/// [c0, c0 + cols) from byte `byte0` of every partition.
struct Chunk {
  std::uint64_t first = 0;  ///< logical index (blocks in order) of the chunk's first element
  std::uint64_t n = 0;      ///< elements
  std::uint64_t cols = 0;
  std::uint64_t byte0 = 0;
};

/// Calls f(chunk) for every chunk of `t`, blocks in order.
template <typename F>
void for_each_chunk(const Tiled& t, F f) {
  const std::uint64_t P = t.partitions;
  std::uint64_t first = 0;
  for (std::size_t b = 0; b < t.blocks(); ++b) {
    const collectives::Cols cols = t.block_cols(b);
    const std::uint64_t count = t.counts[b];
    for (std::uint64_t c0 = 0; c0 < cols.size(); c0 += kChunkCols) {
      const std::uint64_t c1 = std::min(c0 + kChunkCols, cols.size());
      f(Chunk{first + c0 * P, std::min(c1 * P, count) - c0 * P, c1 - c0,
              t.byte_of(cols.begin + c0)});
    }
    first += count;
  }
}

/// Logical elements -> partition-major cells: element c*P + p to column c of partition p
/// (from byte `at0` of each), cells past the n elements set to 0. Typed so each element is
/// one move.
template <typename T>
void to_partitions(const std::uint8_t* logical, const Chunk& k, unsigned P,
                   std::uint8_t* const* parts, std::uint64_t at0) {
  for (std::uint64_t c = 0; c < k.cols; ++c) {
    const std::uint8_t* src = logical + c * P * sizeof(T);
    const std::uint64_t at = at0 + c * sizeof(T);
    const auto valid = static_cast<unsigned>(std::min<std::uint64_t>(P, k.n - c * P));
    for (unsigned p = 0; p < valid; ++p) std::memcpy(parts[p] + at, src + p * sizeof(T), sizeof(T));
    for (unsigned p = valid; p < P; ++p) std::memset(parts[p] + at, 0, sizeof(T));
  }
}

/// The inverse, for the n elements only.
template <typename T>
void from_partitions(std::uint8_t* logical, const Chunk& k, unsigned P,
                     std::uint8_t* const* parts) {
  for (std::uint64_t c = 0; c < k.cols; ++c) {
    std::uint8_t* dst = logical + c * P * sizeof(T);
    const std::uint64_t at = k.byte0 + c * sizeof(T);
    const auto valid = static_cast<unsigned>(std::min<std::uint64_t>(P, k.n - c * P));
    for (unsigned p = 0; p < valid; ++p) std::memcpy(dst + p * sizeof(T), parts[p] + at, sizeof(T));
  }
}

void to_partitions(unsigned eb, const std::uint8_t* logical, const Chunk& k, unsigned P,
                   std::uint8_t* const* parts, std::uint64_t at0) {
  switch (eb) {
    case 1:
      return to_partitions<std::uint8_t>(logical, k, P, parts, at0);
    case 2:
      return to_partitions<std::uint16_t>(logical, k, P, parts, at0);
    default:
      return to_partitions<std::uint32_t>(logical, k, P, parts, at0);
  }
}

void from_partitions(unsigned eb, std::uint8_t* logical, const Chunk& k, unsigned P,
                     std::uint8_t* const* parts) {
  switch (eb) {
    case 1:
      return from_partitions<std::uint8_t>(logical, k, P, parts);
    case 2:
      return from_partitions<std::uint16_t>(logical, k, P, parts);
    default:
      return from_partitions<std::uint32_t>(logical, k, P, parts);
  }
}

bool same_layout(const Tiled& a, const Tiled& b) {
  return a.base == b.base && a.elem_bytes == b.elem_bytes && a.partitions == b.partitions &&
         a.counts == b.counts && a.col0 == b.col0;
}

/// Ranks whose outputs have the same sources and the same SBUF layout: one expected output.
struct RankClass {
  std::vector<collectives::OutputSource> sources;
  const Tiled* tile = nullptr;
  std::vector<unsigned> ranks;
};

}  // namespace

base::Status fill_inputs(Simulation& sim, const collectives::Communicator& comm,
                         const collectives::Lowered& low, const CollectiveData& data) {
  std::vector<std::uint8_t> logical;
  for (std::size_t g = 0; g < comm.groups.size(); ++g) {
    for (unsigned r = 0; r < comm.ranks(); ++r) {
      const Tiled& t = low.buffers[g][r].in;
      auto parts = partitions(sim, comm.groups[g][r], t);
      if (!parts) return parts.error();
      logical.resize(kChunkCols * t.partitions * t.elem_bytes);
      for_each_chunk(t, [&](const Chunk& k) {
        collectives::make_input_range(data.dtype, data.fill, data.seed, static_cast<unsigned>(g),
                                      r, k.first, k.n, logical.data());
        to_partitions(t.elem_bytes, logical.data(), k, t.partitions, parts->data(), k.byte0);
      });
    }
  }
  return base::ok_status();
}

base::Result<CheckCount> check_outputs(Simulation& sim, const collectives::Communicator& comm,
                                       const collectives::Lowered& low,
                                       const CollectiveData& data) {
  CheckCount out;
  const unsigned R = comm.ranks();
  for (std::size_t g = 0; g < comm.groups.size(); ++g) {
    std::vector<std::uint64_t> in_elems;
    std::vector<std::uint64_t> out_elems;
    for (unsigned r = 0; r < R; ++r) {
      in_elems.push_back(low.buffers[g][r].in.elements());
      out_elems.push_back(low.buffers[g][r].out.elements());
    }
    std::vector<RankClass> classes;
    for (unsigned r = 0; r < R; ++r) {
      auto sources = collectives::output_sources(data.op, in_elems, out_elems, r);
      const Tiled& t = low.buffers[g][r].out;
      auto it = std::find_if(classes.begin(), classes.end(), [&](const RankClass& c) {
        return c.sources == sources && same_layout(*c.tile, t);
      });
      if (it == classes.end()) {
        classes.push_back(RankClass{std::move(sources), &t, {}});
        it = classes.end() - 1;
      }
      it->ranks.push_back(r);
    }
    const collectives::InputRange input = [&](unsigned rank, std::uint64_t first,
                                              std::uint64_t n, std::uint8_t* to) {
      collectives::make_input_range(data.dtype, data.fill, data.seed, static_cast<unsigned>(g),
                                    rank, first, n, to);
    };
    collectives::Expected want;
    collectives::RangeScratch scratch;
    std::vector<std::uint8_t> laid;  // the expected chunk, one row of cells per partition
    std::vector<std::uint8_t> got;
    for (const RankClass& c : classes) {
      const Tiled& t = *c.tile;
      const unsigned P = t.partitions;
      const unsigned eb = t.elem_bytes;
      std::vector<std::vector<std::uint8_t*>> parts;
      for (unsigned r : c.ranks) {
        auto p = partitions(sim, comm.groups[g][r], t);
        if (!p) return p.error();
        parts.push_back(std::move(*p));
        out.checked += out_elems[r];
      }
      laid.resize(kChunkCols * P * eb);
      std::vector<std::uint8_t*> rows(P);
      for_each_chunk(t, [&](const Chunk& k) {
        collectives::expected_range(data.dtype, data.reduce, R, c.sources, k.first, k.n, input,
                                    want, scratch);
        // Lay the chunk out as the SBUF holds it: row p is partition p's cells from byte0.
        for (unsigned p = 0; p < P; ++p) rows[p] = laid.data() + p * k.cols * eb;
        to_partitions(eb, want.bytes.data(), k, P, rows.data(), 0);
        const std::uint64_t full = k.n / P;  // columns every partition fills
        for (std::size_t i = 0; i < c.ranks.size(); ++i) {
          bool same = true;
          for (unsigned p = 0; p < P && same; ++p) {
            const std::uint64_t cells = full + (p < k.n % P ? 1 : 0);
            same = std::memcmp(parts[i][p] + k.byte0, rows[p], cells * eb) == 0;
          }
          if (same) continue;
          got.resize(k.n * eb);
          from_partitions(eb, got.data(), k, P, parts[i].data());
          out.wrong += collectives::count_wrong(data.dtype, R, got, want);
        }
      });
    }
  }
  return out;
}

}  // namespace sbrdma::platform
