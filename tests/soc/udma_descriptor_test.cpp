#include "soc/udma_descriptor.h"

#include <gtest/gtest.h>

namespace sbrdma::soc {
namespace {

TEST(Descriptor, PlainCopyWord1) {
  const std::uint32_t w = kPlainCopyWord1;
  EXPECT_EQ(w, 0x01080003U);  // [DRV] udma-facts §1.1
  EXPECT_EQ(desc_word1::kBlockAttr.get(w), 3U);
  EXPECT_EQ(desc_word1::kCopySrcData.get(w), 1U);
  EXPECT_EQ(desc_word1::kOptype.get(w), static_cast<unsigned>(SdmaCmeType::kCopy));
  EXPECT_EQ(desc_word1::kOp.get(w), static_cast<unsigned>(SdmaOp::kCme));
  EXPECT_EQ(desc_word1::kWriteBarrier.get(w), 0U);
  EXPECT_EQ(desc_word1::kEndianType.get(w), 0U);
}

TEST(Descriptor, CopyEncodesToHandWrittenBytes) {
  auto d = make_copy_descriptor(base::SocAddr{0x2000001000}, 4096, 1);
  ASSERT_TRUE(d.ok());
  // word0 = LEN 0x1000 | RING_ID 1 << 24 | FIRST 26 | LAST 27 = 0x0D001000
  const std::array<std::uint8_t, 16> want{0x00, 0x10, 0x00, 0x0D, 0x03, 0x00, 0x08, 0x01,
                                          0x00, 0x10, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00};
  EXPECT_EQ(encode_descriptor(*d), want);
  EXPECT_EQ(decode_descriptor(want), *d);
  EXPECT_EQ(d->length(), 4096U);
  EXPECT_EQ(d->ring_id(), 1U);
  EXPECT_EQ(descriptor_hex(*d), "0010000d030008010010000020000000");
}

TEST(Descriptor, FlagsLandOnTheirBits) {
  CopyFlags f;
  f.first = false;
  f.last = false;
  f.dmb = true;
  f.int_en = true;
  f.write_barrier = true;
  auto d = make_copy_descriptor(base::SocAddr{0}, 1, 3, f);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->word0, (1U << 30) | (1U << 28) | (3U << 24) | 1U);
  EXPECT_EQ(d->word1, kPlainCopyWord1 | (1U << 26));
}

TEST(Descriptor, SixtyFourKibIsLenZero) {
  auto d = make_copy_descriptor(base::SocAddr{0x40}, 65536, 2);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(desc_word0::kLen.get(d->word0), 0U);
  EXPECT_EQ(d->length(), 65536U);
  EXPECT_FALSE(make_copy_descriptor(base::SocAddr{0}, 0, 1).ok());
  EXPECT_FALSE(make_copy_descriptor(base::SocAddr{0}, 65537, 1).ok());
  EXPECT_FALSE(make_copy_descriptor(base::SocAddr{0}, 4, 4).ok());  // ring id is 2 bits
  EXPECT_EQ(*encode_len(65535), 65535);
}

TEST(Descriptor, WordFieldsReadHandWrittenWords) {
  const UdmaDescriptor d{0xA4C0FFFF, 0x2B1FC0E9, 0x0123456789ABCDEF};
  EXPECT_EQ(desc_word0::kLen.get(d.word0), 0xFFFFU);
  EXPECT_EQ(desc_word0::kReserved.get(d.word0), 0U);
  EXPECT_EQ(desc_word0::kDummy.get(d.word0), 1U);
  EXPECT_EQ(desc_word0::kMeta.get(d.word0), 1U);
  EXPECT_EQ(desc_word0::kRingId.get(d.word0), 0U);
  EXPECT_EQ(desc_word0::kFirst.get(d.word0), 1U);
  EXPECT_EQ(desc_word0::kLast.get(d.word0), 0U);
  EXPECT_EQ(desc_word0::kNoSnoop.get(d.word0), 1U);
  EXPECT_EQ(desc_word0::kConcat.get(d.word0), 1U);
  EXPECT_EQ(desc_word1::kBlockAttr.get(d.word1), 1U);
  EXPECT_EQ(desc_word1::kCachedCrcIvIndex.get(d.word1), 5U);
  EXPECT_EQ(desc_word1::kEndianType.get(d.word1), 0x03U);
  EXPECT_EQ(desc_word1::kValidateCrc.get(d.word1), 1U);
  EXPECT_EQ(desc_word1::kOptype.get(d.word1), 1U);
  EXPECT_EQ(desc_word1::kOp.get(d.word1), 6U);
  EXPECT_EQ(desc_word1::kWriteBarrier.get(d.word1), 0U);
  EXPECT_EQ(desc_word1::kNetag0Rsvd.get(d.word1), 5U);
  const auto bytes = encode_descriptor(d);
  EXPECT_EQ(bytes[0], 0xFF);
  EXPECT_EQ(bytes[3], 0xA4);
  EXPECT_EQ(bytes[8], 0xEF);
  EXPECT_EQ(bytes[15], 0x01);
  EXPECT_EQ(decode_descriptor(bytes), d);
}

// [HAL] udma-facts §1.1: META_DATA is word0 bit 23 and DUMMY bit 22. The word above sets both,
// so only a word with one of them set tells them apart.
TEST(Descriptor, MetaAndDummyAreTheirOwnBits) {
  const std::uint32_t meta_only = 0x00800000;
  EXPECT_EQ(desc_word0::kMeta.get(meta_only), 1U);
  EXPECT_EQ(desc_word0::kDummy.get(meta_only), 0U);
  const std::uint32_t dummy_only = 0x00400000;
  EXPECT_EQ(desc_word0::kMeta.get(dummy_only), 0U);
  EXPECT_EQ(desc_word0::kDummy.get(dummy_only), 1U);
}

// [DRV] udma-facts §1.1: word1 send_crc is bit 16, between the CRC bits the word above also
// sets; its neighbours' positions are wiki-facts §2.3's (use_stored_crc_iv 15,
// store_crc_result 17, store_source_crc 18).
TEST(Descriptor, Word1CrcBits) {
  EXPECT_EQ(desc_word1::kSendCrc.mask(), 0x00010000U);
  EXPECT_EQ(desc_word1::kUseStoredCrcIv.mask(), 0x00008000U);
  EXPECT_EQ(desc_word1::kStoreCrcResult.mask(), 0x00020000U);
  EXPECT_EQ(desc_word1::kStoreSourceCrc.mask(), 0x00040000U);
}

TEST(Descriptor, SemaphoreIncrementIsFourByteCopy) {
  auto d = make_sema_inc_descriptor(base::SocAddr{0x2802701800 + 4 * 7}, 1);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->length(), 4U);
  EXPECT_EQ(d->word1, kPlainCopyWord1);
  EXPECT_EQ(d->buf_ptr, 0x280270181CU);
}

