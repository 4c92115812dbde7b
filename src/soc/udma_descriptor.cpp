#include "soc/udma_descriptor.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/printable.h"
#include "soc/print.h"

namespace sbrdma::soc {
namespace {

constexpr std::array kWord0Fields{
    DescField{"LEN", desc_word0::kLen},          DescField{"reserved", desc_word0::kReserved},
    DescField{"DUMMY", desc_word0::kDummy},      DescField{"META", desc_word0::kMeta},
    DescField{"RING_ID", desc_word0::kRingId},   DescField{"FIRST", desc_word0::kFirst},
    DescField{"LAST", desc_word0::kLast},        DescField{"INT_EN", desc_word0::kIntEn},
    DescField{"NO_SNOOP", desc_word0::kNoSnoop}, DescField{"DMB", desc_word0::kDmb},
    DescField{"CONCAT", desc_word0::kConcat},
};

/// An S2M descriptor's word0 as the v2/v3 driver uses it (single buffer): the LEN2 and ERR
/// of the HAL's dual-buffer and rev-4 layouts are left as reserved. [DRV] udma-facts §1.1
constexpr std::array kS2mWord0Fields{
    DescField{"LEN", desc_word0::kLen},
    DescField{"reserved", base::BitField{23, 16}},
    DescField{"RING_ID", desc_word0::kRingId},
    DescField{"reserved", base::BitField{27, 26}},
    DescField{"INT_EN", desc_word0::kIntEn},
    DescField{"STRONG_ORDER_WR", desc_word0::kS2mStrongOrderWr},
    DescField{"reserved", base::bit(30)},
    DescField{"DUAL_BUF", base::bit(31)},
};

constexpr std::array kWord1Fields{
    DescField{"block_attr", desc_word1::kBlockAttr},
    DescField{"cached_crc_iv_index", desc_word1::kCachedCrcIvIndex},
    DescField{"endian_type", desc_word1::kEndianType},
    DescField{"validate_crc", desc_word1::kValidateCrc},
    DescField{"use_stored_crc_iv", desc_word1::kUseStoredCrcIv},
    DescField{"send_crc", desc_word1::kSendCrc},
    DescField{"store_crc_result", desc_word1::kStoreCrcResult},
    DescField{"store_source_crc", desc_word1::kStoreSourceCrc},
    DescField{"copy_src_data", desc_word1::kCopySrcData},
    DescField{"optype", desc_word1::kOptype},
    DescField{"op", desc_word1::kOp},
    DescField{"write_barrier", desc_word1::kWriteBarrier},
    DescField{"netag0_rsvd", desc_word1::kNetag0Rsvd},
};

/// Both tables cover their word exactly: every bit in one field.
constexpr bool covers_word(std::span<const DescField> fields) {
  std::uint64_t seen = 0;
  for (const DescField& f : fields) {
    if ((seen & f.bits.mask()) != 0) return false;
    seen |= f.bits.mask();
  }
  return seen == 0xFFFFFFFFu;
}
static_assert(covers_word(kWord0Fields));
static_assert(covers_word(kS2mWord0Fields));
static_assert(covers_word(kWord1Fields));

// The driver's plain-copy word is first|last block, copy_src_data, op CME. [HIGH]
static_assert(desc_word1::kOp.set(desc_word1::kCopySrcData.set(desc_word1::kBlockAttr.set(0, 3), 1),
                                  static_cast<unsigned>(SdmaOp::kCme)) == kPlainCopyWord1);

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// What a field's value means, when it has a name ("" otherwise).
std::string field_note(std::string_view name, std::uint64_t v, const UdmaDescriptor& d) {
  if (name == "LEN") return fmt::format("{} bytes", d.length());
  if (name == "optype") return std::string(cme_type_name(static_cast<SdmaCmeType>(v)));
  if (name == "op") {
    auto n = sdma_op_name(static_cast<unsigned>(v));
    return n.empty() ? "no such SDMAOP" : std::string(n);
  }
  if (name == "block_attr") {
    const bool last = (v & 1U) != 0;
    const bool first = (v & 2U) != 0;
    if (first && last) return "first|last";
    if (first) return "first";
    if (last) return "last";
    return "";
  }
  if (name == "STRONG_ORDER_WR") return "v3 and later; NO_SNOOP_H on v2";
  if (name == "reserved" && v != 0) return "reserved bits set";
  return "";
}

void append_fields(std::string& out, std::span<const DescField> fields, std::uint32_t word,
                   const UdmaDescriptor& d) {
  for (const DescField& f : fields) {
    const std::uint64_t v = f.bits.get(word);
    const std::string note = field_note(f.name, v, d);
    out += fmt::format("  {:<20} {:<8} {:#x}{}\n", f.name, bit_range_text(f.bits), v,
                       note.empty() ? "" : "  (" + note + ")");
  }
}

}  // namespace

std::string_view cme_type_name(SdmaCmeType t) {
  switch (t) {
    case SdmaCmeType::kCopy:
      return "COPY";
    case SdmaCmeType::kCrc32:
      return "CRC32";
    case SdmaCmeType::kCrc32c:
      return "CRC32C";
    case SdmaCmeType::kCksum16:
      return "CKSUM16";
    case SdmaCmeType::kCksum32:
      return "CKSUM32";
    case SdmaCmeType::kCrc16:
      return "CRC16";
    case SdmaCmeType::kCksum32Adler:
      return "CKSUM32_ADLER";
    case SdmaCmeType::kCrc8:
      return "CRC8";
  }
  return "?";
}

std::string_view sdma_op_name(unsigned op) {
  switch (op) {
    case static_cast<unsigned>(SdmaOp::kDre):
      return "DRE";
    case static_cast<unsigned>(SdmaOp::kCme):
      return "CME";
    case static_cast<unsigned>(SdmaOp::kCce):
      return "CCE";
    default:
      return "";
  }
}

base::Result<std::uint16_t> encode_len(std::uint32_t bytes) {
  if (bytes == 0 || bytes > kMaxDescLen) {
    return base::make_error(
        fmt::format("descriptor length {} out of range (1..{})", bytes, kMaxDescLen));
  }
  return static_cast<std::uint16_t>(bytes == kMaxDescLen ? 0 : bytes);
}

base::Result<UdmaDescriptor> make_copy_descriptor(base::SocAddr buf, std::uint32_t bytes,
                                                  unsigned ring_id, CopyFlags flags) {
  auto len = encode_len(bytes);
  if (!len) return len.error();
  if (!desc_word0::kRingId.fits(ring_id)) {
    return base::make_error(fmt::format("ring id {} out of range (0..3)", ring_id));
  }
  std::uint64_t w0 = desc_word0::kLen.set(0, *len);
  w0 = desc_word0::kRingId.set(w0, ring_id);
  w0 = desc_word0::kFirst.set(w0, flags.first);
  w0 = desc_word0::kLast.set(w0, flags.last);
  w0 = desc_word0::kDmb.set(w0, flags.dmb);
  w0 = desc_word0::kIntEn.set(w0, flags.int_en);
  const std::uint64_t w1 = desc_word1::kWriteBarrier.set(kPlainCopyWord1, flags.write_barrier);
  return UdmaDescriptor{static_cast<std::uint32_t>(w0), static_cast<std::uint32_t>(w1), buf.v};
}

base::Result<UdmaDescriptor> make_sema_inc_descriptor(base::SocAddr inc_window_addr,
                                                      unsigned ring_id) {
  return make_copy_descriptor(inc_window_addr, kSemaDescLen, ring_id);  // [CHOICE D5]
}

std::span<const DescField> word0_fields() {
  return kWord0Fields;
}
std::span<const DescField> word1_fields() {
  return kWord1Fields;
}

base::Result<UdmaDescriptor> parse_descriptor_hex(std::string_view hex) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  const std::string_view first = hex.substr(std::min(hex.size(), hex.find_first_not_of(" \t\r\n")));
  if (first.starts_with("0x") || first.starts_with("0X")) {
    return base::make_error(
        "descriptor hex is the 16 bytes as they lie in memory (32 hex digits, byte 0 first), "
        "not a 0x number");
  }
  // Blanks (space, tab, CR, LF) may group the digits ("00100000 00000000 ..."), as the word
  // decoder allows.
  std::array<std::uint8_t, kDescBytes> bytes{};
  std::size_t digits = 0;
  for (std::size_t i = 0; i < hex.size(); ++i) {
    if (blank(hex[i])) continue;
    const int v = hex_digit(hex[i]);
    if (v < 0) {
      return base::make_error(fmt::format("descriptor hex: '{}' at position {} is not a hex digit",
                                          base::printable(hex.substr(i, 1)), i + 1));
    }
    if (digits < 2 * kDescBytes) {
      bytes[digits / 2] =
          static_cast<std::uint8_t>(bytes[digits / 2] << 4 | static_cast<unsigned>(v));
    }
    ++digits;
  }
  if (digits != 2 * kDescBytes) {
    return base::make_error(fmt::format(
        "descriptor hex must be exactly {} hex digits (16 bytes), got {}", 2 * kDescBytes, digits));
  }
  return decode_descriptor(bytes);
}

