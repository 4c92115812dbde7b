#include "collectives/emitter.h"

#include <gtest/gtest.h>

#include "isa/printer.h"
#include "isa/views.h"
#include "soc/profile.h"

namespace sbrdma::collectives {
namespace {

Geometry trn2() {
  return Geometry::of(soc::cayman_profile(), 1);
}

std::vector<std::string> text(const CoreProgram& p) {
  std::vector<std::string> out;
  for (const auto& w : p.words) out.push_back(isa::print_word(w));
  return out;
}

TEST(Emitter, ALegIsGenThenStartWithThePeersIds) {
  Emitter em(trn2(), false);
  const unsigned sem = em.alloc_sem("test");
  EXPECT_EQ(sem, Emitter::kWindow);  // the window's slots come first
  const Arrival a = em.leg(1, 6, 0x100, 0x200, 512, sem, "");
  EXPECT_EQ(a.core, 6u);
  EXPECT_EQ(a.sem, sem);
  EXPECT_EQ(a.target, 16u);  // 16 engines each add one [CHOICE D5]
  auto progs = em.take_programs();
  ASSERT_EQ(progs.size(), 1u);
  EXPECT_EQ(progs[0].core, 1u);
  ASSERT_EQ(progs[0].words.size(), 2u);
  const auto gen = isa::decode_rdma_desc_gen(progs[0].words[0]);
  ASSERT_TRUE(gen.ok());
  EXPECT_EQ(gen->local_sem, 0u);
  EXPECT_EQ(gen->remote_sem, sem);
  EXPECT_EQ(gen->remote_core_id.imm, 6u);  // TPB index on its chip [CHOICE D9]
  EXPECT_EQ(gen->remote_routing_id.imm, 0u);
  EXPECT_EQ(gen->dma_engine_mask.imm, 0xFFFFu);
  EXPECT_EQ(gen->src_addr.value, 0x100u);
  EXPECT_EQ(gen->dst_addr.value, 0x200u);
  EXPECT_EQ(gen->free_dim_bytes, 512u);
  EXPECT_TRUE(isa::decode_rdma_desc_start(progs[0].words[1]).ok());
}

TEST(Emitter, SemaphoreOnlyLegsUseOneEngineAndCountOne) {
  Emitter em(trn2(), false);
  const unsigned sem = em.alloc_sem("test");
  em.leg(2, 3, 0, 0, 0, sem, "");
  const Arrival a = em.leg(2, 3, 0, 0, 0, sem, "");
  EXPECT_EQ(a.target, 2u);
  const auto progs = em.take_programs();
  EXPECT_EQ(isa::decode_rdma_desc_gen(progs[0].words[0])->dma_engine_mask.imm, 1u);
  EXPECT_EQ(em.stats().semaphore_legs, 2u);
}

TEST(Emitter, GenIsHoistedAndTheLastWaitGatesTheStart) {
  Emitter em(trn2(), true);
  const unsigned s = em.alloc_sem("test");
  em.leg(0, 1, 0, 0, 64, s, "first");
  em.wait(Arrival{0, s, 16}, "wait for the peer");
  em.reduce(0, 128, 192, 16, DataType::kFp32, ReduceOp::kSum, "reduce");
  em.wait(Arrival{0, s, 32}, "wait again");
  em.leg(0, 1, 64, 64, 64, s, "second");
  const auto p = em.take_programs()[0];
  const auto t = text(p);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[0].rfind("rdma_desc_gen", 0), 0u);
  EXPECT_EQ(t[1].rfind("rdma_desc_start", 0), 0u);
  EXPECT_EQ(t[2].rfind("rdma_desc_gen", 0), 0u) << "the second gen moves up to the last start";
  EXPECT_EQ(t[3].rfind("event_semaphore", 0), 0u);
  EXPECT_EQ(t[4].rfind("ext_tensor_tensor_arith", 0), 0u);
  const isa::Events ev = isa::decode_events(p.words[5]);  // the last wait is on the start
  EXPECT_EQ(ev.wait_mode, isa::WaitMode::kGeImm);
  EXPECT_EQ(ev.wait_idx, s);
  EXPECT_EQ(ev.semaphore_value, 32u);
  EXPECT_EQ(p.notes[2], "second");
}

TEST(Emitter, AStepThatBeganAfterAFoldedWaitBeginsWithItsStart) {
  Emitter em(trn2(), true);
  const unsigned s = em.alloc_sem("test");
  em.step(0, "one");
  em.leg(0, 1, 0, 0, 64, s, "first");
  em.wait(Arrival{0, s, 16}, "wait for the peer");
  em.step(0, "two");  // after the wait, which the next start absorbs
  em.leg(0, 1, 64, 64, 64, s, "second");
  const auto p = em.take_programs()[0];
  ASSERT_EQ(p.words.size(), 4u);  // gen, start, gen (hoisted), start (gated by the wait)
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].pc, 0u);
  EXPECT_EQ(p.steps[1].pc, 3u) << "step two begins with its gated start";
  EXPECT_EQ(isa::decode_events(p.words[3]).semaphore_value, 16u);
}

