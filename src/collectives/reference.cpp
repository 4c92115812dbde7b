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

/// A random input element as a number: floats k/8 for k in -8..8, integers the full range.
double random_value(DataType dt, std::uint64_t r) {
  switch (dt) {
    case DataType::kFp32:
    case DataType::kBf16:
    case DataType::kFp16:
      return static_cast<double>(static_cast<int>(r % 17) - 8) / 8.0;
    case DataType::kInt32:
      return static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(r)));
    case DataType::kInt8:
      return static_cast<double>(static_cast<std::int8_t>(static_cast<std::uint8_t>(r)));
    case DataType::kUint8:
      return static_cast<double>(static_cast<std::uint8_t>(r));
  }
  return 0.0;
}

/// The integer result of reducing a and b with wrap-around sums.
std::int64_t int_reduce(ReduceOp red, std::int64_t a, std::int64_t b) {
  switch (red) {
    case ReduceOp::kSum:
      return a + b;  // wrapped when stored
    case ReduceOp::kMax:
      return std::max(a, b);
    case ReduceOp::kMin:
      return std::min(a, b);
  }
  return a;
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
  if (fill == DataFill::kAllOnes) {
    std::vector<std::uint8_t> one(eb);
    store_element(dt, 1.0, one.data());
    for (std::uint64_t e = 0; e < elements; ++e) std::memcpy(&out[e * eb], one.data(), eb);
    return out;
  }
  const std::uint64_t stream = splitmix(seed ^ splitmix((std::uint64_t{group} << 32) | rank));
  for (std::uint64_t e = 0; e < elements; ++e) {
    store_element(dt, random_value(dt, splitmix(stream + e)), &out[e * eb]);
  }
  return out;
}

std::vector<Expected> expected_outputs(Op op, DataType dt, ReduceOp red,
                                       const std::vector<std::vector<std::uint8_t>>& inputs,
                                       const std::vector<std::uint64_t>& out_elements) {
  const auto R = static_cast<unsigned>(inputs.size());
  const unsigned eb = dtype_bytes(dt);
  std::vector<Expected> out(R);
  for (unsigned r = 0; r < R; ++r) out[r].bytes.resize(out_elements[r] * eb);
  const bool float_sum = is_float(dt) && red == ReduceOp::kSum && is_reduction(op);
  // Reduction of element e over all ranks' inputs, into out[r] element `to`.
  auto reduce_into = [&](Expected& x, std::uint64_t e, std::uint64_t to) {
    if (is_float(dt)) {
      double v = element_value(dt, &inputs[0][e * eb]);
      double abs = std::fabs(v);
      for (unsigned s = 1; s < R; ++s) {
        const double w = element_value(dt, &inputs[s][e * eb]);
        abs += std::fabs(w);
        v = red == ReduceOp::kSum ? v + w : red == ReduceOp::kMax ? std::max(v, w) : std::min(v, w);
      }
      if (float_sum) {
        x.value[to] = v;
        x.abs_sum[to] = abs;
      }
      store_element(dt, v, &x.bytes[to * eb]);
      return;
    }
    auto v = static_cast<std::int64_t>(element_value(dt, &inputs[0][e * eb]));
    for (unsigned s = 1; s < R; ++s) {
      v = int_reduce(red, v, static_cast<std::int64_t>(element_value(dt, &inputs[s][e * eb])));
    }
    store_element(dt, static_cast<double>(v), &x.bytes[to * eb]);
  };
  switch (op) {
    case Op::kAllReduce:
      for (unsigned r = 0; r < R; ++r) {
        if (float_sum) {
          out[r].value.resize(out_elements[r]);
          out[r].abs_sum.resize(out_elements[r]);
        }
        for (std::uint64_t e = 0; e < out_elements[r]; ++e) reduce_into(out[r], e, e);
      }
      break;
    case Op::kReduceScatter: {
      std::uint64_t first = 0;  // rank r's block starts after the blocks of ranks < r
      for (unsigned r = 0; r < R; ++r) {
        if (float_sum) {
          out[r].value.resize(out_elements[r]);
          out[r].abs_sum.resize(out_elements[r]);
        }
        for (std::uint64_t e = 0; e < out_elements[r]; ++e) reduce_into(out[r], first + e, e);
        first += out_elements[r];
      }
      break;
    }
    case Op::kAllGather:
      for (unsigned r = 0; r < R; ++r) {
        std::uint64_t at = 0;
        for (unsigned s = 0; s < R; ++s) {
          std::memcpy(out[r].bytes.data() + at, inputs[s].data(), inputs[s].size());
          at += inputs[s].size();
        }
      }
      break;
    case Op::kAllToAll:
      // Block j of rank s (blocks of out_elements[j] elements) -> block s of rank j.
      for (unsigned s = 0; s < R; ++s) {
        std::uint64_t at = 0;
        for (unsigned j = 0; j < R; ++j) {
          const std::uint64_t n = out_elements[j] / R * eb;
          std::memcpy(out[j].bytes.data() + s * n, inputs[s].data() + at, n);
          at += n;
        }
      }
      break;
    case Op::kSendRecv:
    case Op::kPermute:
      for (unsigned i = 0; i < R; ++i) {
        const unsigned j = op == Op::kPermute ? (i + 1) % R : ((i ^ 1U) < R ? (i ^ 1U) : i);
        out[j].bytes = inputs[i];
      }
      break;
  }
  return out;
}

std::uint64_t count_wrong(DataType dt, unsigned ranks, std::span<const std::uint8_t> got,
                          const Expected& want) {
  SBRDMA_CHECK(got.size() == want.bytes.size());
  const unsigned eb = dtype_bytes(dt);
  const std::uint64_t n = got.size() / eb;
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