std::string descriptor_hex(const UdmaDescriptor& d) {
  std::string s;
  for (std::uint8_t b : encode_descriptor(d)) s += fmt::format("{:02x}", b);
  return s;
}

std::string format_descriptor(const UdmaDescriptor& d, Direction dir) {
  std::string out;
  out += fmt::format("descriptor {}  (16 bytes as in memory, little-endian)\n", descriptor_hex(d));
  if (dir == Direction::kS2M) {
    out += fmt::format("word0 {:#010x}  len_ctrl (S2M)\n", d.word0);
    append_fields(out, kS2mWord0Fields, d.word0, d);
    out += fmt::format("word1 {:#010x}  buf2_ptr_lo (unused)\n", d.word1);
    out += fmt::format("buf_ptr {:#018x}  (destination)\n", d.buf_ptr);
    return out;
  }
  out += fmt::format("word0 {:#010x}  len_ctrl\n", d.word0);
  append_fields(out, kWord0Fields, d.word0, d);
  out += fmt::format("word1 {:#010x}  CME command{}\n", d.word1,
                     d.word1 == kPlainCopyWord1 ? " (the driver's plain copy)" : "");
  append_fields(out, kWord1Fields, d.word1, d);
  out += fmt::format("buf_ptr {:#018x}\n", d.buf_ptr);
  return out;
}

}  // namespace sbrdma::soc
