# Top-level behaviour of the sbrdma binary.
check version 0 - -- --version
expect_out "sbrdma 0.1.0"
check help 0 - -- --help
expect_out "asm"
expect_out "disasm"
expect_out "decode"
check unknown_subcommand 1 - -- frobnicate
expect_err "error:"
