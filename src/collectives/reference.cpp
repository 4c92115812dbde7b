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
    case DataType::kInt8:
      return static_cast<std::int8_t>(*p);
    case DataType::kUint8:
      return *p;
  }
  return 0.0;
}

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
      base::store_le<std::uint32_t>(p, static_cast<std::uint32_t>(static_cast<std::int64_t>(v)));
      return;
    case DataType::kInt8:
    case DataType::kUint8:
      *p = static_cast<std::uint8_t>(static_cast<std::int64_t>(v));
      return;
  }
}

std::vector<std::uint8_t> make_input(DataType dt, std::uint64_t elements, DataFill fill,
                                     std::uint64_t seed, unsigned group, unsigned rank) {
  const unsigned eb = dtype_bytes(dt);
  std::vector<std::uint8_t> out(elements * eb);
  std::uint8_t* o = out.data();
  if (fill == DataFill::kAllOnes) {
    std::uint8_t one[4] = {};
    store_element(dt, 1.0, one);
    for (std::uint64_t e = 0; e < elements; ++e) std::memcpy(o + e * eb, one, eb);
    return out;
  }
  const std::uint64_t stream = splitmix(seed ^ splitmix((std::uint64_t{group} << 32) | rank));
  if (is_float(dt)) {  // k/8 for k in -8..8: 17 encodings, looked up
    std::uint8_t table[17][4] = {};
    for (int k = 0; k < 17; ++k) store_element(dt, static_cast<double>(k - 8) / 8.0, table[k]);
    for (std::uint64_t e = 0; e < elements; ++e) {
      std::memcpy(o + e * eb, table[splitmix(stream + e) % 17], eb);
    }
    return out;
  }
  for (std::uint64_t e = 0; e < elements; ++e) {  // integers: the low bytes, little-endian
    const std::uint64_t r = splitmix(stream + e);
    for (unsigned b = 0; b < eb; ++b) o[e * eb + b] = static_cast<std::uint8_t>(r >> (8 * b));
  }
  return out;
}

namespace {

/// Element e of every input, as the accumulator type of the reduction.
template <typename Load>
void reduce_elements(ReduceOp red, std::size_t ranks, std::uint64_t n, std::uint64_t first,
                     const std::vector<std::vector<std::uint8_t>>& inputs, unsigned eb, Load load,
                     std::vector<double>& acc, std::vector<double>* abs) {
  acc.resize(n);
  if (abs != nullptr) abs->assign(n, 0.0);
  for (std::size_t s = 0; s < ranks; ++s) {
    const std::uint8_t* in = inputs[s].data() + first * eb;
    for (std::uint64_t e = 0; e < n; ++e) {
      const double v = load(in + e * eb);
      if (abs != nullptr) (*abs)[e] += std::fabs(v);
      if (s == 0) {
        acc[e] = v;
      } else if (red == ReduceOp::kSum) {
        acc[e] += v;
      } else if (red == ReduceOp::kMax) {
        acc[e] = v > acc[e] ? v : acc[e];
      } else {
        acc[e] = v < acc[e] ? v : acc[e];
      }
    }
  }
}

/// The reduction of elements [first, first + n) over all inputs.
Expected reduce_block(DataType dt, ReduceOp red, const std::vector<std::vector<std::uint8_t>>& in,
                      std::uint64_t first, std::uint64_t n) {
  const unsigned eb = dtype_bytes(dt);
  const bool float_sum = is_float(dt) && red == ReduceOp::kSum;
  Expected x;
  std::vector<double> acc;
  std::vector<double>* abs = float_sum ? &x.abs_sum : nullptr;
  switch (dt) {  // one loop per dtype: the decode is inlined
    case DataType::kFp32:
      reduce_elements(
          red, in.size(), n, first, in, eb,
          [](const std::uint8_t* p) { return element_value(DataType::kFp32, p); }, acc, abs);
      break;
    case DataType::kBf16:
      reduce_elements(
          red, in.size(), n, first, in, eb,
          [](const std::uint8_t* p) { return element_value(DataType::kBf16, p); }, acc, abs);
      break;
    case DataType::kFp16:
      reduce_elements(
          red, in.size(), n, first, in, eb,
          [](const std::uint8_t* p) { return element_value(DataType::kFp16, p); }, acc, abs);
      break;
    case DataType::kInt32:
      reduce_elements(
          red, in.size(), n, first, in, eb,
          [](const std::uint8_t* p) { return element_value(DataType::kInt32, p); }, acc, abs);
      break;
    case DataType::kInt8:
      reduce_elements(
          red, in.size(), n, first, in, eb,
          [](const std::uint8_t* p) { return static_cast<double>(static_cast<std::int8_t>(*p)); },
          acc, abs);
      break;
    case DataType::kUint8:
      reduce_elements(
          red, in.size(), n, first, in, eb,
          [](const std::uint8_t* p) { return static_cast<double>(*p); }, acc, abs);
      break;
  }
  x.bytes.resize(n * eb);
  for (std::uint64_t e = 0; e < n; ++e) store_element(dt, acc[e], &x.bytes[e * eb]);
  if (float_sum) x.value = std::move(acc);
  return x;
}

}  // namespace

ExpectedOutputs expected_outputs(Op op, DataType dt, ReduceOp red,
                                 const std::vector<std::vector<std::uint8_t>>& inputs,
                                 const std::vector<std::uint64_t>& out_elements) {
  const auto R = static_cast<unsigned>(inputs.size());
  const unsigned eb = dtype_bytes(dt);
  ExpectedOutputs out;
  out.of_rank.resize(R);
  if (op == Op::kAllReduce) {  // every rank ends with the same buffer
    out.distinct.push_back(reduce_block(dt, red, inputs, 0, out_elements[0]));
    return out;
  }
  out.distinct.resize(R);
  for (unsigned r = 0; r < R; ++r) {
    out.of_rank[r] = r;
    out.distinct[r].bytes.resize(out_elements[r] * eb);
  }
  switch (op) {
    case Op::kReduceScatter: {
      std::uint64_t first = 0;  // rank r's block starts after the blocks of ranks < r
      for (unsigned r = 0; r < R; ++r) {
        out.distinct[r] = reduce_block(dt, red, inputs, first, out_elements[r]);
        first += out_elements[r];
      }
      break;
    }
    case Op::kAllGather:
      for (unsigned r = 0; r < R; ++r) {
        std::uint64_t at = 0;
        for (unsigned s = 0; s < R; ++s) {
          if (!inputs[s].empty()) {
            std::memcpy(out.distinct[r].bytes.data() + at, inputs[s].data(), inputs[s].size());
          }
          at += inputs[s].size();
        }
      }
      break;
    case Op::kAllToAll:
      // Block j of rank s (blocks of out_elements[j] / R elements) -> block s of rank j.
      for (unsigned s = 0; s < R; ++s) {
        std::uint64_t at = 0;
        for (unsigned j = 0; j < R; ++j) {
          const std::uint64_t n = out_elements[j] / R * eb;
          if (n > 0) std::memcpy(out.distinct[j].bytes.data() + s * n, inputs[s].data() + at, n);
          at += n;
        }
      }
      break;
    case Op::kSendRecv:
    case Op::kPermute:
      for (unsigned i = 0; i < R; ++i) {
        const unsigned j = op == Op::kPermute ? (i + 1) % R : ((i ^ 1U) < R ? (i ^ 1U) : i);
        out.distinct[j].bytes = inputs[i];
      }
      break;
    case Op::kAllReduce:
      break;
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
