#include "collectives/types.h"

#include <fmt/format.h>

#include <array>
#include <string>

#include "base/printable.h"

namespace sbrdma::collectives {
namespace {

template <typename E>
struct Named {
  E value;
  std::string_view name;
};

constexpr std::array kOps{Op::kAllReduce, Op::kAllGather, Op::kReduceScatter,
                          Op::kAllToAll,  Op::kSendRecv,  Op::kPermute};
constexpr std::array kDtypes{DataType::kFp32,   DataType::kBf16,   DataType::kFp16,
                             DataType::kInt32,  DataType::kUint32, DataType::kInt16,
                             DataType::kUint16, DataType::kInt8,   DataType::kUint8};

// Short names first (what `sbrdma bench` prints), then accepted aliases.
constexpr std::array<Named<Op>, 10> kOpNames{{{Op::kAllReduce, "allr"},
                                              {Op::kAllGather, "allg"},
                                              {Op::kReduceScatter, "redsct"},
                                              {Op::kAllToAll, "alltoall"},
                                              {Op::kSendRecv, "sendrecv"},
                                              {Op::kPermute, "permute"},
                                              {Op::kAllReduce, "all_reduce"},
                                              {Op::kAllGather, "all_gather"},
                                              {Op::kReduceScatter, "reduce_scatter"},
                                              {Op::kAllToAll, "all_to_all"}}};
constexpr std::array<Named<Algorithm>, 6> kAlgorithmNames{
    {{Algorithm::kAuto, "auto"},
     {Algorithm::kRing, "ring"},
     {Algorithm::kMesh, "mesh"},
     {Algorithm::kRdh, "rdh"},
     {Algorithm::kHierarchical, "hierarchical"},
     {Algorithm::kHierarchical, "hier"}}};
constexpr std::array<Named<ReduceOp>, 3> kReduceNames{
    {{ReduceOp::kSum, "sum"}, {ReduceOp::kMax, "max"}, {ReduceOp::kMin, "min"}}};
constexpr std::array<Named<DataType>, 12> kDtypeNames{{{DataType::kFp32, "fp32"},
                                                       {DataType::kBf16, "bf16"},
                                                       {DataType::kFp16, "fp16"},
                                                       {DataType::kInt32, "int32"},
                                                       {DataType::kUint32, "uint32"},
                                                       {DataType::kInt16, "int16"},
                                                       {DataType::kUint16, "uint16"},
                                                       {DataType::kInt8, "int8"},
                                                       {DataType::kUint8, "uint8"},
                                                       {DataType::kFp32, "float32"},
                                                       {DataType::kBf16, "bfloat16"},
                                                       {DataType::kFp16, "float16"}}};

template <typename E, std::size_t N>
std::string_view name_of(const std::array<Named<E>, N>& table, E v) {
  for (const auto& n : table) {
    if (n.value == v) return n.name;
  }
  return "?";
}

/// The first `shown` names of `table` (the others are aliases), comma-separated.
template <typename E, std::size_t N>
std::string names_of(const std::array<Named<E>, N>& table, std::size_t shown) {
  std::string names;
  for (std::size_t i = 0; i < shown && i < N; ++i) {
    names += (i == 0 ? "" : ", ");
    names += table[i].name;
  }
  return names;
}

/// The value named `s`, or an error listing the first `shown` names, then the aliases.
template <typename E, std::size_t N>
base::Result<E> parse_name(const std::array<Named<E>, N>& table, std::size_t shown,
                           std::string_view what, std::string_view s) {
  for (const auto& n : table) {
    if (n.name == s) return n.value;
  }
  std::string aliases;
  for (std::size_t i = shown; i < N; ++i) {
    aliases += (i == shown ? "; also " : ", ");
    aliases += table[i].name;
  }
  return base::make_error(fmt::format("unknown {} '{}' (one of: {}{})", what,
                                      base::printable_brief(s), names_of(table, shown), aliases));
}

}  // namespace

std::string_view op_name(Op op) {
  return name_of(kOpNames, op);
}

std::string_view op_long_name(Op op) {
  switch (op) {
    case Op::kAllReduce:
      return "all-reduce";
    case Op::kAllGather:
      return "all-gather";
    case Op::kReduceScatter:
      return "reduce-scatter";
    case Op::kAllToAll:
      return "all-to-all";
    case Op::kSendRecv:
      return "send/recv";
    case Op::kPermute:
      return "permute";
  }
  return "?";
}

base::Result<Op> parse_op(std::string_view s) {
  return parse_name(kOpNames, kOps.size(), "collective", s);
}

std::span<const Op> all_ops() {
  return kOps;
}

std::string op_name_list() {
  return names_of(kOpNames, kOps.size());
}

std::string_view algorithm_name(Algorithm a) {
  return name_of(kAlgorithmNames, a);
}

base::Result<Algorithm> parse_algorithm(std::string_view s) {
  return parse_name(kAlgorithmNames, 5, "algorithm", s);
}

std::string_view reduce_op_name(ReduceOp r) {
  return name_of(kReduceNames, r);
}

base::Result<ReduceOp> parse_reduce_op(std::string_view s) {
  return parse_name(kReduceNames, kReduceNames.size(), "reduction", s);
}

std::string_view dtype_name(DataType d) {
  return name_of(kDtypeNames, d);
}

base::Result<DataType> parse_dtype(std::string_view s) {
  return parse_name(kDtypeNames, kDtypes.size(), "data type", s);
}

unsigned dtype_bytes(DataType d) {
  switch (d) {
    case DataType::kFp32:
    case DataType::kInt32:
    case DataType::kUint32:
      return 4;
    case DataType::kBf16:
    case DataType::kFp16:
    case DataType::kInt16:
    case DataType::kUint16:
      return 2;
    case DataType::kInt8:
    case DataType::kUint8:
      return 1;
  }
  return 1;
}

isa::Dtype isa_dtype(DataType d) {
  switch (d) {
    case DataType::kFp32:
      return isa::Dtype::kFp32;
    case DataType::kBf16:
      return isa::Dtype::kBfloat16;
    case DataType::kFp16:
      return isa::Dtype::kFp16;
    case DataType::kInt32:
      return isa::Dtype::kInt32;
    case DataType::kUint32:
      return isa::Dtype::kUint32;
    case DataType::kInt16:
      return isa::Dtype::kInt16;
    case DataType::kUint16:
      return isa::Dtype::kUint16;
    case DataType::kInt8:
      return isa::Dtype::kInt8;
    case DataType::kUint8:
      return isa::Dtype::kUint8;
  }
  return isa::Dtype::kInvalid;
}

std::span<const DataType> all_dtypes() {
  return kDtypes;
}

std::string dtype_name_list() {
  return names_of(kDtypeNames, kDtypes.size());
}

bool is_reduction(Op op) {
  return op == Op::kAllReduce || op == Op::kReduceScatter;
}

double busbw_factor(Op op, unsigned ranks) {
  const double r = ranks == 0 ? 1.0 : static_cast<double>(ranks);
  switch (op) {
    case Op::kAllReduce:
      return 2.0 * (r - 1.0) / r;
    case Op::kAllGather:
    case Op::kReduceScatter:
    case Op::kAllToAll:
      return (r - 1.0) / r;
    case Op::kSendRecv:
    case Op::kPermute:
      return 1.0;
  }
  return 1.0;
}

}  // namespace sbrdma::collectives
