#include "platform/collective_data.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "base/bits.h"
#include "base/split_work.h"

namespace sbrdma::platform {
namespace {

using collectives::Tiled;

/// Cells of a partition checked at a time: the reference's buffers for them (inputs, sums
/// and magnitudes in doubles) stay in the L1 and L2 caches.
constexpr std::uint64_t kChunkCells = 2048;
/// Cells of a partition filled at a time: one buffer of at most 64 KiB, in the L2 cache. A
/// fill only makes cells and copies them, so its cost per call (the machine's address
/// lookup) counts; the 16 MiB all-reduce's fill took 22-31 ms of CPU (median 28) with 2048
/// cells a call, 22-26 ms (median 23) with these.
constexpr std::uint64_t kFillCells = 16384;
/// Bytes of every rank of a class read at once for rows whose bytes follow each other.
constexpr std::uint64_t kSpanBytes = 64 * 1024;
/// Pieces a class's rows are checked in (split_work claims them one at a time, so more pieces
/// than threads even out the two threads' shares).
constexpr std::size_t kCheckPieces = 16;

/// The SBUF region of block b of `t` on `core`: its columns in all partitions.
SbufRegion block_region(device::CoreId core, const Tiled& t, std::size_t b) {
  const collectives::Cols c = t.block_cols(b);
  return SbufRegion{core, t.byte_of(c.begin), c.size() * t.elem_bytes, 0, t.partitions};
}

/// Errors unless every block of `t` lies inside `core`'s partitions.
base::Status check_tile(const Simulation& sim, device::CoreId core, const Tiled& t) {
  for (std::size_t b = 0; b < t.blocks(); ++b) {
    const SbufRegion r = block_region(core, t, b);
    if (r.bytes != 0) SBRDMA_TRY(sim.check_region(r));
  }
  return base::ok_status();
}

/// One partition's cells of a run of blocks: elements first, first + P, ... (n of them,
/// logical indices) from byte `byte0` of partition p, then `pad` padding cells.
struct Row {
  unsigned p = 0;
  std::uint64_t first = 0;
  std::uint64_t n = 0;
  std::uint64_t pad = 0;
  std::uint64_t byte0 = 0;
};

/// Calls f(row) for the cells of every partition of `t`, partition by partition, blocks in
/// order. A block whose element count is a multiple of P ends with no padding in any
/// partition, and the next block's cells there continue both its bytes and its elements'
/// stride: one row takes such a run of blocks. A buffer of R blocks (all-gather's output,
/// all-to-all's) is then a row per partition, not R: the fill and the check pay the
/// machine's address lookup and the reference's setup per row.
template <typename F>
void for_each_row(const Tiled& t, F f) {
  const std::uint64_t P = t.partitions;
  const unsigned eb = t.elem_bytes;
  for (unsigned p = 0; p < P; ++p) {
    Row run;
    bool open = false;
    std::uint64_t first = 0;
    for (std::size_t b = 0; b < t.blocks(); ++b) {
      const collectives::Cols cols = t.block_cols(b);
      const std::uint64_t count = t.counts[b];
      if (count == 0) continue;  // no columns
      const std::uint64_t n = count > p ? base::ceil_div(count - p, P) : 0;
      const Row row{p, first + p, n, cols.size() - n, t.byte_of(cols.begin)};
      first += count;
      // Bytes that continue leave no padding between; elements that continue, no gap.
      if (open && run.byte0 + run.n * eb == row.byte0 && run.first + run.n * P == row.first) {
        run.n += row.n;
        run.pad = row.pad;
        continue;
      }
      if (open) f(run);
      run = row;
      open = true;
    }
    if (open) f(run);
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
  // Cells are made kFillCells at a time into a small buffer and written through the
  // machine, so SBUF pages learn exactly which bytes were written (the page pool zeroes only
  // those when it hands a page out again). Each rank's core is one piece of split_work: pieces
  // write disjoint memories (one core's SBUF each), so the bytes do not depend on which
  // thread wrote them.
  struct Item {
    std::size_t g;
    unsigned r;
  };
  std::vector<Item> items;
  for (std::size_t g = 0; g < comm.groups.size(); ++g) {
    for (unsigned r = 0; r < comm.ranks(); ++r) {
      SBRDMA_TRY(check_tile(sim, comm.groups[g][r], low.buffers[g][r].in));
      items.push_back({g, r});
    }
  }
  std::vector<base::Status> status(items.size(), base::ok_status());
  base::split_work(items.size(), [&](std::size_t k) {
    const auto [g, r] = items[k];
    const Tiled& t = low.buffers[g][r].in;
    const device::CoreId core = comm.groups[g][r];
    const unsigned eb = t.elem_bytes;
    std::vector<std::uint8_t> cells(kFillCells * eb);
    base::Status& st = status[k];
    // The cells made so far, from byte `at` of partition `p`: rows whose bytes follow each
    // other (small blocks side by side, each a row of its own) share one write.
    unsigned p = 0;
    std::uint64_t at = 0;
    std::uint64_t held = 0;
    const auto flush = [&] {
      if (held != 0 && st)
        st = sim.machine().sbuf_write(core, p, at, std::span(cells.data(), held * eb));
      held = 0;
    };
    for_each_row(t, [&](const Row& w) {
      for (std::uint64_t i = 0; i < w.n + w.pad && st; i += kFillCells) {
        const std::uint64_t n = std::min(kFillCells, w.n + w.pad - i);
        const std::uint64_t byte = w.byte0 + i * eb;
        if (held != 0 && (w.p != p || byte != at + held * eb || held + n > kFillCells)) flush();
        if (held == 0) {
          p = w.p;
          at = byte;
        }
        std::uint8_t* to = cells.data() + held * eb;
        const std::uint64_t made = i < w.n ? std::min(n, w.n - i) : 0;  // then padding: 0
        collectives::make_input_range(data.dtype, data.fill, data.seed, static_cast<unsigned>(g), r,
                                      w.first + i * t.partitions, made, to, t.partitions);
        std::memset(to + made * eb, 0, (n - made) * eb);
        held += n;
      }
    });
    flush();
  });
  for (const base::Status& st : status) SBRDMA_TRY(st);
  return base::ok_status();
}

base::Result<CheckCount> check_outputs(const Simulation& sim, const collectives::Communicator& comm,
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
      SBRDMA_TRY(check_tile(sim, comm.groups[g][r], low.buffers[g][r].out));
    }
    std::vector<RankClass> classes;
    for (unsigned r = 0; r < R; ++r) {
      auto sources = collectives::output_sources(data.op, in_elems, out_elems, r,
                                                 collectives::pairs_of(data.pairs, g));
      const Tiled& t = low.buffers[g][r].out;
      auto it = std::find_if(classes.begin(), classes.end(), [&](const RankClass& c) {
        return c.sources == sources && same_layout(*c.tile, t);
      });
      if (it == classes.end()) {
        classes.push_back(RankClass{std::move(sources), &t, {}});
        it = classes.end() - 1;
      }
      it->ranks.push_back(r);
      out.checked += out_elems[r];
    }
    const collectives::InputRange input = [&](unsigned rank, std::uint64_t first, std::uint64_t n,
                                              std::uint64_t stride, std::uint8_t* to) {
      collectives::make_input_range(data.dtype, data.fill, data.seed, static_cast<unsigned>(g),
                                    rank, first, n, to, stride);
    };
    // The rows of a class are checked in pieces of split_work, each with its own buffers and
    // counts (the counts add up the same whichever thread checked which piece).
    /// Rows [begin, end) of a class, read as one: `cells` with their padding.
    struct Span {
      std::size_t begin;
      std::size_t end;
      std::uint64_t cells;
    };
    struct Piece {
      collectives::Expected want;
      collectives::RangeScratch scratch;
      std::vector<std::uint8_t> got;
      std::uint64_t wrong = 0;
      base::Status st = base::ok_status();
    };
    for (const RankClass& c : classes) {
      const Tiled& t = *c.tile;
      const unsigned eb = t.elem_bytes;
      const std::size_t ranks = c.ranks.size();
      std::vector<Row> rows;
      for_each_row(t, [&](const Row& w) { rows.push_back(w); });
      // Rows whose bytes follow each other in a partition (small blocks side by side) are
      // read as one span, every rank's once, while all of it stays in cache.
      const std::uint64_t span_cap =
          std::clamp<std::uint64_t>(kSpanBytes / (ranks * eb), 1, kChunkCells);
      std::vector<Span> spans;
      for (std::size_t ri = 0; ri < rows.size(); ++ri) {
        const Row& w = rows[ri];
        if (!spans.empty()) {
          Span& last = spans.back();
          const Row& prev = rows[last.end - 1];
          if (prev.p == w.p && prev.byte0 + (prev.n + prev.pad) * eb == w.byte0 &&
              last.cells + w.n + w.pad <= span_cap) {
            ++last.end;
            last.cells += w.n + w.pad;
            continue;
          }
        }
        spans.push_back(Span{ri, ri + 1, w.n + w.pad});
      }
      const std::size_t pieces = std::min<std::size_t>(spans.size(), kCheckPieces);
      std::vector<Piece> done(pieces);
      base::split_work(pieces, [&](std::size_t k) {
        Piece& pc = done[k];
        // The class's output elements [first, first + n*P) step P (the bytes first, the float
        // sums' values only once a rank's differ), then each rank's bytes of them as
        // got(q) gives them, q-th rank of the class.
        const auto check = [&](std::uint64_t first, std::uint64_t n, const auto& got) {
          const auto expect = [&](bool bytes_only) {
            collectives::expected_range(data.dtype, data.reduce, R, c.sources, first, n,
                                        t.partitions, input, pc.want, pc.scratch, bytes_only);
          };
          expect(true);
          bool whole = false;
          for (std::size_t q = 0; q < ranks && pc.st; ++q) {
            const std::span<const std::uint8_t> bytes = got(q);
            if (!pc.st) break;
            if (std::memcmp(bytes.data(), pc.want.bytes.data(), n * eb) == 0) continue;
            if (!whole) expect(false);
            whole = true;
            pc.wrong += collectives::count_wrong(data.dtype, R, bytes, pc.want);
          }
        };
        const auto read = [&](std::size_t q, unsigned p, std::uint64_t byte, std::uint8_t* to,
                              std::uint64_t cells) {
          pc.st = sim.machine().sbuf_read(comm.groups[g][c.ranks[q]], p, byte,
                                          std::span(to, cells * eb));
        };
        for (std::size_t si = spans.size() * k / pieces;
             si < spans.size() * (k + 1) / pieces && pc.st; ++si) {
          const Span& sp = spans[si];
          if (sp.end - sp.begin > 1) {
            const Row& w0 = rows[sp.begin];
            const std::uint64_t span_bytes = sp.cells * eb;
            pc.got.resize(ranks * span_bytes);
            for (std::size_t q = 0; q < ranks && pc.st; ++q) {
              read(q, w0.p, w0.byte0, pc.got.data() + q * span_bytes, sp.cells);
            }
            std::uint64_t at = 0;  // bytes into the span
            for (std::size_t ri = sp.begin; ri < sp.end && pc.st; ++ri) {
              const Row& w = rows[ri];
              if (w.n != 0) {
                check(w.first, w.n, [&](std::size_t q) {
                  return std::span<const std::uint8_t>(pc.got.data() + q * span_bytes + at,
                                                       w.n * eb);
                });
              }
              at += (w.n + w.pad) * eb;
            }
            continue;
          }
          // One row: its cells kChunkCells at a time, so the reference's buffers stay in cache,
          // and each rank's read just before it is compared.
          const Row& w = rows[sp.begin];
          for (std::uint64_t i = 0; i < w.n && pc.st; i += kChunkCells) {
            const std::uint64_t n = std::min(kChunkCells, w.n - i);
            pc.got.resize(n * eb);
            check(w.first + i * t.partitions, n, [&](std::size_t q) {
              read(q, w.p, w.byte0 + i * eb, pc.got.data(), n);
              return std::span<const std::uint8_t>(pc.got);
            });
          }
        }
      });
      for (const Piece& pc : done) {
        SBRDMA_TRY(pc.st);
        out.wrong += pc.wrong;
      }
    }
  }
  return out;
}

}  // namespace sbrdma::platform
