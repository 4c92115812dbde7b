#include "isa/text_values.h"

#include <fmt/format.h>

#include <limits>
#include <vector>

#include "base/number_text.h"
#include "base/printable.h"
#include "isa/binary_io.h"
#include "isa/field_access.h"
#include "isa/views.h"

namespace sbrdma::isa {
namespace {

/// The events field whose number is a semaphore value. [CHOICE D11]
constexpr std::string_view kSemaphoreValueField = "semaphore_value";

std::string format_number(std::int64_t v, Radix radix) {
  if (radix == Radix::kHex && v > 0) return fmt::format("0x{:x}", v);
  return fmt::format("{}", v);
}

const EnumDesc& enum_of(const Field& field, const Part& part) {
  return part.enums != nullptr ? *part.enums : *field.enums;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos - start));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

/// What read_number saw: the form of its magnitude, and the value.
struct NumberText {
  base::NumberForm form = base::NumberForm::kMalformed;
  std::int64_t value = 0;  ///< kValue only
};

/// A decimal (optionally negative) or 0x-hex integer in 64-bit signed range; a well-formed
/// number past that range is kTooLarge, not malformed.
NumberText read_number(std::string_view text) {
  const bool negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  if (negative && text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    return {};  // negative numbers are decimal only
  }
  const base::UnsignedText u = base::read_grouped_unsigned_text(text);
  if (u.form != base::NumberForm::kValue) return {u.form, 0};
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (u.value > kMax + (negative ? 1 : 0)) return {base::NumberForm::kTooLarge, 0};
  if (negative) {
    return {base::NumberForm::kValue, u.value == kMax + 1 ? std::numeric_limits<std::int64_t>::min()
                                                          : -static_cast<std::int64_t>(u.value)};
  }
  return {base::NumberForm::kValue, static_cast<std::int64_t>(u.value)};
}

/// Parses a number for `key` within [lo, hi]; the error message if it is not one (a
/// well-formed number too large for 64 bits is out of range like any other).
std::optional<std::string> number_in(std::string_view text, const std::string& key, std::int64_t lo,
                                     std::int64_t hi, Radix radix, std::int64_t& out) {
  const NumberText n = read_number(text);
  if (n.form == base::NumberForm::kMalformed) {
    return fmt::format("bad number '{}' for {}", base::printable_brief(text), key);
  }
  // "-0" is zero, but no field without negative values is written with a sign.
  const bool signed_text = text.starts_with('-') && lo >= 0;
  if (signed_text && n.form == base::NumberForm::kValue && n.value == 0) {
    return fmt::format("value {} for {} takes no sign ({}..{})", base::printable_brief(text), key,
                       format_number(lo, radix), format_number(hi, radix));
  }
  if (n.form == base::NumberForm::kTooLarge || n.value < lo || n.value > hi || signed_text) {
    return fmt::format("value {} out of range for {} ({}..{})", base::printable_brief(text), key,
                       format_number(lo, radix), format_number(hi, radix));
  }
  out = n.value;
  return std::nullopt;
}

std::optional<std::string> parse_bytes(std::string_view text, const Field& field,
                                       const std::string& key, Word& w) {
  if (text.size() % 2 != 0)
    return fmt::format("bad hex bytes '{}' for {}", base::printable_brief(text), key);
  const std::size_t n = text.size() / 2;
  for (char c : text) {
    if (hex_digit_value(c) < 0)
      return fmt::format("bad hex bytes '{}' for {}", base::printable_brief(text), key);
  }
  if (n > field.size) return fmt::format("{} takes at most {} bytes, got {}", key, field.size, n);
  auto bytes = field_bytes(w, field);
  std::fill(bytes.begin(), bytes.end(), std::uint8_t{0});
  for (std::size_t i = 0; i < n; ++i) {
    bytes[i] = static_cast<std::uint8_t>(hex_digit_value(text[2 * i]) * 16 +
                                         hex_digit_value(text[2 * i + 1]));
  }
  return std::nullopt;
}

std::optional<std::string> parse_addr4(std::string_view text, const std::string& key, Addr4& out) {
  const std::size_t colon = text.find(':');
  std::int64_t v = 0;
  if (colon == std::string_view::npos) {
    if (auto err = number_in(text, key, 0, Addr4::kImmediateMask, Radix::kHex, v)) return err;
    out = Addr4{Addr4Marker::kImmediate, static_cast<std::uint32_t>(v)};
    return std::nullopt;
  }
  const std::string_view marker = text.substr(0, colon);
  const auto m = enum_value(kAddr4MarkerEnum, marker);
  if (!m) {
    return fmt::format("unknown ADDR4 marker '{}' for {} ({}, or an address alone)",
                       base::printable_brief(marker), key, enum_names(kAddr4MarkerEnum));
  }
  const std::string index_key = fmt::format("the {} index of {}", marker, key);
  // The index is a byte; an address register's is one of the kNumAddrRegisters.
  const std::int64_t most = static_cast<Addr4Marker>(*m) == Addr4Marker::kAddrReg
                                ? std::int64_t{kNumAddrRegisters} - 1
                                : 0xff;
  if (auto err = number_in(text.substr(colon + 1), index_key, 0, most, Radix::kDec, v)) return err;
  out = Addr4{static_cast<Addr4Marker>(*m), static_cast<std::uint32_t>(v)};
  return std::nullopt;
}

}  // namespace

