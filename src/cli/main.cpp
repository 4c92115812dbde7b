// sbrdma: one CLI over the sbrdma libraries. See README.md and DESIGN.md "CLI contract".

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/check.h"
#include "base/printable.h"
#include "cli/commands.h"

namespace {

/// Where a usage error belongs: the deepest command the line names ("sbrdma bench"), and the
/// word that named no command where one was expected.
struct UsageScope {
  std::string path = "sbrdma";
  std::string unknown;
  std::string choices;         ///< the commands that could come where `unknown` (or nothing) came
  std::string unknown_option;  ///< the first option, before a command's own arguments, that
                               ///< the command where it came does not have
  std::string number_word;     ///< a "-digit" word taken there as an argument, not an option
  const CLI::App* leaf = nullptr;  ///< the command reached
};

/// Whether `word` reads as a negative number ("-1"), which may be an argument, not an option.
bool negative_number(std::string_view word) {
  return word.size() > 1 && word[0] == '-' && word[1] >= '0' && word[1] <= '9';
}

/// Whether `cmd` has the option `word` ("--name", "--name=value", "-x" or "-xVALUE").
bool has_option(const CLI::App& cmd, std::string_view word) {
  std::string name(word.substr(0, word.find('=')));
  if (!name.starts_with("--") && name.size() > 2) name.resize(2);  // -r8: -r with value 8
  return cmd.get_option_no_throw(name) != nullptr;
}

UsageScope usage_scope(const CLI::App& app, int argc, char** argv) {
  UsageScope s;
  const CLI::App* at = &app;
  const auto commands = [](const CLI::App* cmd) {
    return cmd->get_subcommands([](const CLI::App*) { return true; });
  };
  for (int i = 1; i < argc && s.unknown.empty(); ++i) {
    const std::string_view word = argv[i];
    if (word.empty() || word.front() == '-') {  // an option: its value may look like a word
      // "-1" may be a leaf command's argument (a negative number), not an option.
      const bool number = negative_number(word) && commands(at).empty();
      if (word.size() > 1 && word != "--" && !number && !has_option(*at, word)) {
        s.unknown_option = word;
      }
      if (number) s.number_word = word;
      break;
    }
    const auto subs = commands(at);
    if (subs.empty()) break;  // a command's own arguments
    const auto next = std::find_if(subs.begin(), subs.end(),
                                   [&](const CLI::App* sub) { return sub->get_name() == word; });
    if (next == subs.end()) {
      s.unknown = word;
    } else {
      at = *next;
      s.path += " " + at->get_name();
    }
  }
  s.leaf = at;
  // What could have come where the unknown word (or nothing) came.
  for (const CLI::App* sub : commands(at)) {
    s.choices += (s.choices.empty() ? "" : ", ") + sub->get_name();
  }
  return s;
}

/// The usage errors (without "sbrdma: error: ") of a word the command has no place for, one
/// wording for the parse errors and for the words given with --version.
std::string unknown_option(std::string_view word, const std::string& path) {
  return "unknown option '" + sbrdma::base::printable(word) + "' for '" + path + "'";
}
std::string unexpected_argument(std::string_view word, const std::string& path) {
  return "unexpected argument '" + sbrdma::base::printable(word) + "' for '" + path + "'";
}
std::string unknown_command(const UsageScope& scope) {
  return "unknown command '" + sbrdma::base::printable(scope.unknown) + "' for '" + scope.path +
         "' (one of: " + scope.choices + ")";
}

/// The usage error (without "sbrdma: error: ") of a line that gives "--version" with another
/// word, or nothing for "sbrdma --version" alone. CLI11 prints the version as soon as it reads
/// the flag, whatever comes before or after it; here a word with it is refused as any word too
/// many is, and named as it would be without the flag.
std::optional<std::string> version_usage_error(const CLI::App& app, int argc, char** argv) {
  if (argc <= 2) return std::nullopt;
  const UsageScope scope = usage_scope(app, argc, argv);
  if (!scope.unknown.empty()) return unknown_command(scope);
  if (!scope.unknown_option.empty()) return unknown_option(scope.unknown_option, scope.path);
  // The first word but the (first) --version: a second one, an option, or an argument (any
  // word after a "--").
  bool skipped = false;
  bool after_dashes = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (!after_dashes && word == "--version" && !skipped) {
      skipped = true;
      continue;
    }
    if (!after_dashes && word == "--" && i + 1 < argc) {
      after_dashes = true;
      continue;
    }
    if (!after_dashes && word == "--version") return std::string("--version given more than once");
    if (!after_dashes && word.size() > 1 && word.front() == '-' && word != "--" &&
        !has_option(app, word)) {
      return unknown_option(word, scope.path);
    }
    return unexpected_argument(word, scope.path + " --version");
  }
  return std::nullopt;  // "--version=..." and nothing else: CLI11's to judge
}

