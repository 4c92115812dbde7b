# `sbrdma bench`: the nccom-test dialect on a simulated topology (docs/bench.md).
BENCH_DATA="$DIR/../data/bench"

check bench_allr_check 0 - -- bench allr -r 4 -b 1K -e 4K -f 4 -c random -n 2 --show-algorithm
expect_out "     size(B)    count(elems)     type    time(us)    algbw(GB/s)    busbw(GB/s)     algorithm   #wrong"
expect_out "# time: simulated device time; GB/s: 10^9 bytes per simulated second"
expect_out "        4096            1024     fp32"
expect_out "mesh        0"
expect_out "Avg bus bandwidth:"
expect_out "# run: "
expect_out " s system CPU), "
expect_err "bench: allr 1K (1024 B), mesh: 3 iterations"
expect_err_lines 2

# --help names each flag's kind truly (numbers read as text are still numbers).
check bench_help 0 - -- bench --help
expect_out "-f,--stepfactor UINT"
expect_out "--seed UINT=0"
expect_out "--tie-seed UINT=0"
expect_out "-n,--iters UINT=5"
expect_out "-w,--warmup_iters UINT=1"
expect_out "-r,--nworkers UINT"
expect_out "hierarchical or hier"
expect_out "(also float32, bfloat16, float16)"

# A collective's trace, step boxes included, is pinned byte for byte (tests/data/trace).
check bench_trace_pinned 0 - -- bench sendrecv -r 3 -b 5K -c random --trace sendrecv.json
if ! cmp -s "$(work)/sendrecv.json" "$DIR/../data/trace/sendrecv_3.json"; then
  _fail "the sendrecv trace differs from tests/data/trace/sendrecv_3.json"
else pass=$((pass + 1)); fi

# Same command twice, same table and JSON (the closing cost line and the JSON's seconds and
# memcpy rate are wall-clock, left out).
check bench_same_1 0 - -- bench allg -r 3 -b 1000 -e 3000 -i 1000 -d bf16 -c all_ones -t avg p50 p99 --algorithm ring --report-to-json-file same1.json
grep -v '^# run:' "$(work)/out" >"$(work)/first.txt"
check bench_same_2 0 - -- bench allg -r 3 -b 1000 -e 3000 -i 1000 -d bf16 -c all_ones -t avg p50 p99 --algorithm ring --report-to-json-file same2.json
grep -v '^# run:' "$(work)/out" >"$(work)/second.txt"
if cmp -s "$(work)/first.txt" "$(work)/second.txt"; then pass=$((pass + 1)); else _fail "two runs differ"; fi
for k in 1 2; do
  grep -vE '"[a-z]+_seconds": |"memcpy_bytes_per_second": ' "$(work)/same$k.json" >"$(work)/same$k.txt"
done
if [[ $(wc -l <"$(work)/same1.txt") -gt 40 ]] && cmp -s "$(work)/same1.txt" "$(work)/same2.txt"; then
  pass=$((pass + 1)); else _fail "two runs' JSON reports differ beyond their host measurements"; fi
expect_out "time:avg(us)  time:p50(us)  time:p99(us)"

# --jobs runs a sweep's rows at once, each on its own thread: the same table, and the rows'
# progress lines in row order, their wall seconds aside (D48).
for j in 1 3; do
  check "bench_jobs_$j" 0 - -- bench allr -r 4 -b 1K -e 64K -f 4 -c random --algorithm ring,mesh --jobs "$j"
  grep -v '^# run:' "$(work)/out" >"$(work)/jobs$j.txt"
  sed 's/ in [0-9.]* s wall//' "$(work)/err" >"$(work)/jobs$j.err"
done
if cmp -s "$(work)/jobs1.txt" "$(work)/jobs3.txt" && cmp -s "$(work)/jobs1.err" "$(work)/jobs3.err"; then
  pass=$((pass + 1)); else _fail "--jobs 3 differs from --jobs 1"; fi
expect_err_lines 8
check bench_jobs_0 1 - -- bench allr -r 4 --jobs 0
expect_err "sbrdma: error: --jobs: '0' is not a number of rows at once (a whole number, 1 to 256)"
check bench_jobs_empty 1 - -- bench allr -r 4 --jobs ""
expect_err "sbrdma: error: --jobs: must not be empty"
# Under an address-space limit rows run one at a time (each sized against what the rows before
# it left, D43): a --jobs above 1 is noted, the table is the same, and the closing line names
# no rows at a time. (Not under a sanitizer, which maps terabytes of shadow.)
if ! sanitized; then
  CHECK_VMEM_KB=2000000 check bench_jobs_address_limit 0 - -- bench allr -r 4 -b 1K -e 64K -f 4 --timing-only --algorithm ring,mesh --jobs 3
  expect_err "bench: note: --jobs 3: under an address-space limit (ulimit -v) the rows run one at a time"
  if grep -q "rows at a time" "$(work)/out"; then _fail "rows ran at once under ulimit -v"; else pass=$((pass + 1)); fi
  grep -v '^# run:' "$(work)/out" >"$(work)/jobs_limited.txt"
  check bench_jobs_timing_only 0 - -- bench allr -r 4 -b 1K -e 64K -f 4 --timing-only --algorithm ring,mesh --jobs 1
  grep -v '^# run:' "$(work)/out" >"$(work)/jobs_one.txt"
  if cmp -s "$(work)/jobs_limited.txt" "$(work)/jobs_one.txt"; then pass=$((pass + 1)); else
    _fail "the table under ulimit -v differs"; fi
fi

# A group or pair file read from standard input is named <stdin>, as run and asm name it.
printf '[[0, 1], [2, x]]' >"$(work)/groups_bad_stdin.json"
check bench_groups_stdin_name 1 "$(work)/groups_bad_stdin.json" -- bench allr -b 1K --custom-replica-groups -
expect_err "<stdin>:1: error: malformed JSON"
expect_err_lines 1
check bench_pairs_stdin_name 1 "$(work)/groups_bad_stdin.json" -- bench permute -r 4 -b 1K --custom-src-target-pairs -
expect_err "<stdin>:1: error: malformed JSON"
check bench_groups 0 - -- bench redsct -b 999 -c random --custom-replica-groups "$BENCH_DATA/groups_2x3.json" --report-to-json-file bench.json --plot bench.svg --dump-programs dump
expect_out "# sbrdma bench redsct: 3 ranks x 2 groups on trn2"
if grep -q '"collective": "redsct"' "$(work)/bench.json" && grep -q '"wrong": 0' "$(work)/bench.json" &&
  grep -q '"seed": 0' "$(work)/bench.json" && grep -q '"tie_seed": 0' "$(work)/bench.json"; then
  pass=$((pass + 1)); else _fail "bench.json lacks the run"; fi
if grep -q '<polyline points=' "$(work)/bench.svg"; then pass=$((pass + 1)); else _fail "no plot line"; fi
check bench_dump_reads_back 0 - -- asm dump/core7.s -o core7.bin
check bench_dump_disasm 0 - -- disasm core7.bin
expect_out "rdma_desc_gen"

# A JSON topology is named after its file: the plot's title escapes it, so the SVG parses.
printf '{"chips":1}' >"$(work)/R&D.json"
check bench_plot_escapes 0 - -- bench allr -r 2 -b 4K --topology 'R&D.json' --plot rd.svg
if grep -qF '>sbrdma bench allr: 2 ranks x 1 group on R&amp;D, fp32 sum</text>' "$(work)/rd.svg"; then
  pass=$((pass + 1)); else _fail "the plot's title does not escape R&D"; fi
if command -v python3 >/dev/null; then
  if python3 -c 'import sys,xml.dom.minidom as m; m.parse(sys.argv[1])' "$(work)/rd.svg" 2>/dev/null; then
    pass=$((pass + 1)); else _fail "rd.svg is not well-formed XML"; fi
fi

# Several algorithms: the JSON carries each "Avg bus bandwidth (A):" line of the table, and
# no average across them (the table prints none).
check bench_json_avg_by_algorithm 0 - -- bench allr -r 4 -b 1K -e 2K -o max --algorithm ring,mesh --timing-only -n 1 -w 0 --report-to-json-file m.json
for alg in ring mesh; do
  table=$(sed -n "s/^Avg bus bandwidth ($alg): *\([0-9.]*\)GB\/s$/\1/p" "$(work)/out")
  json=$(sed -n '/"avg_busbw_by_algorithm": {/,/}/p' "$(work)/m.json" |
    sed -n "s/^ *\"$alg\": \([-0-9.eE+]*\),\{0,1\}$/\1/p")
  if [[ -n $table && -n $json && $(awk -v v="$json" 'BEGIN { printf "%.4f", v }') == "$table" ]]; then
    pass=$((pass + 1)); else _fail "$alg: the table says '$table' GB/s, the JSON '$json'"; fi
done
if grep -q '"avg_busbw": null' "$(work)/m.json" && grep -q '"reduce": "max"' "$(work)/m.json"; then
  pass=$((pass + 1)); else _fail "m.json: avg_busbw is not null or reduce is not max"; fi
# A collective that does not reduce has no reduction in the JSON, as in the table's header.
check bench_json_no_reduce 0 - -- bench allg -r 2 -b 1K -o max --timing-only --report-to-json-file g.json
expect_out "# sbrdma bench allg: 2 ranks x 1 group on trn2, fp32, 5 iterations"
expect_err "bench: note: -o max: allg reduces nothing, so -o has no effect"
expect_err_lines 2
if grep -q '"reduce": null' "$(work)/g.json"; then pass=$((pass + 1)); else
  _fail "g.json: \"reduce\" is not null for allg"; fi
