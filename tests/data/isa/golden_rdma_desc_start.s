# rdma_desc_start = ExtendedInst 0xF0, extended_opcode 9 (no operands; bytes 14..63 reserved)
rdma_desc_start
rdma_desc_start wait_mode=ge_imm wait_idx=4 update_mode=inc_complete update_idx=5 semaphore_value=16
rdma_desc_start debug_hint=9 wait_mode=ge_reg wait_idx=255 update_mode=wr_reg_complete update_idx=1 semaphore_value=4294967295 completion_info.has_read=1 completion_info.has_write=1 completion_info.num_active_ports=7
