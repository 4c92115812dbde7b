#pragma once
/// File access for the CLI (DESIGN.md: only cli/ and platform/ touch files). One place for
/// reading inputs and writing outputs, so every command reports I/O failures the same way:
/// `PATH: error: cannot open: <reason>` / `PATH: error: cannot write: <reason>`.

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "base/result.h"

namespace sbrdma::cli {

/// A whole input and the name diagnostics use for it (`<stdin>` for "-").
struct Input {
  std::string name;
  std::string data;
};

/// Reads `path` whole, or standard input when `path` is "-".
base::Result<Input> read_input(const std::string& path);
/// read_input() of a text file (assembly, hex words, a program): without the UTF-8 byte order
/// mark some editors put first (JSON inputs skip it too).
base::Result<Input> read_text_input(const std::string& path);

/// Writes `bytes` to `path` (write_outputs() of one file: a failure leaves the file as it
/// was), or to standard output when `path` is "" or "-".
base::Status write_output(const std::string& path, std::string_view bytes);

/// One file of a run's outputs and its text.
struct OutputText {
  std::string path;
  std::string_view text;
};
/// Writes all of `files` or none of them, every path checked before anything is written.
/// Streams (standard output, a device or pipe) are written first, as they are, an interrupt
/// acting at once (such a write may wait for a reader); so is a file that standard output or
/// error is open on (`-o /dev/stdout` with stdout sent to a file), through that stream. Then, with
/// interrupts held until the end (base/stop_signals.h): a regular file's text goes to a temporary
/// file beside it (symbolic links followed) that replaces it, keeping its permission bits, only
/// once every text is written; written in place instead, before any replacement, are a file a
/// replacement would change in more than its bytes (other hard links, another owner or
/// group) and a file no temporary can go beside: their new bytes go over the old ones, which
/// are kept and put back on a failure, and they are cut to size once all are written. On a
/// failure the temporaries are removed and no file has changed (streams written before a file
/// failed stay written; so do files renamed into place before a rename that failed, which
/// happens only where a file is mounted over; a file that may be written but not read cannot
/// be put back, and the error says so). A file-size limit is a
/// write failure like a full disk once main() ignores SIGXFSZ. An existing file that may not
/// be written is refused. Contract: no two paths reach one file (same_output()).
base::Status write_outputs(std::span<const OutputText> files);

/// Refuses, before a long run, an output that write_output() could not write afterwards: a path
/// that is a directory, a file that is not writable, or a missing or unwritable folder (one
/// that takes no new file, tried with a file made and removed at once: root's permission bits
/// pass /proc and a read-only mount). Leaves nothing created or truncated. "" and "-"
/// (standard output) are always fine.
base::Status check_writable(const std::string& path);
/// The extension of `path`'s last name in lower case, with its dot (".svg"; "" if none).
std::string lower_extension(const std::string& path);
/// Refuses an output named as a compressed file (trace.json.gz, plot.svgz): sbrdma writes
/// plain text, which a reader going by the name would fail to unpack.
base::Status check_uncompressed(const std::string& flag, const std::string& path);
/// check_writable() for a folder that will be created (with its parents) and filled: it is a
/// writable directory, or the nearest existing one above it is.
base::Status check_writable_dir(const std::string& path);

/// The entries of folder `dir`, in the order the system lists them. A folder that cannot be
/// read, or an entry that cannot be listed (the folder changes meanwhile), sets `ec` and ends
/// the list there: nothing throws.
std::vector<std::filesystem::directory_entry> folder_entries(const std::string& dir,
                                                             std::error_code& ec);

/// What a write to `path` reaches, for telling whether two outputs are one file: the path with
/// its symbolic links followed (a dangling one to where the write would create the file),
/// absolute, normalised, without a trailing separator. Empty for an existing file that is not
/// a regular file or a directory (a device such as /dev/null, a pipe): writes there never
/// overwrite another output. Errors: as check_writable's for a loop of links.
base::Result<std::string> output_identity(const std::string& path);
/// True if two outputs with these paths and output_identity() values reach one file: the same
/// identity, or two names (hard links) of one existing file.
bool same_output(const std::string& a, const std::string& a_id, const std::string& b,
                 const std::string& b_id);

/// Refuses an output that reaches one of the run's input files: `out_flag` names the output,
/// `inputs` pairs each input's flag (or "the program") with its path ("" and paths that are
/// no existing file are skipped, e.g. a built-in topology name; "-" is standard input, which
/// counts when it is redirected from a file).
base::Status check_not_an_input(const std::string& out_flag, const std::string& out_path,
                                std::span<const std::pair<std::string_view, std::string>> inputs);

/// Refuses an output that is where standard output or standard error already goes (the same
/// regular file or pipe, e.g. `--trace /dev/stdout` or a file stdout is redirected to): the
/// output would replace or interleave with what the command prints there, `stdout_text` on
/// standard output (e.g. "the table") and `stderr_text` on standard error. A terminal or other
/// device is fine, as is a file that does not exist yet.
base::Status check_not_std_stream(const std::string& out_flag, const std::string& out_path,
                                  std::string_view stdout_text, std::string_view stderr_text);

/// `e` as the CLI prints it: `file:line: error: ...` where the error is in a file, and
/// `sbrdma: error: ...` otherwise (a flag's value, the run's outcome), as the argument
/// parser's own usage errors read.
[[nodiscard]] std::string diagnostic(const base::Error& e);
/// Prints every error on stderr, one line each (diagnostic()).
void print_errors(std::span<const base::Error> errors);
/// Prints `e` as one line on stderr and returns exit status 1 (bad input).
int fail(const base::Error& e);
/// Prints every error, one line each; returns 1.
int fail(const base::Errors& errors);

}  // namespace sbrdma::cli
