# one error per line below
rdma_desc_start
.core 8
.init core=0 addr=0 bytes=4 pattern=iota size=4
.init core=0 addr=0x37f00 bytes=257 pattern=iota
.expect psum core=0
.repeat 3
rdma_desc_go
