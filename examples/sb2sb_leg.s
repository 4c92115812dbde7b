# The SB2SB collective leg (0xBF sb2sb_collective) between the two cores of an LNC2 pair on
# trn2: cores 0 and 1 each run the word; each sends its source pattern to the other (D12,
# D24): pre-sync (INC the peer's ready semaphore 253, wait for our own), rdma_desc_gen and
# rdma_desc_start over all 16 engines, then wait until both our sends (local 254 >= 16) and
# the peer's data (remote 255 >= 16) are done, and take both back to 0.
#
#   sbrdma run examples/sb2sb_leg.s
#
# Pattern: 256 fp32 elements (1 KiB, the most SB2SB allows) per partition, on all 128
# partitions (num_active_channels=128), contiguous. Core 0 sends its [0x0, 1 KiB) to core 1's
# [0x8000, +1 KiB); core 1 sends its [0x0, 1 KiB) to core 0's [0x8000, +1 KiB).
# Only one of the two cores running the word would deadlock in pre-sync.

.init core=0 addr=0 bytes=1024 pattern=random:100
.init core=1 addr=0 bytes=1024 pattern=random:101

.core 0
sb2sb_collective in_dtype=fp32 out_dtype=fp32 src_mem_pattern.start_addr=0x0 src_mem_pattern.step_elem=1,0,0 src_mem_pattern.num_elem=256,1,1 lnc_size_fmt=lnc2 num_active_channels=128 dst_mem_pattern.start_addr=0x8000 dst_mem_pattern.step_elem=1,0,0 dst_mem_pattern.num_elem=256,1,1

.core 1
sb2sb_collective in_dtype=fp32 out_dtype=fp32 src_mem_pattern.start_addr=0x0 src_mem_pattern.step_elem=1,0,0 src_mem_pattern.num_elem=256,1,1 lnc_size_fmt=lnc2 num_active_channels=128 dst_mem_pattern.start_addr=0x8000 dst_mem_pattern.step_elem=1,0,0 dst_mem_pattern.num_elem=256,1,1

# The reserved semaphores are back at 0 once both legs are done.
.expect sem core=0 idx=254 value=0
.expect sem core=0 idx=255 value=0
.expect sem core=1 idx=254 value=0
.expect sem core=1 idx=255 value=0
.expect sbuf core=1 addr=0x8000 bytes=1024 equals core=0 addr=0
.expect sbuf core=0 addr=0x8000 bytes=1024 equals core=1 addr=0
