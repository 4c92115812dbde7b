#include "collectives/reference.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "base/bits.h"
#include "base/check.h"

namespace sbrdma::collectives {
namespace {

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

bool is_float(DataType dt) {
  return dt == DataType::kFp32 || dt == DataType::kBf16 || dt == DataType::kFp16;
}

/// Unit roundoff of a float dtype. [HIGH] IEEE 754 binary32/binary16, bfloat16 (8-bit p)
double unit_roundoff(DataType dt) {
  switch (dt) {
    case DataType::kFp32:
      return std::ldexp(1.0, -24);
    case DataType::kFp16:
      return std::ldexp(1.0, -11);
    case DataType::kBf16:
      return std::ldexp(1.0, -8);
    default:
      return 0.0;
  }
}

float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h >> 15) & 1U;
  const std::uint32_t exp = (h >> 10) & 0x1FU;
  const std::uint32_t man = h & 0x3FFU;
  float mag = 0.0F;
  if (exp == 0) {
    mag = std::ldexp(static_cast<float>(man), -24);
  } else if (exp == 31) {
    mag = man == 0 ? INFINITY : NAN;
  } else {
    mag = std::ldexp(static_cast<float>(man | 0x400U), static_cast<int>(exp) - 25);
  }
  return sign != 0 ? -mag : mag;
}

std::uint16_t float_to_half_bits(float f) {
  // Round to nearest even through the exact double value. Inputs here are small multiples
  // of 1/8 or sums of them, so only the normal range matters; out of range saturates to inf.
  const std::uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  double a = std::fabs(static_cast<double>(f));
  if (std::isnan(f)) return 0x7E00;
  if (a == 0.0) return sign;
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1 + 15;
  if (exp <= 0) {  // subnormal: units of 2^-24
    const double q = std::nearbyint(a * std::ldexp(1.0, 24));
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(q));
  }
  double man = std::nearbyint(std::ldexp(a, 10 - (e - 1)));  // in [1024, 2048]
  if (man >= 2048.0) {
    man /= 2.0;
    ++exp;
  }
  if (exp >= 31) return static_cast<std::uint16_t>(sign | 0x7C00);
  return static_cast<std::uint16_t>(sign | (exp << 10) | (static_cast<unsigned>(man) & 0x3FFU));
}

std::uint16_t float_to_bf16_bits(float f) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>((u >> 16) | 0x40);
  u += 0x7FFF + ((u >> 16) & 1U);  // round to nearest even
  return static_cast<std::uint16_t>(u >> 16);
}

}  // namespace

double element_value(DataType dt, const std::uint8_t* p) {
  switch (dt) {
    case DataType::kFp32:
      return std::bit_cast<float>(base::load_le<std::uint32_t>(p));
    case DataType::kBf16:
      return std::bit_cast<float>(static_cast<std::uint32_t>(base::load_le<std::uint16_t>(p))
                                  << 16);
    case DataType::kFp16:
      return half_bits_to_float(base::load_le<std::uint16_t>(p));
    case DataType::kInt32:
      return static_cast<std::int32_t>(base::load_le<std::uint32_t>(p));
    case DataType::kUint32:
      return base::load_le<std::uint32_t>(p);
    case DataType::kInt16:
      return static_cast<std::int16_t>(base::load_le<std::uint16_t>(p));
    case DataType::kUint16:
      return base::load_le<std::uint16_t>(p);
    case DataType::kInt8:
      return static_cast<std::int8_t>(*p);
    case DataType::kUint8:
      return *p;
  }
  return 0.0;
}

namespace {

/// An integer value (a whole number, exact in the double) wrapped to the `U` bits of an
/// element: sums wrap as the firmware's do (D28b).
template <typename U>
[[gnu::always_inline]] inline void store_int(double v, std::uint8_t* p) {
  base::store_le<U>(p, static_cast<U>(static_cast<std::int64_t>(v)));
}

}  // namespace

