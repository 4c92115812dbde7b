#pragma once
/// Why a word is not a valid instruction. Decoding reports the first two kinds of fault (the
/// word names no op; reserved bits are set); validation adds the others.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sbrdma::isa {

/// The category of a problem with a word.
enum class Fault : std::uint8_t {
  kIllegalOpcode,  ///< byte 0 names no op of the table
  kIllegalSubOp,   ///< 0xF0 with an extended_opcode outside the enum (5, or > 9)
  kReservedBits,   ///< a reserved byte or bit is not zero
  kBadValue,       ///< a field holds a value its type does not define (unknown WAIT_MODE, ...)
  kUnsupported,    ///< an encoding the spec marks as not supported (is_bidirectional != 0)
  kRuleViolated,   ///< an op's validity rule fails (SB2SB dtype mismatch, engine count, ...)
};

/// "illegal opcode", "reserved bits set", ... (for messages and tests).
std::string_view fault_name(Fault fault);

/// One problem: its category and a one-line message without location.
struct Problem {
  Fault fault;
  std::string message;
  /// The field whose value breaks the rule, where one does (`dma_engine_mask`): the assembler
  /// says when the line left it out.
  std::string_view field{};
};

using Problems = std::vector<Problem>;

}  // namespace sbrdma::isa
