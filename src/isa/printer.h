#pragma once
/// Words to canonical assembly text (docs/isa-syntax.md): the mnemonic, then `key=value` for
/// every part that is not at its default, in table order. A word that fails validation prints
/// as `.raw <128 hex digits>  # <reason>`, so assembling the output gives the same bytes back.

#include <span>
#include <string>

#include "isa/word.h"

namespace sbrdma::isa {

/// One line of text for `word` (no newline).
std::string print_word(const Word& word);

/// One line per word, each ending in '\n'.
std::string disassemble(std::span<const Word> words);

}  // namespace sbrdma::isa