void store_element(DataType dt, double v, std::uint8_t* p) {
  switch (dt) {
    case DataType::kFp32:
      base::store_le<std::uint32_t>(p, std::bit_cast<std::uint32_t>(static_cast<float>(v)));
      return;
    case DataType::kBf16:
      base::store_le<std::uint16_t>(p, float_to_bf16_bits(static_cast<float>(v)));
      return;
    case DataType::kFp16:
      base::store_le<std::uint16_t>(p, float_to_half_bits(static_cast<float>(v)));
      return;
    case DataType::kInt32:
    case DataType::kUint32:
      return store_int<std::uint32_t>(v, p);
    case DataType::kInt16:
    case DataType::kUint16:
      return store_int<std::uint16_t>(v, p);
    case DataType::kInt8:
    case DataType::kUint8:
      return store_int<std::uint8_t>(v, p);
  }
}

std::vector<std::uint8_t> make_input(DataType dt, std::uint64_t elements, DataFill fill,
                                     std::uint64_t seed, unsigned group, unsigned rank) {
  std::vector<std::uint8_t> out(elements * dtype_bytes(dt));
  make_input_range(dt, fill, seed, group, rank, 0, elements, out.data());
  return out;
}

namespace {

/// The random data's hash of a 32-bit counter (Chris Wellons' "lowbias32": two multiply and
/// three xor-shift rounds, every output bit depends on every input bit). Only 32-bit lane
/// operations, so a loop over elements vectorises.
inline std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7FEB352DU;
  x ^= x >> 15;
  x *= 0x846CA68BU;
  x ^= x >> 16;
  return x;
}

static_assert(std::endian::native == std::endian::little,
              "elements are little-endian bytes; the generator stores them natively");

/// One loop per element type: out[i] = make(hash of element first + i * stride), stored as
/// T. The counter is (key + element index) mod 2^32; make_input_range checks the indices fit.
/// The counter advances by `stride` per element in a 32-bit lane (no multiply per element).
template <typename T, typename Make>
void fill_hashed(std::uint32_t key, std::uint64_t first, std::uint64_t n, std::uint64_t stride,
                 std::uint8_t* out, Make make) {
  auto at = static_cast<std::uint32_t>(key + first);
  const auto step = static_cast<std::uint32_t>(stride);
  for (std::uint64_t i = 0; i < n; ++i, at += step) {
    const T v = make(mix32(at));
    std::memcpy(out + i * sizeof(T), &v, sizeof(T));
  }
}

/// `n` copies of the element `bytes` (T wide).
template <typename T>
void fill_same(const std::uint8_t* bytes, std::uint64_t n, std::uint8_t* out) {
  T v;
  std::memcpy(&v, bytes, sizeof v);
  for (std::uint64_t i = 0; i < n; ++i) std::memcpy(out + i * sizeof(T), &v, sizeof(T));
}

/// 0..16 from the top 24 bits of a hash, floor((h / 2^8) * 17 / 2^24): each value takes
/// 2^24 / 17 of them (rounded), so the 17 are equally likely to 1 part in 10^6.
inline std::uint32_t seventeenth(std::uint32_t h) {
  return ((h >> 8) * 17U) >> 24;
}

/// The fp32 bits of k/8 for k = seventeenth(h) - 8, computed (no table: the loop vectorises).
inline std::uint32_t eighth_fp32_bits(std::uint32_t h) {
  const float v = static_cast<float>(static_cast<std::int32_t>(seventeenth(h)) - 8) * 0.125F;
  return std::bit_cast<std::uint32_t>(v);
}

/// The random fill is built three times on x86-64, for AVX-512, AVX2 and the baseline, and the
/// loader picks one for the CPU: the hash's 32-bit multiplies are one instruction from AVX2 on
/// (SSE2 has none), over 8 or 16 lanes; each step halves its cost. Every build gives the same
/// bytes (integer lane operations, and k * 0.125F is exact). Sanitizer builds keep the
/// baseline one, so the tests run it as well as the CPU's own (and under ThreadSanitizer the
/// loader's pick, which runs before the sanitizer is set up, would crash the process).
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define SBRDMA_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
#ifndef SBRDMA_CLONES
#define SBRDMA_CLONES
#endif

