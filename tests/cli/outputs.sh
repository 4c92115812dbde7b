# Output files of `bench` and `run`: refused before the run when they cannot be written, are
# empty or collide, and written before anything goes to stdout, so a failure leaves no
# partial result.
EX="$DIR/../../examples"

# Two outputs naming one file: the second would overwrite the first.
check bench_outputs_same_path 1 - -- bench allr -r 2 -b 1K --report-to-json-file x.json --plot ./x.json
expect_err "error: --plot ./x.json: the same path as --report-to-json-file"
expect_err_lines 1
# Standard output carries the table.
check bench_output_stdout 1 - -- bench allr -r 2 -b 1K --plot -
expect_err "error: --plot -: standard output carries the table; give a file"
# The plot is SVG: a name of another image format is refused before the run (no file made).
check bench_plot_not_svg 1 - -- bench allr -r 2 -b 1K --plot plot.PNG
expect_err "error: --plot plot.PNG: the plot is SVG text, not png; give a name ending in .svg"
expect_err_lines 1
if [[ -e "$(work)/plot.PNG" ]]; then _fail "plot.PNG was written"; else pass=$((pass + 1)); fi
check bench_plot_eps 1 - -- bench allr -r 2 -b 1K --plot plot.eps
expect_err "error: --plot plot.eps: the plot is SVG text, not eps; give a name ending in .svg"
# A folder that takes no new file is refused before the run, whatever its permission bits
# say (root passes them for /proc).
check bench_json_in_proc 1 - -- bench allr -r 2 -b 1K --report-to-json-file /proc/sbrdma.json
expect_err "/proc/sbrdma.json: error: cannot write: /proc"
expect_err_lines 1
expect_out_file /dev/null
# -o /dev/stdout with stdout sent to a file (>>) writes through the stream: the file keeps what
# it had and takes what follows (a replacement unlinked it).
printf 'before\n' >"$(work)/log.txt"
{
  echo rdma_desc_start | "$SBRDMA" asm --hex -o /dev/stdout
  echo after
} >>"$(work)/log.txt"
if [[ "$(cat "$(work)/log.txt")" == $'before\nf0100000000000000000000009'*$'\nafter' ]]; then
  pass=$((pass + 1))
else
  _fail "asm -o /dev/stdout into a >> redirect: $(head -c 200 "$(work)/log.txt")"
fi
# Outputs are plain text: a compressed file's name (.gz, .svgz, ...) is refused before the run.
check bench_plot_svgz 1 - -- bench allr -r 2 -b 1K --plot plot.svgz
expect_err "error: --plot plot.svgz: the file is written as plain text, not compressed (svgz); give a name without it"
expect_err_lines 1
if [[ -e "$(work)/plot.svgz" ]]; then _fail "plot.svgz was written"; else pass=$((pass + 1)); fi
check bench_json_gz 1 - -- bench allr -r 2 -b 1K --report-to-json-file r.json.GZ
expect_err "error: --report-to-json-file r.json.GZ: the file is written as plain text, not compressed (gz); give a name without it"
check bench_trace_zst 1 - -- bench allr -r 2 -b 1K --trace t.json.zst
expect_err "error: --trace t.json.zst: the file is written as plain text, not compressed (zst); give a name without it"
check run_trace_xz 1 - -- run "$EX/ping_pong.s" --trace t.json.xz
expect_err "error: --trace t.json.xz: the file is written as plain text, not compressed (xz); give a name without it"
if [[ -s "$(work)/out" || -e "$(work)/t.json.xz" ]]; then _fail "run went on past a compressed trace name"; else
  pass=$((pass + 1)); fi
check bench_plot_svg_or_plain 0 - -- bench allr -r 2 -b 1K --timing-only --plot plot
if head -c 5 "$(work)/plot" | grep -q "<svg\|<?xml"; then pass=$((pass + 1)); else _fail "plot is not SVG"; fi

