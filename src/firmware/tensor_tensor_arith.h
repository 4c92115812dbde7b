#pragma once
/// Local compute: ExtendedInst TENSOR_TENSOR_ARITH (sub-op 2) run by this core's GPSIMD on its
/// own SBUF partitions — `dst = src0 op src1`, element by element. Collectives reduce with it
/// (D13): receive into scratch, wait for remote_sem, then add the scratch into the destination.
/// [HIGH] layout: ext-tensor-tensor-arith (EXTENDED_TTA); semantics [CHOICE D28]
///
///  TENSOR2D operand (per partition, in elements of the dtype)
///    start_addr  immediate partition offset; its partition part must be 0
///    element (i0, i1), i0 < num_elem[0] innermost, i1 < num_elem[1]:
///      byte = start + (i0 * step_elem[0] + i1 * step_elem[1]) * dtype size
///  partitions  0 .. 16 x num_active_ports - 1 (0 ports = all 8 Q7 = 128 partitions)
///  pairing     the k-th element of each pattern, in (i1, i0) order; equal element counts
///  dtypes      in0 = in1 = out, one of fp32, bf16, fp16, int32, uint32, int16, uint16,
///              int8, uint8
///  op          add, mult (the header's), max, min (public ALU_OP codes, our extension)
///  reads       every source byte is read before any destination byte is written (aliasing
///              patterns see the SBUF as it was before the instruction)
///  time        access_latency + 16 x vectors x cycles_per_vector cycles (ComputeTiming);
///              the reads and writes take effect when that time has passed
///
/// Every refusal is a firmware error naming the field (the core stops, like other ops).

#include <array>
#include <cstdint>
#include <functional>

#include "base/coro.h"
#include "base/result.h"
#include "base/units.h"
#include "firmware/config.h"
#include "firmware/elementwise.h"
#include "firmware/env.h"
#include "isa/views.h"
#include "soc/profile.h"

namespace sbrdma::firmware {

/// One operand pattern, resolved to byte offsets inside each partition.
struct TtaOperand {
  std::uint32_t start = 0;             ///< byte offset of element (0, 0)
  std::array<std::int64_t, 2> step{};  ///< in elements, signed
  std::array<std::uint32_t, 2> num{};
  std::uint64_t lo = 0;     ///< first byte touched in each partition
  std::uint64_t hi = 0;     ///< one past the last byte touched (lo == hi: no element)
  bool contiguous = false;  ///< the elements, in order, are exactly [lo, hi)
};

/// A validated TENSOR_TENSOR_ARITH word.
struct TtaPlan {
  ArithOp op = ArithOp::kAdd;
  isa::Dtype dtype = isa::Dtype::kFp32;
  unsigned elem_bytes = 4;
  unsigned partitions = 128;   ///< partitions 0 .. partitions-1
  std::uint64_t elements = 0;  ///< per partition, per operand
  TtaOperand src0;
  TtaOperand src1;
  TtaOperand dst;
};

/// Validates `t` against the profile: op, dtypes, operand ranges inside the partition's active
/// bytes, equal element counts. Errors are one line starting "ext_tensor_tensor_arith: ".
base::Result<TtaPlan> plan_tensor_tensor_arith(const isa::ExtTensorTensorArith& t,
                                               const soc::Profile& p);

/// The Q7 time of a planned instruction (see the header comment). Contract: timing.clock_mhz
/// and timing.vector_bytes are not 0.
base::Tick tensor_tensor_arith_time(const TtaPlan& plan, const ComputeTiming& timing);

/// The data part alone: reads the sources and writes the destination of every partition
/// through env.sbuf_read/sbuf_write. Errors from the environment are passed on.
base::Status apply_tensor_tensor_arith(Q7Env& env, const TtaPlan& plan);

/// The whole instruction: plan, charge the time, call `reads_done` (its reads take effect
/// then; an error from it ends the instruction), then (unless env.timing_only()) apply.
base::Task<base::Status> run_tensor_tensor_arith(Q7Env& env, const soc::Profile& p,
                                                 ComputeTiming timing, isa::ExtTensorTensorArith t,
                                                 std::function<base::Status()> reads_done);

}  // namespace sbrdma::firmware