/// Elements first, first + stride, ... (n) of the random input whose hash key is `key`.
SBRDMA_CLONES void fill_random(DataType dt, std::uint32_t key, std::uint64_t first, std::uint64_t n,
                               std::uint64_t stride, std::uint8_t* out) {
  switch (dt) {
    case DataType::kFp32:  // k/8 for k in -8..8: exact in every float dtype
      return fill_hashed<std::uint32_t>(key, first, n, stride, out, eighth_fp32_bits);
    case DataType::kBf16:  // k/8 has at most 4 significant bits: the top half of its fp32
      return fill_hashed<std::uint16_t>(key, first, n, stride, out, [](std::uint32_t h) {
        return static_cast<std::uint16_t>(eighth_fp32_bits(h) >> 16);
      });
    case DataType::kFp16: {
      std::uint16_t table[17];
      for (int k = 0; k < 17; ++k) {
        std::uint8_t b[2];
        store_element(dt, static_cast<double>(k - 8) / 8.0, b);
        table[k] = base::load_le<std::uint16_t>(b);
      }
      return fill_hashed<std::uint16_t>(
          key, first, n, stride, out, [&table](std::uint32_t h) { return table[seventeenth(h)]; });
    }
    case DataType::kInt32:  // integers: the whole range
    case DataType::kUint32:
      return fill_hashed<std::uint32_t>(key, first, n, stride, out,
                                        [](std::uint32_t h) { return h; });
    case DataType::kInt16:
    case DataType::kUint16:
      return fill_hashed<std::uint16_t>(key, first, n, stride, out, [](std::uint32_t h) {
        return static_cast<std::uint16_t>(h >> 16);
      });
    case DataType::kInt8:
    case DataType::kUint8:
      return fill_hashed<std::uint8_t>(key, first, n, stride, out, [](std::uint32_t h) {
        return static_cast<std::uint8_t>(h >> 24);
      });
  }
}

}  // namespace

void make_input_range(DataType dt, DataFill fill, std::uint64_t seed, unsigned group, unsigned rank,
                      std::uint64_t first, std::uint64_t n, std::uint8_t* out,
                      std::uint64_t stride) {
  const unsigned eb = dtype_bytes(dt);
  if (fill == DataFill::kAllOnes) {
    std::uint8_t one[4] = {};
    store_element(dt, 1.0, one);
    if (eb == 4) return fill_same<std::uint32_t>(one, n, out);
    if (eb == 2) return fill_same<std::uint16_t>(one, n, out);
    return fill_same<std::uint8_t>(one, n, out);
  }
  if (n == 0) return;
  // Element indices are 32-bit counters: a rank's buffer lies in one core's SBUF, far below.
  SBRDMA_CHECK(stride <= 0xFFFFFFFFULL && first + (n - 1) * stride <= 0xFFFFFFFFULL);
  const auto key =
      static_cast<std::uint32_t>(splitmix(seed ^ splitmix((std::uint64_t{group} << 32) | rank)));
  fill_random(dt, key, first, n, stride, out);
}

