#include "soc/profile.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace sbrdma::soc {
namespace {

TEST(Profile, LookupByName) {
  for (const Profile& p : profiles()) {
    auto found = find_profile(p.name);
    ASSERT_TRUE(found.ok()) << p.name;
    EXPECT_EQ(*found, &p);
  }
  EXPECT_EQ(&cayman_profile(), *find_profile("cayman"));
  auto bad = find_profile("trn9");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "unknown profile 'trn9' (known: cayman, sunda, mariana, maverick)");
  // A long name is echoed cut, as every echoed token is.
  EXPECT_EQ(find_profile(std::string(1 << 20, 'p')).error().message,
            "unknown profile '" + std::string(37, 'p') +
                "...' (known: cayman, sunda, mariana, maverick)");
}

TEST(Profile, GenerationParameters) {  // [HIGH] wiki-facts §8
  const Profile& c = cayman_profile();
  EXPECT_EQ(c.cores_per_chip, 8U);
  EXPECT_EQ(c.dies_per_chip, 2U);
  EXPECT_EQ(c.tpbs_per_die, 4U);
  EXPECT_EQ(c.dma_engines_per_tpb, 16U);
  EXPECT_EQ(c.queues_per_engine, 16U);
  EXPECT_EQ(c.sbuf_partitions, 128U);
  EXPECT_EQ(c.partition_stride, base::kib(256));
  EXPECT_EQ(c.partition_active, base::kib(224));
  EXPECT_EQ(c.state_buf_size, base::mib(32));  // STATE_BUF_SZ; also §4.2 "STATE_BUF (32 MiB)"
  EXPECT_EQ(c.semaphores, 256U);
  EXPECT_EQ(c.dma_data_width, base::Bytes{32});
  EXPECT_EQ(c.max_desc_len, base::kib(64));
  EXPECT_FALSE(c.decode_only);
  // DMA_ENGINE_DATA_WIDTH_BYTES 32 and 16 engines per TPB from v2 to v4 (§8's table).
  for (const std::string_view name : {"sunda", "mariana"}) {
    EXPECT_EQ((*find_profile(name))->dma_engines_per_tpb, 16U) << name;
    EXPECT_EQ((*find_profile(name))->dma_data_width, base::Bytes{32}) << name;
  }
  EXPECT_EQ((*find_profile("sunda"))->partition_active, base::kib(192));
  EXPECT_EQ((*find_profile("mariana"))->partition_active, base::kib(256));
  EXPECT_EQ((*find_profile("sunda"))->state_buf_size, base::mib(32));
  EXPECT_EQ((*find_profile("mariana"))->state_buf_size, base::mib(32));
  const Profile& m = **find_profile("maverick");
  EXPECT_TRUE(m.decode_only);
  EXPECT_EQ(m.dma_engines_per_tpb, 8U);
  EXPECT_EQ(m.dma_data_width, base::Bytes{256});
  EXPECT_EQ(m.partition_stride, base::kib(1024));
  EXPECT_EQ(m.partition_active, base::kib(512));
  EXPECT_EQ(m.state_buf_size, base::mib(128));
  for (const Profile& p : profiles()) {
    EXPECT_LE(p.partition_active, p.partition_stride) << p.name;
    EXPECT_LE(p.sbuf_partitions * p.partition_stride.n, p.state_buf_size.n) << p.name;
    if (!p.decode_only) {
      EXPECT_EQ(p.cores_per_chip, p.dies_per_chip * p.tpbs_per_die) << p.name;
    }
  }
}

}  // namespace
}  // namespace sbrdma::soc
