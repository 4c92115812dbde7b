# A semaphore-only transfer (trn2): free_dim_bytes=0 moves no data, only the semaphore
# descriptors (D5). With four engines (mask 0xf0) the peer's remote_sem gets +4, and the
# issuer's local_sem +16 (every engine carries its LOCAL descriptor).
#
#   sbrdma run examples/semaphore_only.s

.core 2
rdma_desc_gen local_sem=20 remote_sem=21 remote_core_id=3 remote_routing_id=0 dma_engine_mask=0xf0 free_dim_bytes=0
rdma_desc_start

.expect sem core=2 idx=20 value=16
.expect sem core=3 idx=21 value=4
