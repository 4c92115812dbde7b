#pragma once
/// Result<T>: the value of an operation on user input, or the reason it was refused
/// (error kind 1 in DESIGN.md). No exceptions cross layers; callers test `ok()`.

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "base/check.h"

namespace sbrdma::base {

/// Where in the input an error was found. `line` 0 means "no line" (whole-file or flag errors).
struct SourceLoc {
  std::string file;
  int line = 0;
};

/// One diagnostic: a location and a one-line message (no trailing newline).
struct Error {
  SourceLoc loc;
  std::string message;

  /// `file:line: error: message` (or `file: error: ...` without a line, or
  /// `error: ...` without a file, before which the CLI puts its name: cli::diagnostic). File
  /// name and message are written as base::printable() gives them: bytes outside printable
  /// ASCII as \xNN.
  [[nodiscard]] std::string format() const;
  /// format()'s location part: `file:line: `, `file: `, or "" without a file.
  [[nodiscard]] std::string where() const;
};

/// An Error built from a message alone (location filled in by the caller if it knows one).
inline Error make_error(std::string message) { return Error{{}, std::move(message)}; }
inline Error make_error(SourceLoc loc, std::string message) {
  return Error{std::move(loc), std::move(message)};
}

/// A list of errors, for parsers that keep going to report every error.
using Errors = std::vector<Error>;

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}      // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  /// Contract: ok() must be true.
  T& value() & {
    SBRDMA_CHECK_MSG(ok(), "value() on an error Result");
    return std::get<0>(v_);
  }
  const T& value() const& {
    SBRDMA_CHECK_MSG(ok(), "value() on an error Result");
    return std::get<0>(v_);
  }
  T&& value() && {
    SBRDMA_CHECK_MSG(ok(), "value() on an error Result");
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  /// Contract: ok() must be false.
  [[nodiscard]] const Error& error() const {
    SBRDMA_CHECK_MSG(!ok(), "error() on an ok Result");
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

/// Result of an operation with no value.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

}  // namespace sbrdma::base

/// Propagate an error Result from the current function (which must return a Result).
#define SBRDMA_TRY(expr)                                       \
  do {                                                         \
    auto sbrdma_try_r_ = (expr);                               \
    if (!sbrdma_try_r_.ok()) return sbrdma_try_r_.error();     \
  } while (0)
