# Two-core ping-pong (trn2): core 0 sends a buffer to core 1; core 1 waits until it has
# landed (its remote_sem 4 reaches 16), then sends it back to core 0, which waits in turn.
#
#   sbrdma run examples/ping_pong.s
#
# Both of core 1's words are issued in order: its gen may run early (it only builds rings),
# but its start waits for the ping. Core 0's final wait is an engine_nop carrying a wait.

.init core=0 addr=0 bytes=1024 pattern=random:1

.core 0
# ping: core 0 [0, 1 KiB) -> core 1 [0x1000, +1 KiB)
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=0 dma_engine_mask=0xffff src_addr=0 dst_addr=0x1000 free_dim_bytes=1024
rdma_desc_start
# wait for the pong
ext_engine_nop wait_mode=ge_imm wait_idx=6 semaphore_value=16

.core 1
# pong: core 1 [0x1000, +1 KiB) -> core 0 [0x2000, +1 KiB), once the ping has landed
rdma_desc_gen local_sem=5 remote_sem=6 remote_core_id=0 remote_routing_id=0 dma_engine_mask=0xffff src_addr=0x1000 dst_addr=0x2000 free_dim_bytes=1024
rdma_desc_start wait_mode=ge_imm wait_idx=4 semaphore_value=16

.expect sem core=0 idx=3 value=16
.expect sem core=1 idx=4 value=16
.expect sem core=1 idx=5 value=16
.expect sem core=0 idx=6 value=16
.expect sbuf core=1 addr=0x1000 bytes=1024 equals core=0 addr=0
.expect sbuf core=0 addr=0x2000 bytes=1024 equals core=0 addr=0