std::vector<OutputSource> output_sources(Op op, const std::vector<std::uint64_t>& in_elements,
                                         const std::vector<std::uint64_t>& out_elements,
                                         unsigned rank, std::span<const SrcTarget> pairs) {
  const auto R = static_cast<unsigned>(in_elements.size());
  std::vector<OutputSource> out;
  const auto add = [&out](std::uint64_t at, std::uint64_t n, bool reduced, unsigned from,
                          std::uint64_t in_first) {
    if (n > 0) out.push_back(OutputSource{at, n, reduced, from, in_first});
  };
  switch (op) {
    case Op::kAllReduce:  // every rank ends with the reduction of the whole buffer
      add(0, out_elements[rank], true, 0, 0);
      break;
    case Op::kReduceScatter: {  // rank r's block starts after the blocks of ranks < r
      std::uint64_t first = 0;
      for (unsigned r = 0; r < rank; ++r) first += out_elements[r];
      add(0, out_elements[rank], true, 0, first);
      break;
    }
    case Op::kAllGather: {
      std::uint64_t at = 0;
      for (unsigned s = 0; s < R; ++s) {
        add(at, in_elements[s], false, s, 0);
        at += in_elements[s];
      }
      break;
    }
    case Op::kAllToAll: {
      // Block j of rank s (blocks of out_elements[j] / R elements) -> block s of rank j.
      const std::uint64_t n = out_elements[rank] / R;
      std::uint64_t in_first = 0;
      for (unsigned j = 0; j < rank; ++j) in_first += out_elements[j] / R;
      for (unsigned s = 0; s < R; ++s) add(s * n, n, false, s, in_first);
      break;
    }
    case Op::kSendRecv:
    case Op::kPermute: {  // the rank whose buffer comes here
      const std::vector<unsigned> dest = p2p_dest(op, R, pairs);
      const auto from =
          static_cast<unsigned>(std::find(dest.begin(), dest.end(), rank) - dest.begin());
      SBRDMA_CHECK(from < R);
      add(0, in_elements[from], false, from, 0);
      break;
    }
  }
  return out;
}

