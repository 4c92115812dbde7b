#pragma once
// Random legal words for the round-trip sweeps: random values for every part of an op (biased
// towards defaults, so omitted keys are exercised), then the op's rules made true.

#include <random>
#include <string_view>

#include "isa/field_access.h"
#include "isa/op_table.h"
#include "isa/views.h"

namespace sbrdma::isa::testing {

class RandomWords {
 public:
  explicit RandomWords(std::uint32_t seed) : rng_(seed) {}

  std::uint32_t below(std::uint32_t n) {
    return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng_);
  }
  std::int64_t in(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  bool one_in(std::uint32_t n) { return below(n) == 0; }

  Addr4 addr4(std::uint32_t imm_limit = Addr4::kImmediateMask) {
    if (one_in(4)) {
      const auto& markers = kAddr4MarkerEnum.values;
      const auto m = static_cast<Addr4Marker>(
          markers[below(static_cast<std::uint32_t>(markers.size()))].value);
      // An ADDR_REG names one of kNumAddrRegisters registers; the other forms any byte.
      return Addr4{m, below(m == Addr4Marker::kAddrReg ? kNumAddrRegisters : 256)};
    }
    return Addr4{Addr4Marker::kImmediate, static_cast<std::uint32_t>(in(0, imm_limit))};
  }

  /// Any legal word of `op`.
  Word word(const OpDesc& op) {
    Word w = blank_word(op);
    for (const Field& f : op.fields) {
      for (const Part& p : parts_of(f.kind)) fill(w, f, p);
    }
    legalize(op, w);
    return w;
  }

 private:
  void fill(Word& w, const Field& f, const Part& p) {
    if (one_in(3)) return;  // keep the default
    if (p.type == PartType::kBytes) {
      for (std::uint8_t& b : field_bytes(w, f))
        b = one_in(2) ? 0 : static_cast<std::uint8_t>(below(256));
      return;
    }
    for (unsigned i = 0; i < p.count; ++i) {
      if (p.type == PartType::kEnum) {
        const EnumDesc& e = p.enums != nullptr ? *p.enums : *f.enums;
        write_value(w, f, p, i, e.values[below(static_cast<std::uint32_t>(e.values.size()))].value);
      } else if (p.type == PartType::kAddr4) {
        write_value(w, f, p, i, addr4().raw());
      } else {
        const ValueRange r = value_range(p);
        write_value(w, f, p, i, in(r.min, r.max));
      }
    }
  }

  void legalize(const OpDesc& op, Word& w) {
    if (op.mnemonic == "rdma_desc_gen") {
      RdmaDescGen g = decode_rdma_desc_gen(w).value();
      std::uint32_t mask = 0;
      const unsigned engines = 1u << below(5);
      while (static_cast<unsigned>(__builtin_popcount(mask)) < engines) mask |= 1u << below(16);
      g.dma_engine_mask.imm = mask;
      g.is_bidirectional = 0;
      w = encode(g);
    } else if (op.mnemonic == "sb2sb_collective") {
      Sb2sbCollective s = decode_sb2sb_collective(w).value();
      s.out_dtype = s.in_dtype;
      s.lnc_size_fmt = one_in(2) ? LncSizeFmt::kLnc1 : LncSizeFmt::kLnc2;
      s.num_active_channels = static_cast<std::uint8_t>(in(1, 128));
      s.src_mem_pattern.num_elem = {static_cast<std::uint16_t>(in(0, 16)),
                                    static_cast<std::uint16_t>(in(0, 4)),
                                    static_cast<std::uint16_t>(in(0, 4))};
      s.src_mem_pattern.start_addr = addr4(Addr4::kPsumBase - 1);
      s.dst_mem_pattern.start_addr = addr4(Addr4::kPsumBase - 1);
      w = encode(s);
    } else if (op.mnemonic == "ext_tensor_tensor_arith") {
      ExtTensorTensorArith t = decode_ext_tensor_tensor_arith(w).value();
      t.op = one_in(2) ? AluOp::kAdd : AluOp::kMult;
      w = encode(t);
    }
  }

  std::mt19937 rng_;
};

}  // namespace sbrdma::isa::testing
