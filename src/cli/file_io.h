#pragma once
/// File access for the CLI (DESIGN.md: only cli/ and platform/ touch files). One place for
/// reading inputs and writing outputs, so every command reports I/O failures the same way:
/// `PATH: error: cannot open: <reason>` / `PATH: error: cannot write: <reason>`.

#include <string>
#include <string_view>

#include "base/result.h"

namespace sbrdma::cli {

/// A whole input and the name diagnostics use for it (`<stdin>` for "-").
struct Input {
  std::string name;
  std::string data;
};

/// Reads `path` whole, or standard input when `path` is "-".
base::Result<Input> read_input(const std::string& path);

/// Writes `bytes` to `path` (truncating it), or to standard output when `path` is "" or "-".
base::Status write_output(const std::string& path, std::string_view bytes);

/// Prints `e` as one line on stderr and returns exit status 1 (bad input).
int fail(const base::Error& e);

}  // namespace sbrdma::cli