# A topology file in a directory whose name is not UTF-8: the run's JSON is still written
# (the stray byte as U+FFFD), and the table printed; it once threw after the run (exit 2).
mkdir -p "$(work)/bad"$'\xff'"dir" && printf '{"chips":1,"name":"mine"}' >"$(work)/bad"$'\xff'"dir/t.json"
check bench_json_non_utf8_path 0 - -- bench allr -r 2 -b 1K --timing-only -n 1 -w 0 --topology "bad"$'\xff'"dir/t.json" --report-to-json-file u.json
expect_out "Avg bus bandwidth:"
if grep -q '"topology_file": "bad'$'\xef\xbf\xbd''dir/t.json"' "$(work)/u.json"; then
  pass=$((pass + 1)); else _fail "u.json: topology_file is not the path with U+FFFD"; fi

check bench_timing_only 0 - -- bench alltoall -r 8 -b 64K --timing-only --sb2sb
expect_out "n/a"
expect_out "no bytes copied (timing only)"

# One rank moves nothing, with data: the closing line must not call it a timing-only run.
check bench_one_rank 0 - -- bench allr -r 1 -b 4 -c random
expect_out "no bytes copied"
if grep -q "timing only" "$(work)/out"; then _fail "a functional run called timing only"; else
  pass=$((pass + 1)); fi

# All-to-all with every algorithm (D34), data checked.
check bench_a2a_rdh 0 - -- bench alltoall -r 8 -b 1K -e 64K -f 8 -c random --algorithm rdh --show-algorithm
expect_out "rdh        0"
check bench_a2a_ring 0 - -- bench alltoall -r 5 -d int8 -b 1 -e 4K -f 16 -c random --algorithm ring --show-algorithm
expect_out "ring        0"
check bench_a2a_hier 0 - -- bench alltoall --topology trn2.48xlarge --custom-replica-groups "$BENCH_DATA/groups_2chips.json" -b 4K -c random --algorithm hierarchical --show-algorithm
expect_out "hierarchical        0"
check bench_a2a_rdh_6 1 - -- bench alltoall -r 6 -b 4K --algorithm rdh
expect_err_first "sbrdma: error: --algorithm rdh needs a power-of-2 number of ranks per group, got 6"

check bench_trace 0 - -- bench permute -r 2 -b 4K --trace trace.json
if grep -q '"name":"steps"' "$(work)/trace.json"; then pass=$((pass + 1)); else _fail "trace lacks step boxes"; fi

# --trace-ranks: the trace shows those ranks' cores alone (positions in every group: groups
# {0,2,4,6} and {1,3,5,7} here), and the run, so its table, is the one without it.
check bench_trace_ranks_all 0 - -- bench allr -r 8 --data-parallel-dimension 4 -b 4K -n 1 -w 0 -c --trace all.json
grep -v '^# run:' "$(work)/out" >"$(work)/trace_all.txt"
check bench_trace_ranks 0 - -- bench allr -r 8 --data-parallel-dimension 4 -b 4K -n 1 -w 0 -c --trace some.json --trace-ranks 1,3-3
grep -v '^# run:' "$(work)/out" >"$(work)/trace_some.txt"
if cmp -s "$(work)/trace_all.txt" "$(work)/trace_some.txt"; then pass=$((pass + 1)); else
  _fail "--trace-ranks changed the table"; fi
trace_pids() { grep -o '"pid":[0-9]*' "$1" | sort -u | tr '\n' ' '; }
if [[ $(trace_pids "$(work)/some.json") == '"pid":2 "pid":3 "pid":6 "pid":7 ' ]]; then
  pass=$((pass + 1)); else _fail "--trace-ranks 1,3-3 traced: $(trace_pids "$(work)/some.json")"; fi
if [[ $(trace_pids "$(work)/all.json" | wc -w) == 8 ]]; then pass=$((pass + 1)); else
  _fail "the whole trace has $(trace_pids "$(work)/all.json")"; fi
if grep -q '"name":"steps"' "$(work)/some.json"; then pass=$((pass + 1)); else
  _fail "the ranks' trace lacks step boxes"; fi
check bench_trace_ranks_range 1 - -- bench allr -r 4 -b 4K --trace t.json --trace-ranks 2-4
expect_err "sbrdma: error: --trace-ranks: '4' is not a rank of the groups (a whole number, 0 to 3)"
expect_err_lines 1
check bench_trace_ranks_reversed 1 - -- bench allr -r 4 -b 4K --trace t.json --trace-ranks 0,3-1
expect_err "sbrdma: error: --trace-ranks: '3-1' ends before it starts"
check bench_trace_ranks_twice 1 - -- bench allr -r 4 -b 4K --trace t.json --trace-ranks 0-2,1
expect_err "sbrdma: error: --trace-ranks: rank 1 is listed twice"
check bench_trace_ranks_empty_item 1 - -- bench allr -r 4 -b 4K --trace t.json --trace-ranks 1,,2
expect_err "sbrdma: error: --trace-ranks: '1,,2' is not a list of ranks (N or N-M, joined by commas: 0-3,8)"
check bench_trace_ranks_no_trace 0 - -- bench allr -r 2 -b 1K -n 1 --trace-ranks 1
expect_err "bench: note: --trace-ranks 1: without --trace nothing is traced, so it has no effect"
# A bad list is refused with --trace or without it; an item is N or N-M.
check bench_trace_ranks_bad_no_trace 1 - -- bench allr -r 2 -b 1K -n 1 --trace-ranks 2
expect_err "sbrdma: error: --trace-ranks: '2' is not a rank of the groups (a whole number, 0 to 1)"
check bench_trace_ranks_two_dashes 1 - -- bench allr -r 4 -b 1K --trace t.json --trace-ranks 0-1-2
expect_err "sbrdma: error: --trace-ranks: '0-1-2' is not a list of ranks (N or N-M, joined by commas: 0-3,8)"

# Bad input: one clear message, exit 1.
check bench_bad_collective 1 - -- bench allreduce -r 2
expect_err "error: unknown collective 'allreduce' (one of: allr, allg, redsct, alltoall, sendrecv, permute; also all_reduce, all_gather, reduce_scatter, all_to_all)"
expect_err_lines 1
check bench_bad_topology 1 - -- bench allr -r 2 -b 1K --topology trn9
expect_err "error: --topology: unknown topology 'trn9' (built-in: trn2,"
expect_err_lines 1
check bench_bad_flag 1 - -- bench allr -r 2 --bogus
expect_err "--bogus"
# An output that cannot be written is refused before the run: no table, exit 1.
check bench_json_no_folder 1 - -- bench allr -r 2 -b 1K --report-to-json-file nofolder/r.json
expect_err "nofolder/r.json: error: cannot write: no folder nofolder"
expect_err_lines 1
if [[ -s "$(work)/out" ]]; then _fail "a table came before the refusal"; else pass=$((pass + 1)); fi
mkdir -p "$(work)/adir"
check bench_plot_is_dir 1 - -- bench allr -r 2 -b 1K --plot adir
expect_err "adir: error: cannot write: Is a directory"
expect_err_lines 1
check bench_trace_no_folder 1 - -- bench allr -r 2 -b 1K --trace nofolder/t.json
expect_err "nofolder/t.json: error: cannot write: no folder nofolder"
touch "$(work)/afile"
check bench_dump_under_a_file 1 - -- bench allr -r 2 -b 1K --dump-programs afile/progs
expect_err "afile/progs: error: cannot write: Not a directory"
expect_err_lines 1
# Links are followed: one that dangles into a missing folder, and a loop.
ln -s nofolder/r.json "$(work)/dangling"
check bench_json_dangling_link 1 - -- bench allr -r 2 -b 1K --report-to-json-file dangling
expect_err "dangling: error: cannot write: no folder nofolder"
# A report that cannot be written after the run (a full disk) fails it with nothing on stdout.
if [[ -w /dev/full ]]; then
  check bench_json_disk_full 1 - -- bench allr -r 2 -b 1K --report-to-json-file /dev/full
  expect_err "/dev/full: error: cannot write"
  expect_err_lines 2
  if [[ -s "$(work)/out" ]]; then _fail "a table was printed for a run that failed"; else
    pass=$((pass + 1)); fi
fi
ln -s aloop "$(work)/aloop"
check bench_dump_link_loop 1 - -- bench allr -r 2 -b 1K --dump-programs aloop/x
expect_err "aloop/x: error: cannot write: Too many levels of symbolic links"
expect_err_lines 1
check bench_dump_new_folders 0 - -- bench allr -r 2 -b 1K --dump-programs new/deeper
if [[ -s "$(work)/new/deeper/core0.s" ]]; then pass=$((pass + 1)); else _fail "no dump in new folders"; fi
# The dumped programs run under `sbrdma run` once joined, each after its `.core N` (as their
# header says): the same words, so the same simulated time as the bench's own run of them.
check bench_dump_to_run 0 - -- bench allr -r 2 -b 1K -n 1 -w 0 --timing-only --dump-programs runme
bench_us=$(awk '$1 == "1024" { print $4 }' "$(work)/out")
{ echo ".core 0"; cat "$(work)/runme/core0.s"; echo ".core 1"; cat "$(work)/runme/core1.s"; } >"$(work)/runme.s"
check bench_dump_runs 0 - -- run runme.s
expect_out "result: ok"
run_us=$(awk '/^simulated time:/ { printf "%.2f", $3 / 1000 }' "$(work)/out")
if [[ -n $bench_us && $bench_us == "$run_us" ]]; then pass=$((pass + 1)); else
  _fail "the joined dump ran in $run_us us, the bench's row says $bench_us us"; fi
# The folder itself runs too, each coreN.s on its core; the header says how.
check bench_dump_folder_runs 0 - -- run runme
expect_out "run runme on trn2; programmed cores: 0 1"
run_us=$(awk '/^simulated time:/ { printf "%.2f", $3 / 1000 }' "$(work)/out")
if [[ -n $bench_us && $bench_us == "$run_us" ]]; then pass=$((pass + 1)); else
  _fail "the dump folder ran in $run_us us, the bench's row says $bench_us us"; fi