/// Option `name` ("-b", "--minbytes") of `cmd` as its help names it: "-b/--minbytes"; `name`
/// itself if `cmd` has no such option.
std::string help_name(const CLI::App* cmd, std::string name) {
  if (const CLI::Option* opt = cmd != nullptr ? cmd->get_option_no_throw(name) : nullptr) {
    name = opt->get_name(false, true);
    std::replace(name.begin(), name.end(), ',', '/');
  }
  return name;
}

/// The option of `leaf` that `word` names when `word` is one that takes its value from the next
/// word ("-b", "--minbytes"; not "--minbytes=1K", "-b1K" or a flag); nullptr otherwise.
const CLI::Option* option_taking_next(const CLI::App& leaf, std::string_view word) {
  if (word.size() < 2 || word[0] != '-' || word.find('=') != std::string_view::npos) return nullptr;
  if (word[1] != '-' && word.size() > 2) return nullptr;
  const CLI::Option* opt = leaf.get_option_no_throw(std::string(word));
  return opt == nullptr || opt->get_expected_min() < 1 ? nullptr : opt;
}

bool is_help_word(std::string_view w) {
  return w == "--help" || w == "-h";
}

/// Whether a help word comes before any "--": help wins over every other word.
bool asks_for_help(int argc, char** argv) {
  for (int i = 1; i < argc && std::string_view(argv[i]) != "--"; ++i) {
    if (is_help_word(argv[i])) return true;
  }
  return false;
}

/// The first word after "--" that no argument slot took, once CLI11 called for help on a help
/// word there: a word before it that CLI11 kept aside (in `leaf`'s remaining list or, for some,
/// its parents': "bench allr -- x --help" gives x), else that first help word.
std::string unplaced_word_after_dashes(const CLI::App* leaf, int argc, char** argv) {
  for (const CLI::App* at = leaf; at != nullptr; at = at->get_parent()) {
    for (const std::string& extra : at->remaining()) {
      if (extra != "--") return extra;
    }
  }
  bool after = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view w = argv[i];
    if (after && is_help_word(w)) return std::string(w);
    after = after || w == "--";
  }
  return "--help";
}

