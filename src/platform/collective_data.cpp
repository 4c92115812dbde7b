#include "platform/collective_data.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace sbrdma::platform {
namespace {

using collectives::Tiled;

/// Cells of a partition checked at a time: the reference's buffers for them (inputs, sums
/// and magnitudes in doubles) stay in the L1 and L2 caches.
constexpr std::uint64_t kChunkCells = 2048;

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

/// One partition's cells of one block: elements first, first + P, ... (n of them, logical
/// indices, blocks in order) from byte `byte0` of partition p, then `pad` padding cells.
struct Row {
  unsigned p = 0;
  std::uint64_t first = 0;
  std::uint64_t n = 0;
  std::uint64_t pad = 0;
  std::uint64_t byte0 = 0;
};

/// Calls f(row) for every partition's cells of every block of `t`, blocks in order.
template <typename F>
void for_each_row(const Tiled& t, F f) {
  const std::uint64_t P = t.partitions;
  std::uint64_t first = 0;
  for (std::size_t b = 0; b < t.blocks(); ++b) {
    const collectives::Cols cols = t.block_cols(b);
    const std::uint64_t count = t.counts[b];
    if (count == 0) continue;  // no columns
    for (unsigned p = 0; p < P; ++p) {
      const std::uint64_t n = count > p ? (count - p + P - 1) / P : 0;
      f(Row{p, first + p, n, cols.size() - n, t.byte_of(cols.begin)});
    }
    first += count;
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
  for (std::size_t g = 0; g < comm.groups.size(); ++g) {
    for (unsigned r = 0; r < comm.ranks(); ++r) {
      const Tiled& t = low.buffers[g][r].in;
      auto parts = partitions(sim, comm.groups[g][r], t);
      if (!parts) return parts.error();
      const unsigned eb = t.elem_bytes;
      for_each_row(t, [&](const Row& w) {
        std::uint8_t* at = (*parts)[w.p] + w.byte0;
        collectives::make_input_range(data.dtype, data.fill, data.seed, static_cast<unsigned>(g),
                                      r, w.first, w.n, at, t.partitions);
        std::memset(at + w.n * eb, 0, w.pad * eb);
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
                                              std::uint64_t n, std::uint64_t stride,
                                              std::uint8_t* to) {
      collectives::make_input_range(data.dtype, data.fill, data.seed, static_cast<unsigned>(g),
                                    rank, first, n, to, stride);
    };
    collectives::Expected want;
    collectives::RangeScratch scratch;
    for (const RankClass& c : classes) {
      const Tiled& t = *c.tile;
      const unsigned eb = t.elem_bytes;
      std::vector<std::vector<std::uint8_t*>> parts;
      for (unsigned r : c.ranks) {
        auto p = partitions(sim, comm.groups[g][r], t);
        if (!p) return p.error();
        parts.push_back(std::move(*p));
        out.checked += out_elems[r];
      }
      // A partition's cells, kChunkCells at a time: the reference's buffers stay in cache.
      for_each_row(t, [&](const Row& w) {
        for (std::uint64_t i = 0; i < w.n; i += kChunkCells) {
          const std::uint64_t n = std::min(kChunkCells, w.n - i);
          collectives::expected_range(data.dtype, data.reduce, R, c.sources,
                                      w.first + i * t.partitions, n, t.partitions, input, want,
                                      scratch);
          for (const auto& rank_parts : parts) {
            const std::span<const std::uint8_t> got(rank_parts[w.p] + w.byte0 + i * eb, n * eb);
            out.wrong += collectives::count_wrong(data.dtype, R, got, want);
          }
        }
      });
    }
  }
  return out;
}

}  // namespace sbrdma::platform
