// Placeholder until topology and timing parameters land.
#include "cli/commands.h"
namespace sbrdma::cli {
void add_info_platform(CLI::App&, Context&) {}
}  // namespace sbrdma::cli
