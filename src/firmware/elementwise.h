#pragma once
/// The arithmetic of local compute (ExtendedInst TENSOR_TENSOR_ARITH): `out[i] = a[i] op b[i]`
/// over contiguous little-endian arrays of one dtype. Pure functions, no firmware state, so
/// tests compare them with a CPU reference element by element. [CHOICE D28]
///
/// Semantics per dtype:
///   int8, uint8, int16,  add and mult wrap around (two's complement, low bits kept);
///   uint16, int32,       max/min compare as signed (int8, int16, int32) or unsigned
///   uint32               (uint8, uint16, uint32)
///   fp32                 IEEE binary32, round to nearest even, subnormals kept (no FTZ)
///   bf16, fp16           widened to fp32 exactly, computed in fp32, rounded to nearest even
///                        back (exact for add and mult: fp32 has >= 2p+2 bits for both)
///   max / min (floats)   NaN if either input is NaN, else the larger / smaller; on a tie
///                        (+0 vs -0 included) the second operand
///
/// The loops are written so that the compiler vectorises them (one load per operand, no
/// branches but selects); bf16/fp16 rounding is integer bit arithmetic.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "isa/enums.h"

namespace sbrdma::firmware {

/// The operations local compute runs. add and mult are the TENSOR_TENSOR_ARITH header's own;
/// max and min are the public ALU_OP codes 0x08/0x09, run as an sbrdma extension. [CHOICE D28]
enum class ArithOp : std::uint8_t { kAdd, kMult, kMax, kMin };

/// The ArithOp of a public ALU_OP code, or nullopt if local compute does not run it.
std::optional<ArithOp> arith_op_of(isa::AluOp op);
/// "add", "mult", "max", "min".
std::string_view arith_op_name(ArithOp op);

/// True if local compute supports `d` (fp32, bf16, fp16, int32, uint32, int16, uint16, int8,
/// uint8).
bool elementwise_dtype_supported(isa::Dtype d);

/// out[i] = a[i] op b[i] for i < n, elements of `d` stored little-endian. `out` may equal `a`
/// or `b` (same start); other overlaps are not allowed. Contract: elementwise_dtype_supported(d).
void elementwise(ArithOp op, isa::Dtype d, const std::uint8_t* a, const std::uint8_t* b,
                 std::uint8_t* out, std::size_t n);

/// IEEE binary16 / bfloat16 bits <-> float. To-half/-bf16 round to nearest even; NaNs stay
/// NaN (quiet), overflow gives infinity.
float half_to_float(std::uint16_t h);
std::uint16_t float_to_half(float f);
float bf16_to_float(std::uint16_t b);
std::uint16_t float_to_bf16(float f);

}  // namespace sbrdma::firmware
