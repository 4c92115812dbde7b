rdma_desc_gen dma_engine_mask=0x1 local_semaphore=3
rdma_desc_start local_sem=1 opcode=0xf0 extended_opcode=9 reserved1=0
sb2sb_collective src_mem_pattern.start=0x100 completion_info.has_read=1
ext_copy payload=00
event_semaphore inst_specific0=00
