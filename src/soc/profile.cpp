#include "soc/profile.h"

#include <array>
#include <string>

#include "base/printable.h"

namespace sbrdma::soc {
namespace {

using base::kib;
using base::mib;

// Sources: wiki-facts §8 (table), §3.1 (engine count, data width), §4.2 (Cayman geometry);
// udma-facts §4.1 (dies and NCs per device), §1.1 (64 KiB descriptors); hw-params (Q7 cores).
constexpr std::array kProfiles{
    Profile{
        .name = "cayman",
        .nc_version = "NC-v3",
        .decode_only = false,
        .has_address_map = true,
        .cores_per_chip = 8,                // [HIGH] wiki-facts §4.2: 8 TPBs, 4 per die
        .dies_per_chip = 2,                 // [HIGH] wiki-facts §8
        .tpbs_per_die = 4,                  // [HIGH] wiki-facts §4.2
        .max_chips = 64,                    // [HIGH] wiki-facts §4.1: 6-bit CAYMAN_ID
        .dma_engines_per_tpb = 16,          // [HIGH] wiki-facts §3.1
        .queues_per_engine = 16,            // [DRV] udma-facts §2.2
        .q7_cores_per_tpb = 8,              // [HIGH] hw-params GPSIMD: 8 cores per NC
        .sbuf_partitions = 128,             // [HIGH] wiki-facts §8
        .partition_stride = kib(256),       // [HIGH] wiki-facts §8
        .partition_active = kib(224),       // [HIGH] wiki-facts §8
        .state_buf_size = mib(32),          // [HIGH] wiki-facts §8
        .semaphores = 256,                  // [HIGH] wiki-facts §5
        .events = 256,                      // [DRV] udma-facts §4.1
        .dma_data_width = base::Bytes{32},  // [HIGH] wiki-facts §3.1
        .max_desc_len = kib(64),            // [DRV] udma-facts §1.1
    },
    Profile{
        .name = "sunda",
        .nc_version = "NC-v2",
        .decode_only = false,
        .has_address_map = true,  // [CHOICE D18] the Cayman layout, 1 die x 2 TPBs
        // [HIGH] wiki-facts §1.10 (is_valid_sb2sb_collective needs nc >= V3) and §9.11
        // (0xBF is absent from the v2 images)
        .sb2sb_collective = false,
        .s2m_strong_order_write = false,  // [DRV] udma-facts §1.1: SOW is v3+
        .cores_per_chip = 2,              // [DRV] udma-facts §4.1 (v2: 2 NCs per device)
        .dies_per_chip = 1,               // [DRV] udma-facts §4.1
        .tpbs_per_die = 2,
        .max_chips = 64,                    // [CHOICE D18] routed like Cayman
        .dma_engines_per_tpb = 16,          // [HIGH] wiki-facts §8
        .queues_per_engine = 16,            // [DRV] udma-facts §4.1
        .q7_cores_per_tpb = 8,              // [HIGH] hw-params GPSIMD
        .sbuf_partitions = 128,             // [HIGH] wiki-facts §8
        .partition_stride = kib(256),       // [HIGH] wiki-facts §8
        .partition_active = kib(192),       // [HIGH] wiki-facts §8
        .state_buf_size = mib(32),          // [HIGH] wiki-facts §8
        .semaphores = 256,                  // [HIGH] wiki-facts §8
        .events = 256,                      // [DRV] udma-facts §4.1
        .dma_data_width = base::Bytes{32},  // [HIGH] wiki-facts §8
        .max_desc_len = kib(64),            // [DRV] udma-facts §1.1
        .top_sp_start_doorbell = 0x60848,   // [HIGH] wiki-facts §4.2 (SUNDA 0x60848)
        .top_sp_cayman_doorbells = false,   // not in the record for sunda [CHOICE D18d]
    },
    Profile{
        .name = "mariana",
        .nc_version = "NC-v4",
        .decode_only = false,
        .has_address_map = true,            // [DRV] udma-facts §2.6: v4 has the v3 map
        .cores_per_chip = 8,                // [DRV] udma-facts §4.1
        .dies_per_chip = 2,                 // [DRV] udma-facts §4.1
        .tpbs_per_die = 4,                  // [CHOICE D17e] dies laid out as cayman's
        .max_chips = 64,                    // [HIGH] wiki-facts §8 (= Cayman)
        .dma_engines_per_tpb = 16,          // [HIGH] wiki-facts §8
        .queues_per_engine = 16,            // [DRV] udma-facts §4.1
        .q7_cores_per_tpb = 8,              // [HIGH] hw-params GPSIMD
        .sbuf_partitions = 128,             // [HIGH] wiki-facts §8
        .partition_stride = kib(256),       // [HIGH] wiki-facts §8
        .partition_active = kib(256),       // [HIGH] wiki-facts §8
        .state_buf_size = mib(32),          // [HIGH] wiki-facts §8
        .semaphores = 256,                  // [HIGH] wiki-facts §8
        .events = 256,                      // [DRV] udma-facts §4.1
        .dma_data_width = base::Bytes{32},  // [HIGH] wiki-facts §8
        .max_desc_len = kib(64),            // [DRV] udma-facts §1.1
    },
    Profile{
        .name = "maverick",
        .nc_version = "NC-v5",
        .decode_only = true,       // [CHOICE D14]
        .has_address_map = false,  // [CHOICE D14] its SoC map is not public
        .cores_per_chip = 0,       // not public (wiki-facts §8: 3-die, INFERRED)
        .dies_per_chip = 0,
        .tpbs_per_die = 0,
        .max_chips = 0,
        .dma_engines_per_tpb = 8,            // [HIGH] wiki-facts §3.1
        .queues_per_engine = 16,             // [LOW] assumed unchanged
        .q7_cores_per_tpb = 8,               // [LOW] assumed unchanged
        .sbuf_partitions = 128,              // [HIGH] wiki-facts §8
        .partition_stride = kib(1024),       // [HIGH] wiki-facts §8
        .partition_active = kib(512),        // [HIGH] wiki-facts §8
        .state_buf_size = mib(128),          // [HIGH] wiki-facts §8
        .semaphores = 256,                   // [HIGH] wiki-facts §8
        .events = 256,                       // [LOW] assumed unchanged
        .dma_data_width = base::Bytes{256},  // [HIGH] wiki-facts §3.1
        .max_desc_len = kib(64),             // [LOW] assumed unchanged
    },
};

}  // namespace

std::span<const Profile> profiles() {
  return kProfiles;
}

const Profile& cayman_profile() {
  return kProfiles[0];
}

base::Result<const Profile*> find_profile(std::string_view name) {
  std::array<std::string_view, kProfiles.size()> known{};
  for (std::size_t i = 0; i < kProfiles.size(); ++i) {
    if (kProfiles[i].name == name) return &kProfiles[i];
    known[i] = kProfiles[i].name;
  }
  return unknown_profile(name, known);
}

base::Error unknown_profile(std::string_view name, std::span<const std::string_view> known) {
  std::string list;
  for (std::string_view n : known) list += (list.empty() ? "" : ", ") + std::string(n);
  return base::make_error("unknown profile '" + base::printable_brief(name) + "' (known: " + list +
                          ")");
}

}  // namespace sbrdma::soc
