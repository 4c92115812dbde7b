#pragma once
/// The sbrdma subcommands. Each add_* function registers one family of subcommands on the
/// app; its callbacks store their exit status in `status`. Commands stay thin: parse arguments,
/// call the libraries, print, map errors to exit codes (0 ok, 1 bad input or failed check,
/// 2 internal error).

#include <CLI/CLI.hpp>

namespace sbrdma::cli {

/// Shared state of one invocation.
struct Context {
  int status = 0;
};

void add_isa_commands(CLI::App& app, Context& ctx);     // asm, disasm
void add_decode_commands(CLI::App& app, Context& ctx);  // decode addr|desc|word
void add_info_commands(CLI::App& app, Context& ctx);    // info ops|regs|...
void add_demo_command(CLI::App& app, Context& ctx);     // demo (the ./dev run job)

}  // namespace sbrdma::cli
