# Cross-die copy on trn2: core 0 (die 0) sends 8 KiB per partition to core 5 (die 1).
#
#   sbrdma run examples/cross_die_copy.s
#
# gen folds the destination with the neighbour route (EXIT_DIE | NEIGHBOR_ROUTE, D9), so the
# bytes cross the die-to-die link. Four engines (mask 0xf) split the 128 partitions, 32 each;
# core 5's remote_sem therefore ends at 4 (one REMOTE descriptor per active engine), core 0's
# local_sem at 16 (every engine carries a LOCAL descriptor).

.init core=0 addr=0 bytes=8192 pattern=random:7

.core 0
rdma_desc_gen local_sem=1 remote_sem=2 remote_core_id=5 remote_routing_id=0 dma_engine_mask=0xf src_addr=0 dst_addr=0x10000 free_dim_bytes=8192
rdma_desc_start

.expect sem core=0 idx=1 value=16
.expect sem core=5 idx=2 value=4
.expect sbuf core=5 addr=0x10000 bytes=8192 equals core=0 addr=0
