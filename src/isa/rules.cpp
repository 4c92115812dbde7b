#include "isa/rules.h"

#include <fmt/format.h>

#include "base/bits.h"
#include "isa/enums.h"
#include "isa/views.h"

namespace sbrdma::isa {
namespace {

// [HIGH] wiki-facts §1.8: dma_engine_mask is a 16-bit map of the per-TPB engines, and gen
// supports a power-of-2 engine count.
constexpr std::uint32_t kEngineMaskBits = 16;
// [HIGH] wiki-facts §1.10: POOLING_NUM_CHANNELS and the source element limit.
constexpr unsigned kMaxChannels = 128;
constexpr std::uint64_t kMaxSb2sbSrcElements = 256;

std::string_view dtype_name(Dtype d) {
  return enum_name(kDtypeEnum, static_cast<std::uint8_t>(d));
}

void check_sbuf(const Tensor3d& t, std::string_view name, Problems& out) {
  // [CHOICE D15c] register forms cannot be placed statically; [CHOICE D39] the start
  // address alone is tested (execution checks the far end).
  if (t.start_addr.is_immediate() && t.start_addr.value >= Addr4::kPsumBase) {
    out.push_back({Fault::kRuleViolated,
                   fmt::format("{}.start_addr 0x{:x} is in PSUM (SB2SB moves SBUF only)", name,
                               t.start_addr.value)});
  }
}

}  // namespace

void check_rdma_desc_gen(const Word& word, Problems& out) {
  const RdmaDescGen g = decode_rdma_desc_gen(word).value();
  const std::uint32_t mask = g.dma_engine_mask.imm;
  if (!base::BitField{kEngineMaskBits - 1, 0}.fits(mask)) {
    out.push_back(
        {Fault::kRuleViolated, fmt::format("dma_engine_mask 0x{:x} does not fit 16 bits", mask)});
  } else if (!base::is_pow2(base::popcount(mask))) {
    out.push_back({Fault::kRuleViolated,
                   fmt::format("dma_engine_mask 0x{:x} selects {} engines (must be 1, 2, 4, 8 or "
                               "16)",
                               mask, base::popcount(mask)),
                   "dma_engine_mask"});
  }
  if (g.is_bidirectional != 0) {  // [CHOICE D10]
    out.push_back({Fault::kUnsupported,
                   fmt::format("is_bidirectional={} is not supported", g.is_bidirectional)});
  }
}

void check_sb2sb_collective(const Word& word, Problems& out) {
  const Sb2sbCollective s = decode_sb2sb_collective(word).value();
  if (s.in_dtype != s.out_dtype) {
    out.push_back({Fault::kRuleViolated,
                   fmt::format("in_dtype {} differs from out_dtype {} (SB2SB does not convert)",
                               dtype_name(s.in_dtype), dtype_name(s.out_dtype))});
  }
  if (s.lnc_size_fmt != LncSizeFmt::kLnc1 && s.lnc_size_fmt != LncSizeFmt::kLnc2) {
    out.push_back(
        {Fault::kUnsupported,
         fmt::format("lnc_size_fmt {} is not supported (lnc1 or lnc2 only)",
                     enum_name(kLncSizeFmtEnum, static_cast<std::uint8_t>(s.lnc_size_fmt)))});
  }
  if (s.num_active_channels < 1 || s.num_active_channels > kMaxChannels) {
    out.push_back({Fault::kRuleViolated, fmt::format("num_active_channels {} is outside 1..{}",
                                                     s.num_active_channels, kMaxChannels)});
  }
  const auto& n = s.src_mem_pattern.num_elem;
  const std::uint64_t elements = std::uint64_t{n[0]} * n[1] * n[2];
  if (elements > kMaxSb2sbSrcElements) {
    out.push_back({Fault::kRuleViolated, fmt::format("src_mem_pattern has {} elements (at most {})",
                                                     elements, kMaxSb2sbSrcElements)});
  }
  check_sbuf(s.src_mem_pattern, "src_mem_pattern", out);
  check_sbuf(s.dst_mem_pattern, "dst_mem_pattern", out);
}

void check_ext_tensor_tensor_arith(const Word& word, Problems& out) {
  const ExtTensorTensorArith t = decode_ext_tensor_tensor_arith(word).value();
  if (t.op != AluOp::kAdd && t.op != AluOp::kMult) {
    const std::string_view name = enum_name(kAluOpEnum, static_cast<std::uint8_t>(t.op));
    out.push_back({Fault::kUnsupported,
                   fmt::format("op {} is not supported (add or mult only)",
                               name.empty() ? fmt::format("0x{:02x}", static_cast<unsigned>(t.op))
                                            : std::string(name))});
  }
}

}  // namespace sbrdma::isa
