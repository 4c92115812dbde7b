// `sbrdma run PROGRAM [--topology NAME|FILE] [--log debug] [--trace FILE] [--timing-only]
// [--seed N] [--no-ring-id-abort] [--check-races]`: a thin driver over
// platform/program_runner.h. Exit 0 only if the run reported nothing wrong and every expect
// held; 1 otherwise (bad input, a firmware or device error, a deadlock, a race found by
// --check-races, a failed expect).
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/check.h"
#include "base/printable.h"
#include "cli/commands.h"
#include "cli/file_io.h"
#include "cli/numbers.h"
#include "cli/program_input.h"
#include "platform/json_file.h"
#include "platform/program_runner.h"
#include "platform/topology_json.h"
#include "soc/profile.h"

namespace sbrdma::cli {
namespace {

struct RunArgs {
  std::string program;
  std::string topology = "trn2";
  std::vector<std::string> params;  ///< --param NAME=VALUE, in order
  std::string log = "info";
  std::string trace;
  bool timing_only = false;
  std::string seed = "0";
  bool no_ring_id_abort = false;
  bool check_races = false;
};

int run(const RunArgs& a) {
  // The flags first, as a usage error would be: a bad flag is not hidden behind the
  // program's errors (and the user does not fix the program only to learn of it).
  platform::SimOptions opt;
  opt.timing_only = a.timing_only;
  opt.ring_id_abort = !a.no_ring_id_abort;
  opt.check_races = a.check_races;
  auto seed = parse_flag_u64("--seed/--tie-seed", a.seed);  // as --help names it
  if (!seed) return fail(seed.error());
  opt.seed = *seed;
  if (a.log != "info" && a.log != "debug") {
    return fail(base::make_error(
        fmt::format("--log: unknown level '{}' (info or debug)", base::printable_brief(a.log))));
  }
  opt.debug_log = a.log == "debug";
  opt.trace = !a.trace.empty();
  auto params = param_overrides(a.params);
  if (!params) return fail(params.error());
  auto loaded = platform::load_topology_and_params(a.topology, *params);
  if (!loaded) return fail(flag_error("--topology", loaded.error()));
  device::Topology* topology = &loaded->topology;
  for (const std::string& n : platform::params_without_effect(*topology, *params)) {
    std::fprintf(stderr, "run: note: --param %s\n", n.c_str());
  }
  auto profile = soc::find_profile(topology->profile());
  if (!profile) return fail(profile.error());
  const std::string name = topology->name();
  // The trace is checked before the run: a file, writable, and none of the run's inputs.
  if (a.trace == "-") {
    return fail(
        base::make_error("--trace -: standard output carries the run's report; give a file"));
  }
  const std::pair<std::string_view, std::string> inputs[] = {
      {"the program", a.program}, {"--topology", platform::topology_file(a.topology)}};
  if (auto st = check_not_an_input("--trace", a.trace, inputs); !st) return fail(st.error());
  if (auto st = check_not_std_stream("--trace", a.trace, "the run's report", "the run's errors");
      !st) {
    return fail(st.error());
  }
  if (auto st = check_uncompressed("--trace", a.trace); !st) return fail(st.error());
  if (auto st = check_writable(a.trace); !st) return fail(st.error());
  auto input = read_program_input(a.program, *topology, **profile, "run");
  if (!input) return fail(input.error());
  platform::ProgramParse& parsed = input->parsed;
  const std::string& program_name = input->name;
  if (!parsed.ok()) return fail(parsed.errors);
  // The pages the .init regions certainly take, against the memory there is: refused before
  // anything runs rather than killed by the OS part way. [CHOICE D43e]
  auto available = platform::host_memory_available();
  if (!available) return fail(available.error());
  if (auto verdict = platform::judge_memory(platform::init_memory_need(parsed.program, **profile),
                                            *available, platform::address_space_available(),
                                            std::nullopt, platform::kProgramInits);
      !verdict) {
    return fail(verdict.error());
  }
  auto outcome = platform::run_program(parsed.program, std::move(*topology), opt);
  if (!outcome) return fail(outcome.error());
  // The trace first: one that cannot be written (a full disk) fails the run before any report.
  if (opt.trace) {
    if (auto st = write_output(a.trace, outcome->trace_json); !st) return fail(st.error());
  }
  std::string cores;
  for (const platform::CoreProgram& cp : parsed.program.cores) {
    cores += fmt::format(" {}", cp.core);
  }
  // The program by the name its diagnostics use (<stdin> for "-"), escaped as they escape it.
  // The seed too: a failure that depends on the tie order is repeated from this line.
  const std::string seed_note = opt.seed != 0 ? fmt::format(", tie seed {}", opt.seed) : "";
  std::printf("run %s on %s%s%s; programmed cores:%s\n", base::printable(program_name).c_str(),
              name.c_str(),
              (platform::topology_file_note(name, loaded->file, loaded->file_params) +
               platform::with_param_overrides(*params))
                  .c_str(),
              seed_note.c_str(), cores.empty() ? " none" : cores.c_str());
  for (const std::string& line : platform::outcome_lines(*outcome, opt.debug_log)) {
    std::printf("%s\n", line.c_str());
  }
  std::fflush(stdout);
  print_errors(platform::outcome_failures(*outcome));
  return outcome->ok() ? 0 : 1;
}

}  // namespace

void add_run_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run",
      "Run a program file (assembly + .core/.init/.expect/.dump) on a topology and check it");
  cmd->footer(
      "Environment: SBRDMA_MEMORY_LIMIT=BYTES (K/M/G) is the host memory the program's .init "
      "regions are checked against, instead of what the OS reports available: a program whose "
      ".init regions certainly need more is refused before it runs. An address-space limit "
      "(ulimit -v) is checked too, against a whole SBUF partition for each one they write.");
  cmd->add_option("PROGRAM", args->program,
                  "Program file (docs/program-files.md), - for standard input, or a folder of "
                  "coreN.s files (bench --dump-programs)")
      ->required()
      ->check(kNonEmpty);
  cmd->add_option("--topology", args->topology, "Built-in topology name or JSON file")
      ->capture_default_str()
      ->check(kNonEmpty);
  add_param_option(*cmd, args->params);
  cmd->add_option("--log", args->log, "Log level: info, or debug for the firmware DEBUG lines")
      ->capture_default_str();
  cmd->add_option("--trace", args->trace, "Write a Chrome/Perfetto JSON trace to FILE")
      ->check(kNonEmpty);
  cmd->add_flag("--timing-only", args->timing_only,
                "Skip byte copies (timing, semaphores and errors unchanged)");
  cmd->add_option("--seed,--tie-seed", args->seed,
                  "Shuffle same-time events reproducibly (0: no shuffle; decimal or 0x-hex); "
                  "bench calls it --tie-seed, its --seed seeding the data")
      ->type_name("UINT");
  cmd->add_flag("--no-ring-id-abort", args->no_ring_id_abort,
                "Latch ring-id mismatches without aborting the engine (D2)");
  cmd->add_flag("--check-races", args->check_races,
                "Fail on accesses to the same SBUF bytes (DMA or local compute, one a write) "
                "that no semaphore wait, doorbell or program order puts in order (D49), and on "
                "waits that passed counting the core's own semaphore updates before a write "
                "fence saw them land (D49d)");
  cmd->callback([args, &ctx] {
    // Pages are backed where written: .init regions and copies take memory, --timing-only
    // does not stop .init from filling its bytes.
    base::set_out_of_memory_hint(
        "a smaller run needs less: a smaller topology, or fewer or smaller .init regions and "
        "copies");
    ctx.status = run(*args);
  });
}

}  // namespace sbrdma::cli
