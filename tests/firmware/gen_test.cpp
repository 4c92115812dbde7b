// rdma_desc_gen: golden descriptor bytes, the partition split for every engine count, chunking,
// the folds, and the requests it refuses.
#include <gtest/gtest.h>

#include "firmware/fixtures.h"
#include "firmware/gen_plan.h"

namespace sbrdma::firmware {
namespace {

using soc::Direction;
using soc::UdmaDescriptor;
using testing::cayman_map;
using testing::Core;
using testing::make_gen;

// Hand-computed addresses (Cayman map, wiki-facts §3.1, §4.2; [CHOICE D18, D20a]).
constexpr std::uint64_t kTpb0Sbuf = 0x2000000000;
constexpr std::uint64_t kTpb0Dge = 0x2040000000;
constexpr std::uint64_t kTpb0EvtSemInc = 0x2000000000 + 0x802700000 + 0x1800;
constexpr std::uint64_t kPartition = 0x40000;  // 256 KiB stride
// Neighbour fold to die 1: DIE 47 | EXIT_DIE 51 | NEIGHBOR_ROUTE 52 | ID_VALID 54.
constexpr std::uint64_t kNeighborDie1 = 0x58800000000000;

// M2S word0: FIRST 26 | LAST 27 | RING_ID 1 at [25:24] | LEN. S2M word0: RING_ID | LEN.
constexpr std::uint32_t kM2sWord0Id1 = 0x0D000000;
constexpr std::uint32_t kS2mWord0Id1 = 0x01000000;

TEST(RdmaDescGen, GoldenMask3Size256PeerOnOtherDie) {
  // Core 0 (die 0) sends 256 B at 0x100 of every partition to core 4 (die 1) at 0x200.
  Core c(0, 0);
  ASSERT_TRUE(c.gen(make_gen(0x3, 256, 0x100, 0x200, 4, 0, /*local*/ 3, /*remote*/ 5)).ok());
  const std::uint64_t peer_sbuf = kNeighborDie1 | 0x2000000000;  // TPB_4 = TPB_0 | bit 47
  const std::uint64_t peer_inc = kNeighborDie1 | (0x2802700000 + 0x1800);

  // Engine 0, partitions 0..63; engine 1, partitions 64..127.
  EXPECT_EQ(c.desc(0, Direction::kM2S, 0),
            (UdmaDescriptor{kM2sWord0Id1 | 0x100, 0x01080003, kTpb0Sbuf + 0x100}));
  EXPECT_EQ(c.desc(0, Direction::kS2M, 0),
            (UdmaDescriptor{kS2mWord0Id1 | 0x100, 0, peer_sbuf + 0x200}));
  EXPECT_EQ(c.desc(0, Direction::kM2S, 63).buf_ptr, kTpb0Sbuf + 63 * kPartition + 0x100);
  EXPECT_EQ(c.desc(1, Direction::kM2S, 0).buf_ptr, kTpb0Sbuf + 64 * kPartition + 0x100);
  EXPECT_EQ(c.desc(1, Direction::kS2M, 63).buf_ptr, peer_sbuf + 127 * kPartition + 0x200);
  // Slot 64: REMOTE (remote_sem 5 on core 4, folded like the data); slot 65: LOCAL (sem 3 here).
  EXPECT_EQ(c.desc(0, Direction::kM2S, 64),
            (UdmaDescriptor{kM2sWord0Id1 | 4, 0x01080003, kTpb0Dge}));
  EXPECT_EQ(c.desc(0, Direction::kS2M, 64),
            (UdmaDescriptor{kS2mWord0Id1 | 4, 0, peer_inc + 5 * 4}));
  EXPECT_EQ(c.desc(0, Direction::kM2S, 65),
            (UdmaDescriptor{kM2sWord0Id1 | 4, 0x01080003, kTpb0Dge}));
  EXPECT_EQ(c.desc(0, Direction::kS2M, 65),
            (UdmaDescriptor{kS2mWord0Id1 | 4, 0, kTpb0EvtSemInc + 3 * 4}));
  EXPECT_EQ(c.desc(1, Direction::kS2M, 64).buf_ptr, peer_inc + 5 * 4);
  // Inactive engines carry only LOCAL, in slot 0.
  for (unsigned e = 2; e < 16; ++e) {
    EXPECT_EQ(c.desc(e, Direction::kS2M, 0),
              (UdmaDescriptor{kS2mWord0Id1 | 4, 0, kTpb0EvtSemInc + 3 * 4}))
        << "engine " << e;
    EXPECT_EQ(c.desc(e, Direction::kM2S, 1), UdmaDescriptor{}) << "engine " << e;
  }
  // Expected = written: 2 x (64 + 2) + 14 x 1 per role. [CHOICE D6]
  for (const Role r : {Role::kRx, Role::kTx}) {
    EXPECT_EQ(c.fw.stream(r).written_total(), 146U);
    EXPECT_EQ(c.fw.stream(r).expected_total(), 146U);
  }
  // Q7 time: 146 descriptors per role at the default 25 ns, charged once.
  EXPECT_EQ(c.env.total_delay, base::nanoseconds(146 * 25));
  EXPECT_EQ(c.env.gen_delay, c.env.total_delay);  // all of it is descriptor building
  EXPECT_EQ(c.env.compute_delay, base::Tick{});
}

TEST(RdmaDescGen, GoldenDescriptorBytes) {
  // The first M2S descriptor of the golden case, as the 16 bytes in DGE memory.
  Core c(0, 0);
  ASSERT_TRUE(c.gen(make_gen(0x3, 256, 0x100, 0x200, 4, 0)).ok());
  const auto bytes = c.env.recording_bus().load(kTpb0Dge + 0x100, 16);
  const std::vector<std::uint8_t> want{0x00, 0x01, 0x00, 0x0D, 0x03, 0x00, 0x08, 0x01,
                                       0x00, 0x01, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00};
  EXPECT_EQ(bytes, want);
}

struct MaskCase {
  std::uint32_t mask;
  unsigned n_active;
};

class RdmaDescGenMasks : public ::testing::TestWithParam<MaskCase> {};

TEST_P(RdmaDescGenMasks, SplitsPartitionsAndCountsDescriptors) {
  const MaskCase mc = GetParam();
  Core c(1, 0);
  ASSERT_TRUE(c.gen(make_gen(mc.mask, 1024, 0, 0, 0, 0)).ok());
  const unsigned ppe = 128 / mc.n_active;
  unsigned k = 0;
  for (unsigned e = 0; e < 16; ++e) {
    const DescriptorStream::Ring& ring = c.fw.stream(Role::kTx).ring(e);
    if ((mc.mask >> e) & 1U) {
      EXPECT_EQ(ring.pending, ppe + 2) << "engine " << e;  // [CHOICE D4, D5]
      // The k-th active engine starts at partition k * 128 / n. Core 1's SBUF is TPB_1's.
      EXPECT_EQ(c.desc(e, Direction::kM2S, 0).buf_ptr, 0x3000000000 + k * ppe * kPartition);
      EXPECT_EQ(c.desc(e, Direction::kS2M, ppe - 1).buf_ptr,
                0x2000000000 + (k * ppe + ppe - 1) * kPartition);
      ++k;
    } else {
      EXPECT_EQ(ring.pending, 1U) << "engine " << e;
    }
  }
  EXPECT_EQ(k, mc.n_active);
  EXPECT_EQ(c.fw.stream(Role::kRx).written_total(), 128 + mc.n_active + 16);
}

INSTANTIATE_TEST_SUITE_P(Counts, RdmaDescGenMasks,
                         ::testing::Values(MaskCase{0x0001, 1}, MaskCase{0x8001, 2},
                                           MaskCase{0x00F0, 4}, MaskCase{0xFF00, 8},
                                           MaskCase{0xFFFF, 16}));

struct SizeCase {
  std::uint32_t bytes;
  std::vector<std::uint32_t> chunks;  // lengths of the descriptors of one partition
};

class RdmaDescGenSizes : public ::testing::TestWithParam<SizeCase> {};

TEST_P(RdmaDescGenSizes, ChunksAt64KiB) {
  const SizeCase sc = GetParam();
  Core c(0, 0);
  ASSERT_TRUE(c.gen(make_gen(0x1, sc.bytes, 0, 0, 1, 0)).ok());
  const unsigned n = static_cast<unsigned>(sc.chunks.size());
  EXPECT_EQ(c.fw.stream(Role::kTx).ring(0).pending, 128 * n + 2);
  // Partition 5's descriptors: consecutive chunks of its span.
  for (unsigned i = 0; i < n; ++i) {
    const UdmaDescriptor m2s = c.desc(0, Direction::kM2S, 5 * n + i);
    const UdmaDescriptor s2m = c.desc(0, Direction::kS2M, 5 * n + i);
    EXPECT_EQ(m2s.length(), sc.chunks[i]);
    EXPECT_EQ(s2m.length(), sc.chunks[i]);
    EXPECT_EQ(m2s.buf_ptr, kTpb0Sbuf + 5 * kPartition + i * 65536ULL);
    EXPECT_EQ(s2m.buf_ptr, 0x3000000000 + 5 * kPartition + i * 65536ULL);  // core 1, same die
  }
}

INSTANTIATE_TEST_SUITE_P(
    Bytes, RdmaDescGenSizes,
    ::testing::Values(SizeCase{1, {1}}, SizeCase{65536, {65536}}, SizeCase{65537, {65536, 1}},
                      // the whole active partition: 224 KiB = 3 x 64 KiB + 32 KiB
                      SizeCase{229376, {65536, 65536, 65536, 32768}}));

TEST(RdmaDescGen, SemaphoreOnlyTransfer) {
  Core c(0, 0);
  ASSERT_TRUE(c.gen(make_gen(0x3, 0, 0, 0, 1, 0, 7, 8)).ok());
  EXPECT_EQ(c.fw.stream(Role::kRx).ring(0).pending, 2U);  // REMOTE + LOCAL only
  EXPECT_EQ(c.desc(0, Direction::kS2M, 0).buf_ptr, 0x3000000000 + 0x802700000 + 0x1800 + 8 * 4);
  EXPECT_EQ(c.desc(0, Direction::kS2M, 1).buf_ptr, kTpb0EvtSemInc + 7 * 4);
}

TEST(RdmaDescGen, SameDiePeerUsesPlainAddresses) {
  Core c(0, 0);
  ASSERT_TRUE(c.gen(make_gen(0x1, 16, 0, 0x40, 3, 0)).ok());
  EXPECT_EQ(c.desc(0, Direction::kS2M, 0).buf_ptr, 0x7000000040U);  // TPB_3, no route bits
}

TEST(RdmaDescGen, CrossChipFoldsDataAndRemoteSemaphore) {
  // Chip 2 core 1 (die 0) to chip 5 core 6 (die 1): chip-id fold, CAYMAN_ID 5, valid, DIE 1.
  Core c(1, 2);
  ASSERT_TRUE(c.gen(make_gen(0x1, 16, 0, 0x40, 6, 5, 3, 9)).ok());
  constexpr std::uint64_t kFold = (1ULL << 54) | (5ULL << 48) | (1ULL << 47);
  EXPECT_EQ(c.desc(0, Direction::kS2M, 0).buf_ptr, kFold | 0x6000000040U);  // TPB_6 = TPB_2|b47
  EXPECT_EQ(c.desc(0, Direction::kS2M, 128).buf_ptr, kFold | (0x6802700000U + 0x1800 + 9 * 4));
  // LOCAL stays a plain address of this core (TPB_1).
  EXPECT_EQ(c.desc(0, Direction::kS2M, 129).buf_ptr, 0x3802700000U + 0x1800 + 3 * 4);
}

TEST(RdmaDescGen, SteppedAddressesEqualThePerAddressOnes) {
  // gen builds the data addresses as steps from partition 0, chunk 0; for every partition and
  // chunk they must equal gen_src_addr / gen_dst_addr, on the die, across dies and chips.
  struct Peer {
    unsigned tpb, chip, peer_core, routing_id;
  };
  for (const Peer& p : {Peer{0, 0, 3, 0}, Peer{1, 0, 6, 0}, Peer{5, 2, 1, 7}, Peer{6, 3, 6, 3}}) {
    const isa::RdmaDescGen g =
        make_gen(0xFFFF, 3 * 65536 + 100, 0x40, 0x80, p.peer_core, p.routing_id);
    const auto plan = plan_gen(g, cayman_map(), CoreIdentity{p.tpb, p.chip});
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    ASSERT_EQ(plan->chunks_per_partition, 4U);
    const base::SocAddr src0 = gen_src_addr(*plan, cayman_map(), p.tpb, 0, 0);
    const base::SocAddr dst0 = gen_dst_addr(*plan, cayman_map(), 0, 0);
    for (unsigned part = 0; part < 128; ++part) {
      for (unsigned c = 0; c < plan->chunks_per_partition; ++c) {
        EXPECT_EQ(gen_step_addr(src0, cayman_map(), part, c),
                  gen_src_addr(*plan, cayman_map(), p.tpb, part, c))
            << "tpb " << p.tpb << " partition " << part << " chunk " << c;
        EXPECT_EQ(gen_step_addr(dst0, cayman_map(), part, c),
                  gen_dst_addr(*plan, cayman_map(), part, c))
            << "peer " << p.peer_core << " chip " << p.routing_id << " partition " << part
            << " chunk " << c;
      }
    }
  }
}

struct BadGen {
  isa::RdmaDescGen g;
  std::string message;
};

isa::RdmaDescGen with_bidirectional() {
  isa::RdmaDescGen g = make_gen(0x1, 16, 0, 0, 1, 0);
  g.is_bidirectional = 1;
  return g;
}
isa::RdmaDescGen with_register_src() {
  isa::RdmaDescGen g = make_gen(0x1, 16, 0, 0, 1, 0);
  g.src_addr = isa::Addr4{isa::Addr4Marker::kAddrReg, 3};
  return g;
}

class RdmaDescGenRejects : public ::testing::TestWithParam<BadGen> {};

TEST_P(RdmaDescGenRejects, WithOneClearMessage) {
  Core c(0, 0);
  const base::Status st = c.gen(GetParam().g);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, GetParam().message);
  EXPECT_EQ(c.run_actions().size(), 0U);  // nothing written
  EXPECT_EQ(c.fw.stream(Role::kTx).expected_total(), 0U);
}

INSTANTIATE_TEST_SUITE_P(
    Requests, RdmaDescGenRejects,
    ::testing::Values(
        BadGen{make_gen(0x7, 16, 0, 0, 1, 0),
               "rdma_desc_gen: dma_engine_mask 0x7 selects 3 engines (must be 1, 2, 4, 8 or 16)"},
        BadGen{make_gen(0x0, 16, 0, 0, 1, 0),
               "rdma_desc_gen: dma_engine_mask 0x0 selects 0 engines (must be 1, 2, 4, 8 or 16)"},
        BadGen{make_gen(0x10000, 16, 0, 0, 1, 0),
               "rdma_desc_gen: dma_engine_mask 0x10000 does not fit the 16 engines"},
        BadGen{with_bidirectional(), "rdma_desc_gen: is_bidirectional=1 is not supported"},
        BadGen{make_gen(0x1, 0x200, 0x37f00, 0, 1, 0),
               "rdma_desc_gen: src_addr range [0x37f00, 0x38100) is beyond the 0x38000 (229376) "
               "active bytes of an SBUF partition"},
        BadGen{make_gen(0x1, 16, 0, 0x38000, 1, 0),
               "rdma_desc_gen: dst_addr range [0x38000, 0x38010) is beyond the 0x38000 (229376) "
               "active bytes of an SBUF partition"},
        BadGen{with_register_src(),
               "rdma_desc_gen: src_addr is a register form (marker 0x80); only an immediate "
               "partition offset is supported"},
        BadGen{make_gen(0x1, 16, 0, 0, 8, 0),
               "rdma_desc_gen: remote_core_id 8 is not a core of the chip (0..7 on cayman; global "
               "core N "
               "is remote_core_id N % 8 on chip remote_routing_id N / 8)"},
        BadGen{make_gen(0x1, 16, 0, 0, 1, 64),
               "rdma_desc_gen: remote_routing_id 64: chip id 64 out of range (0..63)"}));

TEST(RdmaDescGen, BeforeRingInitIsAnError) {
  testing::ScriptedEnv env(testing::cayman_map(), 0, 0);
  PoolFirmware fw(env, testing::cayman_map(), CoreIdentity{0, 0}, FirmwareConfig{});
  auto t = fw.rdma_desc_gen(make_gen(0x1, 16, 0, 0, 1, 0));
  ASSERT_TRUE(testing::drive(t));
  const base::Status st = t.take_result();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "rdma_desc_gen: the RDMA rings are not initialised (no ring_init)");
}

}  // namespace
}  // namespace sbrdma::firmware