/// argv without the options whose value slot holds a help word ("asm -o --help", "bench allr -b
/// -h"): CLI11 would take the word as the value (and asm wrote its program to a file named
/// --help). Help wins over every other word, so the option is dropped and the help printed.
std::vector<char*> without_options_before_help(const CLI::App& app, int argc, char** argv) {
  std::vector<char*> out(argv, argv + argc);
  const UsageScope scope = usage_scope(app, argc, argv);
  if (scope.leaf == nullptr) return out;
  for (std::size_t i = 1; i + 1 < out.size() && std::string_view(out[i]) != "--";) {
    if (option_taking_next(*scope.leaf, out[i]) != nullptr && is_help_word(out[i + 1])) {
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  return out;
}

/// argv with "-x=VALUE" as "-xVALUE" for a short option `x` of the command that takes a value
/// (before any "--"): nccom-test's argparse reads "-c=random" as random, where CLI11, as GNU
/// getopt does, takes "=random". "-x=" alone is left for missing_value_error(). `storage`
/// holds the new words.
std::vector<char*> with_short_equals(const CLI::App& app, std::vector<char*> args,
                                     std::vector<std::string>& storage) {
  const int argc = static_cast<int>(args.size());
  const UsageScope scope = usage_scope(app, argc, args.data());
  if (scope.leaf == nullptr) return args;
  storage.reserve(args.size());
  for (std::size_t i = 1; i < args.size() && std::string_view(args[i]) != "--"; ++i) {
    const std::string_view w = args[i];
    if (w.size() < 4 || w[0] != '-' || w[1] == '-' || w[2] != '=') continue;
    const CLI::Option* opt = scope.leaf->get_option_no_throw(std::string(w.substr(0, 2)));
    if (opt == nullptr || opt->get_expected_max() < 1) continue;
    storage.push_back(std::string(w.substr(0, 2)) + std::string(w.substr(3)));
    args[i] = storage.back().data();
  }
  return args;
}

/// The usage error (without "sbrdma: error: ") of an option given without its value: the line
/// ends after it, or the next word is another of the command's options ("bench -b -r 2", which
/// CLI11 reads as -b of "-r" and blames the "2"; "-t -n 1", which it reads as three
/// statistics). Nothing for a line that asks for help, or has no such option.
std::optional<std::string> missing_value_error(const CLI::App& app, int argc, char** argv) {
  if (asks_for_help(argc, argv)) return std::nullopt;
  const UsageScope scope = usage_scope(app, argc, argv);
  if (scope.leaf == nullptr || !scope.unknown.empty()) return std::nullopt;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") break;
    // "--name=..." (and "-x=", a short option's "=" alone): the option named before the '='.
    const auto eq = word.find('=');
    const bool long_form = word.starts_with("--");
    const bool short_form = !long_form && word.size() == 3 && word[0] == '-' && eq == 2;
    const CLI::Option* named =
        eq != std::string_view::npos && (long_form || short_form)
            ? scope.leaf->get_option_no_throw(std::string(word.substr(0, eq)))
            : nullptr;
    if (named != nullptr) {
      const std::string name = help_name(scope.leaf, std::string(word.substr(0, eq)));
      // A flag is on when given: "--timing-only=true" is refused as "=0" is (CLI11 lets a
      // value equal to the flag's own default through).
      if (long_form && named->get_expected_max() == 0) {
        return name + " takes no value (give it to turn it on)";
      }
      // Nothing after the '=': CLI11 would take the next word as the value ("asm --output=
      // a.s" wrote its output over a.s, read from standard input; "--check= all_ones" checked
      // all ones), or "=" itself ("asm -o=" wrote a file named "="). Refused for an option
      // that takes a value, one whose value is optional included.
      if (eq + 1 == word.size() && named->get_expected_max() >= 1) {
        const std::string shown = "'" + sbrdma::base::printable(word) + "'";
        return named->get_expected_min() == 0
                   ? name + ": " + shown +
                         " has no value after the '=' (give the option alone, or a value after "
                         "the '=')"
                   : name + " needs a value (" + shown + " has none after the '=')";
      }
    }
    // "--name=value" and "-xVALUE" carry their value.
    if (option_taking_next(*scope.leaf, word) == nullptr) continue;
    const std::string name = help_name(scope.leaf, std::string(word));
    if (i + 1 == argc) return name + " needs a value";
    const std::string_view next = argv[i + 1];
    if (next.size() > 1 && next[0] == '-' && next != "--" && has_option(*scope.leaf, next)) {
      return name + " needs a value (the next word, '" + sbrdma::base::printable(next) +
             "', is an option)";
    }
  }
  return std::nullopt;
}

/// Makes a flag given twice a usage error in `cmd` and every command under it, as an option
/// given twice is (CLI11 would let the last of a flag's repeats count, silently).
void refuse_repeated_flags(CLI::App& cmd) {
  for (CLI::Option* opt : cmd.get_options()) {
    if (opt->get_expected_max() == 0 && opt != cmd.get_help_ptr() && opt != cmd.get_version_ptr()) {
      opt->multi_option_policy(CLI::MultiOptionPolicy::Throw);
      opt->disable_flag_override();  // --timing-only=0 is not a quiet way to turn it off
    }
  }
  for (CLI::App* sub : cmd.get_subcommands([](CLI::App*) { return true; })) {
    refuse_repeated_flags(*sub);
  }
}

/// The usage error (without "sbrdma: error: ") of a line CLI11 refused with `e`, worded as
/// ours: the first word the command had no place for, an option given twice, a flag given a
/// value, an unknown or missing command, or CLI11's own text with the option named as --help
/// names it.
std::string parse_error_text(const CLI::ParseError& e, const UsageScope& scope) {
  // A "-digit" word the command took as an argument, where that left an argument over, was
  // meant as an option ("bench -1 allr").
  const bool extras = dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr;
  std::string number_word = scope.number_word;
  if (extras && number_word.empty() && scope.leaf != nullptr) {
    // Or one after the command's options ("bench -r 2 -1 allr"): a positional holding it.
    for (const CLI::Option* opt : scope.leaf->get_options()) {
      if (!opt->get_positional()) continue;
      for (const std::string& v : opt->results()) {
        if (negative_number(v)) number_word = v;
      }
    }
  }
  const bool stray_number = !number_word.empty() && extras;
  // The first word the command had no place for: an option it does not have, or an
  // argument too many (CLI11 lists them all, last first).
  // A word after "--" is an argument, whatever it looks like.
  const std::string_view what = std::string_view(e.what());
  std::optional<std::string> extra;
  bool after_dashes = false;
  if (extras && scope.leaf != nullptr) {
    for (const std::string& w : scope.leaf->remaining()) {
      if (w == "--" && !after_dashes) {
        after_dashes = true;
        continue;
      }
      extra = w;
      break;
    }
    // Words after a "--" that CLI11 keeps out of remaining(): its message names them, one
    // whole, or several (last first) split at blanks.
    constexpr std::string_view kOne = "The following argument was not expected: ";
    constexpr std::string_view kSome = "The following arguments were not expected: ";
    if (!extra && what.starts_with(kOne)) {
      extra = std::string(what.substr(kOne.size()));
      after_dashes = true;
    } else if (!extra && what.starts_with(kSome)) {
      extra = std::string(what.substr(what.rfind(' ') + 1));
      after_dashes = true;
    }
  }
  if (!scope.unknown_option.empty() || stray_number ||
      (extra && !after_dashes && extra->size() > 1 && extra->front() == '-')) {
    const std::string& word = stray_number                    ? number_word
                              : !scope.unknown_option.empty() ? scope.unknown_option
                                                              : *extra;
    return unknown_option(word, scope.path);
  }
  if (extra) {
    return unexpected_argument(*extra, scope.path);
  }
  if (const auto at = what.find(": At Most 1 required but received ");
      at != std::string_view::npos) {
    return help_name(scope.leaf, std::string(what.substr(0, at))) + " given more than once";
  }
  if (const auto flag_end = what.find(" was given a disallowed flag override");
      flag_end != std::string_view::npos) {
    // "--timing-only=0": a flag is on when given; CLI11 names it without its dashes.
    const std::string bare(what.substr(0, flag_end));
    const std::string name = help_name(scope.leaf, (bare.size() == 1 ? "-" : "--") + bare);
    return sbrdma::base::printable(name) + " takes no value (give it to turn it on)";
  }
  if (!scope.unknown.empty()) {
    return unknown_command(scope);
  }
  if (!scope.choices.empty() && what == "A subcommand is required") {
    return fmt::format("'{}' needs a command (one of: {})", scope.path, scope.choices);
  }
  // CLI11's own text quotes the value it refused ("--log: ... not in {...}"). An option it
  // names first is named as --help names it ("-b/--minbytes: must not be empty"), and
  // its count error is worded as ours ("-t/--stats: at most 101 values, got 102").
  std::string text(what);
  if (const auto colon = what.find(": ");
      colon != std::string_view::npos && scope.leaf != nullptr &&
      scope.leaf->get_option_no_throw(std::string(what.substr(0, colon))) != nullptr) {
    std::string rest(what.substr(colon + 2));
    unsigned most = 0;
    unsigned got = 0;
    if (std::sscanf(rest.c_str(), "At Most %u required but received %u", &most, &got) == 2) {
      rest = fmt::format("at most {} value{}, got {}", most, most == 1 ? "" : "s", got);
    }
    text = help_name(scope.leaf, std::string(what.substr(0, colon))) + ": " + rest;
  }
  return sbrdma::base::printable(text);
}

/// Output that never arrived (a full disk) is a failure, not a success: true (and said on
/// stderr) if standard output, C or C++ side, could not be written.
bool stdout_failed() {
  std::cout.flush();
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout) {
    std::fprintf(stderr, "sbrdma: error: cannot write standard output: %s\n",
                 std::strerror(errno != 0 ? errno : EIO));
    return true;
  }
  return false;
}

