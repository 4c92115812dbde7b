# program directives belong to `sbrdma run`; plain `asm` has no handler for them
.core 1
rdma_desc_start
.init core=0 addr=0 bytes=64 pattern=iota
.RAW 00
.dump sbuf core=0 addr=0 bytes=64