# A program that cannot be dumped (a folder has its name) fails the run with nothing written.
mkdir -p "$(work)/dq/core1.s"
check bench_dump_blocked 1 - -- bench allr -r 2 -b 1K --dump-programs dq --report-to-json-file dq.json
expect_err "dq/core1.s: error: cannot write"
expect_err_lines 1
if [[ -e "$(work)/dq.json" || -e "$(work)/dq/core0.s" || -s "$(work)/out" ]]; then
  _fail "a blocked dump still wrote files or the table"
else pass=$((pass + 1)); fi

# Such a folder is refused before the run, whichever cores the run dumps: a sweep does not
# simulate its rows only to fail at the end.
mkdir -p "$(work)/dq2/core9.s"
check bench_dump_blocked_before_run 1 - -- bench allr -r 2 -b 1K -e 1M -f 4 --dump-programs dq2
expect_err "dq2/core9.s: error: cannot write: Is a directory"
expect_err_lines 1
expect_out_file /dev/null

# A trace that cannot be written (a full disk) fails `run` with no report on stdout.
if [[ -w /dev/full ]]; then
  check run_trace_disk_full 1 - -- run "$EX/ping_pong.s" --trace /dev/full
  expect_err "/dev/full: error: cannot write"
  if [[ -s "$(work)/out" ]]; then _fail "run printed its report though the trace failed"; else
    pass=$((pass + 1)); fi
fi

# Collisions the option strings alone do not show: a file in the dump folder with a program's
# name, a link that dangles to another output, a folder given with a trailing slash.
mkdir -p "$(work)/progs"
check bench_output_in_dump 1 - -- bench allr -r 2 -b 1K --trace progs/core0.s --dump-programs progs
expect_err "error: --trace progs/core0.s: --dump-programs progs may write a program there"
ln -s new.json "$(work)/d.json"
check bench_output_dangling_link 1 - -- bench allr -r 2 -b 1K --report-to-json-file d.json --plot new.json
expect_err "error: --plot new.json: the same path as --report-to-json-file"
check bench_output_trailing_slash 1 - -- bench allr -r 2 -b 1K --dump-programs out3/ --plot out3
expect_err "error: --dump-programs out3/: the same path as --plot"
if [[ -e "$(work)/out3" ]]; then _fail "a refused run created out3"; else pass=$((pass + 1)); fi
# Devices are not files: two outputs may both go to /dev/null.
check bench_outputs_to_dev_null 0 - -- bench allr -r 2 -b 1K --trace /dev/null --report-to-json-file /dev/null
expect_out "Avg bus bandwidth"
# A blocked dump into a new folder creates nothing (the folder is made only once all is known
# to be writable).
check bench_dump_new_folder_blocked 1 - -- bench allr -r 2 -b 1K --dump-programs fresh --report-to-json-file progs
expect_err "progs: error: cannot write: Is a directory"
if [[ -e "$(work)/fresh" ]]; then _fail "a failed run left the new dump folder"; else
  pass=$((pass + 1)); fi

# An empty value is refused, not read as the option left out.
check bench_plot_empty 1 - -- bench allr -r 2 -b 1K --plot ""
expect_err "error: --plot: must not be empty"
expect_err_lines 1
check run_trace_empty 1 - -- run "$EX/ping_pong.s" --trace ""
expect_err "error: --trace: must not be empty"

# Two names of one file (a hard link) are one output; a named pipe is a device, which two
# outputs may both write (one after the other).
echo x >"$(work)/h.json"
ln "$(work)/h.json" "$(work)/h.svg"
check bench_outputs_hard_link 1 - -- bench allr -r 2 -b 1K --report-to-json-file h.json --plot h.svg
expect_err "error: --plot h.svg: the same path as --report-to-json-file"
cur=bench_outputs_one_fifo
rm -f "$(work)/fifo" "$(work)/fifo_got"
mkfifo "$(work)/fifo"
exec 4<>"$(work)/fifo"  # a writer held open: the reader sees no end between the two outputs
cat "$(work)/fifo" >"$(work)/fifo_got" 4>&- &
reader=$!
(cd "$(work)" && timeout 60 "$SBRDMA" bench allr -r 2 -b 1K -n 1 -w 0 --trace fifo \
  --report-to-json-file fifo >"$(work)/out" 2>"$(work)/err")
