#include "isa/assembler.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/nearest_name.h"
#include "base/printable.h"
#include "isa/binary_io.h"
#include "isa/field_access.h"
#include "isa/op_table.h"
#include "isa/text_values.h"
#include "isa/validate.h"

namespace sbrdma::isa {

std::vector<std::string_view> split_blanks(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

namespace {

struct KeyRef {
  const Field* field = nullptr;
  const Part* part = nullptr;
};

KeyRef find_key(const OpDesc& op, std::string_view key) {
  for (const Field& field : op.fields) {
    for (const Part& part : parts_of(field.kind)) {
      if (key_name(field, part) == key) return {&field, &part};
    }
  }
  return {};
}

/// "; did you mean 'x'?" where `typed` is a likely slip for a name of `known`, else "".
std::string did_you_mean(std::string_view typed, std::span<const std::string_view> known) {
  const auto near = base::nearest_name(typed, known);
  return near ? fmt::format("; did you mean '{}'?", *near) : std::string();
}

/// `told_program_file`: the hint on program files was given at an earlier line (once is
/// enough; a program file has many such lines).
void directive(std::string_view body, const base::SourceLoc& loc, const DirectiveHandler& handler,
               AsmResult& out, bool& told_program_file) {
  const std::string_view name = body.substr(0, body.find_first_of(" \t"));
  if (name == ".raw") {
    auto w = parse_hex_word(body.substr(name.size()));
    if (w.ok()) {
      out.words.push_back({*w, loc});
    } else {
      out.errors.push_back(base::make_error(loc, "bad .raw: " + w.error().message));
    }
    return;
  }
  if (!handler) {
    // A program file given to the assembler: say where its directives are read.
    const bool program_file =
        name == ".core" || name == ".init" || name == ".expect" || name == ".dump";
    std::string hint;
    if (program_file) {
      hint = told_program_file ? " (a program file's)"
                               : " (a program file's: `sbrdma run` reads it, and `sbrdma asm "
                                 "--core N` assembles core N's words)";
      told_program_file = true;
    }
    out.errors.push_back(base::make_error(
        loc, fmt::format("unknown directive '{}'{}", base::printable_brief(name), hint)));
    return;
  }
  for (base::Error& e : handler(body, loc)) {
    if (e.loc.file.empty()) e.loc = loc;
    out.errors.push_back(std::move(e));
  }
}

}  // namespace

std::vector<Word> AsmResult::word_list() const {
  std::vector<Word> out;
  out.reserve(words.size());
  for (const AsmWord& w : words) out.push_back(w.word);
  return out;
}

std::optional<Word> parse_instruction(std::string_view line, const base::SourceLoc& loc,
                                      base::Errors& errors) {
  const std::vector<std::string_view> toks = split_blanks(line);
  if (toks.empty()) return std::nullopt;
  const OpDesc* op = find_mnemonic(toks[0]);
  if (op == nullptr) {
    std::vector<std::string_view> known;
    for (const OpDesc& o : all_ops()) known.push_back(o.mnemonic);
    errors.push_back(
        base::make_error(loc, fmt::format("unknown mnemonic '{}'{}", base::printable_brief(toks[0]),
                                          did_you_mean(toks[0], known))));
    return std::nullopt;
  }
  Word word = blank_word(*op);
  const std::size_t errors_before = errors.size();
  std::vector<std::string_view> seen;
  for (std::size_t i = 1; i < toks.size(); ++i) {
    const std::string_view tok = toks[i];
    const std::size_t eq = tok.find('=');
    if (eq == std::string_view::npos) {
      errors.push_back(
          base::make_error(loc, fmt::format("missing '=' in '{}'", base::printable_brief(tok))));
      continue;
    }
    const std::string_view key = tok.substr(0, eq);
    const KeyRef ref = find_key(*op, key);
    if (ref.field == nullptr) {
      std::vector<std::string> keys;
      for (const Field& field : op->fields) {
        for (const Part& part : parts_of(field.kind)) keys.push_back(key_name(field, part));
      }
      const std::vector<std::string_view> known(keys.begin(), keys.end());
      errors.push_back(base::make_error(
          loc, fmt::format("unknown field '{}' for {}{}", base::printable_brief(key), op->mnemonic,
                           did_you_mean(key, known))));
      continue;
    }
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      errors.push_back(
          base::make_error(loc, fmt::format("duplicate field '{}'", base::printable_brief(key))));
      continue;
    }
    seen.push_back(key);
    if (auto err = parse_part(tok.substr(eq + 1), *ref.field, *ref.part, word)) {
      errors.push_back(base::make_error(loc, *err));
    }
  }
  if (errors.size() != errors_before) return std::nullopt;
  const Problems problems = validate(word);
  for (const Problem& p : problems) {
    const bool left_out =
        !p.field.empty() && std::none_of(seen.begin(), seen.end(), [&](std::string_view k) {
          return k == p.field || k.starts_with(std::string(p.field) + ".");
        });
    errors.push_back(base::make_error(
        loc, left_out
                 ? fmt::format("{}; {} was not given, and 0 is no value for it", p.message, p.field)
                 : p.message));
  }
  if (!problems.empty()) return std::nullopt;
  return word;
}

AsmResult assemble(std::string_view text, std::string_view file,
                   const DirectiveHandler& on_directive) {
  AsmResult out;
  const std::vector<std::string_view> lines = split_lines(text);
  if (auto e =
          binary_input_error(lines, file, "64-byte binary words are read by 'sbrdma disasm'")) {
    out.errors.push_back(std::move(*e));
    return out;
  }
  bool told_program_file = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const base::SourceLoc loc{std::string(file), static_cast<int>(i + 1)};
    const std::string_view body = strip_comment(lines[i]);
    if (body.empty()) continue;
    if (body.front() == '.') {
      directive(body, loc, on_directive, out, told_program_file);
      continue;
    }
    if (auto w = parse_instruction(body, loc, out.errors)) out.words.push_back({*w, loc});
  }
  return out;
}

}  // namespace sbrdma::isa
