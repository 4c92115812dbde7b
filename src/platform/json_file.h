#pragma once
/// Input files: reading one with a size bound (programs, JSON), and for JSON inputs (topology
/// files, replica groups, permute pairs) parsing its text into a nlohmann::json with errors in
/// the project's form. A malformed document gives one error located at the line nlohmann
/// stopped on, its message without nlohmann's prefix and the token it quotes cut as
/// base::printable_brief cuts one:
///   groups.json:3: error: malformed JSON: syntax error while parsing value - ...
/// A well-formed document with a key twice in one object is refused at the JSON path of the
/// repeat (nlohmann would keep the last), the key cut as json_brief cuts a value:
///   topo.json: error: /links/0/to: duplicate key "to"
/// The structure checks that follow (JSON paths like `/links/3/to`) stay with each reader.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/printable.h"
#include "base/result.h"

namespace sbrdma::platform {

/// The RFC 6901 path of member `key` of the value at `path`, for errors (base/printable.h).
using base::json_child;

/// The path of the value at `indices` under `path`, one array index after another
/// (`/replica_groups` and {1, 0}: `/replica_groups/1/0`).
std::string json_index_path(const std::string& path, std::span<const std::size_t> indices);

/// The deepest nesting of arrays and objects parse_json_text takes; the inputs need 4.
inline constexpr std::size_t kMaxJsonNesting = 64;

/// Parses `text`, refusing a repeated key and nesting past kMaxJsonNesting; `file` names it
/// in errors. Never throws.
base::Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& file);

/// An error about the value at JSON path `path` of `file` ("" is the root, named "/"):
///   groups.json: error: /1/0: expected a rank
base::Error json_error(const std::string& file, const std::string& path, std::string_view what);

/// "unknown field", naming the key where it is the empty one: its path, `/`, reads like the
/// whole document's.
std::string unknown_field_text(std::string_view key);

/// A short, ASCII description of a value for "expected X, got Y": "an object", "an array", or
/// the value as JSON text (cut at 40 characters).
std::string json_brief(const nlohmann::json& v);

/// json_brief() of a value that is not the whole number expected: a number read as a float
/// says why, since the text it echoes need not be the one written (1e0 echoes as 1.0).
std::string json_brief_not_whole(const nlohmann::json& v);

/// The value of `v` if it is a whole number of 0 or more: JSON's integers, `-0` included
/// (nlohmann keeps that one as a signed 0); nullopt for anything else (fractions such as 1.0
/// included).
std::optional<std::uint64_t> json_whole_number(const nlohmann::json& v);
/// True if `v` is a whole number past 2^64 - 1, which the JSON reader keeps as a float
/// (18446744073709551617 reads as 1.8446744073709552e+19): too large, not "no integer".
bool json_whole_past_64_bits(const nlohmann::json& v);

/// The whole number of 0 or more (json_whole_number) at JSON path `path` of `file`, as an
/// `unsigned`. Errors: anything else ("expected `expected`, got ..."), or more than 2^32 - 1
/// ("`noun` N is too large").
base::Result<unsigned> json_unsigned(const nlohmann::json& v, const std::string& file,
                                     const std::string& path, std::string_view expected,
                                     std::string_view noun);

/// Parses (parse_json_text) a document that is either a list or an object whose only field
/// `key` holds the list (replica groups: `[[0, 1]]` or `{"replica_groups": [[0, 1]]}`), and
/// returns the list and its JSON path ("" or "/key"). Errors: parse_json_text's, an object
/// without `key` or with another field, and a list that is empty or not a list; `items` says
/// what it holds ("groups").
struct JsonList {
  nlohmann::json list;
  std::string at;
};
base::Result<JsonList> parse_json_list(std::string_view text, const std::string& file,
                                       std::string_view key, std::string_view items);

/// The bytes of the file at `path` ("-": standard input, named <stdin>). Errors (located at
/// the file): cannot open and cannot read (with the system's reason), more than `max_bytes`
/// (a whole number of MiB), which is refused rather than read to the end.
base::Result<std::string> read_bounded(const std::string& path, std::size_t max_bytes);

/// How errors name the input at `path`: <stdin> for "-", else the path.
std::string input_name(const std::string& path);

/// read_bounded(path, 16 MiB): no topology or group file comes near it.
base::Result<std::string> read_json_file(const std::string& path);

}  // namespace sbrdma::platform