TEST(Emitter, AReduceIntoBytesBeingSentWaitsForTheSend) {
  Emitter em(trn2(), false);
  const unsigned s = em.alloc_sem("test");
  em.leg(0, 1, 0, 0, 256, s, "");    // leg 0 reads [0, 256): local semaphore 0
  em.leg(0, 2, 512, 0, 256, s, "");  // leg 1 reads [512, 768): local semaphore 1
  em.reduce(0, 1024, 2048, 64, DataType::kFp32, ReduceOp::kSum, "");  // no overlap: no wait
  em.reduce(0, 128, 2048, 64, DataType::kFp32, ReduceOp::kSum, "");   // overlaps leg 0
  em.reduce(0, 0, 2048, 64, DataType::kFp32, ReduceOp::kSum, "");     // leg 0 known done
  const auto p = em.take_programs()[0];
  ASSERT_EQ(p.words.size(), 8u);
  EXPECT_EQ(p.words[4][0], isa::kOpcodeExtendedInst);  // the first reduce
  const isa::Events ev = isa::decode_events(p.words[5]);
  EXPECT_EQ(p.words[5][0], isa::kOpcodeEventSemaphore);
  EXPECT_EQ(ev.wait_idx, 0u);
  EXPECT_EQ(ev.semaphore_value, 16u);
  EXPECT_EQ(p.words[6][0], isa::kOpcodeExtendedInst);
  EXPECT_EQ(p.words[7][0], isa::kOpcodeExtendedInst);
}

TEST(Emitter, TheWindowWaitsForTheLegThatLastUsedASlot) {
  Emitter em(trn2(), false);
  const unsigned s = em.alloc_sem("test");
  for (unsigned i = 0; i <= Emitter::kWindow; ++i) em.leg(0, 1, 0, 0, 64, s, "");
  const auto p = em.take_programs()[0];
  // Legs 0..15 use local semaphores 0..15; leg 16 reuses slot 0 after waiting for +16 there.
  const std::size_t w = 2 * Emitter::kWindow;
  ASSERT_EQ(p.words.size(), w + 3);
  const isa::Events ev = isa::decode_events(p.words[w]);
  EXPECT_EQ(ev.wait_idx, 0u);
  EXPECT_EQ(ev.semaphore_value, 16u);
  EXPECT_EQ(isa::decode_rdma_desc_gen(p.words[w + 1])->local_sem, 0u);
}

TEST(Emitter, ReduceSplitsLongRowsIntoTensor2dWords) {
  Emitter em(trn2(), false);
  em.reduce(0, 0, 0x10000, 100000, DataType::kInt8, ReduceOp::kMax, "");
  const auto p = em.take_programs()[0];
  ASSERT_EQ(p.words.size(), 2u);  // 32767 x 3 = 98301, then 1699
  const auto t0 = isa::decode_ext_tensor_tensor_arith(p.words[0]);
  ASSERT_TRUE(t0.ok());
  EXPECT_EQ(t0->op, isa::AluOp::kMax);
  EXPECT_EQ(t0->dst_mem_pattern.num_elem[0], 32767u);
  EXPECT_EQ(t0->dst_mem_pattern.num_elem[1], 3u);
  EXPECT_EQ(t0->dst_mem_pattern.step_elem[1], 32767);
  EXPECT_EQ(t0->src1_mem_pattern.start_addr.value, 0x10000u);
  const auto t1 = isa::decode_ext_tensor_tensor_arith(p.words[1]);
  EXPECT_EQ(t1->dst_mem_pattern.num_elem[0], 1699u);
  EXPECT_EQ(t1->dst_mem_pattern.start_addr.value, 98301u);
  EXPECT_EQ(t1->src1_mem_pattern.start_addr.value, 0x10000u + 98301u);
}

