// ExtendedInst TENSOR_TENSOR_ARITH on this core's GPSIMD. [HIGH] layout (EXTENDED_TTA);
// operand, dtype, op and time semantics [CHOICE D28].
#include "firmware/tensor_tensor_arith.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "base/split_work.h"
#include "firmware/sb2sb.h"

namespace sbrdma::firmware {
namespace {

constexpr std::string_view kName = "ext_tensor_tensor_arith: ";
/// Bytes per operand the contiguous path moves at a time (three buffers stay in L1/L2).
constexpr std::uint64_t kChunkBytes = 16 * 1024;

base::Error tta_error(std::string message) {
  return base::make_error(std::string(kName) + std::move(message));
}

std::string dtype_name(isa::Dtype d) {
  return std::string(isa::enum_name(isa::kDtypeEnum, static_cast<std::uint8_t>(d)));
}

/// Resolves one pattern; errors name it.
base::Result<TtaOperand> resolve(const isa::Tensor2d& t, std::string_view name, unsigned size,
                                 const soc::Profile& p) {
  if (!t.start_addr.is_immediate()) {
    return tta_error(
        fmt::format("{}.start_addr is a register form; only an immediate partition "
                    "offset is supported",
                    name));
  }
  const std::uint64_t stride = p.partition_stride.n;
  if (t.start_addr.value / stride != 0) {
    return tta_error(
        fmt::format("{}.start_addr 0x{:x} starts at partition {}; local compute "
                    "starts at partition 0 (num_active_ports selects how many)",
                    name, t.start_addr.value, t.start_addr.value / stride));
  }
  TtaOperand o;
  o.start = t.start_addr.value;
  o.step = {t.step_elem[0], t.step_elem[1]};
  o.num = {t.num_elem[0], t.num_elem[1]};
  const std::uint64_t count = std::uint64_t{o.num[0]} * o.num[1];
  if (count == 0) {
    o.lo = o.hi = o.start;
    o.contiguous = true;
    return o;
  }
  // Lowest and highest element index the pattern reaches.
  std::int64_t lo_idx = 0;
  std::int64_t hi_idx = 0;
  std::uint64_t span = 1;
  o.contiguous = true;
  for (unsigned d = 0; d < 2; ++d) {
    const std::int64_t reach = o.step[d] * (std::int64_t{o.num[d]} - 1);
    lo_idx += std::min<std::int64_t>(reach, 0);
    hi_idx += std::max<std::int64_t>(reach, 0);
    if (o.num[d] > 1 && o.step[d] != static_cast<std::int64_t>(span)) o.contiguous = false;
    span *= o.num[d];
  }
  const std::int64_t lo = static_cast<std::int64_t>(o.start) + lo_idx * size;
  const std::int64_t hi = static_cast<std::int64_t>(o.start) + (hi_idx + 1) * size;
  const auto active = static_cast<std::int64_t>(p.partition_active.n);
  if (lo < 0 || hi > active) {
    return tta_error(
        fmt::format("{} reaches bytes [{}, {}) of each partition, outside the "
                    "active 0..0x{:x}",
                    name, lo, hi, active - 1));
  }
  o.lo = static_cast<std::uint64_t>(lo);
  o.hi = static_cast<std::uint64_t>(hi);
  return o;
}

/// Calls f(byte offset relative to o.lo) for each element of `o` in pattern order.
template <typename F>
void for_each_element(const TtaOperand& o, unsigned size, F f) {
  const std::int64_t base = static_cast<std::int64_t>(o.start) - static_cast<std::int64_t>(o.lo);
  for (std::uint32_t i1 = 0; i1 < o.num[1]; ++i1) {
    for (std::uint32_t i0 = 0; i0 < o.num[0]; ++i0) {
      const std::int64_t idx = std::int64_t{i0} * o.step[0] + std::int64_t{i1} * o.step[1];
      f(static_cast<std::uint64_t>(base + idx * size));
    }
  }
}

/// The byte runs [lo, hi) of each partition that the operands `ops` touch, merged and in
/// order: an element pattern with gaps touches only its elements' bytes.
std::vector<std::pair<std::uint64_t, std::uint64_t>> touched_runs(
    std::initializer_list<const TtaOperand*> ops, unsigned size) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;
  for (const TtaOperand* o : ops) {
    if (o->lo == o->hi) continue;
    if (o->contiguous) {
      runs.emplace_back(o->lo, o->hi);
      continue;
    }
    for_each_element(
        *o, size, [&](std::uint64_t rel) { runs.emplace_back(o->lo + rel, o->lo + rel + size); });
  }
  std::sort(runs.begin(), runs.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
  for (const auto& r : runs) {
    if (!merged.empty() && r.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, r.second);
    } else {
      merged.push_back(r);
    }
  }
  return merged;
}

bool overlap(const TtaOperand& a, const TtaOperand& b) {
  return a.lo < b.hi && b.lo < a.hi;
}

/// Contiguous operands where dst meets a source only at the same start: process in chunks.
bool chunkable(const TtaPlan& pl) {
  const auto fits = [&](const TtaOperand& s) {
    return s.contiguous && (!overlap(pl.dst, s) || s.lo == pl.dst.lo);
  };
  return pl.dst.contiguous && fits(pl.src0) && fits(pl.src1);
}

/// The partition bytes a chunkable op's view takes: up to its furthest operand byte only, so
/// the rest of the partition stays untouched.
std::uint64_t view_reach(const TtaPlan& pl) {
  return std::max({pl.dst.hi, pl.src0.hi, pl.src1.hi});
}

/// A chunkable op on one partition's in-place view of view_reach(pl) bytes.
void apply_in_view(const TtaPlan& pl, std::span<std::uint8_t> view) {
  // In place: the operands were checked against the active bytes, and dst meets a source only
  // at the same start, which elementwise() allows.
  SBRDMA_CHECK(pl.dst.hi <= view.size() && pl.src0.hi <= view.size() && pl.src1.hi <= view.size());
  elementwise(pl.op, pl.dtype, view.data() + pl.src0.lo, view.data() + pl.src1.lo,
              view.data() + pl.dst.lo, pl.elements);
}

base::Status apply_chunked(Q7Env& env, const TtaPlan& pl, unsigned partition) {
  const unsigned size = pl.elem_bytes;
  if (const std::span<std::uint8_t> view = env.sbuf_partition(partition, view_reach(pl));
      !view.empty()) {
    apply_in_view(pl, view);
    return base::ok_status();
  }
  const std::uint64_t chunk_elems = kChunkBytes / size;
  std::vector<std::uint8_t> a(kChunkBytes);
  std::vector<std::uint8_t> b(kChunkBytes);
  std::vector<std::uint8_t> out(kChunkBytes);
  for (std::uint64_t k = 0; k < pl.elements; k += chunk_elems) {
    const std::uint64_t n = std::min(chunk_elems, pl.elements - k);
    const std::uint64_t off = k * size;
    const std::uint64_t bytes = n * size;
    SBRDMA_TRY(env.sbuf_read(partition, pl.src0.lo + off, std::span(a.data(), bytes)));
    SBRDMA_TRY(env.sbuf_read(partition, pl.src1.lo + off, std::span(b.data(), bytes)));
    elementwise(pl.op, pl.dtype, a.data(), b.data(), out.data(), n);
    SBRDMA_TRY(env.sbuf_write(partition, pl.dst.lo + off, std::span(out.data(), bytes)));
  }
  return base::ok_status();
}

/// Reads `o`'s span and returns its elements packed in pattern order.
base::Result<std::vector<std::uint8_t>> gather(Q7Env& env, const TtaPlan& pl, const TtaOperand& o,
                                               unsigned partition) {
  std::vector<std::uint8_t> span(o.hi - o.lo);
  SBRDMA_TRY(env.sbuf_read(partition, o.lo, span));
  if (o.contiguous) return span;
  std::vector<std::uint8_t> packed(pl.elements * pl.elem_bytes);
  std::uint8_t* to = packed.data();
  for_each_element(o, pl.elem_bytes, [&](std::uint64_t at) {
    std::copy_n(span.data() + at, pl.elem_bytes, to);
    to += pl.elem_bytes;
  });
  return packed;
}

/// Any pattern: gather both sources whole, compute, scatter into the destination's span.
base::Status apply_general(Q7Env& env, const TtaPlan& pl, unsigned partition) {
  auto a = gather(env, pl, pl.src0, partition);
  if (!a) return a.error();
  auto b = gather(env, pl, pl.src1, partition);
  if (!b) return b.error();
  std::vector<std::uint8_t> out(pl.elements * pl.elem_bytes);
  elementwise(pl.op, pl.dtype, a->data(), b->data(), out.data(), pl.elements);
  if (pl.dst.contiguous) return env.sbuf_write(partition, pl.dst.lo, out);
  std::vector<std::uint8_t> span(pl.dst.hi - pl.dst.lo);
  SBRDMA_TRY(env.sbuf_read(partition, pl.dst.lo, span));  // keep the bytes between elements
  const std::uint8_t* from = out.data();
  for_each_element(pl.dst, pl.elem_bytes, [&](std::uint64_t at) {
    std::copy_n(from, pl.elem_bytes, span.data() + at);
    from += pl.elem_bytes;
  });
  return env.sbuf_write(partition, pl.dst.lo, span);
}

}  // namespace