/// CLI11's exit for --help and --version, which print to std::cout: a help that could not be
/// written exits 1 as any other output does.
int exit_printing(CLI::App& app, const CLI::Error& e) {
  const int rc = app.exit(e);
  return stdout_failed() ? 1 : rc;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sbrdma::cli;
  // A run too large for this machine ends with one clear line (exit 1) wherever memory ran
  // out, a coroutine or an event included, rather than with std::bad_alloc's abort.
  std::set_new_handler([] { sbrdma::base::out_of_memory("an allocation failed"); });
  // A write past the file-size limit (ulimit -f) fails with EFBIG and is reported as any
  // failed write, its output left as it was, instead of SIGXFSZ ending the process with a
  // temporary file left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  CLI::App app{
      "sbrdma: the Trainium GPSIMD peer-to-peer transport (rdma_desc_gen, rdma_desc_start,\n"
      "SB2SB) on a deterministic model of the device.",
      "sbrdma"};
  app.set_version_flag("--version", "sbrdma " SBRDMA_VERSION);
  app.require_subcommand(1);
  Context ctx;
  add_isa_commands(app, ctx);
  CLI::App* decode =
      app.add_subcommand("decode", "Explain a SoC address, a UDMA descriptor or an ISA word");
  decode->require_subcommand(1);
  add_decode_soc(*decode, ctx);
  add_decode_word(*decode, ctx);
  CLI::App* info = app.add_subcommand(
      "info", "Print the op table, register tables, a topology or the timing parameters");
  info->require_subcommand(1);
  add_info_ops(*info, ctx);
  add_info_regs(*info, ctx);
  add_info_platform(*info, ctx);
  add_demo_command(app, ctx);
  add_run_command(app, ctx);
  add_bench_command(app, ctx);
  refuse_repeated_flags(app);
  std::vector<std::string> rewritten;
  std::vector<char*> args =
      with_short_equals(app, without_options_before_help(app, argc, argv), rewritten);
  argc = static_cast<int>(args.size());
  argv = args.data();
  if (const auto error = missing_value_error(app, argc, argv)) {
    std::fprintf(stderr, "sbrdma: error: %s\nrun '%s --help' for usage\n", error->c_str(),
                 usage_scope(app, argc, argv).path.c_str());
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForVersion& e) {
    // Help wins over every other word ("sbrdma --help x" is help too), --version included.
    if (asks_for_help(argc, argv)) return exit_printing(app, CLI::CallForHelp());
    if (const auto error = version_usage_error(app, argc, argv)) {
      std::fprintf(stderr, "sbrdma: error: %s\nrun 'sbrdma --help' for usage\n", error->c_str());
      return 1;
    }
    return exit_printing(app, e);
  } catch (const CLI::CallForHelp& e) {
    // A help word after "--" is an argument; CLI11 still calls for help when no argument slot
    // is left to take it ("bench allr -- --help").
    if (!asks_for_help(argc, argv)) {
      const UsageScope scope = usage_scope(app, argc, argv);
      const std::string word = unplaced_word_after_dashes(scope.leaf, argc, argv);
      std::fprintf(stderr, "sbrdma: error: %s\nrun '%s --help' for usage\n",
                   unexpected_argument(word, scope.path).c_str(), scope.path.c_str());
      return 1;
    }
    return exit_printing(app, e);
  } catch (const CLI::Success& e) {
    return exit_printing(app, e);
  } catch (const CLI::ValidationError& e) {
    // A value a check refused ("-b ''": must not be empty): one line naming the flag, as
    // every other bad value is, not a usage error.
    std::fprintf(stderr, "sbrdma: error: %s\n",
                 parse_error_text(e, usage_scope(app, argc, argv)).c_str());
    return 1;
  } catch (const CLI::ParseError& e) {
    const UsageScope scope = usage_scope(app, argc, argv);
    std::fprintf(stderr, "sbrdma: error: %s\nrun '%s --help' for usage\n",
                 parse_error_text(e, scope).c_str(), scope.path.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sbrdma: internal error: %s\n", e.what());
    return 2;
  }
  return stdout_failed() ? 1 : ctx.status;
}
