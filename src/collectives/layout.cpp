#include "collectives/layout.h"

#include <algorithm>
#include <cstring>

#include "base/bits.h"
#include "base/check.h"

namespace sbrdma::collectives {

std::uint64_t total_cols(const Segments& s) {
  std::uint64_t n = 0;
  for (const Cols& c : s) n += c.size();
  return n;
}

void append(Segments& s, Cols c) {
  if (c.empty()) return;
  if (!s.empty() && s.back().end == c.begin) {
    s.back().end = c.end;
    return;
  }
  s.push_back(c);
}

std::vector<Cols> split_even(Cols c, unsigned parts) {
  SBRDMA_CHECK(parts > 0);
  std::vector<Cols> out;
  out.reserve(parts);
  const std::uint64_t n = c.size();
  std::uint64_t at = c.begin;
  for (unsigned k = 0; k < parts; ++k) {
    const std::uint64_t len = n / parts + (k < n % parts ? 1 : 0);
    out.push_back(Cols{at, at + len});
    at += len;
  }
  return out;
}

Segments split_piece(const Segments& s, unsigned parts, unsigned k) {
  SBRDMA_CHECK(k < parts);
  const std::uint64_t n = total_cols(s);
  const std::uint64_t lo = k * (n / parts) + std::min<std::uint64_t>(k, n % parts);
  const std::uint64_t hi = lo + n / parts + (k < n % parts ? 1 : 0);
  Segments out;
  std::uint64_t seen = 0;  // columns of `s` before the current range
  for (const Cols& c : s) {
    const std::uint64_t a = std::max(lo, seen);
    const std::uint64_t b = std::min(hi, seen + c.size());
    if (a < b) append(out, Cols{c.begin + (a - seen), c.begin + (b - seen)});
    seen += c.size();
  }
  return out;
}

std::vector<std::uint64_t> even_counts(std::uint64_t count, unsigned parts) {
  SBRDMA_CHECK(parts > 0);
  std::vector<std::uint64_t> out(parts, count / parts);
  for (std::uint64_t k = 0; k < count % parts; ++k) ++out[k];
  return out;
}

std::uint64_t cols_for(std::uint64_t n, unsigned partitions) {
  return base::ceil_div(n, partitions);
}

Cols Tiled::block_cols(std::size_t b) const {
  SBRDMA_CHECK(b < counts.size());
  return Cols{col0[b], col0[b] + cols_for(counts[b], partitions)};
}

std::uint64_t Tiled::end_col() const {
  std::uint64_t e = 0;
  for (std::size_t b = 0; b < counts.size(); ++b) e = std::max(e, block_cols(b).end);
  return e;
}

std::uint64_t Tiled::elements() const {
  std::uint64_t n = 0;
  for (std::uint64_t c : counts) n += c;
  return n;
}

Tiled Tiled::block(std::size_t b) const {
  SBRDMA_CHECK(b < counts.size());
  Tiled t = *this;
  t.counts = {counts[b]};
  t.col0 = {col0[b]};
  return t;
}

std::vector<TileRun> runs(const Tiled& t) {
  std::vector<TileRun> out;
  std::uint64_t first = 0;
  for (std::size_t b = 0; b < t.counts.size(); ++b) {
    const std::uint64_t n = t.counts[b];
    for (unsigned p = 0; p < t.partitions && p < n; ++p) {
      out.push_back(
          TileRun{p, t.byte_of(t.col0[b]), first + p, base::ceil_div(n - p, t.partitions)});
    }
    first += n;
  }
  return out;
}

void pack_run(const TileRun& r, const std::uint8_t* logical, unsigned eb, unsigned partitions,
              std::uint8_t* out) {
  const std::uint8_t* src = logical + r.first * eb;
  const std::size_t stride = static_cast<std::size_t>(partitions) * eb;
  for (std::uint64_t i = 0; i < r.n; ++i, src += stride, out += eb) std::memcpy(out, src, eb);
}

void unpack_run(const TileRun& r, const std::uint8_t* bytes, unsigned eb, unsigned partitions,
                std::uint8_t* logical) {
  std::uint8_t* dst = logical + r.first * eb;
  const std::size_t stride = static_cast<std::size_t>(partitions) * eb;
  for (std::uint64_t i = 0; i < r.n; ++i, dst += stride, bytes += eb) std::memcpy(dst, bytes, eb);
}

Tiled tile_blocks(std::uint64_t base, unsigned elem_bytes, unsigned partitions,
                  const std::vector<std::uint64_t>& counts) {
  Tiled t;
  t.base = base;
  t.elem_bytes = elem_bytes;
  t.partitions = partitions;
  t.counts = counts;
  std::uint64_t col = 0;
  for (std::uint64_t n : counts) {
    t.col0.push_back(col);
    col += cols_for(n, partitions);
  }
  return t;
}

}  // namespace sbrdma::collectives