namespace {

/// Folds the `n` elements of EB bytes at `in` (rank `s` of the reduction) into `acc`, and
/// their magnitudes into `abs` when it is not null. One loop per case, so each one vectorises.
/// Always inlined, so that each build of fold_any has its own vector width.
template <unsigned EB, typename Load>
[[gnu::always_inline]] inline void fold(ReduceOp red, bool first_rank, const std::uint8_t* in,
                                        std::uint64_t n, Load load, double* acc, double* abs) {
  if (abs != nullptr) {
    for (std::uint64_t e = 0; e < n; ++e) abs[e] += std::fabs(load(in + e * EB));
  }
  if (first_rank) {
    for (std::uint64_t e = 0; e < n; ++e) acc[e] = load(in + e * EB);
  } else if (red == ReduceOp::kSum) {
    for (std::uint64_t e = 0; e < n; ++e) acc[e] += load(in + e * EB);
  } else if (red == ReduceOp::kMax) {
    for (std::uint64_t e = 0; e < n; ++e) {
      const double v = load(in + e * EB);
      acc[e] = v > acc[e] ? v : acc[e];
    }
  } else {
    for (std::uint64_t e = 0; e < n; ++e) {
      const double v = load(in + e * EB);
      acc[e] = v < acc[e] ? v : acc[e];
    }
  }
}

/// A little-endian 4-byte float as a double, in one move where the host is little-endian.
double load_fp32(const std::uint8_t* p) {
  if constexpr (std::endian::native == std::endian::little) {
    float f = 0;
    std::memcpy(&f, p, sizeof f);
    return f;
  }
  return element_value(DataType::kFp32, p);
}

/// A little-endian integer element of type T as a double, in one move (the host is
/// little-endian, asserted above).
template <typename T>
double load_int(const std::uint8_t* p) {
  T v = 0;
  std::memcpy(&v, p, sizeof v);
  return static_cast<double>(v);
}

/// Built like fill_random, once per vector width: widening to doubles takes 2 elements per
/// instruction in the baseline build, 8 with AVX-512.
SBRDMA_CLONES void fold_any(DataType dt, ReduceOp red, bool first_rank, const std::uint8_t* in,
                            std::uint64_t n, double* acc, double* abs) {
  switch (dt) {  // one loop per dtype: the decode is inlined
    case DataType::kFp32:
      return fold<4>(red, first_rank, in, n, load_fp32, acc, abs);
    case DataType::kBf16:
      return fold<2>(
          red, first_rank, in, n,
          [](const std::uint8_t* p) { return element_value(DataType::kBf16, p); }, acc, abs);
    case DataType::kFp16:
      return fold<2>(
          red, first_rank, in, n,
          [](const std::uint8_t* p) { return element_value(DataType::kFp16, p); }, acc, abs);
    case DataType::kInt32:
      return fold<4>(red, first_rank, in, n, load_int<std::int32_t>, acc, abs);
    case DataType::kUint32:
      return fold<4>(red, first_rank, in, n, load_int<std::uint32_t>, acc, abs);
    case DataType::kInt16:
      return fold<2>(red, first_rank, in, n, load_int<std::int16_t>, acc, abs);
    case DataType::kUint16:
      return fold<2>(red, first_rank, in, n, load_int<std::uint16_t>, acc, abs);
    case DataType::kInt8:
      return fold<1>(red, first_rank, in, n, load_int<std::int8_t>, acc, abs);
    case DataType::kUint8:
      return fold<1>(red, first_rank, in, n, load_int<std::uint8_t>, acc, abs);
  }
}

/// store_int over `n` values.
template <typename U>
[[gnu::always_inline]] inline void store_ints(const double* v, std::uint64_t n, std::uint8_t* out) {
  for (std::uint64_t e = 0; e < n; ++e) store_int<U>(v[e], out + sizeof(U) * e);
}

/// store_element over `n` values, the common dtypes as typed loops (built like fold_any).
SBRDMA_CLONES void store_all(DataType dt, const double* v, std::uint64_t n, std::uint8_t* out) {
  switch (dt) {
    case DataType::kFp32:
      for (std::uint64_t e = 0; e < n; ++e) {
        base::store_le<std::uint32_t>(out + 4 * e,
                                      std::bit_cast<std::uint32_t>(static_cast<float>(v[e])));
      }
      return;
    case DataType::kInt32:
    case DataType::kUint32:
      return store_ints<std::uint32_t>(v, n, out);
    case DataType::kInt16:
    case DataType::kUint16:
      return store_ints<std::uint16_t>(v, n, out);
    default:
      for (std::uint64_t e = 0; e < n; ++e) store_element(dt, v[e], out + e * dtype_bytes(dt));
      return;
  }
}

}  // namespace

void expected_range(DataType dt, ReduceOp red, unsigned ranks,
                    std::span<const OutputSource> sources, std::uint64_t first, std::uint64_t n,
                    std::uint64_t stride, const InputRange& input, Expected& out,
                    RangeScratch& scratch, bool bytes_only) {
  const unsigned eb = dtype_bytes(dt);
  const bool reduced = !sources.empty() && sources.front().reduced;
  const bool float_sum = reduced && is_float(dt) && red == ReduceOp::kSum && !bytes_only;
  out.bytes.assign(n * eb, 0);
  out.value.clear();
  out.abs_sum.clear();
  if (float_sum) {
    out.value.assign(n, 0.0);
    out.abs_sum.assign(n, 0.0);
  }
  const auto index_at = [&](std::uint64_t e) {  // the first i with first + i * stride >= e
    return e <= first ? 0 : std::min(n, (e - first + stride - 1) / stride);
  };
  if (n == 0) return;
  // Sources are in output order and do not overlap: only those from the first that ends past
  // `first` to the last that starts by the last element asked for can hold one (an output of
  // R blocks, checked a partition's chunk at a time, would otherwise pass all R per chunk).
  const std::uint64_t last = first + (n - 1) * stride;
  const auto from =
      std::partition_point(sources.begin(), sources.end(),
                           [&](const OutputSource& s) { return s.out_first + s.n <= first; });
  for (auto it = from; it != sources.end() && it->out_first <= last; ++it) {
    const OutputSource& s = *it;
    SBRDMA_CHECK(s.reduced == reduced);
    const std::uint64_t lo = index_at(s.out_first);
    const std::uint64_t hi = index_at(s.out_first + s.n);
    if (lo >= hi) continue;
    const std::uint64_t m = hi - lo;
    const std::uint64_t in_first = s.in_first + (first + lo * stride - s.out_first);
    if (!reduced) {
      input(s.rank, in_first, m, stride, out.bytes.data() + lo * eb);
      continue;
    }
    scratch.input.resize(m * eb);
    if (!float_sum) scratch.acc.resize(m);
    double* acc = float_sum ? out.value.data() + lo : scratch.acc.data();
    double* abs = float_sum ? out.abs_sum.data() + lo : nullptr;
    for (unsigned r = 0; r < ranks; ++r) {
      input(r, in_first, m, stride, scratch.input.data());
      fold_any(dt, red, r == 0, scratch.input.data(), m, acc, abs);
    }
    store_all(dt, acc, m, out.bytes.data() + lo * eb);
  }
}