rc=$?
exec 4>&-
wait "$reader"
if [[ $rc -eq 0 ]] && grep -q traceEvents "$(work)/fifo_got" && grep -q '"results"' "$(work)/fifo_got"; then
  pass=$((pass + 1))
else _fail "--trace and --report-to-json-file to one named pipe: exit $rc $(head -2 "$(work)/err")"; fi
rm -f "$(work)/fifo"
# The other file options refuse an empty value too.
check bench_groups_empty 1 - -- bench allr -r 2 -b 1K --custom-replica-groups ""
expect_err "error: --custom-replica-groups/--custom-replica-group: must not be empty"
check bench_maxbytes_empty 1 - -- bench allr -r 2 -b 1K -e ""
expect_err "error: -e/--maxbytes: must not be empty"
printf 'rdma_desc_start\n' >"$(work)/one.s"
check asm_output_empty 1 - -- asm one.s -o ""
expect_err "error: -o/--output: must not be empty"

# An output that is one of the run's inputs would replace it: refused before the run.
cp "$EX/ping_pong.s" "$(work)/victim.s"
check run_trace_is_program 1 - -- run victim.s --trace victim.s
expect_err "error: --trace victim.s: that is the program (victim.s), an input of this run"
if cmp -s "$EX/ping_pong.s" "$(work)/victim.s"; then pass=$((pass + 1)); else
  _fail "the program was overwritten"; fi
check run_trace_stdout 1 - -- run "$EX/ping_pong.s" --trace -
expect_err "error: --trace -: standard output carries the run's report; give a file"
echo '[[0, 1]]' >"$(work)/in_groups.json"
ln -sf in_groups.json "$(work)/in_link.json"
check bench_output_is_groups 1 - -- bench allr -b 1K --custom-replica-groups in_groups.json --trace in_groups.json
expect_err "error: --trace in_groups.json: that is --custom-replica-groups (in_groups.json), an input of this run"
check bench_output_link_to_groups 1 - -- bench allr -b 1K --custom-replica-groups in_groups.json --report-to-json-file in_link.json
expect_err "that is --custom-replica-groups (in_groups.json)"
echo '{"chips": 1}' >"$(work)/in_topo.json"
check bench_output_is_topology 1 - -- bench allr -r 2 -b 1K --topology in_topo.json --plot in_topo.json
expect_err "error: --plot in_topo.json: that is --topology (in_topo.json), an input of this run"
if grep -q '<svg' "$(work)/in_topo.json"; then _fail "the topology was overwritten"; else
  pass=$((pass + 1)); fi

# A write that fails after others succeeded leaves none of them (temporary files, renamed
# only when all are written), and removes a dump folder the run created.
if [[ -w /dev/full ]]; then
  check bench_late_write_failure 1 - -- bench allr -r 2 -b 1K --report-to-json-file late.json --plot late.svg --dump-programs late/sub --trace /dev/full
  expect_err "/dev/full: error: cannot write"
  if [[ -e "$(work)/late.json" || -e "$(work)/late.svg" || -e "$(work)/late" ]] ||
    ls -a "$(work)" | grep -q sbrdma-; then
    _fail "a failed write left files: $(ls -a "$(work)" | tr '\n' ' ')"
  else pass=$((pass + 1)); fi
fi
# A rewritten output keeps its permission bits.
echo old >"$(work)/kept.json"
chmod 640 "$(work)/kept.json"
check bench_output_keeps_mode 0 - -- bench allr -r 2 -b 1K --report-to-json-file kept.json
if [[ $(stat -c %a "$(work)/kept.json") == 640 ]] && grep -q '"results"' "$(work)/kept.json"; then
  pass=$((pass + 1)); else _fail "kept.json: mode $(stat -c %a "$(work)/kept.json")"; fi

# --dump-programs into a folder of an earlier, larger run: its other programs are removed,
# other files stay.
check bench_dump_first 0 - -- bench allr -r 4 -b 1K --dump-programs redump
touch "$(work)/redump/notes.txt"
check bench_dump_again 0 - -- bench allr -r 2 -b 1K --dump-programs redump
if [[ $(cd "$(work)/redump" && echo *) == "core0.s core1.s notes.txt" ]]; then
  pass=$((pass + 1)); else _fail "redump holds: $(cd "$(work)/redump" && echo *)"; fi
