#pragma once
/// The op table: one row per instruction word sbrdma knows, ending in no "catch-all" — a word
/// whose (opcode, extended_opcode) is not a row is illegal. Encoder, decoder, validator,
/// printer, parser and `sbrdma info ops` all read this table.

#include <optional>
#include <span>
#include <string_view>

#include "isa/layout.h"
#include "isa/word.h"

namespace sbrdma::isa {

/// Every row, in opcode then sub-op order.
std::span<const OpDesc> all_ops();

/// The row for (opcode, sub_op); sub_op is ignored unless opcode is 0xF0. Null if none.
const OpDesc* find_op(std::uint8_t opcode, std::uint8_t sub_op);

/// The row a word encodes (bytes 0 and 12), or null.
const OpDesc* find_op(const Word& word);

/// The ISA's name of an outer opcode that has no row here (its layout is not modelled), or ""
/// for a value the ISA does not define. [HIGH] wiki-facts §1.1
std::string_view unmodelled_opcode_name(std::uint8_t opcode);

/// The row with this mnemonic, or null.
const OpDesc* find_mnemonic(std::string_view mnemonic);

/// The field of `op` called `name`, or null.
const Field* find_field(const OpDesc& op, std::string_view name);

}  // namespace sbrdma::isa
