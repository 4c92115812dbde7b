#pragma once
/// The files `sbrdma bench` writes besides its table: --report-to-json-file, --plot, --trace
/// and --dump-programs' folder of programs. All are checked before the run (which may be long)
/// and written after it, every file or none (cli/file_io.h), before the table is printed.

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "base/result.h"
#include "platform/bench.h"

namespace sbrdma::cli {

/// The output paths a bench run was given ("" where a flag was not).
struct BenchOutputs {
  std::string json;   ///< --report-to-json-file
  std::string plot;   ///< --plot
  std::string trace;  ///< --trace
  std::string dump;   ///< --dump-programs (a folder)
};

/// The files a bench run reads, by flag ("" for a built-in topology, no groups or no pairs):
/// no output may be written over one of them.
using BenchInputs = std::array<std::pair<std::string_view, std::string>, 3>;

/// Before the run: refuses outputs that would be written over one another (two flags that
/// reach one file, or a file where --dump-programs may put a program), over an input, "-"
/// (standard output carries the table) or where standard output or error goes, and a path
/// that cannot be written.
base::Status check_bench_outputs(const BenchOutputs& out, const BenchInputs& inputs);

/// After the run: writes the JSON report, the plot, the trace (taken out of `r`) and one
/// program per rank's core into the dump folder (removing other coreN.s files there), every
/// file or none.
base::Status write_bench_outputs(const BenchOutputs& out, const BenchInputs& inputs,
                                 const platform::BenchOptions& o, platform::BenchResult& r);

}  // namespace sbrdma::cli
