# `sbrdma demo`, the ./dev run job: gen/start round trip and the cross-die fold.
check demo 0 - -- demo
expect_out "round trip: exact"
expect_out "address 0x0058803000002000"
expect_out "route from chip 0 die 0: neighbor -> this chip (0), die 1"
expect_out "region TPB_5.STATE_BUF +0x2000: core 5 (chip 0 tpb 5, die 1)"