# Groups of one rank have nothing to do: each rank's file says so (no words), and the folder
# holds this run's programs, not the earlier ones.
check bench_dump_one_rank_groups 0 - -- bench allr -r 2 --data-parallel-dimension 1 -b 1K -n 1 -w 0 --dump-programs redump
if [[ $(cd "$(work)/redump" && echo *) == "core0.s core1.s notes.txt" ]] &&
  grep -q "^# no words: this rank has nothing to send, receive or reduce$" "$(work)/redump/core1.s" &&
  ! grep -qv "^#" "$(work)/redump/core0.s"; then
  pass=$((pass + 1)); else _fail "one-rank dump: $(cd "$(work)/redump" && echo *)"; fi
check bench_dump_one_rank_assembles 0 - -- asm redump/core0.s -o one_rank.bin
if [[ -f "$(work)/one_rank.bin" && ! -s "$(work)/one_rank.bin" ]]; then
  pass=$((pass + 1)); else _fail "one_rank.bin is not an empty program"; fi

# Inputs the outputs would reach in other ways: standard input redirected from the file, a
# file in the dump folder named like a program, asm's own source.
cp "$EX/ping_pong.s" "$(work)/stdin_prog.s"
check run_trace_is_stdin 1 "$(work)/stdin_prog.s" -- run - --trace stdin_prog.s
expect_err "error: --trace stdin_prog.s: that is the program (standard input), an input of this run"
mkdir -p "$(work)/dumpin"
echo '[[0, 1]]' >"$(work)/dumpin/core9.s"
check bench_dump_over_input 1 - -- bench allr -b 1K --custom-replica-groups dumpin/core9.s --dump-programs dumpin
expect_err "error: --dump-programs dumpin: it may write a program over --custom-replica-groups (dumpin/core9.s), an input of this run"
if [[ -s "$(work)/dumpin/core9.s" ]]; then pass=$((pass + 1)); else _fail "the input was removed"; fi
printf 'rdma_desc_start\n' >"$(work)/self.s"
check asm_output_is_input 1 - -- asm self.s -o self.s
expect_err "error: -o self.s: that is the assembly text (self.s), an input of this run"
# A replaced output stays one file with its other names (hard links), and long names work.
echo old >"$(work)/hl1.bin"
ln -f "$(work)/hl1.bin" "$(work)/hl2.bin"
check asm_output_hard_link 0 - -- asm self.s -o hl1.bin
if cmp -s "$(work)/hl1.bin" "$(work)/hl2.bin" && [[ $(wc -c <"$(work)/hl2.bin") -eq 64 ]]; then
  pass=$((pass + 1)); else _fail "hl2.bin no longer shares hl1.bin's bytes"; fi
# A file-size limit is a failed write like a full disk: a file rewritten in place (it has
# another name) gets its old bytes back, a new one is not left behind, nor is a temporary.
for i in $(seq 100); do echo rdma_desc_start; done >"$(work)/hundred.s"
cp "$(work)/hl1.bin" "$(work)/hl1.before"
CHECK_FSIZE_KB=1 check asm_output_in_place_past_file_size_limit 1 - -- asm hundred.s -o hl1.bin
expect_err "hl1.bin: error: cannot write: File too large"
if cmp -s "$(work)/hl1.bin" "$(work)/hl1.before"; then pass=$((pass + 1)); else
  _fail "hl1.bin lost its old bytes"; fi
CHECK_FSIZE_KB=1 check asm_output_new_past_file_size_limit 1 - -- asm hundred.s -o fresh.bin
expect_err "fresh.bin: error: cannot write: File too large"
if [[ ! -e "$(work)/fresh.bin" ]] && ! ls -a "$(work)" | grep -q '^\.sbrdma-'; then
  pass=$((pass + 1)); else _fail "a cut-off output or a temporary file was left"; fi
