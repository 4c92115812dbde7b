// sbrdma: one CLI over the sbrdma libraries. See README.md and DESIGN.md "CLI contract".

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace sbrdma::cli;
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "sbrdma: error: %s\n", e.what());
    std::fprintf(stderr, "run 'sbrdma --help' for usage\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sbrdma: internal error: %s\n", e.what());
    return 2;
  }
  // Output that never arrived (a full disk) is a failure, not a success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    std::fprintf(stderr, "sbrdma: error: cannot write standard output: %s\n",
                 std::strerror(errno != 0 ? errno : EIO));
    return 1;
  }
  return ctx.status;
}
