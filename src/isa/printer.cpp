#include "isa/printer.h"

#include "isa/binary_io.h"
#include "isa/field_access.h"
#include "isa/op_table.h"
#include "isa/text_values.h"
#include "isa/validate.h"

namespace sbrdma::isa {

std::string print_word(const Word& word) {
  const Problems problems = validate(word);
  if (!problems.empty()) return ".raw " + word_to_hex(word) + "  # " + problems.front().message;
  const OpDesc& op = *find_op(word);
  std::string line(op.mnemonic);
  for (const Field& field : op.fields) {
    for (const Part& part : parts_of(field.kind)) {
      if (is_default(word, field, part)) continue;
      line += ' ';
      line += key_name(field, part);
      line += '=';
      line += format_part(word, field, part);
    }
  }
  return line;
}

std::string disassemble(std::span<const Word> words) {
  std::string out;
  for (const Word& w : words) {
    out += print_word(w);
    out += '\n';
  }
  return out;
}

}  // namespace sbrdma::isa