if grep -q '`sbrdma run runme` with the bench'"'"'s --topology runs the folder'"'"'s coreN.s files' "$(work)/runme/core0.s"; then
  pass=$((pass + 1))
else _fail "the dump's header does not say how to run it"; fi
# Groups of one rank dump files without words: the row is 0, and `run` the folder is the
# rings' bring-up alone, one mmio_write_latency (docs/bench.md).
printf '%s\n' '[[0],[1],[2]]' >"$(work)/ones.json"
check bench_dump_no_words 0 - -- bench allr --custom-replica-groups ones.json -b 4K -n 1 -w 0 --timing-only --dump-programs no_words
expect_out "        4096            1024     fp32        0.00"
check bench_dump_no_words_runs 0 - -- run no_words --param mmio_write_latency=7
expect_out "simulated time: 7.000 ns"
expect_out "stats: 0 descriptors,"
# A folder a shell would split is named in the header as one word.
check bench_dump_folder_quoted 0 - -- bench allr -r 2 -b 1K -n 1 -w 0 --timing-only --dump-programs "run me"
if grep -q "\`sbrdma run 'run me'\` with the bench" "$(work)/run me/core0.s"; then
  pass=$((pass + 1))
else _fail "the dump's header does not name its folder as one word"; fi
# ... and one that starts with '-' as a path, which `run` does not read as an option.
check bench_dump_folder_dash 0 - -- bench allr -r 2 -b 1K -n 1 -w 0 --timing-only --dump-programs=-dumped
if grep -q "\`sbrdma run ./-dumped\` with the bench" "$(work)/-dumped/core0.s"; then
  pass=$((pass + 1))
else _fail "the dump's header names a folder starting with '-' as an option"; fi
check bench_dump_folder_dash_runs 0 - -- run ./-dumped
expect_out "result: ok"
# Dumped collectives run under --check-races (D49): an all-reduce of several iterations orders
# every access; so do forwarding all-gathers, whose iterations are fenced (D49b): each core
# credits the cores whose pieces it forwarded before they write them again. Their headers say
# nothing of races.
check bench_dump_allr_races 0 - -- bench allr -r 4 -b 64K -n 2 -w 1 --algorithm ring --timing-only --dump-programs allr_races
check bench_dump_allr_race_free 0 - -- run allr_races --check-races
expect_out "result: ok (no .expect: no error, nothing checked)"
# Core 0 forwards its ring predecessor's pieces (core 3's), and RDH's first partner's (core 1's).
for alg in ring rdh; do
  writer=3 && [[ $alg == rdh ]] && writer=1
  check "bench_dump_allg_${alg}_fenced" 0 - -- bench allg -r 4 -b 64K -n 2 -w 1 --algorithm $alg --timing-only --dump-programs "allg_$alg"
  check "bench_dump_allg_${alg}_race_free" 0 - -- run "allg_$alg" --check-races
  expect_out "result: ok (no .expect: no error, nothing checked)"
  if grep -q "# fence: core $writer's pieces of the last iteration are forwarded" "$(work)/allg_$alg/core0.s"; then
    pass=$((pass + 1))
  else _fail "the $alg all-gather dump has no fence credit from core 0 to core $writer"; fi
  if grep -q 'check-races' "$(work)/allg_$alg/core0.s"; then _fail "the $alg all-gather dump warns of races"; else
    pass=$((pass + 1)); fi
done
printf '[[0, 1, 2, 3, 8, 9, 10, 11]]' >"$(work)/spread8.json"  # two chips, four cores each
check bench_dump_allg_hier_fenced 0 - -- bench allg --topology trn2.48xlarge --custom-replica-groups "$(work)/spread8.json" -b 16K -n 2 -w 0 --algorithm hierarchical --timing-only --dump-programs allg_hier
check bench_dump_allg_hier_race_free 0 - -- run allg_hier --topology trn2.48xlarge --check-races
expect_out "result: ok (no .expect: no error, nothing checked)"
# --check-races runs the bench itself under the race checker: the fenced all-gather, with data
# (its check run too) and a tie seed, passes, and says so in the header and the JSON.
check bench_check_races 0 - -- bench allg -r 4 -b 64K -n 2 -w 1 --algorithm ring -c random --tie-seed 5 --check-races --report-to-json-file races.json
expect_out "same-tick events shuffled by tie seed 5, checked for races: none found"
if grep -qE 'checked for races: none found in [1-9][0-9]* accesses$' "$(work)/out"; then
  pass=$((pass + 1))
else _fail "the header does not count the accesses checked"; fi
if grep -q '"check_races": true' "$(work)/races.json" &&
  grep -qE '"race_checked_accesses": [1-9][0-9]*,' "$(work)/races.json"; then
  pass=$((pass + 1))
else _fail "races.json lacks check_races or the accesses checked"; fi
# Checked rows run one at a time: a --jobs past 1 is noted as having no effect.
check bench_check_races_jobs 0 - -- bench allg -r 4 -b 1K -e 4K -f 4 -n 2 --jobs 2 --check-races
expect_err "bench: note: --jobs 2: with --check-races the rows run one at a time (the race checker's memory is in no row's estimate), so --jobs has no effect"
check bench_no_check_races 0 - -- bench allg -r 4 -b 64K -n 2 --algorithm ring --report-to-json-file plain.json
if grep -q 'checked for races' "$(work)/out"; then _fail "a plain bench says it checked races"; else
  pass=$((pass + 1)); fi
if grep -q '"check_races": false' "$(work)/plain.json" &&
  grep -q '"race_checked_accesses": 0,' "$(work)/plain.json"; then
  pass=$((pass + 1))
else _fail "plain.json lacks check_races false or 0 accesses checked"; fi
# One iteration, or two ranks (which forward nothing): no fence.
check bench_dump_allg_one_iteration 0 - -- bench allg -r 4 -b 64K -n 1 -w 0 --algorithm ring --timing-only --dump-programs allg_once
check bench_dump_allg_two_ranks 0 - -- bench allg -r 2 -b 64K -n 2 -w 1 --algorithm ring --timing-only --dump-programs allg_two
for d in allg_once allg_two; do
  if grep -q 'fence' "$(work)/$d"/core*.s; then _fail "$d has a fence"; else pass=$((pass + 1)); fi
done
check bench_dump_allg_two_race_free 0 - -- run allg_two --check-races
expect_out "result: ok (no .expect: no error, nothing checked)"
check bench_dump_allg_once_race_free 0 - -- run allg_once --check-races
expect_out "result: ok (no .expect: no error, nothing checked)"
# A folder's file for a core the topology lacks names it; a word's error names its own file.
mkdir -p "$(work)/bigdump" && printf 'rdma_desc_start\n' >"$(work)/bigdump/core9.s" && printf 'rdma_desc_gen\n' >"$(work)/bigdump/core1.s" && printf 'x\n' >"$(work)/bigdump/core01.s"
check run_folder_errors 1 - -- run bigdump
expect_err "bigdump/core1.s:1: error: rdma_desc_gen: dma_engine_mask 0x0 selects 0 engines"
expect_err "bigdump/core9.s: error: core 9 does not exist (topology trn2 has 8 cores; trn2.48xlarge and trn2u have it: --topology NAME)"
expect_err "run: note: bigdump/core01.s: not read (coreN.s, N without leading zeros)"
expect_err_lines 3
# A FIFO or folder named like a core's file is not read (a FIFO would wait for a writer).
mkdir -p "$(work)/oddump" "$(work)/oddump/core2.s" && mkfifo "$(work)/oddump/core3.s" && cp "$(work)/runme/core0.s" "$(work)/oddump/core0.s"
check run_folder_odd_files 1 - -- run oddump
expect_err "run: note: oddump/core2.s: not read (not a regular file)"
expect_err "run: note: oddump/core3.s: not read (not a regular file)"
expect_out "programmed cores: 0"
mkdir -p "$(work)/nodump"
check run_folder_empty 1 - -- run nodump
expect_err "nodump: error: a folder of programs holds coreN.s files (as bench --dump-programs writes them); this one has none"
# A folder's expects and dumps come file by file, in core order (core10.s after core2.s), each
# by line.
mkdir -p "$(work)/orderdump" && printf '.expect sem core=2 idx=3 value=0\n.dump sbuf core=0 addr=0 bytes=4 partitions=0:1\n' >"$(work)/orderdump/core2.s" && printf '.dump sbuf core=1 addr=0 bytes=4 partitions=0:1\n.expect sem core=10 idx=3 value=0\n' >"$(work)/orderdump/core10.s"
check run_folder_report_order 0 - -- run orderdump --topology trn2.48xlarge
expect_out_lines "orderdump/core2.s:1: .expect sem core=2 idx=3 value=0: ok
orderdump/core2.s:2: .dump sbuf core=0 addr=0 bytes=4 partitions=0:1:
  p0 +0x0: 00 00 00 00
orderdump/core10.s:1: .dump sbuf core=1 addr=0 bytes=4 partitions=0:1:
  p0 +0x0: 00 00 00 00
orderdump/core10.s:2: .expect sem core=10 idx=3 value=0: ok
result: ok"
# A device error in a folder run is told at the file and line of the word it comes from.
mkdir -p "$(work)/errdump" && printf '# core 3 sends to chip 9\nrdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 remote_routing_id=9 dma_engine_mask=0x1 free_dim_bytes=64\nrdma_desc_start\n' >"$(work)/errdump/core3.s"
check run_folder_device_error_line 1 - -- run errdump
expect_err "errdump/core3.s:2: error: device: t="
expect_err "routes to chip 9, which does not exist (topology trn2 has 1 chip; trn2.48xlarge and trn2u have it: --topology NAME); word 0 wrote this descriptor (ring slot 0)"