TEST(DescriptorHex, ParsesMemoryOrderAndRoundTrips) {
  auto d = parse_descriptor_hex("0010000D030008010010000020000000");
  ASSERT_TRUE(d.ok()) << d.error().format();
  EXPECT_EQ(d->word0, 0x0D001000U);
  EXPECT_EQ(d->word1, 0x01080003U);
  EXPECT_EQ(d->buf_ptr, 0x2000001000U);
  const UdmaDescriptor x{0x12345678, 0x9ABCDEF0, 0xFEDCBA9876543210};
  EXPECT_EQ(*parse_descriptor_hex(descriptor_hex(x)), x);
  // Blanks may group the digits; only digits count.
  EXPECT_EQ(*parse_descriptor_hex("0010000D 03000801\t00100000 20000000"), *d);
  EXPECT_EQ(*parse_descriptor_hex(" 0010000D 03000801\r\n00100000\n20000000\n"), *d);
  EXPECT_NE(parse_descriptor_hex(" 0x10000d030008010010002000000000")
                .error()
                .message.find("not a 0x number"),
            std::string::npos);
  EXPECT_EQ(parse_descriptor_hex("0010000D 03000801 00100000 200000").error().message,
            "descriptor hex must be exactly 32 hex digits (16 bytes), got 30");
}

TEST(DescriptorHex, RejectsBadText) {
  EXPECT_NE(parse_descriptor_hex("00").error().message.find("exactly 32 hex digits"),
            std::string::npos);
  EXPECT_NE(parse_descriptor_hex("0x10000d030008010010002000000000")
                .error()
                .message.find("not a 0x number"),
            std::string::npos);
  EXPECT_NE(
      parse_descriptor_hex("0010000d03000801001000200000000z").error().message.find("position 32"),
      std::string::npos);
  EXPECT_EQ(parse_descriptor_hex("0010000d\x01").error().message,
            "descriptor hex: '\\x01' at position 9 is not a hex digit");
  // An upper-case 0X is a 0x number too.
  EXPECT_NE(parse_descriptor_hex("0X10000d030008010010002000000000")
                .error()
                .message.find("not a 0x number"),
            std::string::npos);
}

TEST(DescriptorPrint, BlockAttrNamesItsBits) {
  const std::string last =
      format_descriptor(*parse_descriptor_hex("0010000D010008010010000020000000"));
  EXPECT_NE(last.find("block_attr           [2:0]    0x1  (last)"), std::string::npos) << last;
  const std::string first =
      format_descriptor(*parse_descriptor_hex("0010000D020008010010000020000000"));
  EXPECT_NE(first.find("block_attr           [2:0]    0x2  (first)"), std::string::npos) << first;
}

TEST(DescriptorPrint, NamesEveryField) {
  const std::string s = format_descriptor(*make_copy_descriptor(base::SocAddr{0x10}, 65536, 1));
  for (const auto& f : word0_fields()) EXPECT_NE(s.find(f.name), std::string::npos) << f.name;
  for (const auto& f : word1_fields()) EXPECT_NE(s.find(f.name), std::string::npos) << f.name;
  EXPECT_NE(s.find("65536 bytes"), std::string::npos);
  EXPECT_NE(s.find("(COPY)"), std::string::npos);
  EXPECT_NE(s.find("(CME)"), std::string::npos);
  EXPECT_NE(s.find("buf_ptr 0x0000000000000010"), std::string::npos);
  EXPECT_EQ(sdma_op_name(3), "");
  // As S2M: its own word0 layout, FIRST and LAST reserved there, word1 unused.
  const std::string r =
      format_descriptor(*make_copy_descriptor(base::SocAddr{0x10}, 64, 1), Direction::kS2M);
  EXPECT_NE(r.find("len_ctrl (S2M)"), std::string::npos) << r;
  EXPECT_NE(r.find("reserved             [27:26]  0x3  (reserved bits set)"), std::string::npos)
      << r;
  EXPECT_NE(r.find("STRONG_ORDER_WR      [29]     0x0"), std::string::npos) << r;
  EXPECT_EQ(r.find("FIRST"), std::string::npos) << r;
  EXPECT_EQ(r.find("CME"), std::string::npos) << r;
  EXPECT_EQ(cme_type_name(SdmaCmeType::kCksum32Adler), "CKSUM32_ADLER");
}

}  // namespace
}  // namespace sbrdma::soc
