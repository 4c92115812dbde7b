# Core 0 copies 64 bytes of every partition to core 1; .dump shows what landed and around it.
.init core=0 addr=0x1000 bytes=64 pattern=iota
.core 0
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xffff src_addr=0x1000 dst_addr=0x2000 free_dim_bytes=64
rdma_desc_start
.dump sbuf core=1 addr=0x1ff0 bytes=96 partitions=0:2
.expect sbuf core=1 addr=0x2000 bytes=64 pattern=iota
# untouched bytes: zeros, starred, and every partition the same as the first
.dump sbuf core=2 addr=0 bytes=256
# engine 0's rings: partitions 0-7 (16 engines, 8 partitions each), then the two semaphores
.dump ring core=0 engine=0
# the local semaphore's pair with its bytes, as `sbrdma decode desc` reads them
.dump ring core=0 engine=0 slots=9:10 hex=yes
