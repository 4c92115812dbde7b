#include "cli/bench_outputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <vector>

#include "base/printable.h"
#include "base/stop_signals.h"
#include "cli/file_io.h"
#include "collectives/program.h"
#include "platform/collective_runner.h"

namespace sbrdma::cli {
namespace {

/// True if `name` is what add_programs() calls a program file ("coreN.s", N in decimal
/// without leading zeros).
bool is_program_name(const std::string& name) {
  if (name.size() < 7 || !name.starts_with("core") || !name.ends_with(".s")) return false;
  const std::string_view digits = std::string_view(name).substr(4, name.size() - 6);
  if (digits.size() > 1 && digits.front() == '0') return false;
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Refuses, before the run, outputs that would be written over one another (two flags that
/// reach one file, or a file where --dump-programs may put a program), "-" for an output
/// file (standard output carries the table) and the file standard output or error goes to.
base::Status check_distinct_outputs(const BenchOutputs& a, const BenchInputs& inputs) {
  const std::pair<const char*, const std::string*> outs[] = {{"--report-to-json-file", &a.json},
                                                             {"--plot", &a.plot},
                                                             {"--trace", &a.trace},
                                                             {"--dump-programs", &a.dump}};
  std::string dump_id;
  if (!a.dump.empty()) {
    auto id = output_identity(a.dump);
    if (!id) return id.error();
    dump_id = *id;
  }
  // Whether the file reached as `file_id` is one --dump-programs may write ("DIR/coreN.s").
  const auto may_hold_program = [&](const std::string& file_id) {
    const std::filesystem::path f(file_id);
    return !dump_id.empty() && f.parent_path() == dump_id && is_program_name(f.filename().string());
  };
  std::vector<std::tuple<const char*, std::string, std::string>> seen;  // flag, path, identity
  for (const auto& [flag, path] : outs) {
    if (path->empty()) continue;
    if (*path == "-") {
      return base::make_error(
          fmt::format("{} -: standard output carries the table; give a file", flag));
    }
    auto id = output_identity(*path);
    if (!id) return id.error();
    if (path != &a.dump)
      SBRDMA_TRY(check_not_std_stream(flag, *path, "the table", "progress and errors"));
    if (id->empty()) continue;  // a device or pipe: nothing is overwritten
    for (const auto& [other, other_path, known] : seen) {
      if (same_output(*path, *id, other_path, known)) {
        return base::make_error(
            fmt::format("{} {}: the same path as {}", flag, base::printable(*path), other));
      }
    }
    if (path == &a.dump) {  // an input named like a program in the folder would be replaced
      for (const auto& [in_flag, in_path] : inputs) {
        std::error_code ec;
        if (in_path.empty() || !std::filesystem::is_regular_file(in_path, ec)) continue;
        auto in_id = output_identity(in_path);
        if (in_id && may_hold_program(*in_id)) {
          return base::make_error(
              fmt::format("--dump-programs {}: it may write a program over {} ({}), an input "
                          "of this run",
                          base::printable(a.dump), in_flag, base::printable(in_path)));
        }
      }
    } else {
      SBRDMA_TRY(check_not_an_input(flag, *path, inputs));
      if (may_hold_program(*id)) {
        return base::make_error(fmt::format("{} {}: --dump-programs {} may write a program there",
                                            flag, base::printable(*path), base::printable(a.dump)));
      }
    }
    seen.emplace_back(flag, *path, std::move(*id));
  }
  return base::ok_status();
}

/// A file the run writes, and what goes in it.
struct OutputFile {
  std::string path;
  std::string text;
  bool program = false;  ///< one of --dump-programs' files
};

/// One .s file per rank's core, readable back by `sbrdma asm`. A rank with nothing to do (a
/// group of one rank reduces or gathers nothing) gets a file without words that says so.
void add_programs(const std::string& dir, const platform::BenchOptions& o,
                  const platform::BenchResult& r, std::vector<OutputFile>& out) {
  const platform::BenchRow& last = r.rows.back();
  auto header = [&](collectives::CoreId core) {
    return fmt::format(
        "sbrdma bench {} {} B {} on {}: core {}, {} iteration{} after {} warmup{}\n"
        "(assemble with `sbrdma asm`; `sbrdma run {}` with the bench's --topology{} runs the "
        "folder's coreN.s files, each on its core: every warmup and iteration; notes after `#` "
        "say what each word is for)",
        collectives::op_name(o.op), last.size, collectives::algorithm_name(last.algorithm),
        platform::topology_label(o), core, o.iterations, o.iterations == 1 ? "" : "s", o.warmups,
        o.warmups == 1 ? "" : "s",
        base::shell_word(dir.starts_with('-') ? "./" + dir : dir),  // not read as an option
        o.params.empty() ? "" : " and --param");
  };
  std::vector<collectives::CoreProgram> programs = r.programs;
  for (const collectives::CoreId core : r.cores) {
    if (std::none_of(programs.begin(), programs.end(),
                     [&](const collectives::CoreProgram& p) { return p.core == core; })) {
      collectives::CoreProgram empty;
      empty.core = core;
      programs.push_back(std::move(empty));
    }
  }
  std::sort(programs.begin(), programs.end(),
            [](const auto& a, const auto& b) { return a.core < b.core; });
  for (const collectives::CoreProgram& p : programs) {
    std::string text = header(p.core);
    if (p.words.empty()) text += "\nno words: this rank has nothing to send, receive or reduce";
    out.push_back(
        {fmt::format("{}/core{}.s", dir, p.core), collectives::program_text(p, text), true});
  }
}

/// The folders create_directories(`dir`) would make, deepest first.
std::vector<std::filesystem::path> missing_folders(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (std::filesystem::path p = dir; !p.empty() && !std::filesystem::exists(p, ec);
       p = p.parent_path()) {
    out.push_back(p);
    if (p == p.parent_path()) break;
  }
  return out;
}

/// Removes the program files ("coreN.s") in `dir` that this run did not write, so that the
/// folder holds one run's programs. [CHOICE D30i]
void remove_stale_programs(const std::string& dir, const std::vector<OutputFile>& files) {
  std::error_code ec;
  std::vector<std::filesystem::path> stale;
  for (const auto& entry : folder_entries(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!is_program_name(name) || !entry.is_regular_file(ec)) continue;
    const bool ours = std::any_of(files.begin(), files.end(), [&](const OutputFile& f) {
      return f.program && std::filesystem::path(f.path).filename() == name;
    });
    if (!ours) stale.push_back(entry.path());
  }
  for (const auto& p : stale) std::filesystem::remove(p, ec);
}

/// Writes every file or none, after checking that each can be and that no two reach one
/// file: a path that cannot be written (a folder named like one of the programs) fails the
/// run before anything is written or created. A dump folder that does not exist yet is
/// created last (its programs are then new files in an empty folder), and removed again if
/// a write fails. A program file that reaches an input (a link in the dump folder) is refused.
base::Status write_files(const std::vector<OutputFile>& files, const std::string& dump_dir,
                         const BenchInputs& inputs) {
  // An interrupt from here on waits until the files are written or given up (a dump folder
  // this creates is then filled or removed again).
  const base::StopSignalsHeld held;
  std::vector<std::pair<std::string, std::string>> seen;  // path, identity
  for (const OutputFile& f : files) {
    if (f.program) {
      SBRDMA_TRY(check_not_an_input("--dump-programs", f.path, inputs));
      SBRDMA_TRY(
          check_not_std_stream("--dump-programs", f.path, "the table", "progress and errors"));
    }
    auto id = output_identity(f.path);
    if (!id) return id.error();
    for (const auto& [other, known] : seen) {
      if (same_output(f.path, *id, other, known)) {
        return base::make_error(base::SourceLoc{f.path, 0},
                                "cannot write: another output of this run goes there too");
      }
    }
    seen.emplace_back(f.path, std::move(*id));
  }
  std::error_code ec;
  const bool new_dir = !dump_dir.empty() && !std::filesystem::exists(dump_dir, ec);
  for (const OutputFile& f : files) {
    if (!(new_dir && f.program)) SBRDMA_TRY(check_writable(f.path));
  }
  std::vector<std::filesystem::path> created;
  if (new_dir) {
    SBRDMA_TRY(check_writable_dir(dump_dir));
    created = missing_folders(dump_dir);
    std::filesystem::create_directories(dump_dir, ec);
    if (ec) return base::make_error(base::SourceLoc{dump_dir, 0}, "cannot create: " + ec.message());
  }
  std::vector<OutputText> texts;
  for (const OutputFile& f : files) texts.push_back({f.path, f.text});
  if (auto st = write_outputs(texts); !st) {
    for (const auto& dir : created) std::filesystem::remove(dir, ec);  // empty again
    return st;
  }
  if (!dump_dir.empty() && !new_dir) remove_stale_programs(dump_dir, files);
  return base::ok_status();
}

}  // namespace

namespace {

/// Refuses a --plot name that says another image format (p.png): the plot is SVG text, which
/// an image viewer would then fail to open. Any other name (p.svg, plot, a pipe) is the
/// user's to choose.
base::Status check_plot_name(const std::string& plot) {
  const std::string ext = lower_extension(plot);
  static constexpr std::array<std::string_view, 15> kOther = {
      ".png",  ".jpg", ".jpeg", ".gif", ".pdf",  ".bmp",  ".webp", ".tif",
      ".tiff", ".eps", ".ps",   ".ico", ".avif", ".heic", ".jxl"};
  if (std::find(kOther.begin(), kOther.end(), ext) == kOther.end()) return base::ok_status();
  return base::make_error(
      fmt::format("--plot {}: the plot is SVG text, not {}; give a name ending in .svg",
                  base::printable(plot), ext.substr(1)));
}

}  // namespace

base::Status check_bench_outputs(const BenchOutputs& out, const BenchInputs& inputs) {
  SBRDMA_TRY(check_uncompressed("--report-to-json-file", out.json));
  SBRDMA_TRY(check_uncompressed("--plot", out.plot));
  SBRDMA_TRY(check_uncompressed("--trace", out.trace));
  SBRDMA_TRY(check_plot_name(out.plot));
  SBRDMA_TRY(check_distinct_outputs(out, inputs));
  for (const std::string* path : {&out.json, &out.plot, &out.trace}) {
    SBRDMA_TRY(check_writable(*path));
  }
  if (!out.dump.empty()) {
    SBRDMA_TRY(check_writable_dir(out.dump));
    // Which cores get programs is known only once the collective is lowered. An entry of the
    // folder named like a program that could not be written (a folder, a file the user may
    // not write) fails the run at its end if its core is dumped, and is left beside the new
    // programs if not (where `run DIR` would meet it): refused now, whichever it is.
    std::error_code ec;
    if (std::filesystem::is_directory(out.dump, ec)) {
      std::vector<std::string> names;
      for (const auto& entry : folder_entries(out.dump, ec)) {
        if (is_program_name(entry.path().filename().string())) names.push_back(entry.path());
      }
      std::sort(names.begin(), names.end());  // the first in name order, whatever the folder's
      for (const std::string& name : names) SBRDMA_TRY(check_writable(name));
    }
  }
  return base::ok_status();
}

base::Status write_bench_outputs(const BenchOutputs& out, const BenchInputs& inputs,
                                 const platform::BenchOptions& o, platform::BenchResult& r) {
  std::vector<OutputFile> files;
  if (!out.json.empty()) files.push_back({out.json, platform::format_json(o, r)});
  if (!out.plot.empty()) files.push_back({out.plot, platform::format_plot(o, r)});
  if (!out.trace.empty()) files.push_back({out.trace, std::move(r.trace_json)});
  if (!out.dump.empty()) add_programs(out.dump, o, r, files);
  return write_files(files, out.dump, inputs);
}

}  // namespace sbrdma::cli
