# Same-die copy on trn2 (the default topology): core 0 sends 4 KiB of every SBUF partition
# (offset 0x1000) to core 1 (offset 0x2000). Cores 0 and 1 both sit on die 0.
#
#   sbrdma run examples/same_die_copy.s
#
# All 16 engines take part (dma_engine_mask=0xffff): engine k moves partitions 8k..8k+7.
# When the transfer is done, core 0's local_sem (3) has +16 (one LOCAL semaphore descriptor
# per engine, D5) and core 1's remote_sem (4) has +16 (one REMOTE descriptor per active engine).

.init core=0 addr=0x1000 bytes=4096 pattern=iota

.core 0
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=0 dma_engine_mask=0xffff src_addr=0x1000 dst_addr=0x2000 free_dim_bytes=4096
rdma_desc_start

.expect sem core=0 idx=3 value=16
.expect sem core=1 idx=4 value=16
.expect sbuf core=1 addr=0x2000 bytes=4096 equals core=0 addr=0x1000
