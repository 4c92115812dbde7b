#include "collectives/program.h"

#include <fmt/format.h>

#include "isa/printer.h"

namespace sbrdma::collectives {

std::string program_text(const CoreProgram& p, const std::string& header) {
  std::string out;
  for (std::size_t start = 0; start < header.size();) {
    const std::size_t nl = header.find('\n', start);
    const std::size_t end = nl == std::string::npos ? header.size() : nl;
    out += "# " + header.substr(start, end - start) + "\n";
    start = end + 1;
  }
  std::size_t iter = 0;
  for (std::size_t i = 0; i < p.words.size(); ++i) {
    while (iter < p.iteration_end.size() && p.iteration_end[iter] == i) {
      out += fmt::format("# -- iteration {} ends\n", iter++);
    }
    std::string line = isa::print_word(p.words[i]);
    const std::string& note = i < p.notes.size() ? p.notes[i] : std::string();
    if (!note.empty()) {
      // A word the printer shows as `.raw ... # reason` already has a comment.
      line += line.find('#') == std::string::npos ? "  # " : "; ";
      line += note;
    }
    out += line + "\n";
  }
  while (iter < p.iteration_end.size()) out += fmt::format("# -- iteration {} ends\n", iter++);
  return out;
}

}  // namespace sbrdma::collectives
