// Reading a program for `sbrdma run` and `sbrdma asm --core` (see program_input.h).
#include "cli/program_input.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <limits>
#include <utility>
#include <vector>

#include "base/printable.h"
#include "cli/file_io.h"
#include "platform/json_file.h"

namespace sbrdma::cli {
namespace {

/// The coreN.s files of a folder `bench --dump-programs` wrote, each the words of core N
/// (N in decimal, no leading zero), in core order; other files are not read. A file named
/// like one that is not read (core007.s, a directory or FIFO) is told in `skipped`.
base::Result<std::vector<std::pair<device::CoreId, std::string>>> program_files_of(
    const std::string& dir, std::vector<std::string>& skipped) {
  std::vector<std::pair<device::CoreId, std::string>> files;
  std::error_code ec;
  for (const auto& entry : folder_entries(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("core") || !name.ends_with(".s") || name.size() <= 6) continue;
    const std::string digits = name.substr(4, name.size() - 6);
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string path = entry.path().string();
    if (digits.size() > 1 && digits[0] == '0') {
      skipped.push_back(base::printable(path) + ": not read (coreN.s, N without leading zeros)");
      continue;
    }
    std::error_code type_ec;
    if (!entry.is_regular_file(type_ec)) {  // a FIFO would wait for a writer
      skipped.push_back(base::printable(path) + ": not read (not a regular file)");
      continue;
    }
    // Past any core id (ten digits and more): the last id, which no topology has, so the
    // folder's reader says that the core does not exist, as it does for core1000.s.
    const device::CoreId core = digits.size() > 9 ? std::numeric_limits<device::CoreId>::max()
                                                  : static_cast<device::CoreId>(std::stoul(digits));
    files.emplace_back(core, path);
  }
  if (ec) return base::make_error(base::SourceLoc{dir}, "cannot read the folder: " + ec.message());
  if (files.empty()) {
    return base::make_error(base::SourceLoc{dir},
                            "a folder of programs holds coreN.s files (as bench --dump-programs "
                            "writes them); this one has none");
  }
  std::sort(files.begin(), files.end());
  std::sort(skipped.begin(), skipped.end());
  return files;
}

/// A program made of a folder's coreN.s files: each parsed with its words on core N (and any
/// directives it has), every file's errors told with its own name and lines.
base::Result<platform::ProgramParse> parse_program_folder(const std::string& dir,
                                                          const device::Topology& topology,
                                                          const soc::Profile& profile,
                                                          std::vector<std::string>& skipped) {
  auto files = program_files_of(dir, skipped);
  if (!files) return files.error();
  platform::ProgramParse out;
  for (const auto& [core, path] : *files) {
    if (core >= topology.num_cores()) {
      const std::string name = std::filesystem::path(path).filename().string();
      const std::string digits = name.substr(4, name.size() - 6);  // as the file names it
      out.errors.push_back(base::make_error(base::SourceLoc{path},
                                            device::missing_core_message(digits, core, topology)));
      continue;
    }
    auto text = read_text_input(path);
    if (!text) {  // told with the others
      out.errors.push_back(text.error());
      continue;
    }
    platform::ProgramParse one =
        platform::parse_program(text->data, text->name, topology, profile, core);
    for (base::Error& e : one.errors) out.errors.push_back(std::move(e));
    platform::ProgramFile& p = out.program;
    for (platform::CoreProgram& c : one.program.cores) {
      auto it = std::find_if(p.cores.begin(), p.cores.end(),
                             [&](const platform::CoreProgram& q) { return q.core == c.core; });
      if (it == p.cores.end()) {
        p.cores.push_back(std::move(c));
      } else {  // a `.core` line of another file named it: its words follow, as in one file
        it->words.insert(it->words.end(), c.words.begin(), c.words.end());
        it->locs.insert(it->locs.end(), c.locs.begin(), c.locs.end());
      }
    }
    const auto append = [](auto& to, auto& from) {
      to.insert(to.end(), std::make_move_iterator(from.begin()),
                std::make_move_iterator(from.end()));
    };
    append(p.files, one.program.files);
    append(p.inits, one.program.inits);
    append(p.sem_expects, one.program.sem_expects);
    append(p.sbuf_expects, one.program.sbuf_expects);
    append(p.dumps, one.program.dumps);
    append(p.ring_dumps, one.program.ring_dumps);
  }
  std::sort(out.program.cores.begin(), out.program.cores.end(),
            [](const platform::CoreProgram& x, const platform::CoreProgram& y) {
              return x.core < y.core;
            });
  return out;
}

}  // namespace

base::Result<ProgramInput> read_program_input(const std::string& path,
                                              const device::Topology& topology,
                                              const soc::Profile& profile, std::string_view command,
                                              std::optional<device::CoreId> first_core) {
  std::error_code ec;
  if (path != "-" && std::filesystem::is_directory(path, ec)) {  // bench --dump-programs'
    std::vector<std::string> skipped;
    auto p = parse_program_folder(path, topology, profile, skipped);
    for (const std::string& n : skipped) {
      std::fprintf(stderr, "%.*s: note: %s\n", static_cast<int>(command.size()), command.data(),
                   n.c_str());
    }
    if (!p) return p.error();
    return ProgramInput{std::move(*p), platform::input_name(path)};
  }
  auto text = read_text_input(path);
  if (!text) return text.error();
  return ProgramInput{
      platform::parse_program(text->data, text->name, topology, profile, first_core), text->name};
}

}  // namespace sbrdma::cli