base::Result<TtaPlan> plan_tensor_tensor_arith(const isa::ExtTensorTensorArith& t,
                                               const soc::Profile& p) {
  TtaPlan pl;
  const auto op = arith_op_of(t.op);
  if (!op) {
    const std::string_view name = isa::enum_name(isa::kAluOpEnum, static_cast<std::uint8_t>(t.op));
    return tta_error(fmt::format(
        "op {} is not supported (add, mult, max, min)",
        name.empty() ? fmt::format("0x{:02x}", unsigned{static_cast<std::uint8_t>(t.op)})
                     : std::string(name)));
  }
  pl.op = *op;
  const isa::Dtype d = t.in0_in1_dtype.dtype_lo;
  if (t.in0_in1_dtype.dtype_hi != d || t.out_dtype != d) {
    return tta_error(fmt::format(
        "dtypes differ (in0_in1_dtype.dtype_lo {}, in0_in1_dtype.dtype_hi {}, out_dtype {}); "
        "local compute needs one dtype",
        dtype_name(d), dtype_name(t.in0_in1_dtype.dtype_hi), dtype_name(t.out_dtype)));
  }
  if (!elementwise_dtype_supported(d)) {
    return tta_error(fmt::format(
        "dtype {} is not supported (fp32, bfloat16, fp16, int32, uint32, int16, uint16, int8, "
        "uint8)",
        dtype_name(d)));
  }
  pl.dtype = d;
  pl.elem_bytes = dtype_bytes(d);
  // num_active_ports: 0 means all ports; one Q7 (16 partitions) per port. [HIGH] wiki-facts §1.5
  const unsigned per_q7 = p.sbuf_partitions / p.q7_cores_per_tpb;
  const unsigned ports = t.completion_info.num_active_ports == 0
                             ? p.q7_cores_per_tpb
                             : t.completion_info.num_active_ports;
  pl.partitions = std::min(ports, p.q7_cores_per_tpb) * per_q7;
  auto s0 = resolve(t.src0_mem_pattern, "src0_mem_pattern", pl.elem_bytes, p);
  if (!s0) return s0.error();
  auto s1 = resolve(t.src1_mem_pattern, "src1_mem_pattern", pl.elem_bytes, p);
  if (!s1) return s1.error();
  auto ds = resolve(t.dst_mem_pattern, "dst_mem_pattern", pl.elem_bytes, p);
  if (!ds) return ds.error();
  pl.src0 = *s0;
  pl.src1 = *s1;
  pl.dst = *ds;
  const auto count = [](const TtaOperand& o) { return std::uint64_t{o.num[0]} * o.num[1]; };
  pl.elements = count(pl.dst);
  for (const auto& [o, name] :
       {std::pair{&pl.src0, "src0_mem_pattern"}, std::pair{&pl.src1, "src1_mem_pattern"}}) {
    if (count(*o) != pl.elements) {
      return tta_error(fmt::format("{} has {} elements, dst_mem_pattern {}; they must be equal",
                                   name, count(*o), pl.elements));
    }
  }
  // More destination elements than a partition's active bytes hold write some byte twice, in
  // an order the record does not give; it also bounds one word's work (65535 x 65535 elements
  // of step 0 took a day and 17 GB). [CHOICE D28e]
  const std::uint64_t most = p.partition_active.n / pl.elem_bytes;
  if (pl.elements > most) {
    return tta_error(fmt::format(
        "dst_mem_pattern has {} elements; a partition's {} active bytes hold at most {} {} "
        "elements, so some would be written twice",
        pl.elements, p.partition_active.n, most, dtype_name(d)));
  }
  return pl;
}

