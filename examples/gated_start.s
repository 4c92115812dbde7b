# gen hoisted early, start gated on a semaphore (trn2).
#
#   sbrdma run examples/gated_start.s
#
# rdma_desc_gen needs no wait: core 0 builds its rings at once. Its rdma_desc_start waits
# (wait_mode=ge_imm) until semaphore 2 is >= 1 — the receiver's "ready" signal. Core 1 gives
# that signal with a semaphore-only transfer (free_dim_bytes=0, one engine) whose REMOTE
# descriptor increments core 0's semaphore 2 by 1. The start's update_mode=inc_complete then
# bumps core 0's semaphore 5 once the doorbells are written.

.init core=0 addr=0 bytes=2048 pattern=iota

.core 0
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=0 dma_engine_mask=0xffff src_addr=0 dst_addr=0x800 free_dim_bytes=2048
rdma_desc_start wait_mode=ge_imm wait_idx=2 semaphore_value=1 update_mode=inc_complete update_idx=5

.core 1
# "ready to receive": +1 on core 0's semaphore 2 (and +16 on our own semaphore 7)
rdma_desc_gen local_sem=7 remote_sem=2 remote_core_id=0 remote_routing_id=0 dma_engine_mask=0x1 free_dim_bytes=0
rdma_desc_start

.expect sem core=0 idx=2 value=1
.expect sem core=0 idx=3 value=16
.expect sem core=0 idx=5 value=1
.expect sem core=1 idx=4 value=16
.expect sem core=1 idx=7 value=16
.expect sbuf core=1 addr=0x800 bytes=2048 equals core=0 addr=0
