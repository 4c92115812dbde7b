// Temporary: replaced as each command family lands.
#include "cli/commands.h"
namespace sbrdma::cli {
void add_isa_commands(CLI::App&, Context&) {}
void add_decode_commands(CLI::App&, Context&) {}
void add_info_commands(CLI::App&, Context&) {}
void add_demo_command(CLI::App&, Context&) {}
}  // namespace sbrdma::cli
