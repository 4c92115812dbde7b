# remote_routing_id 3 names chip 3, which trn2 (one chip) does not have: the engine's S2M
# queue stops when its destination decodes to nothing.
.core 0
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=3 dma_engine_mask=0x1 free_dim_bytes=64
rdma_desc_start
