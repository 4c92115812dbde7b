# A consumer that takes one count per item: core 0 sends four 1 KiB items to core 1 on one
# engine, each followed by an increment of core 1's sem[6]. Core 1 is busy long enough for all
# four to land first; then, per item, it waits for sem[6] >= 1, doubles the item (its read
# fires the dec_read), and forwards the result to core 2 with a gen and a start. The start's
# write fence sees the decrement land, so the next wait needs one more increment than the
# last: it orders item k+1 before its read, and the run is race-free. Without the relays
# (no fence) a device may look at the next wait before the decrement lands, and read an item
# that has not landed: the same run reports those races (D49).
.init core=0 addr=0 bytes=4096 pattern=const:1
.core 0
rdma_desc_gen local_sem=5 remote_sem=6 remote_core_id=1 dma_engine_mask=0x1 src_addr=0x0 dst_addr=0x10000 free_dim_bytes=1024
rdma_desc_start
rdma_desc_gen local_sem=5 remote_sem=6 remote_core_id=1 dma_engine_mask=0x1 src_addr=0x400 dst_addr=0x10400 free_dim_bytes=1024
rdma_desc_start
rdma_desc_gen local_sem=5 remote_sem=6 remote_core_id=1 dma_engine_mask=0x1 src_addr=0x800 dst_addr=0x10800 free_dim_bytes=1024
rdma_desc_start
rdma_desc_gen local_sem=5 remote_sem=6 remote_core_id=1 dma_engine_mask=0x1 src_addr=0xc00 dst_addr=0x10c00 free_dim_bytes=1024
rdma_desc_start
.core 1
# busy: two 64 KiB adds on data of its own
ext_tensor_tensor_arith in0_in1_dtype.dtype_lo=uint32 in0_in1_dtype.dtype_hi=uint32 out_dtype=uint32 op=add src0_mem_pattern.start_addr=0x11000 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=16384,1 src1_mem_pattern.start_addr=0x11000 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=16384,1 dst_mem_pattern.start_addr=0x21000 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=16384,1
ext_tensor_tensor_arith in0_in1_dtype.dtype_lo=uint32 in0_in1_dtype.dtype_hi=uint32 out_dtype=uint32 op=add src0_mem_pattern.start_addr=0x21000 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=16384,1 src1_mem_pattern.start_addr=0x21000 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=16384,1 dst_mem_pattern.start_addr=0x11000 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=16384,1
ext_tensor_tensor_arith in0_in1_dtype.dtype_lo=uint8 in0_in1_dtype.dtype_hi=uint8 out_dtype=uint8 op=add src0_mem_pattern.start_addr=0x10000 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=1024,1 src1_mem_pattern.start_addr=0x10000 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=1024,1 dst_mem_pattern.start_addr=0x31000 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=1024,1 wait_mode=ge_imm wait_idx=6 semaphore_value=1 update_mode=dec_read update_idx=6
rdma_desc_gen local_sem=7 remote_sem=8 remote_core_id=2 dma_engine_mask=0x1 src_addr=0x31000 dst_addr=0x31000 free_dim_bytes=1024  # relay
rdma_desc_start  # relay
ext_tensor_tensor_arith in0_in1_dtype.dtype_lo=uint8 in0_in1_dtype.dtype_hi=uint8 out_dtype=uint8 op=add src0_mem_pattern.start_addr=0x10400 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=1024,1 src1_mem_pattern.start_addr=0x10400 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=1024,1 dst_mem_pattern.start_addr=0x31400 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=1024,1 wait_mode=ge_imm wait_idx=6 semaphore_value=1 update_mode=dec_read update_idx=6
rdma_desc_gen local_sem=7 remote_sem=8 remote_core_id=2 dma_engine_mask=0x1 src_addr=0x31400 dst_addr=0x31400 free_dim_bytes=1024  # relay
rdma_desc_start  # relay
ext_tensor_tensor_arith in0_in1_dtype.dtype_lo=uint8 in0_in1_dtype.dtype_hi=uint8 out_dtype=uint8 op=add src0_mem_pattern.start_addr=0x10800 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=1024,1 src1_mem_pattern.start_addr=0x10800 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=1024,1 dst_mem_pattern.start_addr=0x31800 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=1024,1 wait_mode=ge_imm wait_idx=6 semaphore_value=1 update_mode=dec_read update_idx=6
rdma_desc_gen local_sem=7 remote_sem=8 remote_core_id=2 dma_engine_mask=0x1 src_addr=0x31800 dst_addr=0x31800 free_dim_bytes=1024  # relay
rdma_desc_start  # relay
ext_tensor_tensor_arith in0_in1_dtype.dtype_lo=uint8 in0_in1_dtype.dtype_hi=uint8 out_dtype=uint8 op=add src0_mem_pattern.start_addr=0x10c00 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=1024,1 src1_mem_pattern.start_addr=0x10c00 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=1024,1 dst_mem_pattern.start_addr=0x31c00 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=1024,1 wait_mode=ge_imm wait_idx=6 semaphore_value=1 update_mode=dec_read update_idx=6
rdma_desc_gen local_sem=7 remote_sem=8 remote_core_id=2 dma_engine_mask=0x1 src_addr=0x31c00 dst_addr=0x31c00 free_dim_bytes=1024  # relay
rdma_desc_start  # relay
.expect sem core=1 idx=6 value=0
.expect sbuf core=1 addr=0x31000 bytes=4096 pattern=const:2
