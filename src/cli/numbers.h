#pragma once
/// Numbers on the command line that CLI11 would take too kindly: its 64-bit conversion wraps
/// "-5" and saturates past 2^64 without a word, so such flags are read as text and parsed here.

#include <cstdint>
#include <string_view>

#include "base/result.h"

namespace sbrdma::cli {

/// A 64-bit number, decimal or 0x-hex; `_` separators allowed (0x0052_8000_0010_0000).
/// Errors: not a number (a sign, other characters, nothing), or past 64 bits.
base::Result<std::uint64_t> parse_u64(std::string_view text);

/// parse_u64 of the value of flag `flag`, any 64-bit number (a seed): its error starts with
/// the flag, "--seed: '-5' is not a whole number (0 or more, decimal or 0x-hex)".
base::Result<std::uint64_t> parse_flag_u64(std::string_view flag, std::string_view text);

/// parse_flag_number's `max` for a number with no upper bound.
inline constexpr std::uint64_t kNoMax = ~std::uint64_t{0};

/// A number given to flag `flag`: parse_u64 in [min, max]. The error names the flag and says
/// what the number is: "--chip: '3.0' is not a chip id (a whole number, 0 to 63)"; with no
/// upper bound (max kNoMax), "(a whole number, 2 or more)", and past 64 bits it says so.
base::Result<std::uint64_t> parse_flag_number(std::string_view flag, std::string_view text,
                                              std::string_view what, std::uint64_t min,
                                              std::uint64_t max);

/// parse_flag_number() of a count, the error saying what it counts: "-n: 'x' is not a number of
/// iterations (a whole number, 1 to 4294967295)".
base::Result<std::uint64_t> parse_count(std::string_view flag, std::string_view text,
                                        std::string_view what, std::uint64_t min,
                                        std::uint64_t max);

}  // namespace sbrdma::cli
