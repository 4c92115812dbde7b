# rdma_desc_gen = ExtendedInst 0xF0, extended_opcode 8 (NEURON_ISA_TPB_EXTENDED_RDMA_DESC_GEN_STRUCT)
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xffff src_addr=0x1000 dst_addr=0x2000 free_dim_bytes=4096
rdma_desc_gen inst_word_len=0x40 debug_cmd=1 debug_hint=2 wait_mode=eq_imm wait_idx=7 update_mode=inc_read update_idx=8 semaphore_value=258 completion_info.num_active_ports=2 local_sem=255 remote_sem=1 remote_core_id=5 remote_routing_id=3 dma_engine_mask=0xf src_addr=addr_reg:9 dst_addr=0x1fffffff remote_sem_prev=6
# semaphore-only transfer on one engine (free_dim_bytes = 0)
rdma_desc_gen local_sem=10 remote_sem=11 remote_core_id=4294967295 remote_routing_id=1 dma_engine_mask=0x8000
