# remote_routing_id 3 names chip 3, which trn2 does not have: each of the 16 engines' S2M
# queues stops on its own destination (addresses differ by engine), told once.
.core 0
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=3 dma_engine_mask=0xffff free_dim_bytes=64
rdma_desc_start