check bench_b_above_e 1 - -- bench allr -r 2 -b 4K -e 1K
expect_err "error: -b 4096 is larger than -e 1024"
expect_err_lines 1
check bench_size_zero 1 - -- bench allr -r 2 -b 0
expect_err "error: -b: size 0: a collective needs at least one byte"
expect_err_lines 1
# A zero -e is itself the error (not "below -b's default", not "-b is larger").
check bench_max_size_zero 1 - -- bench allr -r 2 -e 0
expect_err "error: -e: size 0: a collective needs at least one byte"
expect_err_lines 1
check bench_max_size_zero_with_b 1 - -- bench allr -r 2 -b 1 -e 0
expect_err "error: -e: size 0: a collective needs at least one byte"
expect_err_lines 1
# The sweep's bounds do not wait for a good -d, -f or -i: every bad flag is told at once.
check bench_size_zero_bad_dtype 1 - -- bench allr -r 2 -d bad -b 0
expect_err "error: -d: unknown data type 'bad'"
expect_err "error: -b: size 0: a collective needs at least one byte"
expect_err_lines 2
check bench_size_zero_bad_factor 1 - -- bench allr -r 2 -b 0 -f 1
expect_err "error: -b: size 0: a collective needs at least one byte"
expect_err "error: -f: the factor must be at least 2"
expect_err_lines 2
# ... nor does the factor wait for good bounds.
check bench_bad_max_bad_factor 1 - -- bench allr -r 2 -b 4K -e bad -f 1
expect_err "error: -e: bad size 'bad'"
expect_err "error: -f: the factor must be at least 2"
expect_err_lines 2
check bench_max_below_default_bad_factor 1 - -- bench allr -r 2 -e 512K -f 1
expect_err "error: -e 524288 is below -b's default, 1M (1048576 B): give -b too"
expect_err "error: -f: the factor must be at least 2"
expect_err_lines 2
check bench_size_zero_bad_step 1 - -- bench allr -r 2 -b 0 -i 0
expect_err "error: -b: size 0: a collective needs at least one byte"
expect_err "error: -i: the step must be at least 1 byte"
expect_err_lines 2
check bench_sizes_reversed_bad_dtype 1 - -- bench allr -r 2 -d bad -b 4K -e 1K
expect_err "error: -b 4096 is larger than -e 1024"
expect_err_lines 2
check bench_bad_size 1 - -- bench allr -r 2 -b 12X
expect_err "error: -b: bad size '12X' (a number of bytes, decimal or 0x hex, then K/KB/KiB, M/MB/MiB or G/GB/GiB in any case)"
check bench_too_many_ranks 1 - -- bench allr -r 9
expect_err "error: -r 9: topology trn2 has only 8 cores (ranks)"
expect_err_lines 1
echo '[[0, 8, 16, 24], [1, 2, 9, 10]]' >"$(work)/groups_mixed.json"
# Groups laid out differently: each layout gets its own phases (D30d), data checked.
for op in allr allg redsct; do
  check bench_hier_groups_unalike_$op 0 - -- bench $op --topology trn2.48xlarge --custom-replica-groups groups_mixed.json -b 4K -e 64K -f 16 -n 2 -w 1 -c random --algorithm hier --show-algorithm
  expect_out " hierarchical        0"
done
# auto runs an all-reduce of such groups two-level where it runs RDH (from 1 MB), if each
# has more than one rank on a chip (D46): 4 chips x 2 beside 2 chips x 4.
echo '[[0, 1, 8, 9, 16, 17, 24, 25], [2, 3, 4, 5, 10, 11, 12, 13]]' >"$(work)/groups_mixed2.json"
check bench_hier_groups_unalike_auto 0 - -- bench allr --topology trn2.48xlarge --custom-replica-groups groups_mixed2.json -b 1M -n 2 -w 1 -c random --show-algorithm
expect_out "1048576          262144     fp32       34.46          30.43          53.26  hierarchical        0"
# Chips of different sizes (D30d lanes): -r 12 is 8 + 4 on trn2.48xlarge, data checked; auto
# keeps flat RDH for 8 + 4 + 4 (its two-level form is for chips of equal sizes, D46).
for op in allr allg redsct alltoall; do
  check bench_hier_chips_unequal_$op 0 - -- bench $op -r 12 --topology trn2.48xlarge -b 4K -e 1M -f 16 -n 2 -w 1 -c random --algorithm hier --show-algorithm
  expect_out " hierarchical        0"
done
# Eight rounds of 14-rank rings (8 ranks on one chip, 1 on each of 13 others) take more
# semaphores than a core has: the error says why.
echo '[[0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104]]' >"$(work)/groups_8x1.json"
check bench_hier_rounds_out_of_semaphores 1 - -- bench allr --topology trn2.48xlarge --custom-replica-groups groups_8x1.json -b 4K --algorithm hier
expect_err "sbrdma: error: 4096 B (hierarchical): out of semaphores: 253 are usable per core and all are taken before the ring's arrival slots (hierarchical over chips of 8 and 1 ranks runs its cross-chip phase in 8 rounds, each with its own semaphores, D30d; --algorithm ring takes fewer)"
expect_err_lines 1
echo '[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19]]' >"$(work)/groups_844.json"
check bench_hier_chips_unequal_auto 0 - -- bench allr --topology trn2.48xlarge --custom-replica-groups groups_844.json -b 1M -n 1 -w 0 --timing-only --show-algorithm
expect_out "rdh      n/a"
check bench_a2a_hier_groups_unalike 0 - -- bench alltoall --topology trn2.48xlarge --custom-replica-groups groups_mixed.json -b 4K -n 1 -w 0 -c random --algorithm hier
check bench_groups_malformed 1 - -- bench allr --custom-replica-groups "$BENCH_DATA/groups_malformed.json"
expect_err "groups_malformed.json:2: error: malformed JSON:"
expect_err_lines 1
check bench_groups_bad_rank 1 - -- bench allr --custom-replica-groups "$BENCH_DATA/groups_bad_rank.json"
expect_err "groups_bad_rank.json: error: /1/1: expected a rank (a core id, 0 or more), got \"three\""
check bench_groups_overlap 1 - -- bench allr --custom-replica-groups "$BENCH_DATA/groups_overlap.json"
expect_err "groups_overlap.json: error: /replica_groups/1/0: replica groups 0 and 1 overlap at rank 2"
expect_err_lines 1
# The checks on the topology name the offending rank or group by its JSON path too.
echo '[[0,1],[1,2]]' >"$(work)/groups_overlap_list.json"
check bench_groups_overlap_path 1 - -- bench allr -b 1K --custom-replica-groups groups_overlap_list.json
expect_err "groups_overlap_list.json: error: /1/0: replica groups 0 and 1 overlap at rank 1"
expect_err_lines 1
echo '[[0,1,0]]' >"$(work)/groups_twice.json"
check bench_groups_twice_path 1 - -- bench allr -b 1K --custom-replica-groups groups_twice.json
expect_err "groups_twice.json: error: /0/2: replica group 0: rank 0 appears twice"
echo '[[0,1],[2,8]]' >"$(work)/groups_not_core.json"
check bench_groups_not_core_path 1 - -- bench allr -b 1K --custom-replica-groups groups_not_core.json
expect_err "groups_not_core.json: error: /1/1: replica group 1: rank 8 is not a core of the topology (cores 0..7)"
echo '[[0,1],[2]]' >"$(work)/groups_sizes.json"
check bench_groups_sizes_path 1 - -- bench allr -b 1K --custom-replica-groups groups_sizes.json
expect_err "groups_sizes.json: error: /1: replica group 1 has 1 rank, group 0 has 2 (all groups must be the same size)"
# A key twice is refused, not read as its last value.
echo '{"replica_groups":[[0,1]],"replica_groups":[[0,1]]}' >"$(work)/groups_dup_key.json"
check bench_groups_duplicate_key 1 - -- bench allr -b 1K --custom-replica-groups groups_dup_key.json
expect_err 'groups_dup_key.json: error: /replica_groups: duplicate key "replica_groups"'
# A 10 MB key is echoed in the JSON path cut to 40 characters.
printf '{"replica_groups":[[0,1]],"%s":1}\n' "$(head -c 10000000 /dev/zero | tr '\0' k)" \
  >"$(work)/groups_long_key.json"
check bench_groups_long_key 1 - -- bench allr -b 1K --custom-replica-groups groups_long_key.json
expect_err "groups_long_key.json: error: /kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...: unknown field"
expect_err_bytes_below 200
expect_err_lines 1
# A long flag value is echoed cut to 40 characters, whichever flag it is given to.
long_value=$(head -c 5000 /dev/zero | tr '\0' v)
for flag in -d -o -b -e -i -f -c -t --algorithm --seed --tie-seed -n -w -N --data-parallel-dimension \
  --topology; do
  check "bench_long_value_${flag#-}" 1 - -- bench allr -r 2 "$flag" "$long_value"
  expect_err "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv..."
  expect_err_bytes_below 400
