#pragma once
/// The sbrdma subcommands. Each add_* function registers subcommands on the app (or on the
/// `decode` / `info` parent); their callbacks store the exit status in `ctx.status`.
/// Commands stay thin: parse arguments, call the libraries, print, map errors to exit codes
/// (0 ok, 1 bad input or failed check, 2 internal error). Errors print as
/// `file:line: error: message` on stderr, one line each.

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "device/topology_spec.h"

namespace sbrdma::cli {

/// Refuses an empty value ("--plot ''"), which would otherwise read as the option not given.
inline const CLI::Validator kNonEmpty(
    [](std::string& v) { return v.empty() ? std::string("must not be empty") : ""; }, "",
    "NON_EMPTY");

/// The error of a flag's value, named by the flag as every bad flag value is ("--topology:
/// unknown topology 'x' ..."). An error located in a file (a topology file's) keeps its
/// location instead: the file name says where it comes from.
inline base::Error flag_error(std::string_view flag, base::Error e) {
  if (e.loc.file.empty()) e.message = std::string(flag) + ": " + std::move(e.message);
  return e;
}

/// Shared state of one invocation.
struct Context {
  int status = 0;
};

// isa_commands.cpp
void add_isa_commands(CLI::App& app, Context& ctx);    // asm, disasm
void add_decode_word(CLI::App& decode, Context& ctx);  // decode word HEX
void add_info_ops(CLI::App& info, Context& ctx);       // info ops
// soc_commands.cpp
void add_decode_soc(CLI::App& decode, Context& ctx);  // decode addr ADDR, decode desc HEX
void add_info_regs(CLI::App& info, Context& ctx);     // info regs
// platform_info_commands.cpp
void add_info_platform(CLI::App& info, Context& ctx);  // info topology NAME|FILE, info params
/// A --profile value: a built-in topology's name stands for that topology's profile (trn2:
/// cayman), since users know the instances, not the generations' code names; any other value is
/// returned as given, for the profile lookup to take or refuse.
std::string profile_flag(const std::string& value);
/// A --profile lookup's error, which also names the built-in topologies it takes.
base::Error profile_flag_error(base::Error e);
/// Adds `--param NAME=VALUE` (repeatable) to `cmd`, its values stored in `params`. [CHOICE D47]
void add_param_option(CLI::App& cmd, std::vector<std::string>& params);
/// The --param values, checked (platform::parse_param_override; a name given twice is an
/// error), in order.
base::Result<std::vector<device::ParamOverrideSpec>> param_overrides(
    const std::vector<std::string>& params);
// demo_command.cpp
void add_demo_command(CLI::App& app, Context& ctx);  // demo (the ./dev run job)
// run_command.cpp
void add_run_command(CLI::App& app, Context& ctx);  // run PROGRAM
// bench_command.cpp
void add_bench_command(CLI::App& app, Context& ctx);  // bench COLLECTIVE -r RANKS ...

}  // namespace sbrdma::cli
