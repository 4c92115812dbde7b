#include "soc/address.h"

#include <gtest/gtest.h>

#include <array>

namespace sbrdma::soc {
namespace {

using base::SocAddr;

// [HIGH] wiki-facts §4.3 worked values.
TEST(Fold, NeighbourWorkedValue) {
  auto a = fold_route(0x100000, ChipDie{0, 0}, ChipDie{0, 1});
  ASSERT_TRUE(a.ok()) << a.error().format();
  EXPECT_EQ(a->v, 0x58800000100000ULL);
}

TEST(Fold, ChipIdWorkedValue) {
  auto a = fold_route(0x100000, ChipDie{0, 0}, ChipDie{0x12, 1});
  ASSERT_TRUE(a.ok()) << a.error().format();
  EXPECT_EQ(a->v, 0x0052800000100000ULL);
}

TEST(Fold, SameDieIsPlainAddressWithPeerDie) {
  EXPECT_EQ(fold_route(0x2802701800, ChipDie{3, 0}, ChipDie{3, 0})->v, 0x2802701800ULL);
  EXPECT_EQ(fold_route(0x2802701800, ChipDie{3, 1}, ChipDie{3, 1})->v, 0x802802701800ULL);
}

TEST(Fold, RejectsBadInput) {
  EXPECT_FALSE(fold_route(1ULL << 47, ChipDie{0, 0}, ChipDie{0, 0}).ok());
  EXPECT_FALSE(fold_route(0, ChipDie{0, 2}, ChipDie{0, 0}).ok());
  EXPECT_FALSE(fold_route(0, ChipDie{0, 0}, ChipDie{64, 0}).ok());
  EXPECT_FALSE(fold_route(0, ChipDie{64, 0}, ChipDie{1, 0}).ok());
}

// Every (issuer, peer) pair for a few addresses: unfold(fold(x)) == x, except the one
// ambiguous chip-id fold that [CHOICE D19] refuses.
TEST(Fold, RoundTripOverAllChipDiePairs) {
  constexpr std::array<std::uint64_t, 3> kLocals{0x0, 0x2802701804, 0x7FFFFFFFFFFF};
  int refused = 0;
  for (std::uint32_t ic = 0; ic <= kMaxChipId; ++ic) {
    for (std::uint32_t id = 0; id < 2; ++id) {
      for (std::uint32_t pc = 0; pc <= kMaxChipId; ++pc) {
        for (std::uint32_t pd = 0; pd < 2; ++pd) {
          const ChipDie issuer{ic, id};
          const ChipDie peer{pc, pd};
          const bool ambiguous = pc == 0x18 && ic != 0x18 && pd != id;
          for (std::uint64_t local : kLocals) {
            auto a = fold_route(local, issuer, peer);
            ASSERT_EQ(a.ok(), !ambiguous) << ic << "/" << id << " -> " << pc << "/" << pd;
            if (!a.ok()) {
              ++refused;
              continue;
            }
            auto t = unfold_route(*a, issuer);
            ASSERT_TRUE(t.ok()) << t.error().format();
            EXPECT_EQ(t->chip, pc);
            EXPECT_EQ(t->die, pd);
            EXPECT_EQ(t->local, local);
            EXPECT_EQ(t->same_chip, pc == ic);
            const Route want = pc != ic   ? Route::kChipId
                               : pd == id ? Route::kLocal
                                          : Route::kNeighbor;
            EXPECT_EQ(t->route, want);
          }
        }
      }
    }
  }
  EXPECT_EQ(refused, 63 * 2 * 3);  // issuers off chip 24, both dies, three addresses
}

TEST(Unfold, RefusesUnroutableBits) {
  const ChipDie me{0, 0};
  EXPECT_FALSE(unfold_route(SocAddr{1ULL << 58}, me).ok());             // undefined bits
  EXPECT_FALSE(unfold_route(SocAddr{1ULL << 55}, me).ok());             // RESERVED
  EXPECT_FALSE(unfold_route(SocAddr{0x20008002000000ULL}, me).ok());    // PEB aperture
  EXPECT_FALSE(unfold_route(SocAddr{(1ULL << 51) | 0x1000}, me).ok());  // EXIT_DIE, no ID_VALID
  auto t = unfold_route(SocAddr{(3ULL << 56) | 0x1000}, me);            // attributes do not route
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->route, Route::kLocal);
  EXPECT_EQ(t->local, 0x1000U);
}

TEST(Unfold, ChipIdNamingTheIssuerIsThisChip) {
  auto a = LocalAddr{}.set_local(0x40).set_cayman_id(7).set_cayman_id_valid(true).addr();
  auto t = unfold_route(a, ChipDie{7, 1});
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->same_chip);
  EXPECT_EQ(t->route, Route::kChipId);
  EXPECT_EQ(t->die, 0U);
  EXPECT_EQ(t->chip_local().v, 0x40U);
}

