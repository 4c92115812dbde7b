# syntactically fine, but each word breaks a validity rule of its op
rdma_desc_gen
rdma_desc_gen dma_engine_mask=0x7
rdma_desc_gen dma_engine_mask=0x1ffff
rdma_desc_gen dma_engine_mask=0x3 is_bidirectional=1
sb2sb_collective in_dtype=fp32 out_dtype=bfloat16 num_active_channels=1
sb2sb_collective in_dtype=fp16 out_dtype=fp16 lnc_size_fmt=lnc8 num_active_channels=129
sb2sb_collective in_dtype=fp16 out_dtype=fp16 src_mem_pattern.num_elem=257,1,1
sb2sb_collective num_active_channels=2 src_mem_pattern.start_addr=0x2000000 dst_mem_pattern.start_addr=0x1ffffff
sb2sb_collective num_active_channels=2 dst_mem_pattern.start_addr=0x2400000
ext_tensor_tensor_arith op=max
ext_tensor_tensor_arith
