# Cross-chip copy on trn2.48xlarge (16 chips in a 4 x 4 torus, 8 cores each). Run it with
#
#   sbrdma run examples/cross_chip_copy.s --topology trn2.48xlarge
#
# Core 0 (chip 0) sends 16 KiB per partition to core 42 = chip 5, tpb 2. Chip 5 sits at torus
# coordinates (1, 1): the route goes one hop in x (x links sit on die 0), crosses to die 1, goes
# one hop in y (y links on die 1), and crosses back to die 0 where tpb 2 lives (dimension
# order, D17). gen names the peer by its tpb (remote_core_id=2) and its chip's routing id
# (remote_routing_id=5), and folds the destination with CAYMAN_ID (D9). Eight engines (mask
# 0xff) take 16 partitions each, so core 42's remote_sem ends at 8.

.init core=0 addr=0x4000 bytes=16384 pattern=random:42

.core 0
rdma_desc_gen local_sem=10 remote_sem=11 remote_core_id=2 remote_routing_id=5 dma_engine_mask=0xff src_addr=0x4000 dst_addr=0x8000 free_dim_bytes=16384
rdma_desc_start

.expect sem core=0 idx=10 value=16
.expect sem core=42 idx=11 value=8
.expect sbuf core=42 addr=0x8000 bytes=16384 equals core=0 addr=0x4000
