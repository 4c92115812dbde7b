# Top-level behaviour of the sbrdma binary.
check version 0 - -- --version
expect_out "sbrdma 0.1.0"
check help 0 - -- --help
expect_out "asm"
expect_out "disasm"
expect_out "decode"
check unknown_subcommand 1 - -- frobnicate
expect_err "error:"
# Output that cannot be written (a full disk) fails the command instead of exiting 0.
if [[ -w /dev/full ]]; then
  cur=stdout_full
  "$SBRDMA" info ops >/dev/full 2>"$(work)/err"
  rc=$?
  if [[ $rc -eq 1 ]]; then pass=$((pass + 1)); else _fail "exit $rc with stdout on /dev/full"; fi
  expect_err "sbrdma: error: cannot write standard output: No space left on device"
  expect_err_lines 1
fi
