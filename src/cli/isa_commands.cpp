// sbrdma asm / disasm / decode word / info ops: thin drivers over the isa library. This file is
// the only place that reads or writes files for them; nothing is written unless the whole input
// was good.

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "base/printable.h"
#include "base/result.h"
#include "cli/commands.h"
#include "cli/file_io.h"
#include "cli/numbers.h"
#include "cli/program_input.h"
#include "device/topology.h"
#include "isa/assembler.h"
#include "isa/binary_io.h"
#include "isa/field_access.h"
#include "isa/op_table.h"
#include "isa/printer.h"
#include "isa/text_values.h"
#include "platform/program_file.h"
#include "platform/topology_json.h"
#include "soc/profile.h"

namespace sbrdma::cli {
namespace {

std::string as_text(std::span<const std::uint8_t> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};  // NOLINT
}

// ---- asm / disasm ---------------------------------------------------------------------------

struct AsmArgs {
  std::string in = "-";
  std::string out;
  bool hex = false;
  std::string core;      ///< asm --core N: a program file's core N ("": plain assembly)
  std::string topology;  ///< with --core: whose cores the file numbers
};

/// Core `core`'s words of the program at `path` (a program file, or a folder of coreN.s files),
/// read as `sbrdma run` reads it on `topology`, into `words`; the errors (every one of the
/// program's, or why there are none). `out` (-o) may be none of the files read.
std::vector<base::Error> program_core_words(const std::string& path, std::uint64_t core,
                                            const std::string& topology, const std::string& out,
                                            std::vector<isa::Word>& words) {
  auto loaded = platform::load_topology_and_params(topology, {});
  if (!loaded) return {flag_error("--topology", loaded.error())};
  const device::Topology& topo = loaded->topology;
  if (core >= topo.num_cores()) {
    return {base::make_error("--core: " +
                             device::missing_core_message(std::to_string(core), core, topo))};
  }
  auto profile = soc::find_profile(topo.profile());
  if (!profile) return {profile.error()};
  // A file's words before any `.core` line are the asked core's: one coreN.s file of a
  // folder is such a file.
  auto input = read_program_input(path, topo, **profile, "asm", static_cast<device::CoreId>(core));
  if (!input) return {input.error()};
  // Every file read, a folder's too, and the topology's: -o replaces none of them.
  std::vector<std::pair<std::string_view, std::string>> inputs{
      {"--topology", platform::topology_file(topology)}};
  for (const std::string& f : input->parsed.program.files) inputs.emplace_back("a program file", f);
  if (auto st = check_not_an_input("-o", out, inputs); !st) return {st.error()};
  if (!input->parsed.ok()) return std::move(input->parsed.errors);
  std::string with;
  for (platform::CoreProgram& cp : input->parsed.program.cores) {
    if (cp.words.empty()) continue;  // a `.core` line alone gives the core no words
    if (cp.core == core) {
      words = std::move(cp.words);
      return {};
    }
    with += fmt::format("{}{}", with.empty() ? "" : ", ", cp.core);
  }
  return {base::make_error(
      fmt::format("{}: core {} has no words here ({})", base::printable(input->name), core,
                  with.empty() ? "no core has any" : "cores with words: " + with))};
}

int run_asm(const AsmArgs& a) {
  const std::pair<std::string_view, std::string> inputs[] = {{"the assembly text", a.in}};
  if (auto st = check_not_an_input("-o", a.out, inputs); !st) return fail(st.error());
  if (!a.topology.empty() && a.core.empty()) {
    return fail(
        base::make_error("--topology: only with --core (it numbers a program file's "
                         "cores)"));
  }
  std::vector<isa::Word> words;
  if (!a.core.empty()) {
    auto core = parse_flag_u64("--core", a.core);
    if (!core) return fail(core.error());
    const std::vector<base::Error> errors =
        program_core_words(a.in, *core, a.topology.empty() ? "trn2" : a.topology, a.out, words);
    if (!errors.empty()) return fail(errors);
  } else {
    auto input = read_text_input(a.in);
    if (!input.ok()) return fail(input.error());
    const isa::AsmResult r = isa::assemble(input->data, input->name);
    if (!r.ok()) return fail(r.errors);
    words = r.word_list();
  }
  const bool hex = a.hex;
  const std::string out = hex ? isa::words_to_hex(words) : as_text(isa::words_to_bytes(words));
  auto s = write_output(a.out, out);
  return s.ok() ? 0 : fail(s.error());
}

int run_disasm(const std::string& in_path, bool hex) {
  auto input = hex ? read_text_input(in_path) : read_input(in_path);
  if (!input.ok()) return fail(input.error());
  std::vector<isa::Word> words;
  if (hex) {
    isa::WordsResult r = isa::words_from_hex(input->data, input->name);
    if (!r.ok()) return fail(r.errors);
    words = std::move(r.words);
  } else {
    auto r = isa::words_from_bytes(as_bytes(input->data));
    if (!r.ok()) return fail(base::make_error(base::SourceLoc{input->name, 0}, r.error().message));
    words = std::move(r).value();
  }
  const std::string text = isa::disassemble(words);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

// ---- info ops -------------------------------------------------------------------------------

std::string describe_kind(const isa::OpDesc& op, const isa::Field& f) {
  using isa::Kind;
  switch (f.kind) {
    case Kind::kOpcode:
      return fmt::format("OPCODE = 0x{:02x}", op.opcode);
    case Kind::kSubOpcode:
      return fmt::format("EXTENDED_OPCODES1 = {}", op.sub_op);
    case Kind::kEnum8:
      return fmt::format("enum {}", f.enums->type_name);
    default:
      break;
  }
  std::string s(isa::field_kind_name(f));
  const auto parts = isa::parts_of(f.kind);
  if (parts.size() > 1 || (parts.size() == 1 && !parts[0].name.empty())) {
    s += ':';
    for (const isa::Part& p : parts) {
      s += ' ';
      s += p.name;
      if (p.count > 1) s += fmt::format("[{}]", p.count);
    }
  }
  if (f.default_value != 0) s += fmt::format(" (default 0x{:x})", f.default_value);
  return s;
}

std::string info_ops_text() {
  std::string out =
      "ops (opcode[/extended_opcode] mnemonic struct; then offset size field kind):\n";
  for (const isa::OpDesc& op : isa::all_ops()) {
    const std::string id = op.sub_op < 0 ? fmt::format("0x{:02x}", op.opcode)
                                         : fmt::format("0x{:02x}/{}", op.opcode, op.sub_op);
    out += fmt::format("\n{:<7} {:<24} {}\n", id, op.mnemonic, op.struct_name);
    for (const isa::Field& f : op.fields) {
      out +=
          fmt::format("  {:>2} {:>2}  {:<20} {}\n", f.offset, f.size, f.name, describe_kind(op, f));
    }
  }
  out += "\nenums (value=name):\n";
  for (const isa::EnumDesc* e : isa::all_enums()) {
    std::string line = fmt::format("{}:", e->type_name);
    for (const isa::EnumValue& v : e->values) {
      const std::string item = fmt::format(" 0x{:02x}={}", v.value, v.name);
      if (line.size() + item.size() > 100) {
        out += line + '\n';
        line = "   ";
      }
      line += item;
    }
    out += line + '\n';
  }
  return out;
}

}  // namespace

void add_isa_commands(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<AsmArgs>();
  CLI::App* as = app.add_subcommand(
      "asm", "Assemble text into 64-byte instruction words (raw binary, or hex text with --hex)");
  as->add_option("FILE", args->in, "assembly text to read; - for standard input")
      ->capture_default_str()
      ->check(kNonEmpty);
  as->add_option("-o,--output", args->out,
                 "file to write (default: standard output); not written if there is any error")
      ->check(kNonEmpty);
  as->add_flag("--hex", args->hex, "write hex text, one word of 128 hex digits per line");
  as->add_option("--core", args->core,
                 "read FILE as a program file (docs/program-files.md) or a folder of coreN.s "
                 "files, as `sbrdma run` does, checking all of it, and assemble core N's words "
                 "(those before any .core line included)")
      ->type_name("N")
      ->check(kNonEmpty);
  as->add_option("--topology", args->topology,
                 "with --core: the topology whose cores the file numbers (default trn2), as "
                 "`sbrdma run` takes it")
      ->check(kNonEmpty);
  as->callback([args, &ctx] { ctx.status = run_asm(*args); });

  auto dargs = std::make_shared<AsmArgs>();
  CLI::App* dis = app.add_subcommand(
      "disasm", "Print 64-byte instruction words as assembly text (one line per word)");
  dis->add_option("FILE", dargs->in,
                  "raw binary words to read (hex text with --hex); - for standard input")
      ->capture_default_str()
      ->check(kNonEmpty);
  dis->add_flag("--hex", dargs->hex, "read hex text (one word of 128 hex digits per line)");
  dis->callback([dargs, &ctx] { ctx.status = run_disasm(dargs->in, dargs->hex); });
}

void add_decode_word(CLI::App& decode, Context& ctx) {
  auto hex = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = decode.add_subcommand(
      "word", "Print one 64-byte instruction word as assembly text (same as disasm)");
  cmd->add_option("HEX", *hex,
                  "128 hex digits, byte 0 first, in one or more arguments (blanks allowed, and a "
                  "0x before each argument's digits)")
      ->required();
  cmd->callback([hex, &ctx] {
    std::string joined;
    for (const std::string& s : *hex) {
      std::string_view part = s;
      // The first argument's 0x is parse_hex_word's to take (once: "0x0x..." stays bad).
      if (!joined.empty()) {
        while (!part.empty() && (part.front() == ' ' || part.front() == '\t')) {
          part.remove_prefix(1);
        }
        if (part.starts_with("0x") || part.starts_with("0X")) part.remove_prefix(2);
      }
      joined += part;
    }
    auto w = isa::parse_hex_word(joined);
    if (!w.ok()) {
      ctx.status = fail(flag_error("HEX", w.error()));  // named as --help names it
      return;
    }
    std::printf("%s\n", isa::print_word(*w).c_str());
    ctx.status = 0;
  });
}

void add_info_ops(CLI::App& info, Context& ctx) {
  CLI::App* cmd = info.add_subcommand(
      "ops", "Print the op table: each op's opcode, sub-op, mnemonic and fields, and the enums");
  cmd->callback([&ctx] {
    const std::string text = info_ops_text();
    std::fwrite(text.data(), 1, text.size(), stdout);
    ctx.status = 0;
  });
}

}  // namespace sbrdma::cli
