rdma_desc_start wait_mode=gte update_mode=INC_COMPLETE
sb2sb_collective in_dtype=float32 out_dtype=fp32 lnc_size_fmt=lnc3 num_active_channels=1
rdma_desc_gen dma_engine_mask=0x1 src_addr=areg:3 dst_addr=addr_reg:x
ext_tensor_tensor_arith op=plus in0_in1_dtype.dtype_lo=fp33
