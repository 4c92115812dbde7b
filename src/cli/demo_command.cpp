// `sbrdma demo`: the default job of `./dev run` until `sbrdma bench` lands. It shows the three
// things the foundation layers do: assemble an rdma_desc_gen/rdma_desc_start pair, disassemble
// the bytes back to the same text, and explain the cross-die address the gen's dst folds to.

#include <cstdio>
#include <string>

#include "base/printable.h"
#include "cli/commands.h"
#include "isa/assembler.h"
#include "isa/binary_io.h"
#include "isa/printer.h"
#include "soc/address.h"
#include "soc/address_map.h"
#include "soc/print.h"
#include "soc/profile.h"

namespace sbrdma::cli {
namespace {

// Core 0 (die 0) sends 4 KiB per partition from offset 0x1000 to core 5 (die 1) at 0x2000,
// over 4 engines; the start waits until the peer said it is ready (sem 2 >= 1).
constexpr const char* kDemoProgram =
    "rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=5 remote_routing_id=0 "
    "dma_engine_mask=0xf src_addr=0x1000 dst_addr=0x2000 free_dim_bytes=4096\n"
    "rdma_desc_start wait_mode=ge_imm wait_idx=2 semaphore_value=1 update_mode=inc_complete "
    "update_idx=5\n";

/// The demo's inputs are fixed: an error from the libraries is our bug (exit 2).
int internal(const base::Error& e) {
  // Not format(): that would say "error:" a second time.
  std::fprintf(stderr, "sbrdma: internal error: %s%s\n", e.where().c_str(),
               base::printable(e.message).c_str());
  return 2;
}

int run_demo() {
  std::printf("== assemble ==\n%s", kDemoProgram);
  isa::AsmResult as = isa::assemble(kDemoProgram, "<demo>");
  if (!as.ok()) {
    for (const auto& e : as.errors) std::fprintf(stderr, "%s\n", e.format().c_str());
    return 2;  // the demo text is ours: failing to assemble it is our bug
  }
  const auto words = as.word_list();
  std::printf("\n== bytes (hex, one 64-byte word per line) ==\n%s",
              isa::words_to_hex(words).c_str());
  const std::string text = isa::disassemble(words);
  std::printf("\n== disassemble ==\n%s", text.c_str());
  isa::AsmResult again = isa::assemble(text, "<disasm>");
  const bool round_trip = again.ok() && again.word_list() == words;
  std::printf("round trip: %s\n", round_trip ? "exact" : "DIFFERS");

  // The gen's dst as core 0 (chip 0, die 0) would fold it for core 5 on die 1 (D9).
  auto map = soc::AddressMap::build(soc::cayman_profile());
  if (!map) return internal(map.error());
  auto dst = map->sbuf_addr(5, 0, 0x2000);
  if (!dst) return internal(dst.error());
  const std::uint64_t local = soc::LocalAddr{*dst}.local();
  auto folded = soc::fold_route(local, soc::ChipDie{0, 0}, soc::ChipDie{0, 1});
  if (!folded) return internal(folded.error());
  std::printf("\n== decode addr 0x%llx (core 5 SBUF partition 0 + 0x2000, folded from die 0) ==\n",
              static_cast<unsigned long long>(folded->v));
  std::printf("%s", soc::format_address_views(*folded).c_str());
  auto decoded = map->decode(*folded, soc::ChipDie{0, 0});
  if (!decoded) return internal(decoded.error());
  std::printf("%s", soc::format_decoded(*decoded, soc::ChipDie{0, 0}, map->profile()).c_str());
  return round_trip ? 0 : 2;
}

}  // namespace

void add_demo_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "demo",
      "Assemble and disassemble an rdma_desc_gen/start pair and decode a cross-die address");
  cmd->callback([&ctx] { ctx.status = run_demo(); });
}

}  // namespace sbrdma::cli
