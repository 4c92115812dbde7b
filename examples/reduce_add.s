# Receive-then-reduce with local compute (trn2), the building block of reductions (D13, D28):
# core 0 sends 4 KiB per partition into core 1's scratch area; core 1 waits until it has
# landed (remote_sem 4 >= 16), then adds the scratch into its own buffer with
# ext_tensor_tensor_arith (sub-op 2: dst = src0 + src1, here dst = src0 in place).
#
#   sbrdma run examples/reduce_add.s
#
# The data are uint8 constants so that the result is easy to state: 1 + 2 = 3 in every byte,
# compared with a region of core 1 initialised to 3. Each pattern is 4096 contiguous uint8
# elements per partition (num_elem=4096,1 step_elem=1,0), on all 128 partitions
# (completion_info.num_active_ports=0).

.init core=0 addr=0 bytes=4096 pattern=const:1
.init core=1 addr=0x2000 bytes=4096 pattern=const:2
.init core=1 addr=0x8000 bytes=4096 pattern=const:3

.core 0
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=0 dma_engine_mask=0xffff src_addr=0 dst_addr=0x1000 free_dim_bytes=4096
rdma_desc_start

.core 1
# buffer [0x2000] += scratch [0x1000], once core 0's data are in the scratch
ext_tensor_tensor_arith wait_mode=ge_imm wait_idx=4 semaphore_value=16 in0_in1_dtype.dtype_lo=uint8 in0_in1_dtype.dtype_hi=uint8 out_dtype=uint8 op=add src0_mem_pattern.start_addr=0x2000 src0_mem_pattern.step_elem=1,0 src0_mem_pattern.num_elem=4096,1 src1_mem_pattern.start_addr=0x1000 src1_mem_pattern.step_elem=1,0 src1_mem_pattern.num_elem=4096,1 dst_mem_pattern.start_addr=0x2000 dst_mem_pattern.step_elem=1,0 dst_mem_pattern.num_elem=4096,1 update_mode=inc_complete update_idx=9

.expect sem core=1 idx=4 value=16
.expect sem core=1 idx=9 value=1
.expect sbuf core=1 addr=0x2000 bytes=4096 equals core=1 addr=0x8000
