# every key with a value its field cannot hold
rdma_desc_gen dma_engine_mask=0x1 local_sem=256
rdma_desc_gen dma_engine_mask=0x1 free_dim_bytes=4294967296 remote_core_id=-1
rdma_desc_gen dma_engine_mask=0x100000000 src_addr=0x20000000 dst_addr=addr_reg:256
rdma_desc_start completion_info.num_active_ports=8 completion_info.has_read=2 semaphore_value=9223372036854775807
sb2sb_collective src_mem_pattern.step_elem=0,32768,0 dst_mem_pattern.step_elem=-32769,0,0 dst_mem_pattern.num_elem=65536,1,1
rdma_desc_start inst_word_len=0x100 debug_cmd=-1
