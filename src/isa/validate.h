#pragma once
/// Is a word a legal instruction? Two levels, kept apart:
///   decode_problem(): does the word name an op of the table, with its reserved bits clear?
///     (Fault::kIllegalOpcode, kIllegalSubOp, kReservedBits)
///   validate(): all of that, plus every field value defined by its type (kBadValue) and the
///     op's own rules (kUnsupported, kRuleViolated).
/// `header.inst_word_len` is never checked. [CHOICE D10]

#include <optional>

#include "isa/layout.h"
#include "isa/problem.h"
#include "isa/word.h"

namespace sbrdma::isa {

/// The first decoding problem of `word`, or nullopt if it decodes.
std::optional<Problem> decode_problem(const Word& word);

/// Every problem of `word`, in field order; empty if the word is valid. Messages name the op
/// (`rdma_desc_gen: ...`) once the op is known.
Problems validate(const Word& word);

/// validate()'s first problem of kind kReservedBits or kBadValue (those come first, field by
/// field, before the op's rules), with its message; nullopt if there is none or the word
/// names no op. What the sequencer refuses a word for, without checking the rules it leaves
/// to the routines.
std::optional<Problem> field_problem(const Word& word);

}  // namespace sbrdma::isa
