# Core 1 takes items in pairs, each time lowering its own sem[6] by 2 (a posted write, no
# fence) and waiting for sem[6] == 0. It takes no wait for the first pair (items at 0x1000 and
# 0x1100); the second decrement lands after those two increments, and the wait for the second
# pair is issued before its items land. A device that looks at that wait before the second
# decrement lands sees 0 and passes at once (`--param mmio_write_latency=300` shows it here):
# an unfenced wait (D49d). The wait is blocked when the checker looks at it, and is looked at
# first as the passing increment takes effect, which an earlier version saw without that
# increment, and so without where the wait was issued.
.init core=0 addr=0 bytes=1024 pattern=const:1
.core 0
rdma_desc_gen local_sem=5 remote_sem=6 remote_core_id=1 dma_engine_mask=0x1 src_addr=0x0 dst_addr=0x1000 free_dim_bytes=256
rdma_desc_start
rdma_desc_gen local_sem=5 remote_sem=6 remote_core_id=1 dma_engine_mask=0x1 src_addr=0x100 dst_addr=0x1100 free_dim_bytes=256
rdma_desc_start
ext_tensor_tensor_arith in0_in1_dtype.dtype_lo=uint32 in0_in1_dtype.dtype_hi=uint32 out_dtype=uint32 op=add src0_mem_pattern.start_addr=0x11000 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=16384,1 src1_mem_pattern.start_addr=0x11000 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=16384,1 dst_mem_pattern.start_addr=0x21000 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=16384,1
rdma_desc_gen local_sem=5 remote_sem=6 remote_core_id=1 dma_engine_mask=0x1 src_addr=0x200 dst_addr=0x1200 free_dim_bytes=256
rdma_desc_start
rdma_desc_gen local_sem=5 remote_sem=6 remote_core_id=1 dma_engine_mask=0x1 src_addr=0x300 dst_addr=0x1300 free_dim_bytes=256
rdma_desc_start
.core 1
event_semaphore update_mode=sub_imm_complete update_idx=6 semaphore_value=2
ext_tensor_tensor_arith in0_in1_dtype.dtype_lo=uint32 in0_in1_dtype.dtype_hi=uint32 out_dtype=uint32 op=add src0_mem_pattern.start_addr=0x11000 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=12288,1 src1_mem_pattern.start_addr=0x11000 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=12288,1 dst_mem_pattern.start_addr=0x21000 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=12288,1
event_semaphore update_mode=sub_imm_complete update_idx=6 semaphore_value=2
ext_tensor_tensor_arith in0_in1_dtype.dtype_lo=uint32 in0_in1_dtype.dtype_hi=uint32 out_dtype=uint32 op=add src0_mem_pattern.start_addr=0x11000 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=128,1 src1_mem_pattern.start_addr=0x11000 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=128,1 dst_mem_pattern.start_addr=0x21000 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=128,1
ext_tensor_tensor_arith in0_in1_dtype.dtype_lo=uint8 in0_in1_dtype.dtype_hi=uint8 out_dtype=uint8 op=add src0_mem_pattern.start_addr=0x1200 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=512,1 src1_mem_pattern.start_addr=0x1200 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=512,1 dst_mem_pattern.start_addr=0x4000 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=512,1 wait_mode=eq_imm wait_idx=6 semaphore_value=0
.expect sbuf core=1 addr=0x4000 bytes=512 pattern=const:2
.expect sem core=1 idx=6 value=0
