# Core 1 raises its own sem[6] and lowers it again (two posted writes), then waits for
# sem[6] > 0, which core 0's item raises. Fenced (the relay's start drains both writes) the
# wait needs the item's increment. Without the two relay lines nothing orders the wait after
# the decrement: a device may look at it between the two landings and pass without the item
# (`--seed 1` shows it here). Where both writes landed before the item's increment, as they
# do at the default seed, `--check-races` reports the wait as an unfenced wait (D49d).
.init core=0 addr=0 bytes=256 pattern=const:1
.core 0
rdma_desc_gen local_sem=5 remote_sem=6 remote_core_id=1 dma_engine_mask=0x1 src_addr=0x0 dst_addr=0x1000 free_dim_bytes=256
rdma_desc_start
.core 1
event_semaphore update_mode=inc_complete update_idx=6
event_semaphore update_mode=dec_complete update_idx=6
rdma_desc_gen local_sem=7 remote_sem=8 remote_core_id=2 dma_engine_mask=0x1 src_addr=0x8000 dst_addr=0x8000 free_dim_bytes=256  # relay
rdma_desc_start  # relay
ext_tensor_tensor_arith in0_in1_dtype.dtype_lo=uint8 in0_in1_dtype.dtype_hi=uint8 out_dtype=uint8 op=add src0_mem_pattern.start_addr=0x1000 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=256,1 src1_mem_pattern.start_addr=0x1000 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=256,1 dst_mem_pattern.start_addr=0x4000 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=256,1 wait_mode=gt_imm wait_idx=6 semaphore_value=0 update_mode=dec_read update_idx=6
.expect sbuf core=1 addr=0x4000 bytes=256 pattern=const:2
.expect sem core=1 idx=6 value=0
