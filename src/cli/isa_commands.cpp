// Placeholder until the isa layer lands: registers nothing.
#include "cli/commands.h"
namespace sbrdma::cli {
void add_isa_commands(CLI::App&, Context&) {}
void add_decode_word(CLI::App&, Context&) {}
void add_info_ops(CLI::App&, Context&) {}
}  // namespace sbrdma::cli
