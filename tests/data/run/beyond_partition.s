.core 0
# 4 KiB from 0x37800 runs past the 224 KiB active partition
rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xffff src_addr=0 dst_addr=0x37800 free_dim_bytes=4096
rdma_desc_start