TEST(Emitter, UnfoldableLegsGoThroughARelay) {
  const Geometry g = Geometry::of(soc::cayman_profile(), 26);
  Emitter em(g, false);
  const unsigned s = em.alloc_sem("test");
  const CoreId dst = 24 * 8 + 6;  // chip 24 die 1
  const Arrival a = em.leg(0, dst, 0, 128, 64, s, "");
  EXPECT_EQ(a.core, dst);
  EXPECT_EQ(a.target, 16u);
  em.wait(a, "");  // flushes the relay's second hop
  const auto progs = em.take_programs();
  ASSERT_EQ(progs.size(), 3u);  // core 0, the relay (chip 24 die 0, tpb 2), the destination
  EXPECT_EQ(progs[1].core, 24u * 8 + 2);
  const auto first = isa::decode_rdma_desc_gen(progs[0].words[0]);
  EXPECT_EQ(first->remote_core_id.imm, 2u);
  EXPECT_EQ(first->remote_routing_id.imm, 24u);
  const auto& relay = progs[1].words;
  ASSERT_EQ(relay.size(), 2u);  // gen, then the start gated by the relay semaphore
  const auto second = isa::decode_rdma_desc_gen(relay[0]);
  EXPECT_EQ(second->remote_core_id.imm, 6u);
  EXPECT_EQ(second->dst_addr.value, 128u);
  EXPECT_EQ(second->remote_sem, s);
  EXPECT_EQ(isa::decode_events(relay[1]).semaphore_value, 16u);
  EXPECT_EQ(em.stats().relayed_legs, 1u);
}

TEST(Emitter, ARelayedSemaphoreOnlyLegTakesNoRelaySlot) {
  // With the scratch filling the partition, an empty slot would start at its end, which
  // rdma_desc_gen refuses (a ring reduce-scatter's credits at its largest size did that).
  const Geometry g = Geometry::of(soc::cayman_profile(), 26);
  Emitter em(g, false);
  const unsigned s = em.alloc_sem("test");
  em.alloc_bytes(g.partition_bytes);
  const CoreId dst = 24 * 8 + 6;  // chip 24 die 1: relayed from core 0
  em.leg(0, dst, 0, 0, 0, s, "");
  em.wait(Arrival{dst, s, 1}, "");
  const auto progs = em.take_programs();
  ASSERT_EQ(progs.size(), 3u);
  const auto first = isa::decode_rdma_desc_gen(progs[0].words[0]);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->dst_addr.value, 0u);  // was the partition's end
  EXPECT_EQ(first->free_dim_bytes, 0u);
  const auto second = isa::decode_rdma_desc_gen(progs[1].words[0]);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->src_addr.value, 0u);
}

TEST(Emitter, RunningOutOfSemaphoresIsAnError) {
  Emitter em(trn2(), false);
  em.alloc_sems(300, "a greedy phase");
  ASSERT_FALSE(em.status().ok());
  EXPECT_EQ(em.status().error().message,
            "out of semaphores: 253 are usable per core and all are taken before a greedy phase");
}

TEST(Emitter, TheWindowLeavesOneRingSlotFree) {
  // A ring holds at most depth - 1 descriptors (D6). With a depth of exactly 8 legs'
  // descriptors, 7 legs may be in flight: leg 7 first waits for leg 0's local semaphore.
  Geometry g = Geometry::of(soc::cayman_profile(), 1);
  const std::uint64_t chunks = (g.partition_bytes + g.max_desc_bytes - 1) / g.max_desc_bytes;
  const std::uint64_t per_leg = g.partitions / g.engines * chunks + 2;
  g.ring_depth = static_cast<unsigned>(8 * per_leg);
  Emitter em(g, false);
  const unsigned s = em.alloc_sem("test");
  for (unsigned i = 0; i < 8; ++i) em.leg(0, 1, 0, 0, g.partition_bytes, s, "");
  const CoreProgram p = em.take_programs()[0];
  EXPECT_EQ(p.words.size(), 2U * 8 + 1) << "ring_depth " << g.ring_depth << ", per leg " << per_leg;
}

}  // namespace
}  // namespace sbrdma::collectives
