# A source overwritten after the rdma_desc_start that published its copy races with it, even
# when a later, unrelated start follows: that start's doorbells order only the descriptors they
# publish (D49). The copy is still queued or in flight when the add writes its source.
.init core=0 addr=0 bytes=4096 pattern=const:1
.init core=0 addr=0x8000 bytes=4096 pattern=const:2
.core 0
rdma_desc_gen local_sem=5 remote_sem=6 remote_core_id=1 dma_engine_mask=0x1 src_addr=0 dst_addr=0x1000 free_dim_bytes=4096
rdma_desc_start
ext_tensor_tensor_arith in0_in1_dtype.dtype_lo=uint8 in0_in1_dtype.dtype_hi=uint8 out_dtype=uint8 op=add src0_mem_pattern.start_addr=0x8000 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=4096,1 src1_mem_pattern.start_addr=0x8000 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=4096,1 dst_mem_pattern.start_addr=0x0 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=4096,1
rdma_desc_gen local_sem=7 remote_sem=8 remote_core_id=2 dma_engine_mask=0x1 free_dim_bytes=0
rdma_desc_start
