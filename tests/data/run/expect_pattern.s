# .expect sbuf against a pattern: the copy's destination holds what .init wrote at its source
# (iota counts from the region's start, so the same pattern recreates it anywhere).
.init core=0 addr=0x1000 bytes=4096 pattern=iota
.core 0
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xffff src_addr=0x1000 dst_addr=0x2000 free_dim_bytes=4096
rdma_desc_start
.expect sbuf core=1 addr=0x2000 bytes=4096 pattern=iota
# One byte further on, the pattern starts again: every byte differs.
.expect sbuf core=1 addr=0x2001 bytes=16 pattern=iota partitions=0:2