# Two files rewritten in place: the first (the report, shorter than it was) is put back whole
# when the second (the trace, past the limit) fails: it is cut to size only once all are written.
head -c 13000 /dev/zero | tr '\0' j >"$(work)/ip.json" && ln -f "$(work)/ip.json" "$(work)/ip2.json"
echo oldtrace >"$(work)/ipt.json" && ln -f "$(work)/ipt.json" "$(work)/ipt2.json"
CHECK_FSIZE_KB=2 check bench_outputs_in_place_undone 1 - -- bench allr -r 2 -b 1K -n 1 -w 0 \
  --report-to-json-file ip.json --trace ipt.json
expect_err "ipt.json: error: cannot write: File too large"
if [[ $(wc -c <"$(work)/ip.json") -eq 13000 && $(tr -d j <"$(work)/ip.json" | wc -c) -eq 0 &&
  $(cat "$(work)/ipt.json") == oldtrace ]]; then
  pass=$((pass + 1)); else _fail "an output rewritten in place was not put back"; fi
long=$(printf 'x%.0s' {1..250}).bin
check asm_output_long_name 0 - -- asm self.s -o "$long"
if [[ $(wc -c <"$(work)/$long") -eq 64 ]]; then pass=$((pass + 1)); else
  _fail "the long-named output was not written"; fi
# A dump folder keeps files only named like programs (core01.s is not core1.s).
touch "$(work)/redump/core01.s"
check bench_dump_keeps_lookalike 0 - -- bench allr -r 2 -b 1K --dump-programs redump
if [[ -e "$(work)/redump/core01.s" ]]; then pass=$((pass + 1)); else _fail "core01.s was removed"; fi

# A program file that is a link to an input (hard or symbolic) is refused, not written through.
mkdir -p "$(work)/linkdump"
echo '[[0, 1]]' >"$(work)/lgroups.json"
ln -f "$(work)/lgroups.json" "$(work)/linkdump/core0.s"
check bench_dump_hard_link_to_input 1 - -- bench allr -b 1K -n 1 -w 0 --custom-replica-groups lgroups.json --dump-programs linkdump
expect_err "error: --dump-programs linkdump/core0.s: that is --custom-replica-groups (lgroups.json), an input of this run"
if [[ $(cat "$(work)/lgroups.json") == "[[0, 1]]" ]]; then pass=$((pass + 1)); else
  _fail "the groups file was written through its link"; fi

# Where standard output or error already goes (the file it is redirected to, /dev/stdout): the
# output would replace the table or the messages. A device is fine.
check bench_json_is_stdout 1 - -- bench allr -r 2 -b 1K -n 1 -w 0 --report-to-json-file out
expect_err "error: --report-to-json-file out: that is where standard output (the table) goes; give another file"
expect_err_lines 1
check bench_plot_dev_stdout 1 - -- bench allr -r 2 -b 1K -n 1 -w 0 --plot /dev/stdout
expect_err "error: --plot /dev/stdout: that is where standard output (the table) goes"
check bench_trace_is_stderr 1 - -- bench allr -r 2 -b 1K -n 1 -w 0 --trace err
expect_err "error: --trace err: that is where standard error (progress and errors) goes"
check run_trace_is_stderr 1 - -- run "$EX/ping_pong.s" --trace err
expect_err "error: --trace err: that is where standard error (the run's errors) goes"
check run_trace_is_stdout 1 - -- run "$EX/ping_pong.s" --trace /dev/stdout
expect_err "error: --trace /dev/stdout: that is where standard output (the run's report) goes"
# Standard output piped to another program: /dev/stdout is that pipe.
cur=bench_plot_stdout_pipe
(cd "$(work)" && "$SBRDMA" bench allr -r 2 -b 1K -n 1 -w 0 --plot /dev/stdout 2>"$(work)/err" </dev/null |
  cat >"$(work)/out"; exit "${PIPESTATUS[0]}")
rc=$?
if [[ $rc -eq 1 ]] && grep -qF "error: --plot /dev/stdout: that is where standard output (the table) goes" "$(work)/err"; then
  pass=$((pass + 1))
