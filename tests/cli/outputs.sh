# Output files of `bench` and `run`: refused before the run when they cannot be written or
# collide, and written before anything goes to stdout, so a failure leaves no partial result.
EX="$DIR/../../examples"

# Two outputs naming one file: the second would overwrite the first.
check bench_outputs_same_path 1 - -- bench allr -r 2 -b 1K --report-to-json-file x.json --plot ./x.json
expect_err "error: --plot ./x.json: the same path as --report-to-json-file"
expect_err_lines 1
# Standard output carries the table.
check bench_output_stdout 1 - -- bench allr -r 2 -b 1K --plot -
expect_err "error: --plot -: standard output carries the table; give a file"

# A program that cannot be dumped (a folder has its name) fails the run with nothing written.
mkdir -p "$(work)/dq/core1.s"
check bench_dump_blocked 1 - -- bench allr -r 2 -b 1K --dump-programs dq --report-to-json-file dq.json
expect_err "dq/core1.s: error: cannot write"
if [[ -e "$(work)/dq.json" || -e "$(work)/dq/core0.s" || -s "$(work)/out" ]]; then
  _fail "a blocked dump still wrote files or the table"
else pass=$((pass + 1)); fi

# A trace that cannot be written (a full disk) fails `run` with no report on stdout.
if [[ -w /dev/full ]]; then
  check run_trace_disk_full 1 - -- run "$EX/ping_pong.s" --trace /dev/full
  expect_err "/dev/full: error: cannot write"
  if [[ -s "$(work)/out" ]]; then _fail "run printed its report though the trace failed"; else
    pass=$((pass + 1)); fi
fi