base::Tick tensor_tensor_arith_time(const TtaPlan& pl, const ComputeTiming& timing) {
  SBRDMA_CHECK(timing.clock_mhz != 0 && timing.vector_bytes != 0);
  // Vectors per partition: whole vectors over contiguous operands; one element per vector op
  // when any pattern is strided (gathers serialise).
  const bool dense = pl.src0.contiguous && pl.src1.contiguous && pl.dst.contiguous;
  const std::uint64_t bytes = pl.elements * pl.elem_bytes;
  const std::uint64_t vectors =
      dense ? (bytes + timing.vector_bytes - 1) / timing.vector_bytes : pl.elements;
  const std::uint64_t per_q7 = 16;  // partitions each Q7 runs in turn [HIGH] hw-params GPSIMD
  const std::uint64_t cycles = per_q7 * vectors * timing.cycles_per_vector;
  const std::uint64_t ps = (cycles * 1'000'000 + timing.clock_mhz - 1) / timing.clock_mhz;
  return timing.access_latency + base::Tick{ps};
}

namespace {

/// Operand bytes, over all partitions, from which a chunkable op runs its partitions on two
/// cores (base::split_work): a 16 MiB all-reduce's reduces on 8 ranks are 512 KiB to 1 MiB;
/// below this, waking the helper would cost about what it saves.
constexpr std::uint64_t kSplitBytes = 256 * 1024;

/// The partitions of a chunkable op, split across two cores; false (nothing done) when some
/// partition has no in-place view, for apply_chunked's reads and writes to handle.
bool apply_split(Q7Env& env, const TtaPlan& pl) {
  // Every view is taken here, on the simulation's thread (taking one may back or zero its
  // page); the pieces then touch only their own partition's bytes, which no other shares.
  std::vector<std::span<std::uint8_t>> views(pl.partitions);
  for (unsigned partition = 0; partition < pl.partitions; ++partition) {
    views[partition] = env.sbuf_partition(partition, view_reach(pl));
    if (views[partition].empty()) return false;
  }
  base::split_work(views.size(), [&](std::size_t i) { apply_in_view(pl, views[i]); });
  return true;
}

}  // namespace

