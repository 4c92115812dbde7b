#pragma once
/// Text from the user echoed in a message: bytes that are not printable ASCII (control bytes,
/// NUL, bytes of 0x80 and above) are written as \xNN, so a binary file named where text was
/// expected gives a readable, one-line message that a NUL cannot cut short.

#include <string>
#include <string_view>
#include <vector>

namespace sbrdma::base {

/// `s` with every byte outside 0x20..0x7e written as \xNN (a backslash stays a backslash).
std::string printable(std::string_view s);

/// printable(s), or if that is over 40 characters its first 37 (never half a \xNN) and "...":
/// a 20 MB token echoed in a message leaves it one readable line.
std::string printable_brief(std::string_view s);

/// `s` as one shell word, for a command a message suggests: as it is when it holds only
/// characters no shell treats specially (bash, POSIX sh, zsh: no leading '='), else in single
/// quotes ('\'' for a quote), or where it holds bytes outside printable ASCII in bash's $'...'
/// with \xNN escapes. A word over 4096 bytes is no command to paste: it comes as
/// printable_brief() gives it.
std::string shell_word(std::string_view s);

/// The RFC 6901 path of member `key` of the value at `path` ("" is the root), for errors: the
/// key as printable_brief gives it, then with '~' and '/' escaped ("~0", "~1"), so a 10 MB key
/// leaves the message one short line and a key holding '/' is not read as two.
std::string json_child(const std::string& path, std::string_view key);

/// The offset of the first control byte of `s` (below 0x20 but tab, CR and LF, or 0x7f), or
/// npos. Text has none (UTF-8 has none either); binary data almost always does.
std::size_t first_control_byte(std::string_view s);

/// The offset of the first byte of `s` that does not start a well-formed UTF-8 sequence of a
/// character XML 1.0 allows in text (no overlong forms, surrogates, code points past
/// U+10FFFF, or U+FFFE and U+FFFF), or npos. Control characters are left to
/// first_control_byte.
std::size_t first_non_xml_utf8(std::string_view s);
/// The code points of `s`, decoded as first_non_xml_utf8 reads them. Contract: it finds
/// nothing in `s` (npos).
std::vector<char32_t> xml_code_points(std::string_view s);
/// The length of the unit first_non_xml_utf8 found at `at`: its lead byte and the continuation
/// bytes after it, up to the length the lead byte gives (1 for a byte that leads nothing).
std::size_t non_xml_utf8_length(std::string_view s, std::size_t at);

}  // namespace sbrdma::base
