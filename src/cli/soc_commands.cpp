// Placeholder until the soc layer lands: registers nothing.
#include "cli/commands.h"
namespace sbrdma::cli {
void add_decode_soc(CLI::App&, Context&) {}
void add_info_regs(CLI::App&, Context&) {}
}  // namespace sbrdma::cli
