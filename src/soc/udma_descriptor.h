#pragma once
/// The 16-byte UDMA submission descriptor ([CHOICE D1]; wiki-facts §2.3, udma-facts §1.1).
/// Little-endian in memory, 16-byte aligned, one per ring slot.
///
///  byte  0         4         8                                 16
///       +---------+---------+----------------------------------+
///       |  word0  |  word1  |             buf_ptr              |
///       |len_ctrl |CME cmd  |   u64 SoC address (read by M2S,  |
///       |         |         |   written by S2M)                |
///       +---------+---------+----------------------------------+
///
///  word0 (len_ctrl)                                            [CHOICE D1] = public HAL
///   31 30 29 28 27 26 25 24 23 22 21      16 15                             0
///  +--+--+--+--+--+--+-----+--+--+----------+--------------------------------+
///  |CC|DB|NS|IE|LA|FI|RING |ME|DU| reserved |  LEN (bytes; 0 means 64 KiB)   |
///  +--+--+--+--+--+--+-----+--+--+----------+--------------------------------+
///   CC CONCAT, DB DMB, NS NO_SNOOP, IE INT_EN, LA LAST, FI FIRST, RING RING_ID,
///   ME META, DU DUMMY
///
///  word1 (SDMA CME command, LSB first)             [HIGH] wiki-facts §2.3 (driver layout)
///   31     27 26 25  23 22  20 19 18 17 16 15 14 13            6 5   3 2   0
///  +---------+--+------+------+--+--+--+--+--+--+---------------+-----+-----+
///  |netag0   |WB|  op  |optype|CS|SS|SR|SC|UI|VC|  endian_type  |crcix|blk  |
///  +---------+--+------+------+--+--+--+--+--+--+---------------+-----+-----+
///   WB write_barrier, CS copy_src_data, SS store_source_crc, SR store_crc_result,
///   SC send_crc, UI use_stored_crc_iv, VC validate_crc, crcix cached_crc_iv_index,
///   blk block_attr (bit0 last block, bit1 first block)

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/bits.h"
#include "base/result.h"
#include "base/units.h"
#include "soc/named_field.h"
#include "soc/udma_regs.h"

namespace sbrdma::soc {

/// A named bit field of a descriptor word.
using DescField = NamedField;

/// word0 fields. [CHOICE D1]
namespace desc_word0 {
inline constexpr base::BitField kLen{15, 0};
inline constexpr base::BitField kReserved{21, 16};
inline constexpr base::BitField kDummy = base::bit(22);
inline constexpr base::BitField kMeta = base::bit(23);
inline constexpr base::BitField kRingId{25, 24};
inline constexpr base::BitField kFirst = base::bit(26);
inline constexpr base::BitField kLast = base::bit(27);
/// FIRST and LAST together: an M2S descriptor that is a whole packet (both clear on S2M).
inline constexpr std::uint64_t kOnePacket = kFirst.mask() | kLast.mask();
inline constexpr base::BitField kIntEn = base::bit(28);
inline constexpr base::BitField kNoSnoop = base::bit(29);
/// Bit 29 of an S2M descriptor on v3 and later: STRONG_ORDER_WR. [DRV] udma-facts §1.1
inline constexpr base::BitField kS2mStrongOrderWr = base::bit(29);
inline constexpr base::BitField kDmb = base::bit(30);
inline constexpr base::BitField kConcat = base::bit(31);
}  // namespace desc_word0

/// word1 (CME command) fields. [HIGH] wiki-facts §2.3
namespace desc_word1 {
inline constexpr base::BitField kBlockAttr{2, 0};
inline constexpr base::BitField kCachedCrcIvIndex{5, 3};
inline constexpr base::BitField kEndianType{13, 6};
inline constexpr base::BitField kValidateCrc = base::bit(14);
inline constexpr base::BitField kUseStoredCrcIv = base::bit(15);
inline constexpr base::BitField kSendCrc = base::bit(16);
inline constexpr base::BitField kStoreCrcResult = base::bit(17);
inline constexpr base::BitField kStoreSourceCrc = base::bit(18);
inline constexpr base::BitField kCopySrcData = base::bit(19);
inline constexpr base::BitField kOptype{22, 20};
inline constexpr base::BitField kOp{25, 23};
inline constexpr base::BitField kWriteBarrier = base::bit(26);
inline constexpr base::BitField kNetag0Rsvd{31, 27};
}  // namespace desc_word1

/// SDMA_CMETYPE (word1 optype). [HIGH] wiki-facts §2.3
enum class SdmaCmeType : std::uint8_t {
  kCopy = 0,
  kCrc32 = 1,
  kCrc32c = 2,
  kCksum16 = 3,
  kCksum32 = 4,
  kCrc16 = 5,
  kCksum32Adler = 6,
  kCrc8 = 7,
};
/// SDMAOP (word1 op). Values 0, 3, 5..7 have no name. [HIGH] wiki-facts §2.3
enum class SdmaOp : std::uint8_t { kDre = 1, kCme = 2, kCce = 4 };

/// "COPY", "CRC32", ...
std::string_view cme_type_name(SdmaCmeType t);
/// "DRE", "CME", "CCE", or "" for an unnamed value.
std::string_view sdma_op_name(unsigned op);

/// The driver's plain-copy command word: first|last block, copy_src_data, op CME.
/// [DRV] udma-facts §1.1
inline constexpr std::uint32_t kPlainCopyWord1 = 0x01080003;
/// Ring id of a fresh ring. [CHOICE D2]
inline constexpr unsigned kInitialRingId = 1;
/// Largest byte count of one descriptor (encoded as LEN 0). [DRV] udma-facts §1.1
inline constexpr std::uint32_t kMaxDescLen = 65536;
/// Bytes a semaphore-increment descriptor moves. [CHOICE D5]
inline constexpr std::uint32_t kSemaDescLen = 4;

/// One descriptor, as it lies in memory (on a little-endian host the struct is the bytes).
struct UdmaDescriptor {
  std::uint32_t word0 = 0;  ///< len_ctrl
  std::uint32_t word1 = 0;  ///< CME command (M2S) / buf2_ptr_lo (S2M, unused)
  std::uint64_t buf_ptr = 0;

