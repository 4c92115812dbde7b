# Two gens of 128 x 4 chunks on one engine before one start: 1058 descriptors over the 16
# rings of 1024 (1023 usable), so the stream stops writing and start's count check fails.
.core 0
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x1 free_dim_bytes=229376
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x1 free_dim_bytes=229376
rdma_desc_start