ExpectedOutputs expected_outputs(Op op, DataType dt, ReduceOp red,
                                 const std::vector<std::vector<std::uint8_t>>& inputs,
                                 const std::vector<std::uint64_t>& out_elements,
                                 std::span<const SrcTarget> pairs) {
  const auto R = static_cast<unsigned>(inputs.size());
  const unsigned eb = dtype_bytes(dt);
  std::vector<std::uint64_t> in_elements;
  for (const auto& in : inputs) in_elements.push_back(in.size() / eb);
  const InputRange from_inputs = [&](unsigned rank, std::uint64_t first, std::uint64_t n,
                                     std::uint64_t stride, std::uint8_t* out) {
    if (stride == 1 && n > 0) {
      std::memcpy(out, inputs[rank].data() + first * eb, n * eb);
      return;
    }
    for (std::uint64_t i = 0; i < n; ++i) {
      std::memcpy(out + i * eb, inputs[rank].data() + (first + i * stride) * eb, eb);
    }
  };
  ExpectedOutputs out;
  out.of_rank.resize(R);
  std::vector<std::vector<OutputSource>> seen;  // ranks with the same sources share one
  RangeScratch scratch;
  for (unsigned r = 0; r < R; ++r) {
    auto sources = output_sources(op, in_elements, out_elements, r, pairs);
    const auto it = std::find(seen.begin(), seen.end(), sources);
    if (it != seen.end()) {
      out.of_rank[r] = static_cast<unsigned>(it - seen.begin());
      continue;
    }
    out.of_rank[r] = static_cast<unsigned>(seen.size());
    Expected x;
    expected_range(dt, red, R, sources, 0, out_elements[r], 1, from_inputs, x, scratch);
    out.distinct.push_back(std::move(x));
    seen.push_back(std::move(sources));
  }
  return out;
}

std::uint64_t count_wrong(DataType dt, unsigned ranks, std::span<const std::uint8_t> got,
                          const Expected& want) {
  SBRDMA_CHECK(got.size() == want.bytes.size());
  const unsigned eb = dtype_bytes(dt);
  const std::uint64_t n = got.size() / eb;
  if (got.empty() || std::memcmp(got.data(), want.bytes.data(), got.size()) == 0) {
    return 0;  // the usual case
  }
  std::uint64_t wrong = 0;
  if (!want.value.empty()) {
    const double u = unit_roundoff(dt) * ranks;
    for (std::uint64_t e = 0; e < n; ++e) {
      const double g = element_value(dt, &got[e * eb]);
      if (!(std::fabs(g - want.value[e]) <= u * want.abs_sum[e])) ++wrong;
    }
    return wrong;
  }
  for (std::uint64_t e = 0; e < n; ++e) {
    if (std::memcmp(&got[e * eb], &want.bytes[e * eb], eb) != 0) ++wrong;
  }
  return wrong;
}

}  // namespace sbrdma::collectives