done
check bench_too_large 1 - -- bench allr -r 8 -b 32M --algorithm ring
expect_err "all-reduce of 33554432 B (fp32, 8 ranks, ring) needs"
expect_err "224 KiB fit: at most "
expect_err_lines 1
check bench_rdh_6 1 - -- bench allr -r 6 -b 4K --algorithm rdh
expect_err "error: --algorithm rdh needs a power-of-2 number of ranks per group, got 6"
expect_err_lines 1
check bench_check_timing_only 1 - -- bench allr -r 2 -c random --timing-only
expect_err "error: -c (data check) needs data: it cannot run with --timing-only"
check bench_bad_check 1 - -- bench allr -r 2 -c everything
expect_err "error: -c: unknown check 'everything' (random or all_ones)"
# A collective after -c when the run has one already is said to be a second collective.
check bench_check_second_collective 1 - -- bench allr -r 2 -b 1K -c permute
expect_err "error: -c: 'permute' is a collective, and this run's is allr already (-c takes random or all_ones)"
expect_err_lines 1
check bench_no_ranks 1 - -- bench allr
expect_err "error: -r: the number of ranks (at least 1) is required (or --custom-replica-groups)"
check bench_zero_ranks 1 - -- bench allr -r 0
expect_err "error: -r: '0' is not a number of ranks (a whole number, 1 to 4294967295)"
expect_err_lines 1
# Counts are read by sbrdma, not CLI11: a bad one names its flag and what it counts.
check bench_ranks_negative 1 - -- bench allr -r -1
expect_err "error: -r: '-1' is not a number of ranks (a whole number, 1 to 4294967295)"
expect_err_lines 1
check bench_ranks_past_32_bits 1 - -- bench allr -r 4294967296
expect_err "error: -r: '4294967296' is not a number of ranks (a whole number, 1 to 4294967295)"
# A count with an upper bound is out of its range past 64 bits too, not only too large: the
# message gives the range, as for 4294967296 (a flag with no bound, -f, says "does not fit").
check bench_ranks_past_64_bits 1 - -- bench allr -r 18446744073709551616
expect_err "error: -r: '18446744073709551616' is not a number of ranks (a whole number, 1 to 4294967295)"
expect_err_lines 1
check bench_jobs_past_64_bits 1 - -- bench allr -r 2 --jobs 99999999999999999999999
expect_err "error: --jobs: '99999999999999999999999' is not a number of rows at once (a whole number, 1 to 256)"
expect_err_lines 1
check bench_ranks_largest 1 - -- bench allr -r 4294967295
expect_err "error: -r 4294967295: topology trn2 has only 8 cores (ranks)"
check bench_iters_zero 1 - -- bench allr -r 2 -n 0
expect_err "error: -n: '0' is not a number of iterations (a whole number, 1 to 4294967295)"
check bench_iters_text 1 - -- bench allr -r 2 -n five
expect_err "error: -n: 'five' is not a number of iterations (a whole number, 1 to 4294967295)"
expect_err_lines 1
check bench_warmups_negative 1 - -- bench allr -r 2 -w -1
expect_err "error: -w: '-1' is not a number of warmup iterations (a whole number, 0 to 4294967295)"
expect_err_lines 1
check bench_counts_hex 0 - -- bench allr -r 0x2 -b 1K -n 0x1 -w 0 --timing-only
expect_out "# sbrdma bench allr: 2 ranks x 1 group on trn2"
# -e defaults to -b: a bad -b is told once.
check bench_bad_b_once 1 - -- bench allr -r 2 -b -1
expect_err "error: -b: bad size '-1' (a number of bytes, decimal or 0x hex, then K/KB/KiB, M/MB/MiB or G/GB/GiB in any case)"
expect_err_lines 1
# A number where the collective should be is an unknown option, as any other option there.
check bench_number_before_collective 1 - -- bench -1 allr -r 2
expect_err "sbrdma: error: unknown option '-1' for 'sbrdma bench'"
expect_err "run 'sbrdma bench --help' for usage"
expect_err_lines 2
# 64-bit flags are not wrapped ("-5") or saturated (past 2^64) on the way in.
check bench_seed_negative 1 - -- bench allr -r 2 -b 1K -c random --seed -5
expect_err "error: --seed: '-5' is not a whole number (0 or more, decimal or 0x-hex)"
expect_err_lines 1
check bench_seed_huge 1 - -- bench allr -r 2 -b 1K -c random --seed 18446744073709551616
expect_err "error: --seed: '18446744073709551616' does not fit in 64 bits"
check bench_seed_largest 0 - -- bench allr -r 2 -b 1K -c random --seed 18446744073709551615
expect_out "        1024             256     fp32"
check bench_tie_seed_negative 1 - -- bench allr -r 2 -b 1K -c random --tie-seed -5
expect_err "error: --tie-seed: '-5' is not a whole number (0 or more, decimal or 0x-hex)"
expect_err_lines 1
# A tie seed shuffles same-tick events (the header says so, the JSON keeps it), the data still
# checks right, and the seed reproduces its table.
check bench_tie_seed_a 0 - -- bench allr -r 8 -b 256K -c random --algorithm rdh --tie-seed 0x2a --report-to-json-file tie.json
expect_out "# sbrdma bench allr: 8 ranks x 1 group on trn2, fp32 sum, 5 iterations after 1 warmup, random data checked (seed 0), same-tick events shuffled by tie seed 42"
expect_out "      262144           65536     fp32       27.74           9.45          16.54        0"
if grep -q '"tie_seed": 42' "$(work)/tie.json"; then pass=$((pass + 1)); else _fail "tie.json lacks the tie seed"; fi
grep -v '^# run:' "$(work)/out" >"$(work)/tie_a.txt"
check bench_tie_seed_b 0 - -- bench allr -r 8 -b 256K -c random --algorithm rdh --tie-seed 42 --report-to-json-file tie.json
grep -v '^# run:' "$(work)/out" >"$(work)/tie_b.txt"
if cmp -s "$(work)/tie_a.txt" "$(work)/tie_b.txt"; then pass=$((pass + 1)); else _fail "a tie seed does not reproduce its table"; fi
check bench_tie_seed_0 0 - -- bench allr -r 8 -b 256K -c random --algorithm rdh
expect_out "fp32       27.73"
check bench_factor_negative 1 - -- bench allr -r 2 -b 1K -e 4K -f -2
expect_err "error: -f: '-2' is not a factor (a whole number, 2 or more)"
expect_err_lines 1
check bench_factor_huge 1 - -- bench allr -r 2 -b 1K -e 4K -f 18446744073709551616
expect_err "error: -f: '18446744073709551616' does not fit in 64 bits"
expect_err_lines 1
check bench_factor_word 1 - -- bench allr -r 2 -b 1K -e 4K -f two
expect_err "error: -f: 'two' is not a factor (a whole number, 2 or more)"
expect_err_lines 1
# nccom-test's guide: every number flag takes a size's units, -f too (-f 2kb is 2048); and the
# sizes read numbers as the other flags do (0x hex, '_' between digits).
check bench_factor_units 0 - -- bench allr -r 2 -b 4 -e 0x100_0000 -f 2kb --timing-only -n 1 -w 0
expect_out "           4               1     fp32"
expect_out "        8192            2048     fp32"
expect_out "    16777216         4194304     fp32"
if [ "$(grep -cE 'fp32 +[0-9]' "$(work)/out")" = 3 ]; then pass=$((pass + 1)); else _fail "-f 2kb: not three rows"; fi
check bench_size_grouped 0 - -- bench allr -r 2 -b 1_024 -e 0x800 -f 2 --timing-only -n 1 -w 0
expect_out "        1024             256     fp32"
expect_out "        2048             512     fp32"
check bench_size_grouped_bad 1 - -- bench allr -r 2 -b 1__024
expect_err "error: -b: bad size '1__024' (a number of bytes, decimal or 0x hex, then K/KB/KiB, M/MB/MiB or G/GB/GiB in any case)"
expect_err_lines 1
# auto in a list with others: its rows name auto's choice as auto:X, so that they differ from
# the rows of X itself (in the table, the breakdown and the rows' lines on stderr).
check bench_algorithm_list_auto 0 - -- bench allr -r 4 -b 1K --timing-only --algorithm auto,mesh,rdh -n 1 -w 0 --breakdown
expect_out "     size(B)    count(elems)     type    time(us)    algbw(GB/s)    busbw(GB/s)     algorithm   #wrong"
expect_out "        1024             256     fp32       20.73           0.05           0.07     auto:mesh      n/a"
expect_out "        1024             256     fp32       20.73           0.05           0.07          mesh      n/a"
expect_out "#       1024     auto:mesh"
expect_err "bench: allr 1K (1024 B), auto:mesh: 1 iteration in"
expect_err "bench: allr 1K (1024 B), mesh: 1 iteration in"
expect_out "Avg bus bandwidth (auto):"
# The widest name, auto:hierarchical, widens the column, in the table and the breakdown.
check bench_algorithm_list_auto_hier 0 - -- bench allr -r 32 --topology trn2.48xlarge -b 1M --algorithm auto,ring --breakdown --timing-only -n 1 -w 0
expect_out "busbw(GB/s)          algorithm   #wrong"
expect_out "#    size(B)          algorithm     gen  compute"
expect_out "#    1048576  auto:hierarchical   75.8%"
expect_out "#    1048576               ring   94.9%"
# auto alone keeps the plain name.
check bench_algorithm_auto_alone 0 - -- bench allr -r 4 -b 1K --timing-only --show-algorithm -n 1 -w 0
expect_out "fp32       20.73           0.05           0.07          mesh      n/a"
# A list compares what applies: an algorithm the groups rule out is left out, with a note,
# and the others run; one alone, or a list of which none applies, is an error.
check bench_algorithm_list_left_out 0 - -- bench allr -r 8 -b 64K -e 256K -f 4 --algorithm ring,hier,rdh --timing-only -n 1 -w 0
expect_err "bench: note: --algorithm hierarchical needs groups on more than one chip (group 0 is on one): left out of the list"
expect_out "       65536           16384     fp32 "
expect_out "          ring      n/a"
expect_out "           rdh      n/a"
expect_out "Avg bus bandwidth (rdh):"
if grep -q "hierarchical" "$(work)/out"; then _fail "a row of hierarchical"
else pass=$((pass + 1)); fi
check bench_algorithm_list_none_applies 1 - -- bench allr -r 6 -b 64K --algorithm rdh,hier --timing-only
expect_err "sbrdma: error: --algorithm rdh needs a power-of-2 number of ranks per group, got 6; --algorithm hierarchical needs groups on more than one chip (group 0 is on one)"
expect_err_lines 1
# The collective rules some out too: send/recv is ring only.
check bench_algorithm_list_collective 0 - -- bench sendrecv -r 2 -b 1K -n 1 -w 0 --timing-only --algorithm mesh,ring
expect_err "bench: note: --algorithm mesh does not apply to send/recv (use ring or auto): left out of the list"
expect_out "          ring      n/a"
check bench_algorithm_alone_does_not_apply 1 - -- bench allr -r 8 -b 64K --algorithm hier --timing-only
expect_err "sbrdma: error: --algorithm hierarchical needs groups on more than one chip (group 0 is on one)"
expect_err_lines 1
check bench_algorithm_twice 1 - -- bench allr -r 2 -b 1K --algorithm ring,mesh,ring
expect_err "error: --algorithm: ring is listed twice"
expect_err_lines 1
# An unknown name's message names the aliases too.
check bench_algorithm_unknown 1 - -- bench allr -r 2 -b 1K --algorithm hierarchic
expect_err "error: --algorithm: unknown algorithm 'hierarchic' (one of: auto, ring, mesh, rdh, hierarchical; also hier)"
expect_err_lines 1
# Every bad flag is reported, one line each, not only the first.
check bench_every_bad_flag 1 - -- bench allr -r 2 -d fp33 -o plus -c none -n 0 -t avg mean
expect_err "error: -d: unknown data type 'fp33' (one of: fp32, bf16, fp16, int32, uint32, int16, uint16, int8, uint8; also float32, bfloat16, float16)"
expect_err "error: -o: unknown reduction 'plus' (one of: sum, max, min)"
expect_err "error: -n: '0' is not a number of iterations (a whole number, 1 to 4294967295)"
expect_err "error: -c: unknown check 'none' (random or all_ones)"
expect_err "error: -t: unknown statistic 'mean' (avg, or pN for a percentile, N a whole number 1 to 100)"
expect_err_lines 5
expect_out_file /dev/null
# A bad topology is told with them (it needs no other flag).
check bench_bad_flag_and_topology 1 - -- bench allr -r 2 --topology nosuch -d foo
expect_err "error: -d: unknown data type 'foo'"
expect_err "error: --topology: unknown topology 'nosuch' (built-in: trn2,"
expect_err_lines 2
expect_out_file /dev/null
check bench_stat_twice 1 - -- bench allr -r 2 -b 1K -t avg p99 avg
expect_err "error: -t: avg is listed twice"
expect_err_lines 1
# Sizes past 64 bits, sweeps without end and iteration counts that overflow are refused.
check bench_size_overflow 1 - -- bench allr -r 2 -b 1 -e 17179869185G
expect_err "error: -e: size '17179869185G' does not fit in 64 bits"
expect_err_lines 1
# An -i sweep whose sizes round to one element count runs that count once (4 and 6 B of fp32).
check bench_step_rounds_once 0 - -- bench allr -r 2 -b 4 -e 12 -i 2
expect_out "           4               1     fp32"
expect_out "           8               2     fp32"
expect_out "          12               3     fp32"
if [[ "$(grep -cE '^ +[0-9]+ +[0-9]+ +fp32 ' "$(work)/out")" == 3 ]]; then pass=$((pass + 1)); else _fail "a size ran twice"; fi
expect_err_lines 3
check bench_endless_sweep 1 - -- bench allr -r 2 -b 1 -e 1G -i 1
expect_err "error: -b 1 to -e 1073741824 in steps of +1: more than 1000 sizes"
expect_err_lines 1
# A seed without -c fills nothing: said on stderr, and the run goes on.
check bench_seed_without_check 0 - -- bench allr -r 2 -b 1K -n 1 --seed 0x10
expect_err "bench: note: --seed 0x10: without -c no input data is filled, so the seed has no effect"
expect_err_lines 2
check bench_seed_with_check 0 - -- bench allr -r 2 -b 1K -n 1 --seed 0x10 -c
expect_err_lines 1
# Told whenever given, the default's value too (it was noted only past 0 and sum).
check bench_default_seed_and_op_noted 0 - -- bench allg -r 2 -b 1K -n 1 --seed 0 -o sum
expect_err "bench: note: -o sum: allg reduces nothing, so -o has no effect"
expect_err "bench: note: --seed 0: without -c no input data is filled, so the seed has no effect"
expect_err_lines 3
check bench_default_seed_and_op_used 0 - -- bench allr -r 2 -b 1K -n 1 --seed 0 -o sum -c
expect_err_lines 1
# Nor does all_ones use it.
check bench_seed_with_all_ones 0 - -- bench allg -r 2 -b 1K -n 1 --seed 5 -c all_ones
expect_err "bench: note: --seed 5: -c all_ones fills every element with 1, so the seed has no effect"
expect_err_lines 2
# The header names the data a check compares against: its kind, and the seed of random data.
expect_out "# sbrdma bench allg: 2 ranks x 1 group on trn2, fp32, 1 iteration after 1 warmup, all-ones data checked"
check bench_seed_in_header 0 - -- bench allg -r 2 -b 1K -n 1 --seed 5 -c random
expect_out "# sbrdma bench allg: 2 ranks x 1 group on trn2, fp32, 1 iteration after 1 warmup, random data checked (seed 5)"
# A group of one rank moves nothing: its trace is valid but has no events, and says so.
check bench_trace_one_rank 0 - -- bench allr -r 1 -b 4K -n 1 -w 0 --trace one.json
expect_err "bench: note: --trace: no core ran an instruction in the traced iteration"
if grep -q '"ph":' "$(work)/one.json"; then _fail "one rank's trace has events"; else pass=$((pass + 1)); fi
check bench_trace_two_ranks_no_note 0 - -- bench allr -r 2 -b 4K -n 1 -w 0 --trace two.json
expect_err_lines 1
# A flag error: told with the others (here -d's), before any size runs and without one.
check bench_iterations_overflow 1 - -- bench allr -r 2 -b 1K -n 4294967295 -w 1 -d foo
expect_err "error: -n 4294967295 and -w 1: more than 4294967295 iterations in all"
expect_err "error: -d: unknown data type 'foo'"
expect_err_lines 2
check bench_iterations_too_many 1 - -- bench allr -r 2 -b 1K -n 4294967295 -w 0 --timing-only
expect_err "4294967295 iterations (-n plus -w): their programs would pass 33554432 words in all at iteration 1677724, up to 20 words an iteration (at most 1677723 iterations at this size)"
expect_err_lines 1
if [[ -s "$(work)/out" ]]; then _fail "a table came before the refusal"; else pass=$((pass + 1)); fi
# A single size is refused as a sweep's is, counted by its largest iteration and at once
# (it was counted by its first, 248 words, let through and refused 2 GB of words later).
CHECK_SECONDS=60 check bench_single_size_words 1 - -- bench allr -r 8 -b 1K -n 100000 -w 0 --timing-only
expect_err "error: 1024 B (auto): 100000 iterations (-n plus -w): their programs would pass 33554432 words in all at iteration 92693, up to 362 words an iteration (at most 92692 iterations at this size)"
expect_err_lines 1
if [[ -s "$(work)/out" ]]; then _fail "a table came before the refusal"; else pass=$((pass + 1)); fi
# One that passes the limit before its words settle (512 relayed ranks: up to 513 iterations)
# too, by the count-only check, without storing 2^25 words first (2.3 GB and 7 s, as it did).
CHECK_SECONDS=120 check bench_single_size_words_unsettled 1 - -- bench allr -r 512 --topology trn2u --algorithm ring -b 1M -n 100 -w 0 --timing-only
expect_err "error: 1048576 B (ring): 100 iterations (-n plus -w): their programs would pass 33554432 words in all at iteration 10, up to 3630080 words an iteration (at most 9 iterations at this size)"
expect_err_lines 1
# A sweep whose later size passes the word limit is refused before its first size runs
# (its largest iteration: 1K takes 362 words, 64K 416, once every core's window of legs is
# full; 90000 iterations fit the first, not the second).
CHECK_SECONDS=60 check bench_sweep_words 1 - -- bench allr -r 8 -b 1K -e 64K -f 64 -n 90000 -w 0 --timing-only --algorithm mesh
expect_err "error: 65536 B (mesh): 90000 iterations (-n plus -w): their programs would pass 33554432 words in all at iteration 80661, up to 416 words an iteration (at most 80660 iterations at this size); the sweep runs whole up to -e 1K (1024 B)"
expect_err_lines 1
if [[ -s "$(work)/out" ]]; then _fail "a table came before the refusal"; else pass=$((pass + 1)); fi
# A rank past 32 bits is not cut down to a small one (4294967297 is not rank 1).
echo '[[0,4294967297]]' >"$(work)/groups_huge.json"
check bench_groups_huge_rank 1 - -- bench allr -b 1K --custom-replica-groups groups_huge.json
expect_err "groups_huge.json: error: /0/1: rank 4294967297 is too large"
# Past 64 bits too (the JSON reader keeps such an integer as a float).
printf '[[0, 18446744073709551617]]\n' >"$(work)/groups_past64.json"
check bench_groups_past_64_bits 1 - -- bench allr -b 1K --custom-replica-groups groups_past64.json
expect_err "groups_past64.json: error: /0/1: rank 1.8446744073709552e+19 is too large"
expect_err_lines 1

