#pragma once
/// Reading a program for `sbrdma run` and `sbrdma asm --core`: a program file, standard input,
/// or a folder of coreN.s files as `bench --dump-programs` writes them.

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "device/topology.h"
#include "platform/program_file.h"
#include "soc/profile.h"

namespace sbrdma::cli {

/// A program as read, and the name its report uses (`<stdin>` for "-").
struct ProgramInput {
  platform::ProgramParse parsed;
  std::string name;
};

/// Reads and parses `path` on `topology`: a folder's coreN.s files (each core N's words,
/// and any directives they hold; files named like one but not read are noted on stderr as
/// `<command>: note: ...`), else the program file, "-" for standard input, whose words before
/// any `.core` line go to `first_core` when given (< topology.num_cores()). The parse's errors
/// are in `parsed.errors`; an input that cannot be read at all is the error.
base::Result<ProgramInput> read_program_input(
    const std::string& path, const device::Topology& topology, const soc::Profile& profile,
    std::string_view command, std::optional<device::CoreId> first_core = std::nullopt);

}  // namespace sbrdma::cli
