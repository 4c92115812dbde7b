rdma_desc_gen dma_engine_mask=0x1 local_sem=0x1g
rdma_desc_gen dma_engine_mask=0x1 local_sem=12abc remote_sem=
rdma_desc_gen dma_engine_mask=0x1 local_sem=-0x5 remote_sem=1,2
rdma_desc_gen dma_engine_mask=0x src_addr=0xzz free_dim_bytes=99999999999999999999999
sb2sb_collective src_mem_pattern.num_elem=1,,1 src_mem_pattern.step_elem=1,2,x
