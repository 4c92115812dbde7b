#pragma once
/// The output of lowering: one POOL program (64-byte words) per core, with an optional note
/// per word that `--dump-programs` prints as a comment.

#include <cstddef>
#include <string>
#include <vector>

#include "collectives/geometry.h"
#include "isa/word.h"

namespace sbrdma::collectives {

/// Where a step of the algorithm starts in a core's program (for trace boxes).
struct StepMark {
  std::size_t pc = 0;  ///< first word of the step
  std::string name;    ///< "ring rs step 2", "mesh ag", ...
};

/// One core's program.
struct CoreProgram {
  CoreId core = 0;
  std::vector<isa::Word> words;
  std::vector<std::string> notes;  ///< empty, or one per word ("" for none)
  /// words.size() at the end of each iteration of the collective (iteration i ends before
  /// word iteration_end[i]); the runner times iterations with it.
  std::vector<std::size_t> iteration_end;
  /// Step starts, in program order (kept with the notes only).
  std::vector<StepMark> steps;
};

/// Assembly text of `p`: a header comment, then one line per word (print_word) with its note
/// as a `#` comment, and `# -- iteration i ends` after each iteration. `sbrdma asm` reads it
/// back to the same words.
std::string program_text(const CoreProgram& p, const std::string& header);

}  // namespace sbrdma::collectives