base::Status apply_tensor_tensor_arith(Q7Env& env, const TtaPlan& pl) {
  if (pl.elements == 0) return base::ok_status();
  const bool chunked = chunkable(pl);
  if (chunked && base::split_work_parallel() &&
      pl.elements * pl.elem_bytes * pl.partitions >= kSplitBytes && apply_split(env, pl)) {
    return base::ok_status();
  }
  for (unsigned partition = 0; partition < pl.partitions; ++partition) {
    SBRDMA_TRY(chunked ? apply_chunked(env, pl, partition) : apply_general(env, pl, partition));
  }
  return base::ok_status();
}

base::Task<base::Status> run_tensor_tensor_arith(Q7Env& env, const soc::Profile& p,
                                                 ComputeTiming timing, isa::ExtTensorTensorArith t,
                                                 std::function<base::Status()> reads_done) {
  auto plan = plan_tensor_tensor_arith(t, p);
  if (!plan) co_return plan.error();
  co_await env.delay(Q7Work::kCompute, tensor_tensor_arith_time(*plan, timing));
  // The reads (both operands' bytes once) come before the read-done update, the write after
  // it. [CHOICE D49]
  const bool tell = env.wants_accesses();
  if (tell) {
    env.sbuf_accessed(plan->partitions, touched_runs({&plan->src0, &plan->src1}, plan->elem_bytes),
                      false);
  }
  if (auto st = reads_done(); !st) co_return st;
  if (tell) env.sbuf_accessed(plan->partitions, touched_runs({&plan->dst}, plan->elem_bytes), true);
  if (env.timing_only()) co_return base::ok_status();  // [CHOICE D27]
  co_return apply_tensor_tensor_arith(env, *plan);
}

}  // namespace sbrdma::firmware
