# Two gens and no start: the descriptors sit in the rings and no engine sees them. The run
# itself is fine (exit 0); the report says what was left unpublished.
.core 0
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x1 free_dim_bytes=64
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x3 free_dim_bytes=64
# Core 1 starts what it generated: it has nothing unstarted.
.core 1
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=0 dma_engine_mask=0x1 free_dim_bytes=64
rdma_desc_start
