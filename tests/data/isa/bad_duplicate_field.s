rdma_desc_gen dma_engine_mask=0x1 local_sem=1 local_sem=2
rdma_desc_start wait_mode=ge_imm wait_mode=none wait_mode=eq_imm
