sb2sb_collective in_dtype=fp32 out_dtype=fp32 num_active_channels=1 src_mem_pattern.num_elem=1,1
ext_tensor_tensor_arith op=add src0_mem_pattern.step_elem=1,2,3 dst_mem_pattern.num_elem=4
