#include "cli/file_io.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

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
    return cannot_write(path, fmt::format("{} is not a directory", dir.string()));
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return cannot_write(path, fmt::format("{}: {}", dir.string(), std::strerror(errno)));
  }
  return base::ok_status();
}

}  // namespace

base::Result<Input> read_input(const std::string& path) {
  // Far above any program: 4 M instruction words. An endless input (/dev/zero) stops here.
  constexpr std::size_t kMaxInputBytes = std::size_t{256} << 20;
  auto text = platform::read_bounded(path, kMaxInputBytes);
  if (!text) return text.error();
  return Input{platform::input_name(path), std::move(*text)};
}

base::Status write_output(const std::string& path, std::string_view bytes) {
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

base::Status check_writable(const std::string& path) {
  if (path.empty() || path == "-") return base::ok_status();
  auto p = followed(path, path);
  if (!p) return p.error();
  auto there = exists(path, *p);
  if (!there) return there.error();
  if (*there) {
    std::error_code ec;
    if (fs::is_directory(*p, ec)) return cannot_write(path, "it is a directory");
    if (::access(p->c_str(), W_OK) != 0) return cannot_write(path, std::strerror(errno));
    return base::ok_status();
  }
  const fs::path parent = p->parent_path().empty() ? fs::path(".") : p->parent_path();
  auto folder = exists(path, parent);
  if (!folder) return folder.error();
  if (!*folder) return cannot_write(path, fmt::format("no folder {}", parent.string()));
  return writable_folder(path, parent);
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

int fail(const base::Error& e) {
  std::fprintf(stderr, "%s\n", e.format().c_str());
  return 1;
}

int fail(const base::Errors& errors) {
  for (const base::Error& e : errors) std::fprintf(stderr, "%s\n", e.format().c_str());
  return 1;
}

}  // namespace sbrdma::cli
