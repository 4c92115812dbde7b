// Placeholder until the demo lands.
#include "cli/commands.h"
namespace sbrdma::cli {
void add_demo_command(CLI::App&, Context&) {}
}  // namespace sbrdma::cli
