#include "cli/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>

namespace sbrdma::cli {
namespace {
base::Error io_error(const std::string& path, const char* what) {
  return base::make_error(base::SourceLoc{path, 0},
                          std::string(what) + ": " + std::strerror(errno));
}
}  // namespace

base::Result<Input> read_input(const std::string& path) {
  if (path == "-") {
    std::string data{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    return Input{"<stdin>", std::move(data)};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error(path, "cannot open");
  std::string data{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return io_error(path, "cannot read");
  return Input{path, std::move(data)};
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

int fail(const base::Error& e) {
  std::fprintf(stderr, "%s\n", e.format().c_str());
  return 1;
}

}  // namespace sbrdma::cli
