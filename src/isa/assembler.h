#pragma once
/// Assembly text to words (docs/isa-syntax.md). One instruction per line:
/// `mnemonic key=value ...`, `#` comments, `.raw <128 hex digits>` for a verbatim word.
/// The assembler keeps going after an error and reports every one with `file:line`.
///
/// Other directive lines (starting with '.') go to an optional handler, so that callers with
/// richer files (`sbrdma run` programs: `.core`, `.init`, `.expect`) reuse this parser.
/// Without a handler such a line is an `unknown directive` error.

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "isa/word.h"

namespace sbrdma::isa {

/// One assembled word and the source line it came from.
struct AsmWord {
  Word word;
  base::SourceLoc loc;
};

/// Called for a directive line other than `.raw`, with the line stripped of its comment and
/// surrounding blanks. The errors it returns (none: the line is fine) are reported at `loc`
/// (an error's own location, if set, wins), all of them, as an instruction line's are.
/// Handlers see directives and words interleave by their line numbers.
using DirectiveHandler =
    std::function<base::Errors(std::string_view line, const base::SourceLoc& loc)>;

/// The words of a text and every error found in it (then `words` is incomplete).
struct AsmResult {
  std::vector<AsmWord> words;
  base::Errors errors;
  [[nodiscard]] bool ok() const { return errors.empty(); }
  /// Just the words, in order.
  [[nodiscard]] std::vector<Word> word_list() const;
};

/// Assembles `text`; `file` names it in diagnostics (`<stdin>` for standard input).
AsmResult assemble(std::string_view text, std::string_view file,
                   const DirectiveHandler& on_directive = {});

/// The blank-separated (spaces, tabs) tokens of a line, the way the assembler splits
/// instructions; directive handlers use it so that both halves of a file tokenize alike.
std::vector<std::string_view> split_blanks(std::string_view line);

/// Parses one instruction (no comment, not a directive). On success returns the word, which
/// also passed validate(); otherwise appends every error, located at `loc`, to `errors`.
std::optional<Word> parse_instruction(std::string_view line, const base::SourceLoc& loc,
                                      base::Errors& errors);

}  // namespace sbrdma::isa
