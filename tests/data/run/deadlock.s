# Core 2's start waits on semaphore 7, which nobody increments.
.core 2
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=3 dma_engine_mask=0xf free_dim_bytes=64
# the wait below never ends
rdma_desc_start wait_mode=ge_imm wait_idx=7 semaphore_value=1