TEST(Views, LocalGetSetPerField) {
  LocalAddr a;
  a.set_local(0x123456789AB).set_die(1).set_cayman_id(0x2A).set_cayman_id_valid(true);
  a.set_reserved(true).set_relaxed_ordering(true).set_ok_to_fail(true);
  EXPECT_EQ(a.local(), 0x123456789ABU);
  EXPECT_EQ(a.die(), 1U);
  EXPECT_EQ(a.cayman_id(), 0x2AU);
  EXPECT_TRUE(a.cayman_id_valid());
  EXPECT_TRUE(a.reserved());
  EXPECT_TRUE(a.relaxed_ordering());
  EXPECT_TRUE(a.ok_to_fail());
  EXPECT_EQ(a.addr().v, 0x03EA8123456789ABULL);
  a.set_cayman_id(0).set_die(0).set_reserved(false);
  EXPECT_EQ(a.addr().v, 0x03400123456789ABULL);
  a.set_cayman_id(0x7F);  // wider than 6 bits: the extra bit is dropped, bit 54 untouched
  EXPECT_EQ(a.cayman_id(), 0x3FU);
  EXPECT_TRUE(a.cayman_id_valid());
}

TEST(Views, NeighborGetSetPerField) {
  NeighborAddr a;
  a.set_neighbor_rsvd(2).set_exit_seng(true).set_peb(true).set_pcie_u_rsvd(true);
  EXPECT_EQ(a.addr().v, (2ULL << 48) | (1ULL << 50) | (1ULL << 53) | (1ULL << 55));
  EXPECT_EQ(a.neighbor_rsvd(), 2U);
  EXPECT_TRUE(a.exit_seng());
  EXPECT_FALSE(a.exit_die());
  EXPECT_FALSE(a.neighbor_route());
  EXPECT_TRUE(a.peb());
  EXPECT_FALSE(a.id_valid());
  EXPECT_TRUE(a.pcie_u_rsvd());
  // The two views share bits: PEB is CAYMAN_ID bit 5, ID_VALID is CAYMAN_ID_VALID.
  EXPECT_EQ(LocalAddr{a.addr()}.cayman_id(), 0x26U);
  a.set_id_valid(true);
  EXPECT_TRUE(LocalAddr{a.addr()}.cayman_id_valid());
}

/// Each view's field table names every defined bit [57:0] exactly once.
void expect_covers_58_bits(std::span<const AddrField> fields) {
  std::uint64_t seen = 0;
  for (const AddrField& f : fields) {
    EXPECT_EQ(seen & f.bits.mask(), 0U) << f.name << " overlaps";
    seen |= f.bits.mask();
    // get/set round trip through the table's own field
    const std::uint64_t max = base::low_mask(f.bits.width());
    EXPECT_EQ(f.bits.get(f.bits.set(0, max)), max) << f.name;
    EXPECT_EQ(f.bits.set(~0ULL, 0) & f.bits.mask(), 0U) << f.name;
  }
  EXPECT_EQ(seen, base::low_mask(58));
}

TEST(Views, FieldTablesCoverDefinedBits) {
  expect_covers_58_bits(local_view_fields());
  expect_covers_58_bits(neighbor_view_fields());
  EXPECT_EQ(local_view_fields().size(), 7U);
  EXPECT_EQ(neighbor_view_fields().size(), 11U);
}

}  // namespace
}  // namespace sbrdma::soc