# nccom-test's own spellings and defaults (its documentation's examples run as written).
# Its multi-size example: kb/mb units, a bare --check right before the collective.
check nccom_doc_example 0 - -- bench -r 8 --minbytes 1kb --maxbytes 1mb --stepfactor 8 --datatype fp32 --check allg
expect_out "        1024             256     fp32"
expect_out "      524288          131072     fp32"
expect_out "        0"
expect_out "# sbrdma bench allg: 8 ranks x 1 group on trn2, fp32, 5 iterations"
check nccom_bare_check_last 0 - -- bench allg -r 2 -b 1K --check
expect_out "        1024             256     fp32"
expect_out "        0"
check nccom_units 0 - -- bench allr -r 2 -b 1KiB -e 2KB -f 2 --timing-only -n 1 -w 0
expect_out "        2048             512     fp32"
# No -f or -i: nccom-test's step, (-e - -b) / 10, so 11 sizes (rounded down to whole elements).
check nccom_default_step 0 - -- bench allr -r 2 -b 1000 -e 2000 --timing-only -n 1 -w 0
expect_out "        1100             275     fp32"
expect_out "        2000             500     fp32"
if [[ $(grep -cE '^ *[0-9]+ +[0-9]+ +fp32 ' "$(work)/out") -eq 11 ]]; then pass=$((pass + 1)); else
  _fail "expected 11 sizes from 1000 to 2000"; fi
