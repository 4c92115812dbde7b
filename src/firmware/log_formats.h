#pragma once
/// The firmware's own log format strings, in one table with their provenance. The Q7 strings
/// are those of the CAYMAN_Q7_POOL_DEBUG DRAM image at the offsets the spec reads them from
/// (000_638bd1510d076b88 §3; device VA = offset + 0x80000); the SB2SB leg's strings
/// (0x0a20..0x0e71) at the offsets the wiki's page firmware/kernels/sb2sb-remote-copy.md §3
/// lists for the same image, and the trigger helper's (0x47f4) from wiki-facts §2.1. The spec
/// abbreviates repeated prefixes with "…"; the full forms follow wiki-facts §2.1. Each string
/// is followed by "\n" and its NUL, so a string that follows another directly starts at
/// offset + strlen + 1: that pins every string with a listed neighbour
/// (tests/firmware/log_formats_test.cpp checks it; the gaps it allows hold strings the table
/// does not carry).
///
///  DRAM 0x4851  "P%i: Q7: rdma_desc_gen [%s] Start, cpu_id=%d\n\0"   46 bytes
///  DRAM 0x487f  "TX\0" "RX\0"                                         role tokens
///  DRAM 0x4885  "P%i: Q7: rdma_desc_gen [%s] ring_num=%d, ...\n\0"
///  ...
///
/// Call sites pass a table string straight to render(), whose printf format attribute lets the
/// compiler check every argument against the string.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "firmware/env.h"

