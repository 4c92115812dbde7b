#include "soc/print.h"

#include <gtest/gtest.h>

#include <string>

namespace sbrdma::soc {
namespace {

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Print, AddressViewsListEveryField) {
  const std::string s = format_address_views(base::SocAddr{0x58800000100000});
  for (const AddrField& f : local_view_fields()) EXPECT_TRUE(has(s, std::string(f.name)));
  for (const AddrField& f : neighbor_view_fields()) EXPECT_TRUE(has(s, std::string(f.name)));
  EXPECT_TRUE(has(s, "address 0x0058800000100000"));
  EXPECT_TRUE(has(s, "CAYMAN_ID                    [53:48]  0x18"));
  EXPECT_TRUE(has(s, "NEIGHBOR_ROUTE               [52]     0x1"));
  EXPECT_FALSE(has(s, "undefined bits"));
  EXPECT_TRUE(has(format_address_views(base::SocAddr{1ULL << 63}), "undefined bits"));
}

TEST(Print, DecodedAddressNamesRegionAndRegister) {
  const AddressMap m = AddressMap::build(cayman_profile()).value();
  const ChipDie me{0, 0};
  auto d = m.decode(base::SocAddr{0x1002506038}, me);
  ASSERT_TRUE(d.ok());
  const std::string s = format_decoded(*d, me, m.profile());
  EXPECT_TRUE(has(s, "region SE_0.SDMA_5.UDMA_M2S +0x6038: DMA engine 5 of core 0 (chip 0 tpb 0, die 0)"));
  EXPECT_TRUE(has(s, "M2S queue 5 register TDRTP_inc (+0x38, RW, doorbell, broadcast)"));
  auto sem = m.decode(*fold_route(0x2802701808, me, ChipDie{0, 1}), me);
  ASSERT_TRUE(sem.ok());
  const std::string t = format_decoded(*sem, me, m.profile());
  EXPECT_TRUE(has(t, "neighbor -> this chip (0), die 1"));
  EXPECT_TRUE(has(t, "TPB_4.EVT_SEM"));
  EXPECT_TRUE(has(t, "EVT_SEM INC window, semaphore 2"));
  auto none = m.decode(base::SocAddr{0x10}, me);
  EXPECT_TRUE(has(format_decoded(*none, me, m.profile()), "hits nothing (chip-relative"));
}

TEST(Print, DecodedAddressOnADieTheProfileLacks) {
  // sunda has one die per chip: an address whose DIE bit is set routes to a die that is not
  // there.
  const AddressMap m = AddressMap::build(*find_profile("sunda").value()).value();
  const ChipDie me{0, 0};
  auto d = m.decode(base::SocAddr{(1ULL << 47) | 0x1002540100}, me);
  ASSERT_TRUE(d.ok());
  const std::string s = format_decoded(*d, me, m.profile());
  EXPECT_TRUE(has(s, "die 1, LOCAL 0x1002540100"));
  EXPECT_TRUE(has(s, "hits nothing: profile sunda has 1 die per chip, no die 1\n"));
  // The same LOCAL address on die 0 is an UDMA register.
  auto own = m.decode(base::SocAddr{0x1002540100}, me);
  ASSERT_TRUE(own.ok());
  EXPECT_FALSE(has(format_decoded(*own, me, m.profile()), "hits nothing"));
}

TEST(Print, RegisterBankListing) {
  const std::string s = format_reg_bank(m2s_queue_bank(), "the queue bank");
  EXPECT_TRUE(has(s, "M2S_Q registers (offsets from the queue bank)"));
  EXPECT_TRUE(has(s, "0x0038  TDRTP_inc"));
  EXPECT_TRUE(has(s, "doorbell, broadcast"));
  EXPECT_TRUE(has(s, "ring_id"));
  EXPECT_EQ(bit_range_text(base::BitField{31, 30}), "[31:30]");
  EXPECT_EQ(bit_range_text(base::bit(17)), "[17]");
}

}  // namespace
}  // namespace sbrdma::soc
