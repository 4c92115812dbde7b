#pragma once
/// The vocabulary of collectives: which operation, which algorithm, which reduction, which
/// element type — with the names `sbrdma bench` accepts (nccom-test's short names first).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "isa/enums.h"

namespace sbrdma::collectives {

/// The collective operations. [HIGH] hw-params §3 "Operations" (CC-ABOUT, NCCOM)
enum class Op : std::uint8_t {
  kAllReduce,      ///< allr: every rank ends with the reduction of all inputs
  kAllGather,      ///< allg: every rank ends with every rank's block
  kReduceScatter,  ///< redsct: rank r ends with block r of the reduction
  kAllToAll,       ///< alltoall: block j of rank s goes to rank j
  kSendRecv,       ///< sendrecv: ranks 2i and 2i+1 swap buffers [CHOICE D30e]
  kPermute,        ///< permute: rank r sends to r+1, or along given pairs [CHOICE D30e, D30j]
};

/// How a collective is lowered. [HIGH] hw-params §3 (CC-INTRA, CC-INTER). All-to-all:
/// auto = mesh, ring = pairwise exchange, rdh = Bruck's algorithm. [CHOICE D34]
enum class Algorithm : std::uint8_t {
  kAuto,          ///< by size: mesh < 1 MB, RDH up to 56 MB (2^k ranks), ring above
  kRing,          ///< reduce-scatter then all-gather around a ring, chunks in halves
  kMesh,          ///< one step, every pair directly
  kRdh,           ///< recursive halving / doubling, 2^k ranks
  kHierarchical,  ///< intra-chip, inter-chip, intra-chip
};

/// The reductions of all-reduce and reduce-scatter.
enum class ReduceOp : std::uint8_t { kSum, kMax, kMin };

/// Element types collectives move and reduce (local compute's dtypes, [CHOICE D28]).
enum class DataType : std::uint8_t {
  kFp32,
  kBf16,
  kFp16,
  kInt32,
  kUint32,
  kInt16,
  kUint16,
  kInt8,
  kUint8
};

/// "allr", "allg", "redsct", "alltoall", "sendrecv", "permute".
std::string_view op_name(Op op);
/// "all-reduce", "all-gather", ... (for messages).
std::string_view op_long_name(Op op);
/// Accepts the short names and all_reduce / all_gather / reduce_scatter / all_to_all.
base::Result<Op> parse_op(std::string_view s);
/// Every op, in the order above.
std::span<const Op> all_ops();
/// The short names of all_ops(), comma-separated: "allr, allg, redsct, ...".
std::string op_name_list();

/// "auto", "ring", "mesh", "rdh", "hierarchical".
std::string_view algorithm_name(Algorithm a);
/// Accepts the names above and "hier".
base::Result<Algorithm> parse_algorithm(std::string_view s);

/// "sum", "max", "min".
std::string_view reduce_op_name(ReduceOp r);
base::Result<ReduceOp> parse_reduce_op(std::string_view s);

/// "fp32", "bf16", "fp16", "int32", "uint32", "int16", "uint16", "int8", "uint8" (nccom-test's
/// names).
std::string_view dtype_name(DataType d);
/// Accepts the names above and float32 / bfloat16 / float16.
base::Result<DataType> parse_dtype(std::string_view s);
/// Bytes of one element.
unsigned dtype_bytes(DataType d);
/// The ISA's code for `d`. [HIGH] wiki-facts §1.10 (NEURON_ISA_TPB_DTYPE)
isa::Dtype isa_dtype(DataType d);
/// Every dtype, in the order above.
std::span<const DataType> all_dtypes();
/// The names of all_dtypes(), comma-separated: "fp32, bf16, ...".
std::string dtype_name_list();

/// True for all-reduce and reduce-scatter.
bool is_reduction(Op op);

/// nccom-test's bus bandwidth factor for `ranks` ranks: all-reduce 2(r-1)/r; all-gather,
/// reduce-scatter, all-to-all (r-1)/r; send/recv, permute 1. 1 rank: 0 for the collectives
/// (nothing crosses a link), 1 for the point-to-point ops. [HIGH] NCCOM, nccl-tests convention
double busbw_factor(Op op, unsigned ranks);

}  // namespace sbrdma::collectives
