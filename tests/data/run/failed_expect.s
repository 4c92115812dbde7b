# A copy whose expects are wrong: the semaphore and the region both differ.
.init core=0 addr=0x40 bytes=64 pattern=iota
.core 0
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xffff src_addr=0x40 dst_addr=0x3000 free_dim_bytes=64
rdma_desc_start
.expect sem core=0 idx=3 value=16
# wrong: the peer gets 16, and the data went to 0x3000, not 0x2000
.expect sem core=1 idx=4 value=15
.expect sbuf core=1 addr=0x2000 bytes=64 equals core=0 addr=0x40