std::string_view field_kind_name(const Field& field) {
  // Stored as u32, read and meant as signed 32-bit (D11): -1 is 0xffffffff.
  if (field.name == kSemaphoreValueField) return "i32";
  return kind_name(field.kind);
}

std::optional<std::int64_t> parse_number(std::string_view text) {
  const NumberText n = read_number(text);
  if (n.form != base::NumberForm::kValue) return std::nullopt;
  return n.value;
}

bool is_default(const Word& word, const Field& field, const Part& part) {
  if (part.type == PartType::kBytes) {
    for (std::uint8_t b : field_bytes(word, field)) {
      if (b != 0) return false;
    }
    return true;
  }
  for (unsigned i = 0; i < part.count; ++i) {
    if (read_value(word, field, part, i) != default_value(field, part)) return false;
  }
  return true;
}

std::string format_part(const Word& word, const Field& field, const Part& part) {
  switch (part.type) {
    case PartType::kBytes: {
      const auto bytes = field_bytes(word, field);
      std::size_t n = bytes.size();
      while (n > 0 && bytes[n - 1] == 0) --n;
      std::string out;
      for (std::size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", bytes[i]);
      return out;
    }
    case PartType::kEnum:
      return std::string(enum_name(enum_of(field, part),
                                   static_cast<std::uint8_t>(read_value(word, field, part))));
    case PartType::kAddr4: {
      const Addr4 a = Addr4::from_raw(static_cast<std::uint32_t>(read_value(word, field, part)));
      if (a.is_immediate()) return fmt::format("0x{:x}", a.value);
      return fmt::format("{}:{}", enum_name(kAddr4MarkerEnum, static_cast<std::uint8_t>(a.marker)),
                         a.value);
    }
    case PartType::kUnsigned:
    case PartType::kSigned: {
      std::string out;
      for (unsigned i = 0; i < part.count; ++i) {
        if (i != 0) out += ',';
        out += format_number(read_value(word, field, part, i), field.radix);
      }
      return out;
    }
  }
  return {};
}

std::optional<std::string> parse_part(std::string_view text, const Field& field, const Part& part,
                                      Word& word) {
  const std::string key = key_name(field, part);
  Word w = word;
  switch (part.type) {
    case PartType::kBytes:
      if (auto err = parse_bytes(text, field, key, w)) return err;
      break;
    case PartType::kEnum: {
      const EnumDesc& e = enum_of(field, part);
      const auto v = enum_value(e, text);
      if (!v) {
        // A short enum's names fit the message; ALU_OP's sixty do not.
        constexpr std::size_t kNamesListed = 16;
        return fmt::format(
            "unknown {} '{}' for {} ({})", e.type_name, base::printable_brief(text), key,
            e.values.size() <= kNamesListed
                ? enum_names(e)
                : fmt::format("one of {} names: 'sbrdma info ops' lists them", e.values.size()));
      }
      write_value(w, field, part, 0, *v);
      break;
    }
    case PartType::kAddr4: {
      Addr4 a;
      if (auto err = parse_addr4(text, key, a)) return err;
      write_value(w, field, part, 0, a.raw());
      break;
    }
    case PartType::kUnsigned:
    case PartType::kSigned: {
      const std::vector<std::string_view> items = split(text, ',');
      if (items.size() != part.count) {
        return part.count == 1
                   ? fmt::format("bad number '{}' for {}", base::printable_brief(text), key)
                   : fmt::format("{} takes {} values, got {}", key, part.count, items.size());
      }
      const ValueRange r = value_range(part);
      // A semaphore operand is signed 32-bit (D11): text may give it as -2^31..-1 too, which
      // is stored as its two's complement.
      const bool semaphore = field.name == kSemaphoreValueField;
      const std::int64_t lo = semaphore ? std::numeric_limits<std::int32_t>::min() : r.min;
      for (unsigned i = 0; i < part.count; ++i) {
        std::int64_t v = 0;
        if (auto err = number_in(items[i], key, lo, r.max, field.radix, v)) return err;
        write_value(w, field, part, i, semaphore && v < 0 ? v + (std::int64_t{1} << 32) : v);
      }
      break;
    }
  }
  word = w;
  return std::nullopt;
}

}  // namespace sbrdma::isa
