.core 1
# a start with no gen before it
rdma_desc_start