  bool operator==(const UdmaDescriptor&) const = default;

  /// Byte count: LEN, with 0 meaning 64 KiB. [HIGH] encode_64k [CHOICE D37]
  [[nodiscard]] std::uint32_t length() const {
    const auto len = static_cast<std::uint32_t>(desc_word0::kLen.get(word0));
    return len == 0 ? kMaxDescLen : len;
  }
  [[nodiscard]] unsigned ring_id() const {
    return static_cast<unsigned>(desc_word0::kRingId.get(word0));
  }
  [[nodiscard]] base::SocAddr addr() const { return base::SocAddr{buf_ptr}; }
};
static_assert(sizeof(UdmaDescriptor) == 16);
static_assert(offsetof(UdmaDescriptor, word1) == 4);
static_assert(offsetof(UdmaDescriptor, buf_ptr) == 8);

/// The descriptor size in bytes.
inline constexpr std::size_t kDescBytes = 16;

// Inline, as are length() and ring_id(): the engines decode two descriptors per pair and the
// firmware encodes them one by one.

/// The 16 little-endian bytes of `d`.
inline std::array<std::uint8_t, kDescBytes> encode_descriptor(const UdmaDescriptor& d) {
  std::array<std::uint8_t, kDescBytes> b{};
  base::store_le<std::uint32_t>(b.data(), d.word0);
  base::store_le<std::uint32_t>(b.data() + 4, d.word1);
  base::store_le<std::uint64_t>(b.data() + 8, d.buf_ptr);
  return b;
}
/// The descriptor in 16 bytes of memory.
inline UdmaDescriptor decode_descriptor(std::span<const std::uint8_t, kDescBytes> bytes) {
  return UdmaDescriptor{base::load_le<std::uint32_t>(bytes.data()),
                        base::load_le<std::uint32_t>(bytes.data() + 4),
                        base::load_le<std::uint64_t>(bytes.data() + 8)};
}

/// LEN for a byte count in 1..65536 (65536 encodes as 0); error otherwise.
base::Result<std::uint16_t> encode_len(std::uint32_t bytes);

/// Options of a copy descriptor beyond address, length and ring id.
struct CopyFlags {
  bool first = true;  ///< word0 FIRST (M2S packet start)
  bool last = true;   ///< word0 LAST
  bool dmb = false;   ///< word0 DMB
  bool int_en = false;
  bool write_barrier = false;  ///< word1 write_barrier (v2+ barrier)
};

/// A plain copy descriptor: word1 = kPlainCopyWord1 (plus write_barrier if asked).
/// Errors: `bytes` outside 1..65536, `ring_id` > 3.
base::Result<UdmaDescriptor> make_copy_descriptor(base::SocAddr buf, std::uint32_t bytes,
                                                  unsigned ring_id, CopyFlags flags = {});

/// A semaphore-increment descriptor ([CHOICE D5]): a 4-byte copy whose buf_ptr is an EVT_SEM
/// INC window address (soc::AddressMap::sem_window_addr).
base::Result<UdmaDescriptor> make_sema_inc_descriptor(base::SocAddr inc_window_addr,
                                                      unsigned ring_id);

/// Every word0 field, LSB first (printer order).
std::span<const DescField> word0_fields();
/// Every word1 field, LSB first.
std::span<const DescField> word1_fields();

/// Parse the 16 bytes as they lie in memory: exactly 32 hex digits, byte 0 first.
base::Result<UdmaDescriptor> parse_descriptor_hex(std::string_view hex);
/// The 32 hex digits of `d` as it lies in memory (inverse of parse_descriptor_hex).
std::string descriptor_hex(const UdmaDescriptor& d);
/// A multi-line listing of every field by name (the `sbrdma decode desc` output), read as an
/// M2S descriptor or, with kS2M, as an S2M one (the two word0 layouts differ; an S2M word1
/// is unused). udma-facts §1.1
std::string format_descriptor(const UdmaDescriptor& d, Direction dir = Direction::kM2S);

}  // namespace sbrdma::soc