# --stats (the long name nccom-test uses), any whole percentile, nccom-test's headings; the
# collective after the stats is the collective.
check nccom_stats 0 - -- bench -r 2 -b 1K -n 4 -w 0 --stats avg p25 p50 p90 p99 allr
expect_out "     size(B)    count(elems)     type  time:avg(us)  time:p25(us)  time:p50(us)  time:p90(us)  time:p99(us)    algbw(GB/s)    busbw(GB/s)   #wrong"
expect_out "        1024             256     fp32         10.01         10.01         10.01         10.01         10.01           0.10           0.10      n/a"
# A collective in the middle of the statistics is the collective too.
check nccom_stats_collective_inside 0 - -- bench --stats avg allr p50 -r 2 -b 1K -n 1 -w 0 --timing-only
expect_out "  time:avg(us)  time:p50(us)  "
check nccom_stat_p0 1 - -- bench allr -r 2 -b 1K -t p0
expect_err "error: -t: unknown statistic 'p0' (avg, or pN for a percentile, N a whole number 1 to 100)"
check nccom_stat_p101 1 - -- bench allr -r 2 -b 1K -t p101
expect_err "unknown statistic 'p101'"
check nccom_stat_p050 1 - -- bench allr -r 2 -b 1K -t p050
expect_err "unknown statistic 'p050'"
# The JSON rows carry nccom-test's keys (the table's headings) besides ours.
check nccom_json_keys 0 - -- bench allr -r 2 -b 1K -t avg p50 --report-to-json-file nk.json
for key in '"size(B)": 1024' '"count(elems)": 256' '"type": "fp32"' '"time:avg(us)": ' '"time:p50(us)": ' '"algbw(GB/s)": ' '"busbw(GB/s)": ' '"size": 1024'; do
  if grep -qF "$key" "$(work)/nk.json"; then pass=$((pass + 1)); else _fail "nk.json lacks $key"; fi
done
if grep -qF '"time:p99(us)"' "$(work)/nk.json"; then _fail "a statistic not asked for is in nk.json"; else
  pass=$((pass + 1)); fi
# -r counts every rank, as nccom-test's does: with groups, all the groups' ranks together.
echo '[[0,1],[2,3]]' >"$(work)/g22.json"
check nccom_r_is_total 0 - -- bench allr -r 4 -b 1K --custom-replica-group g22.json --timing-only -n 1 -w 0
expect_out "# sbrdma bench allr: 2 ranks x 2 groups on trn2"
check nccom_r_per_group_refused 1 - -- bench allr -r 2 -b 1K --custom-replica-groups g22.json
expect_err "error: -r 2 does not match --custom-replica-groups: -r counts all ranks, and the groups hold 4 (2 groups of 2)"
expect_err_lines 1
check nccom_too_many_ranks_hint 1 - -- bench allr -r 16
expect_err "error: -r 16: topology trn2 has only 8 cores (ranks); built-in topologies with enough: trn2.48xlarge (128), trn2u (512), trn1.32xlarge (32)"
# One node is simulated: -N 1 and --non-interactive are accepted, hosts are refused.
check nccom_one_node 0 - -- bench allr -r 2 -b 1K -N 1 --non-interactive --timing-only -n 1 -w 0
expect_out "        1024             256     fp32"
check nccom_empty_nodes 1 - -- bench allr -r 2 -b 1K -N ""
expect_err "error: -N '': one node (-N 1) is simulated;"
check nccom_two_nodes 1 - -- bench allr -r 2 -b 1K -N 2
expect_err "error: -N 2: one node (-N 1) is simulated; --topology picks the machine (built-in: trn2 (8), trn2.48xlarge (128), trn2u (512), trn1 (2), trn1.32xlarge (32))"
expect_err_lines 1
check nccom_hosts 1 - -- bench allr -r 2 -b 1K --hosts 10.0.0.1 10.0.0.2
expect_err "error: -s/--hosts: nothing runs on hosts here; the simulated machine is --topology"
expect_err_lines 1
check nccom_alltoallv 1 - -- bench alltoallv -r 2
expect_err "error: alltoallv is not simulated: nccom-test runs it only across nodes"
check nccom_no_collective 1 - -- bench -r 2
expect_err "error: the collective is required (one of: allr, allg, redsct, alltoall, sendrecv, permute)"
expect_err_lines 1
# Usage errors after the collective are told as plainly as before it.
check bench_unknown_option_after_collective 1 - -- bench allr -r 2 --bogus
expect_err "sbrdma: error: unknown option '--bogus' for 'sbrdma bench'"
expect_err "run 'sbrdma bench --help' for usage"
expect_err_lines 2
check bench_argument_too_many 1 - -- bench allr -r 2 extra1 extra2
expect_err "sbrdma: error: unexpected argument 'extra1' for 'sbrdma bench'"
expect_err_lines 2
# After "--" a help word is an argument like any other: here there is no place for it.
check bench_help_after_dashes 1 - -- bench allr -r 2 -b 1K -- --help
expect_err "sbrdma: error: unexpected argument '--help' for 'sbrdma bench'"
expect_err_lines 2
expect_out_file /dev/null
# The word named is the first without a place, not the help word after it.
check bench_word_then_help_after_dashes 1 - -- bench allr -r 2 -b 1K -- x --help
expect_err "sbrdma: error: unexpected argument 'x' for 'sbrdma bench'"
expect_err_lines 2
expect_out_file /dev/null
check disasm_words_then_help_after_dashes 1 - -- disasm -- a b --help
expect_err "sbrdma: error: unexpected argument 'b' for 'sbrdma disasm'"
expect_err_lines 2
check bench_option_twice 1 - -- bench allr -r 2 -b 1K -b 2K
expect_err "sbrdma: error: -b/--minbytes given more than once"
expect_err_lines 2
# -t takes several words at once; a second -t is refused too, not joined to the first.
check bench_stats_twice 1 - -- bench allr -r 2 -b 1K -n 1 -w 0 --stats avg --stats p50
expect_err "sbrdma: error: -t/--stats/--time-stats given more than once"
expect_err_lines 2
expect_out_file /dev/null
# More statistics than there are (avg and p1..p100): CLI11's count error, in our words.
check bench_stats_too_many 1 - -- bench allr -r 2 -b 1K -t avg $(seq -f p%g 1 100) p50
expect_err "sbrdma: error: -t/--stats/--time-stats: at most 101 values, got 102"
expect_err_lines 2
check bench_stats_once 0 - -- bench allr -r 2 -b 1K -n 1 -w 0 --timing-only -t avg p50
expect_out "time:avg(us)  time:p50(us)"
# -e alone below -b's default names the default, not a -b the user never gave.
check bench_e_below_default_b 1 - -- bench allr -r 2 -e 64K
expect_err "error: -e 65536 is below -b's default, 1M (1048576 B): give -b too"
expect_err_lines 1
# An empty step or factor (an unset variable in a script) is refused, not read as "not given".
check bench_empty_step 1 - -- bench allr -r 2 -i ""
expect_err "sbrdma: error: -i/--stepbytes: must not be empty"
expect_err_lines 1
# A sweep from below one element runs from the first size that holds one, and says so.
check bench_sweep_below_one_element 0 - -- bench allr -r 2 -b 3 -e 12 -f 2 -n 1 -w 0 --timing-only
expect_err "bench: note: 3 B: below one fp32 element (4 B), not run"
expect_out "           4               1     fp32"
expect_out "          12               3     fp32"
check bench_size_below_one_element 1 - -- bench allr -r 2 -b 1 -e 3 -i 1
expect_err "sbrdma: error: 1 B (auto): size 1 B holds no fp32 element (4 B)"
check bench_empty_minbytes 1 - -- bench allr -r 2 -b ""
expect_err "sbrdma: error: -b/--minbytes: must not be empty"
expect_err_lines 1
check bench_empty_factor 1 - -- bench allr -r 2 -f ""
expect_err "sbrdma: error: -f/--stepfactor: must not be empty"
# --show-input-output-size: a rank's input and output bytes, as nccom-test's example shows them
# for all-gather (32 B in, 1024 B out on 32 ranks); rank 0's when the blocks differ.
check nccom_io_sizes_allg 0 - -- bench allg -r 32 --topology trn2.48xlarge -b 1kb -n 1 -w 0 --timing-only --show-input-output-size --report-to-json-file io.json
expect_out "     size(B)    count(elems)  total_input_size(B)  total_output_size(B)     type    time(us)"
expect_out "        1024             256                   32                  1024     fp32"
if grep -qF '"total_input_size(B)": 32' "$(work)/io.json" && grep -qF '"total_output_size(B)": 1024' "$(work)/io.json"; then
  pass=$((pass + 1)); else _fail "io.json lacks the input and output sizes"; fi