else _fail "exit $rc: $(head -3 "$(work)/err")"; fi
check bench_json_dev_null 0 - -- bench allr -r 2 -b 1K -n 1 -w 0 --report-to-json-file /dev/null
expect_out "Avg bus bandwidth"

# A full disk (a small tmpfs, where this machine lets us mount one): the output keeps its old
# bytes, and a new output is not left cut short.
mkdir -p "$(work)/tiny"
if mount -t tmpfs -o size=64k tmpfs "$(work)/tiny" 2>/dev/null; then
  cp "$EX/ping_pong.s" "$(work)/tiny/pp.s"
  echo PRECIOUS >"$(work)/tiny/t.json"
  check run_trace_full_disk_keeps_old 1 - -- run tiny/pp.s --trace tiny/t.json
  expect_err "tiny/t.json: error: cannot write: No space left on device"
  if [[ $(cat "$(work)/tiny/t.json") == PRECIOUS ]]; then pass=$((pass + 1)); else
    _fail "t.json was cut on a full disk"; fi
  check run_trace_full_disk_new 1 - -- run tiny/pp.s --trace tiny/new.json
  if [[ -e "$(work)/tiny/new.json" ]] || ls -a "$(work)/tiny" | grep -q sbrdma-; then
    _fail "a full disk left: $(ls -a "$(work)/tiny" | tr '\n' ' ')"
  else pass=$((pass + 1)); fi
  umount "$(work)/tiny"
fi

# A name only a folder has (a trailing '/') is refused by every output, not written as the
# file without the slash.
printf 'rdma_desc_start\n' >"$(work)/one.s"
check asm_output_trailing_slash 1 - -- asm one.s -o newfile.bin/
expect_err "newfile.bin/: error: cannot write: a name ending in '/' is a folder's, not a file's"
expect_err_lines 1
mkdir -p "$(work)/d1"
check asm_output_trailing_slash_in_folder 1 - -- asm one.s --hex -o d1/x/
expect_err "d1/x/: error: cannot write: a name ending in '/' is a folder's, not a file's"
check asm_output_trailing_dot 1 - -- asm one.s -o d1/x/.
expect_err "d1/x/.: error: cannot write: a name ending in '.' is a folder's, not a file's"
check run_trace_trailing_slash 1 - -- run "$EX/ping_pong.s" --trace d1/t.json/
expect_err "d1/t.json/: error: cannot write: a name ending in '/' is a folder's, not a file's"
check bench_plot_trailing_slash 1 - -- bench allr -r 2 -b 1K --plot d1/p.svg/
expect_err "d1/p.svg/: error: cannot write: a name ending in '/' is a folder's, not a file's"
# An existing folder, with or without the slash, is one: every writer says so the same way.
check asm_output_existing_folder_slash 1 - -- asm one.s -o d1/
expect_err "d1/: error: cannot write: Is a directory"
check run_trace_existing_folder_slash 1 - -- run "$EX/ping_pong.s" --trace d1/
expect_err "d1/: error: cannot write: Is a directory"
# Output names in bench's clash messages are escaped like every file name.
check bench_clash_escaped 1 - -- bench allr -r 2 -b 1K --plot $'p\x1b.svg' --trace $'p\x1b.svg'
expect_err "error: --trace p\\x1b.svg: the same path as --plot"
if [[ -e "$(work)/newfile.bin" || -e "$(work)/d1/x" || -e "$(work)/d1/t.json" || -e "$(work)/d1/p.svg" ]]; then
  _fail "an output named like a folder was written as a file"
else pass=$((pass + 1)); fi
# A file beside which no temporary file can be made (in /proc) says so, not that it is missing.
if [[ -w /proc/version ]]; then
  check asm_output_no_temporary 1 - -- asm one.s -o /proc/version
  expect_err "/proc/version: error: cannot write: cannot create a temporary file in /proc: "
fi

# A missing folder is named as the user gave it (not the absolute folder of a temporary file).
printf 'rdma_desc_start\n' >"$(work)/one.s"
check asm_output_no_folder 1 - -- asm one.s -o nodir/x.bin
expect_err "nodir/x.bin: error: cannot write: no folder nodir"
expect_err_lines 1