namespace sbrdma::firmware {

/// The format strings, byte for byte. [HIGH] spec §3 (offsets), wiki-facts §2.1 (full forms)
namespace log_fmt {
// --- SB2SB leg (remote_copy.cpp) [HIGH] wiki-facts §6.1, §6.3; the prefix, the newline and the
// offsets: the wiki's firmware/kernels/sb2sb-remote-copy.md §3 (CAYMAN_Q7_POOL_DEBUG_DRAM)
inline constexpr char kSb2sbTotals[] =
    "P%i: SB2SB_Collective : total_src_nelem = %zu, total_dst_nelem = %zu, dtype=%d, "
    "dst_nc=%zu, src_nc=%zu, mask=0x%x\n";
inline constexpr char kSb2sbDecode[] = "P%i: Decode : SB2SB_Collective\n";
inline constexpr char kSb2sbPreSync[] =
    "P%i: SB2SB Pre-sync: This TPB (NC %u) is letting NC %u know that we are ready to receive "
    "data.\n";
inline constexpr char kSb2sbPreSyncRemote[] =
    "P%i: SB2SB Pre-sync: remote_pool_xt_addr=0x%x, remote_q7_xt_addr=0x%x, "
    "sb2sb_ready_to_receive_remote=0x%x\n";
inline constexpr char kSb2sbChans[] = "P%i: SB2SB_Collective: num_chans=%0d, tpb_idx=%u\n";
// --- the broadcast trigger helper [HIGH] wiki-facts §2.1 (DRAM 0x47f4)
inline constexpr char kTriggerDma[] =
    "P%i: Trigger DMA; sdma_bcast_base = 0x%08x, trigger addr = 0x%08x, mask = 0x%08x "
    "n_desc=%d\n";
// --- rdma_desc_gen ---
inline constexpr char kGenStart[] = "P%i: Q7: rdma_desc_gen [%s] Start, cpu_id=%d\n";
inline constexpr char kRoleTx[] = "TX";
inline constexpr char kRoleRx[] = "RX";
inline constexpr char kGenInputs[] =
    "P%i: Q7: rdma_desc_gen [%s] ring_num=%d, tpb_idx=%d, free_dim_bytes=%d, "
    "remote_tpb_idx=%d, routing_id=%d, dma_mask=0x%x\n";
inline constexpr char kGenMask[] =
    "P%i: Q7: rdma_desc_gen [%s] dma_mask=0x%04x, n_active_dmas=%d\n";
inline constexpr char kGenAddrs[] =
    "P%i: Q7: rdma_desc_gen [%s] src_addr=0x%llx, dst_addr=0x%llx\n";
inline constexpr char kGenFolded[] =
    "P%i: Q7: rdma_desc_gen [%s] after remote_routing_id=$%d, dst_addr=0x%llx, "
    "n_active_dmas=%d\n";
inline constexpr char kGenLoop[] =
    "P%i: Q7: rdma_desc_gen [%s] Starting descriptor loop, num_indices=%d, num_dma_descs=%d\n";
inline constexpr char kGenLoopIter[] =
    "P%i: Q7: rdma_desc_gen [%s] Loop iter %zu/%d: base_addr=0x%llx, n_active_dmas=%d, "
    "bytes_per_P=%d\n";
inline constexpr char kGenSwizzle[] =
    "P%i: Q7:   shuffled_sbuf_swizzle[16] = [%u, %u, %u, %u, %u, %u, %u, %u, %u, %u, %u, %u, "
    "%u, %u, %u, %u]\n";
inline constexpr char kGenXtAddrs[] =
    "P%i: Q7:   xt_addrs[16] = [0x%08x%08x, 0x%08x%08x, 0x%08x%08x, 0x%08x%08x, 0x%08x%08x, "
    "0x%08x%08x, 0x%08x%08x, 0x%08x%08x, 0x%08x%08x, 0x%08x%08x, 0x%08x%08x, 0x%08x%08x, "
    "0x%08x%08x, 0x%08x%08x, 0x%08x%08x, 0x%08x%08x]\n";
inline constexpr char kGenLocalSem[] =
    "P%i: Q7: rdma_desc_gen [%s] Pushing local semaphore descriptor, tpb_idx=%d, sem=%d\n";
inline constexpr char kGenRemoteSem[] =
    "P%i: Q7: rdma_desc_gen [%s] Pushing remote semaphore descriptor, remote_tpb=%d, "
    "routing_id=%d, sem=%d\n";
inline constexpr char kGenEnd[] = "P%i: Q7: rdma_desc_gen [%s] End\n";
// --- rdma_desc_start ---
inline constexpr char kStartStart[] = "P%i: Q7: rdma_desc_start [%s] Start, cpu_id=%d\n";
inline constexpr char kStartRing[] =
    "P%i: Q7: rdma_desc_start [%s] ring_num=%d, num_descriptors=%d, sdma_bcast_base=0x%08x\n";
inline constexpr char kStartTrigger[] =
    "P%i: Q7: rdma_desc_start [%s] Trigger %s DMA; addr=0x%08x, mask=0x%04x, n_desc=%d\n";
inline constexpr char kQueueM2s[] = "M2S";
inline constexpr char kQueueS2m[] = "S2M";
inline constexpr char kStartDraining[] =
    "P%i: Q7: rdma_desc_start [%s] Draining descriptor writes\n";
inline constexpr char kStartDrained[] = "P%i: Q7: rdma_desc_start [%s] Descriptor writes drained\n";
inline constexpr char kStartFnName[] = "rdma_desc_start";
inline constexpr char kTxWaiting[] =
    "P%i: Q7: rdma_desc_start [TX] Waiting for RX sync (left_pop)\n";
inline constexpr char kTxWriting[] =
    "P%i: Q7: rdma_desc_start [TX] Writing tail pointer increment\n";
inline constexpr char kTxWritten[] =
    "P%i: Q7: rdma_desc_start [TX] Tail pointer increment written\n";
inline constexpr char kRxWriting[] =
    "P%i: Q7: rdma_desc_start [RX] Writing tail pointer increment\n";
inline constexpr char kRxSignaling[] =
    "P%i: Q7: rdma_desc_start [RX] Signaling TX to proceed (right_push)\n";
inline constexpr char kRxSignaled[] = "P%i: Q7: rdma_desc_start [RX] TX signaled\n";
inline constexpr char kStartEnd[] = "P%i: Q7: rdma_desc_start [%s] End\n";
inline constexpr char kStreamError[] =
    "P%i: ERROR: DescriptorStream wrote %d descriptors, expected %d\n";
// --- sequencer (NX POOL image; offsets not given) [HIGH] wiki-facts §1.2, §6.5
inline constexpr char kUnknownOpcode[] = "UNKNOWN OPCODE=0x%x";
inline constexpr char kUnknownExtendedOpcode[] = "UNKNOWN EXTENDED OPCODE=%d";
}  // namespace log_fmt

/// Where a string comes from.
enum class LogSource : std::uint8_t {
  kQ7Dram,  ///< CAYMAN_Q7_POOL_DEBUG DRAM at dram_offset [HIGH] spec §3
  kNxDram,  ///< the NX POOL image; offset not public [HIGH] wiki-facts §6.5
};

/// One row of the table.
struct LogFormat {
  std::string_view name;  ///< short id for tests and docs
  LogSource source;
  std::uint32_t dram_offset;  ///< kQ7Dram only; 0 otherwise
  const char* format;         ///< the bytes (NUL-terminated, with the firmware's "\n")
};

/// Every string, Q7 DRAM rows first in offset order.
inline constexpr std::array kLogFormats{
    LogFormat{"sb2sb_totals", LogSource::kQ7Dram, 0x0a20, log_fmt::kSb2sbTotals},
    LogFormat{"sb2sb_decode", LogSource::kQ7Dram, 0x0afe, log_fmt::kSb2sbDecode},
    LogFormat{"sb2sb_pre_sync", LogSource::kQ7Dram, 0x0bde, log_fmt::kSb2sbPreSync},
    LogFormat{"sb2sb_pre_sync_remote", LogSource::kQ7Dram, 0x0c3e, log_fmt::kSb2sbPreSyncRemote},
    LogFormat{"sb2sb_chans", LogSource::kQ7Dram, 0x0e71, log_fmt::kSb2sbChans},
    LogFormat{"trigger_dma", LogSource::kQ7Dram, 0x47f4, log_fmt::kTriggerDma},
    LogFormat{"gen_start", LogSource::kQ7Dram, 0x4851, log_fmt::kGenStart},
    LogFormat{"role_tx", LogSource::kQ7Dram, 0x487f, log_fmt::kRoleTx},
    LogFormat{"role_rx", LogSource::kQ7Dram, 0x4882, log_fmt::kRoleRx},
    LogFormat{"gen_inputs", LogSource::kQ7Dram, 0x4885, log_fmt::kGenInputs},
    LogFormat{"gen_mask", LogSource::kQ7Dram, 0x48fe, log_fmt::kGenMask},
    LogFormat{"gen_addrs", LogSource::kQ7Dram, 0x493d, log_fmt::kGenAddrs},
    LogFormat{"gen_folded", LogSource::kQ7Dram, 0x497b, log_fmt::kGenFolded},
    LogFormat{"gen_loop", LogSource::kQ7Dram, 0x49d7, log_fmt::kGenLoop},
    LogFormat{"gen_loop_iter", LogSource::kQ7Dram, 0x4a2f, log_fmt::kGenLoopIter},
    LogFormat{"gen_swizzle", LogSource::kQ7Dram, 0x4a91, log_fmt::kGenSwizzle},
    LogFormat{"gen_xt_addrs", LogSource::kQ7Dram, 0x4afa, log_fmt::kGenXtAddrs},
    LogFormat{"gen_local_sem", LogSource::kQ7Dram, 0x4bd6, log_fmt::kGenLocalSem},
    LogFormat{"gen_remote_sem", LogSource::kQ7Dram, 0x4c2a, log_fmt::kGenRemoteSem},
    LogFormat{"gen_end", LogSource::kQ7Dram, 0x4c91, log_fmt::kGenEnd},
    LogFormat{"start_start", LogSource::kQ7Dram, 0x4cb2, log_fmt::kStartStart},
    LogFormat{"start_ring", LogSource::kQ7Dram, 0x4ce2, log_fmt::kStartRing},
    LogFormat{"start_trigger", LogSource::kQ7Dram, 0x4d39, log_fmt::kStartTrigger},
    LogFormat{"queue_m2s", LogSource::kQ7Dram, 0x4d8c, log_fmt::kQueueM2s},
    LogFormat{"queue_s2m", LogSource::kQ7Dram, 0x4d90, log_fmt::kQueueS2m},
    LogFormat{"start_draining", LogSource::kQ7Dram, 0x4d94, log_fmt::kStartDraining},
    LogFormat{"start_drained", LogSource::kQ7Dram, 0x4dce, log_fmt::kStartDrained},
    LogFormat{"start_fn_name", LogSource::kQ7Dram, 0x4e07, log_fmt::kStartFnName},
    LogFormat{"tx_waiting", LogSource::kQ7Dram, 0x4e27, log_fmt::kTxWaiting},
    LogFormat{"tx_writing", LogSource::kQ7Dram, 0x4e65, log_fmt::kTxWriting},
    LogFormat{"tx_written", LogSource::kQ7Dram, 0x4ea3, log_fmt::kTxWritten},
    LogFormat{"rx_writing", LogSource::kQ7Dram, 0x4ee1, log_fmt::kRxWriting},
    LogFormat{"rx_signaling", LogSource::kQ7Dram, 0x4f1f, log_fmt::kRxSignaling},
    LogFormat{"rx_signaled", LogSource::kQ7Dram, 0x4f63, log_fmt::kRxSignaled},
    LogFormat{"start_end", LogSource::kQ7Dram, 0x4f8e, log_fmt::kStartEnd},
    LogFormat{"stream_error", LogSource::kQ7Dram, 0x5040, log_fmt::kStreamError},
    LogFormat{"unknown_opcode", LogSource::kNxDram, 0, log_fmt::kUnknownOpcode},
    LogFormat{"unknown_extended_opcode", LogSource::kNxDram, 0, log_fmt::kUnknownExtendedOpcode},
};

/// The `[%s]` role token: "TX" or "RX" (DRAM 0x487f / 0x4882).
constexpr const char* role_token(Role r) {
  return r == Role::kTx ? log_fmt::kRoleTx : log_fmt::kRoleRx;
}

/// A SoC address as the firmware's %08x fields print it: its low 32 bits, and the high 32 bits
/// for the two-%08x form of xt_addrs. [CHOICE D22c]
constexpr std::uint32_t lo32(base::SocAddr a) {
  return static_cast<std::uint32_t>(a.v);
}
constexpr std::uint32_t hi32(base::SocAddr a) {
  return static_cast<std::uint32_t>(a.v >> 32);
}

/// printf-formats one line and drops the firmware's trailing newline.
std::string render(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace sbrdma::firmware
