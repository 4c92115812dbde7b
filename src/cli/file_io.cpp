#include "cli/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

#include "base/printable.h"
#include "base/stop_signals.h"
#include "platform/json_file.h"

namespace sbrdma::cli {
namespace {
/// `PATH: error: WHAT: WHY`.
base::Error file_error(const std::string& path, const char* what, const std::string& why) {
  return base::make_error(base::SourceLoc{path, 0}, fmt::format("{}: {}", what, why));
}
/// file_error() for a failed call: WHY from errno.
base::Error io_error(const std::string& path, const char* what) {
  return file_error(path, what, std::strerror(errno));
}
base::Error cannot_write(const std::string& path, const std::string& why) {
  return file_error(path, "cannot write", why);
}

namespace fs = std::filesystem;

/// The folder a file `path` goes in ("." for a bare name).
fs::path folder_of(const fs::path& path) {
  return path.parent_path().empty() ? fs::path(".") : path.parent_path();
}
/// The error of a file whose folder `dir` does not exist.
base::Error no_folder(const std::string& path, const fs::path& dir) {
  return cannot_write(path, fmt::format("no folder {}", base::printable(dir.string())));
}

/// Refuses a name only a folder has (`out/`, `out/.`), which a write would otherwise take as
/// the file `out`.
base::Status file_name(const std::string& path) {
  const std::string last = fs::path(path).filename().string();
  if (!path.ends_with('/') && last != "." && last != "..") return base::ok_status();
  return cannot_write(path, fmt::format("a name ending in '{}' is a folder's, not a file's",
                                        path.ends_with('/') ? "/" : last));
}

/// file_name(path), unless `path` is an existing folder: the writer then says "Is a
/// directory", whatever the name ends with.
base::Status file_name_unless_folder(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return base::ok_status();
  return file_name(path);
}

/// Whether `p` exists; an error (a loop of links, a component that is a file) is not "no".
base::Result<bool> exists(const std::string& path, const fs::path& p) {
  std::error_code ec;
  const bool yes = fs::exists(p, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) return cannot_write(path, ec.message());
  return yes;
}

/// `p` with its symbolic links followed (a link that dangles leads to where a write would
/// create the file).
base::Result<fs::path> followed(const std::string& path, fs::path p) {
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(p, ec);
    if (ec && ec != std::errc::no_such_file_or_directory) return cannot_write(path, ec.message());
    if (!fs::is_symlink(st)) return p;
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) return cannot_write(path, ec.message());
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  return cannot_write(path, "too many levels of symbolic links");
}

/// `dir` is a folder this process may create files in.
base::Status writable_folder(const std::string& path, const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return cannot_write(path, fmt::format("{} is not a directory", base::printable(dir.string())));
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return cannot_write(path,
                        fmt::format("{}: {}", base::printable(dir.string()), std::strerror(errno)));
  }
  // The permission bits do not tell all: root passes access() for /proc and /sys, which take
  // no new file, as does a read-only mount. A file made and removed at once tells.
  std::string probe = (dir / ".sbrdma-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) {
    return cannot_write(path, fmt::format("{} takes no new file ({})",
                                          base::printable(dir.string()), std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return base::ok_status();
}

}  // namespace

base::Result<Input> read_text_input(const std::string& path) {
  auto in = read_input(path);
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (in && std::string_view(in->data).starts_with(kBom)) in->data.erase(0, kBom.size());
  return in;
}

base::Result<Input> read_input(const std::string& path) {
  // Far above any program: 4 M instruction words. An endless input (/dev/zero) stops here.
  constexpr std::size_t kMaxInputBytes = std::size_t{256} << 20;
  auto text = platform::read_bounded(path, kMaxInputBytes);
  if (!text) return text.error();
  return Input{platform::input_name(path), std::move(*text)};
}

namespace {
/// Writes `bytes` to the stream `path` (a device or pipe), or to standard output for "" and "-".
base::Status write_direct(const std::string& path, std::string_view bytes) {
  if (path.empty() || path == "-") {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    std::fflush(stdout);
    return base::ok_status();
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return io_error(path, "cannot write");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return io_error(path, "cannot write");
  return base::ok_status();
}

/// Standard output or error, whichever is open on the file `st` describes (stdout first);
/// nullptr if neither is.
std::FILE* std_stream_on(const struct stat& st) {
  for (const auto& [fd, stream] : {std::pair{STDOUT_FILENO, stdout}, {STDERR_FILENO, stderr}}) {
    struct stat open {};
    if (::fstat(fd, &open) == 0 && open.st_dev == st.st_dev && open.st_ino == st.st_ino) {
      return stream;
    }
  }
  return nullptr;
}

/// Writes all of `bytes` to `fd` from `offset` on; false (errno set) on a failure.
bool pwrite_all(int fd, std::string_view bytes, off_t offset) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
    offset += n;
  }
  return true;
}

/// A file rewritten in place: where it is, its size before, and the bytes the rewrite wrote
/// over (to put back if a later output fails). Its new bytes are written over the old ones and
/// it is cut to its new size only once every output is written, so putting it back rewrites
/// only bytes it already had: a full disk or a file-size limit cannot stop that.
struct Rewritten {
  std::string target;  ///< the file itself (symbolic links followed)
  bool existed = false;
  bool undoable = true;  ///< false: it may be written but not read (no old bytes kept)
  std::uint64_t old_size = 0;
  std::string old;  ///< its first min(old_size, new size) bytes
  std::uint64_t new_size = 0;
};

/// Puts a rewritten file back as it was: its old bytes over the new ones, cut to its old size
/// (or removed, if the rewrite created it). False if that failed or was not possible.
bool restore(const Rewritten& r) {
  if (!r.existed) return ::unlink(r.target.c_str()) == 0;
  if (!r.undoable) return false;
  const int fd = ::open(r.target.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = pwrite_all(fd, r.old, 0) && ::ftruncate(fd, static_cast<off_t>(r.old_size)) == 0;
  return ::close(fd) == 0 && ok;
}

/// Writes `bytes` over the start of the regular file `target` (created if missing; `path`, as
/// the user gave it, names it in errors), keeping in `undo` what it overwrote; the file is cut
/// to size later (finish_rewrite). A file that may be written but not read is written with no
/// undo. A failure puts the old bytes back (they fit: the write stopped inside or past them).
base::Status rewrite_in_place(const std::string& path, const std::string& target,
                              std::string_view bytes, Rewritten& undo) {
  undo = Rewritten{target, true, true, 0, {}, bytes.size()};
  int fd = ::open(target.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0 && errno == EACCES) {
    undo.undoable = false;
    fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
  }
  if (fd < 0 && errno == ENOENT) {
    undo.existed = false;
    fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  }
  if (fd < 0) return io_error(path, "cannot write");
  struct stat st {};
  int err = ::fstat(fd, &st) == 0 ? 0 : errno;
  if (err == 0 && undo.existed) {
    undo.old_size = static_cast<std::uint64_t>(st.st_size);
    if (undo.undoable) {
      undo.old.resize(
          static_cast<std::size_t>(std::min<std::uint64_t>(undo.old_size, bytes.size())));
      std::size_t got = 0;
      while (got < undo.old.size()) {
        const ssize_t n =
            ::pread(fd, undo.old.data() + got, undo.old.size() - got, static_cast<off_t>(got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          err = n < 0 ? errno : EIO;  // it shrank under us: not a file to rewrite blindly
          break;
        }
        got += static_cast<std::size_t>(n);
      }
    }
  }
  bool wrote = false;
  if (err == 0) {
    wrote = true;
    if (!pwrite_all(fd, bytes, 0)) err = errno;
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    // Nothing written over an existing file leaves it as it was; a created one goes.
    const bool back = (!wrote && undo.existed) || restore(undo);
    return cannot_write(
        path, back ? std::string(std::strerror(err))
                   : fmt::format("{}; its old bytes could not be put back", std::strerror(err)));
  }
  return base::ok_status();
}

/// Cuts a rewritten file to its new size, once every output is written.
base::Status finish_rewrite(const std::string& path, const Rewritten& r) {
  if (r.existed && r.old_size > r.new_size &&
      ::truncate(r.target.c_str(), static_cast<off_t>(r.new_size)) != 0) {
    return io_error(path, "cannot write");
  }
  return base::ok_status();
}

/// A temporary file staged beside its target, or why there is none.
struct Temporary {
  std::string name;   ///< empty when `err` is set
  int err = 0;        ///< errno of the failure, 0 if none
  bool made = false;  ///< the file could be created (a failure is then in writing it)
};

/// A temporary file in `dir` holding `bytes` with permission bits `mode`. Its name does not
/// grow with the target's (a long name still fits).
Temporary staged_copy(const fs::path& dir, std::string_view bytes, mode_t mode) {
  std::string name = (dir / ".sbrdma-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return Temporary{{}, errno, false};
  int err = ::fchmod(fd, mode) == 0 && pwrite_all(fd, bytes, 0) ? 0 : errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(name.c_str());
    return Temporary{{}, err, true};
  }
  return Temporary{std::move(name), 0, true};
}

/// A file staged to replace its target once all are written.
struct Staged {
  std::string tmp;
  fs::path target;
  const OutputText* file;
};

}  // namespace

base::Status write_outputs(std::span<const OutputText> files) {
  mode_t new_mode = 0;  // what a created file gets: 0666 under the umask
  {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    new_mode = 0666 & ~mask;
  }
  // 1. Every path is checked before anything is written. Streams (standard output, devices,
  //    pipes) are written as they are; so is a file that a replacement would change in more
  //    than its bytes (another name links to it, someone else owns it); the others are staged.
  struct Planned {
    const OutputText* file;
    fs::path target;  ///< empty for a stream
    mode_t mode;
  };
  std::vector<const OutputText*> streams;
  /// Files standard output or error is open on (`-o /dev/stdout` with stdout sent to a
  /// file): written through that stream, where the shell's `>` or `>>` put it. A replacement
  /// would unlink the file the shell opened, and whatever it had in it with `>>`.
  std::vector<std::pair<const OutputText*, std::FILE*>> std_files;
  std::vector<Planned> files_in_place;
  std::vector<Planned> to_stage;
  for (const OutputText& f : files) {
    if (f.path.empty() || f.path == "-") {
      streams.push_back(&f);
      continue;
    }
    SBRDMA_TRY(file_name_unless_folder(f.path));
    auto id = output_identity(f.path);
    if (!id) return id.error();
    if (id->empty()) {
      streams.push_back(&f);
      continue;
    }
    const fs::path target(*id);
    struct stat st {};
    mode_t mode = new_mode;
    if (::stat(target.c_str(), &st) == 0) {
      if (std::FILE* stream = std_stream_on(st)) {
        std_files.emplace_back(&f, stream);
        continue;
      }
      // As check_writable() tells it before a run, and a read of a folder.
      if (S_ISDIR(st.st_mode)) return cannot_write(f.path, std::strerror(EISDIR));
      // A rename would replace it all the same.
      if (::access(target.c_str(), W_OK) != 0) return io_error(f.path, "cannot write");
      if (st.st_nlink != 1 || st.st_uid != ::geteuid() || st.st_gid != ::getegid()) {
        files_in_place.push_back(Planned{&f, target, mode});
        continue;
      }
      mode = st.st_mode & 07777;
    }
    to_stage.push_back(Planned{&f, target, mode});
  }
  // 2. Streams first, with an interrupt acting at once: a write there may wait for a reader
  //    as long as it likes. No file has been touched yet.
  {
    const base::StopSignalsReleased released;
    for (const OutputText* f : streams) SBRDMA_TRY(write_direct(f->path, f->text));
    for (const auto& [f, stream] : std_files) {
      std::fflush(stream);
      std::fwrite(f->text.data(), 1, f->text.size(), stream);
      if (std::fflush(stream) != 0 || std::ferror(stream) != 0) {
        return io_error(f->path, "cannot write");
      }
    }
  }
  // 3. The files: an interrupt while they are staged and renamed takes effect once they are
  //    (no temporary file left behind, no half-replaced set).
  const base::StopSignalsHeld held;
  std::vector<Staged> staged;
  const auto discard = [&](std::size_t from) {
    for (std::size_t k = from; k < staged.size(); ++k) ::unlink(staged[k].tmp.c_str());
  };
  for (const Planned& p : to_stage) {
    const OutputText& f = *p.file;
    const fs::path dir = folder_of(p.target);
    Temporary tmp = staged_copy(dir, f.text, p.mode);
    if (tmp.err == EACCES || tmp.err == EPERM) {  // a folder that takes no new file: write
      files_in_place.push_back(p);                // it in place
      continue;
    }
    const fs::path given = folder_of(f.path);
    std::error_code gone;
    if (tmp.err == ENOENT && !tmp.made && !fs::exists(given, gone)) {
      const base::Error e = no_folder(f.path, given);  // named as the user gave it
      discard(0);
      return e;
    }
    if (tmp.err != 0) {  // a full disk, a folder that takes no files (/proc): nothing changed yet
      const std::string why = std::strerror(tmp.err);
      const base::Error e =
          cannot_write(f.path, tmp.made ? why
                                        : fmt::format("cannot create a temporary file in {}: {}",
                                                      base::printable(dir.string()), why));
      discard(0);
      return e;
    }
    staged.push_back(Staged{std::move(tmp.name), p.target, &f});
  }
  // In place last but one: a failure puts back every file rewritten so far (files already
  // renamed into place stay replaced: a rename fails only where a file is mounted over).
  std::vector<std::pair<const std::string*, Rewritten>> rewritten;
  const auto undo_all = [&](base::Error e) {
    for (auto r = rewritten.rbegin(); r != rewritten.rend(); ++r) {
      if (!restore(r->second)) {
        e.message +=
            fmt::format("; {} could not be put back as it was", base::printable(*r->first));
      }
    }
    return e;
  };
  const auto in_place = [&](const std::string& path, const fs::path& target,
                            std::string_view text) -> base::Status {
    Rewritten undo;
    if (auto st = rewrite_in_place(path, target.string(), text, undo); !st) {
      return undo_all(st.error());
    }
    rewritten.emplace_back(&path, std::move(undo));
    return base::ok_status();
  };
  for (const Planned& p : files_in_place) {
    if (auto st = in_place(p.file->path, p.target, p.file->text); !st) {
      discard(0);
      return st;
    }
  }
  for (std::size_t i = 0; i < staged.size(); ++i) {
    if (std::rename(staged[i].tmp.c_str(), staged[i].target.c_str()) == 0) continue;
    ::unlink(staged[i].tmp.c_str());  // a folder that takes no renames: in place after all
    if (auto st = in_place(staged[i].file->path, staged[i].target, staged[i].file->text); !st) {
      discard(i + 1);
      return st;
    }
  }
  // Every output is written: the rewritten files lose the old bytes past their new text.
  for (const auto& [path, r] : rewritten) SBRDMA_TRY(finish_rewrite(*path, r));
  return base::ok_status();
}

base::Status write_output(const std::string& path, std::string_view bytes) {
  const OutputText one{path, bytes};
  return write_outputs(std::span(&one, 1));
}

base::Status check_not_an_input(const std::string& out_flag, const std::string& out_path,
                                std::span<const std::pair<std::string_view, std::string>> inputs) {
  if (out_path.empty() || out_path == "-") return base::ok_status();
  auto out_id = output_identity(out_path);
  if (!out_id) return out_id.error();
  for (const auto& [flag, path] : inputs) {
    std::error_code ec;
    if (path == "-") {  // standard input from the file the output would replace
      struct stat in {};
      struct stat out {};
      if (::fstat(STDIN_FILENO, &in) == 0 && S_ISREG(in.st_mode) &&
          ::stat(out_path.c_str(), &out) == 0 && in.st_dev == out.st_dev &&
          in.st_ino == out.st_ino) {
        return base::make_error(
            fmt::format("{} {}: that is {} (standard input), an input of this run", out_flag,
                        base::printable(out_path), flag));
      }
      continue;
    }
    if (path.empty() || !fs::is_regular_file(path, ec)) continue;
    auto id = output_identity(path);
    if (id && same_output(out_path, *out_id, path, *id)) {
      return base::make_error(fmt::format("{} {}: that is {} ({}), an input of this run", out_flag,
                                          base::printable(out_path), flag, base::printable(path)));
    }
  }
  return base::ok_status();
}

base::Status check_not_std_stream(const std::string& out_flag, const std::string& out_path,
                                  std::string_view stdout_text, std::string_view stderr_text) {
  if (out_path.empty() || out_path == "-") return base::ok_status();
  struct stat out {};
  if (::stat(out_path.c_str(), &out) != 0 || S_ISCHR(out.st_mode) || S_ISBLK(out.st_mode)) {
    return base::ok_status();
  }
  const std::pair<int, std::string> streams[] = {
      {STDOUT_FILENO, fmt::format("standard output ({})", stdout_text)},
      {STDERR_FILENO, fmt::format("standard error ({})", stderr_text)}};
  for (const auto& [fd, what] : streams) {
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_dev == out.st_dev && st.st_ino == out.st_ino) {
      return base::make_error(fmt::format("{} {}: that is where {} goes; give another file",
                                          out_flag, base::printable(out_path), what));
    }
  }
  return base::ok_status();
}

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

base::Status check_uncompressed(const std::string& flag, const std::string& path) {
  const std::string ext = lower_extension(path);
  static constexpr std::array<std::string_view, 9> kCompressed = {
      ".gz", ".svgz", ".tgz", ".bz2", ".xz", ".zst", ".lz4", ".zip", ".7z"};
  if (std::find(kCompressed.begin(), kCompressed.end(), ext) == kCompressed.end()) {
    return base::ok_status();
  }
  return base::make_error(fmt::format(
      "{} {}: the file is written as plain text, not compressed ({}); give a name without it", flag,
      base::printable(path), ext.substr(1)));
}

base::Status check_writable(const std::string& path) {
  if (path.empty() || path == "-") return base::ok_status();
  SBRDMA_TRY(file_name_unless_folder(path));
  auto p = followed(path, path);
  if (!p) return p.error();
  auto there = exists(path, *p);
  if (!there) return there.error();
  if (*there) {
    std::error_code ec;
    if (fs::is_directory(*p, ec)) return cannot_write(path, std::strerror(EISDIR));
    if (::access(p->c_str(), W_OK) != 0) return cannot_write(path, std::strerror(errno));
    return base::ok_status();
  }
  const fs::path parent = folder_of(*p);
  auto folder = exists(path, parent);
  if (!folder) return folder.error();
  if (!*folder) return no_folder(path, parent);
  return writable_folder(path, parent);
}

std::vector<fs::directory_entry> folder_entries(const std::string& dir, std::error_code& ec) {
  std::vector<fs::directory_entry> out;
  for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    out.push_back(*it);
  }
  return out;
}

base::Status check_writable_dir(const std::string& path) {
  // The nearest existing folder at or above `path` (links followed) must take new entries.
  auto p = followed(path, path);
  if (!p) return p.error();
  fs::path dir = *p;
  for (;;) {
    auto there = exists(path, dir);
    if (!there) return there.error();
    if (*there) break;
    dir = dir.parent_path();
    if (dir.empty()) {
      dir = ".";
      break;
    }
  }
  return writable_folder(path, dir);
}

base::Result<std::string> output_identity(const std::string& path) {
  std::error_code ec;
  // The kernel's view first: /dev/stdout is a link to /proc/self/fd/1, whose text (pipe:[N])
  // is no path, but the file it reaches is a pipe.
  if (const fs::file_status st = fs::status(path, ec);
      !ec && fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st)) {
    return std::string();
  }
  auto p = followed(path, path);
  if (!p) return p.error();
  fs::path abs = fs::absolute(*p, ec);
  if (ec) abs = *p;
  const fs::file_status st = fs::status(abs, ec);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st) && !fs::is_directory(st)) {
    return std::string();
  }
  fs::path canon = fs::weakly_canonical(abs, ec);
  if (ec) canon = abs.lexically_normal();
  std::string id = canon.string();
  while (id.size() > 1 && id.back() == '/') id.pop_back();
  return id;
}

bool same_output(const std::string& a, const std::string& a_id, const std::string& b,
                 const std::string& b_id) {
  if (a_id.empty() || b_id.empty()) return false;  // a device: nothing is overwritten
  if (a_id == b_id) return true;
  std::error_code ec;
  return fs::equivalent(a, b, ec) && !ec;
}

std::string diagnostic(const base::Error& e) {
  return e.loc.file.empty() ? "sbrdma: " + e.format() : e.format();
}

void print_errors(std::span<const base::Error> errors) {
  for (const base::Error& e : errors) std::fprintf(stderr, "%s\n", diagnostic(e).c_str());
}

int fail(const base::Error& e) {
  print_errors({&e, 1});
  return 1;
}

int fail(const base::Errors& errors) {
  print_errors(errors);
  return 1;
}

}  // namespace sbrdma::cli