check nccom_io_sizes_redsct 0 - -- bench redsct -r 3 -b 1000 -n 1 -w 0 --timing-only --show-input-output-size
expect_out "        1000             250                 1000                   336     fp32"
check nccom_io_sizes_alltoall 0 - -- bench alltoall -r 3 -b 1000 -n 1 -w 0 --timing-only --show-input-output-size
expect_out "        1000             250                 1000                  1008     fp32"
# --breakdown: where the time goes, after nccom-test's lines. A 1 KiB send/recv on 2 ranks spends
# 4.0 of its 5.84 us building descriptors (D16g): 68.5%.
check bench_breakdown 0 - -- bench sendrecv -r 2 -b 1K -n 2 --timing-only --breakdown --report-to-json-file bd.json
expect_out_lines "Avg bus bandwidth:      0.1754GB/s
# where the time goes (--breakdown, D45): shares of the measured iterations' simulated time
# gen, compute, wait: the ranks' GPSIMD cores (their mean) building descriptors, reducing, waiting (for data, semaphores, their own writes) or done; dma: their DMA engines busy; link: the busiest link direction
#    size(B)"
expect_out_lines "#    size(B)     algorithm     gen  compute    wait     dma    link  busiest link
#       1024          ring   68.5%     0.0%   31.5%    2.8%    0.1%  sbuf_port.core0 core0.sbuf->core0.dma
# run: "
if grep -qF '"breakdown": {' "$(work)/bd.json" && grep -qF '"busiest_link_name": "sbuf_port.core0 core0.sbuf->core0.dma"' "$(work)/bd.json"; then
  pass=$((pass + 1)); else _fail "bd.json lacks the breakdown"; fi
check bench_no_breakdown 0 - -- bench sendrecv -r 2 -b 1K -n 2 --timing-only
expect_out_lines "Avg bus bandwidth:      0.1754GB/s
# run: "
# --data-parallel-dimension D: -r ranks as groups of D, group k = ranks k, k + r/D, ...
check nccom_dp_dimension 0 - -- bench allr -r 8 -b 1K --data-parallel-dimension 2 -c random --dump-programs dpd
expect_out "# sbrdma bench allr: 2 ranks x 4 groups on trn2"
expect_out "        1024             256     fp32"
expect_out "        0"
if grep -q "rdma_desc_gen .*remote_core_id=4 " "$(work)/dpd/core0.s" &&
  ! grep -q "remote_core_id=[1235-7] " "$(work)/dpd/core0.s"; then
  pass=$((pass + 1)); else _fail "rank 0 is not grouped with rank 4 alone"; fi
check nccom_dp_dimension_uneven 1 - -- bench allr -r 8 --data-parallel-dimension 3
expect_err "error: --data-parallel-dimension 3 does not divide -r 8 into groups of that size"
expect_err_lines 1
check nccom_dp_dimension_zero 1 - -- bench allr -r 8 --data-parallel-dimension 0
expect_err "error: --data-parallel-dimension: '0' is not a number of ranks per group (a whole number, 1 to 8)"
check bench_argument_after_dashes 1 - -- bench allr -r 2 -- extra1 extra2
expect_err "sbrdma: error: unexpected argument 'extra1' for 'sbrdma bench'"
expect_err_lines 2
# After --, a word is an argument whatever it looks like, and is named whole.
check bench_option_like_after_dashes 1 - -- bench allr -r 2 -- -x
expect_err "sbrdma: error: unexpected argument '-x' for 'sbrdma bench'"
check bench_blank_after_dashes 1 - -- bench allr -r 2 -- "a b"
expect_err "sbrdma: error: unexpected argument 'a b' for 'sbrdma bench'"
check bench_collective_after_dashes 1 - -- bench -r 2 -- allr extra1
expect_err "sbrdma: error: unexpected argument 'extra1' for 'sbrdma bench'"
# -s is refused even when the collective was all it took.
check nccom_hosts_took_the_collective 1 - -- bench --hosts allr -r 2
expect_err "error: -s/--hosts: nothing runs on hosts here; the simulated machine is --topology"
expect_err_lines 1
check bench_number_after_options 1 - -- bench -r 2 -1 allr
expect_err "sbrdma: error: unknown option '-1' for 'sbrdma bench'"
check nccom_nodes_not_a_number 1 - -- bench allr -r 2 -N two
expect_err "error: -N two: one node (-N 1) is simulated; --topology picks the machine (built-in: "
expect_err_lines 1
check nccom_hosts_file_empty 1 - -- bench allr -r 2 --hosts-file ""
expect_err "sbrdma: error: --hosts-file: must not be empty"
check nccom_check_alltoallv 1 - -- bench -c alltoallv -r 2
expect_err "error: alltoallv is not simulated: nccom-test runs it only across nodes"
expect_err_lines 1
check nccom_dp_dimension_told_with_the_rest 1 - -- bench allr -r 8 -d fp33 --data-parallel-dimension 3
expect_err "error: -d: unknown data type 'fp33'"
expect_err "error: --data-parallel-dimension 3 does not divide -r 8 into groups of that size"
expect_err_lines 2
# A size near 2^64 is refused for the room it needs; the columns per partition do not wrap.
check bench_size_near_2_64 1 - -- bench allr -r 2 -b 18446744073709551615 -d uint8 --timing-only -n 1 -w 0
expect_err "needs 274877906944 MiB per SBUF partition for buffers and scratch; 224 KiB fit"
expect_out_file /dev/null
check bench_sendrecv_near_2_64 1 - -- bench sendrecv -r 2 -b 18446744073709551615 -d uint8 --timing-only -n 1 -w 0
expect_err "needs 274877906944 MiB per SBUF partition"

# Memory that runs out in an ordinary allocation (here the programs of 300000 iterations, under
# 500 MB) ends the same way: one line, exit 1, no table.
if ! sanitized; then
  CHECK_VMEM_KB=500000 check bench_out_of_memory 1 - -- bench allr -r 2 -b 1K -n 300000 -w 0 --timing-only
  # A timing-only run is not told to use --timing-only, nor fewer bytes.
  expect_err "sbrdma: error: out of memory: an allocation failed (a smaller run needs less: fewer ranks or iterations; the address-space limit is ulimit -v 500000)"
  expect_err_lines 1
  expect_out_file /dev/null
fi

# [CHOICE D43] A data run whose buffers cannot fit the host memory is refused before anything
# runs (here the last size of a sweep: no row is printed); one whose scratch may not fit is
# warned about and runs. SBRDMA_MEMORY_LIMIT stands for what the OS would report.
SBRDMA_MEMORY_LIMIT=10M check bench_memory_refused 1 - -- bench allr -r 8 -b 1K -e 4M -f 4 -c random -n 1 -w 0
expect_err "error: 4194304 B (auto): the simulated SBUFs need at least 32.0 MiB of host memory for the ranks' buffers, and 10.0 MiB is available (SBRDMA_MEMORY_LIMIT sets the figure to plan with); use fewer ranks, a smaller size or --timing-only"
expect_err_lines 1
expect_out_file /dev/null
SBRDMA_MEMORY_LIMIT=10M check bench_memory_one_size_refused 1 - -- bench allr -r 8 -b 4M -c random -n 1 -w 0
expect_err "need at least 32.0 MiB of host memory"
expect_out_file /dev/null
SBRDMA_MEMORY_LIMIT=10M check bench_memory_timing_only 0 - -- bench allr -r 8 -b 4M --timing-only -n 1 -w 0
expect_out "     4194304         1048576     fp32"
SBRDMA_MEMORY_LIMIT=8M check bench_memory_warned 0 - -- bench allr -r 8 -b 1M -c random -n 1 -w 0
expect_err "bench: allr 1M (1048576 B): warning: the simulation may need up to"
expect_row 1048576 262144 fp32
SBRDMA_MEMORY_LIMIT=10M check bench_memory_unchecked_warned 0 - -- bench allr -r 8 -b 4M -n 1 -w 0
expect_err "bench: allr 4M (4194304 B): warning: the simulation may need up to"
expect_out "     4194304         1048576     fp32"
SBRDMA_MEMORY_LIMIT= check bench_memory_limit_empty 0 - -- bench allr -r 8 -b 1M -c random -n 1 -w 0
expect_row 1048576 262144 fp32
# An address-space limit (ulimit -v) counts too, less what the process maps already: 16 MiB on
# 8 ranks maps their SBUFs whole (224 MiB) and is refused under 150 MB before it starts,
# where it used to run into the limit part way, an out-of-memory error.
if ! sanitized; then
  CHECK_VMEM_KB=150000 check bench_memory_address_space 1 - -- bench allr -r 8 -b 16M -c random -n 1 -w 0
  expect_err "error: 16777216 B (auto): the simulated SBUFs map at least 224 MiB of address space for the ranks' buffers (each SBUF partition written takes a whole partition's), and the address-space limit (ulimit -v) leaves "
  expect_err_lines 1
  expect_out_file /dev/null
  # In a sweep, a size is warned of against the room left when it starts: the 4K row's
  # mappings stay (360-430 MiB of the 781 MiB limit), and the 16M row's estimate (whole-backed
  # SBUFs, about 484 MiB in all) no longer fits what is left, though it fitted the room at the
  # start. Whether the row then runs out depends on the process's other mappings; at this
  # limit it runs.
  CHECK_VMEM_KB=800000 check bench_memory_address_space_sweep 0 - -- bench allr -r 8 -b 4K -e 16M -f 4096 -c random -n 1 -w 0
  expect_err "bench: allr 16M (16777216 B): warning: the simulation may map up to "
  expect_row 16777216 4194304 fp32
fi
SBRDMA_MEMORY_LIMIT=lots check bench_memory_limit_malformed 1 - -- bench allr -r 8 -b 1M -n 1 -w 0
expect_err "SBRDMA_MEMORY_LIMIT"
expect_out_file /dev/null

# bench.md's recipe: a dumped uint8 all-reduce on 2 ranks checks its own data once given
# .init and .expect lines (the buffer at byte 0, 8 bytes a partition).
check dump_recipe_dump 0 - -- bench allr -r 2 -b 1K -d uint8 -n 1 -w 0 --dump-programs recipe
printf '.init core=0 addr=0 bytes=8 pattern=const:1\n.init core=1 addr=0 bytes=8 pattern=const:2\n.expect sbuf core=0 addr=0 bytes=8 pattern=const:3\n.expect sbuf core=1 addr=0 bytes=8 pattern=const:3\n' >>"$(work)/recipe/core0.s"
check dump_recipe_run 0 - -- run recipe
expect_out "recipe/core0.s:14: .expect sbuf core=1 addr=0 bytes=8 pattern=const:3: ok"
expect_out "result: ok"
