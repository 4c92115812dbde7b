# --param NAME=VALUE: timing parameters set after the topology's (D47), on bench and run.

# A 1 KiB send/recv spends 4.0 of its 5.84 us building descriptors (D45): without the gen
# cost it takes 1.94 us, and the header and the JSON say what was changed.
check params_bench_gen 0 - -- bench sendrecv -r 2 -b 1K --timing-only --param q7_desc_gen_cost=0 --report-to-json-file params.json
expect_out "# sbrdma bench sendrecv: 2 ranks x 1 group on trn2 with q7_desc_gen_cost=0, fp32,"
expect_out "        1024             256     fp32        1.94 "
if [[ $(sed -n '/"params": {/,/}/p' "$(work)/params.json" | tr -d ' \n') == '"params":{"q7_desc_gen_cost":0.0},' ]]; then
  pass=$((pass + 1))
else _fail "params.json does not record the --param"; fi
check params_bench_default 0 - -- bench sendrecv -r 2 -b 1K --timing-only --report-to-json-file noparams.json
expect_out "# sbrdma bench sendrecv: 2 ranks x 1 group on trn2, fp32,"
expect_out "        1024             256     fp32        5.84 "
if grep -q '^  "params": {},$' "$(work)/noparams.json"; then
  pass=$((pass + 1))
else _fail "noparams.json has no empty params object"; fi

# The flag gives what a topology file's "params" give, and is set after them: the last wins.
printf '%s\n' '{"name":"trn2","chips":1,"params":{"q7_desc_gen_cost":0}}' >"$(work)/nogen.json"
check params_file 0 - -- bench sendrecv -r 2 -b 1K --timing-only --topology nogen.json
expect_out "        1024             256     fp32        1.94 "
check params_after_file 0 - -- bench sendrecv -r 2 -b 1K --timing-only --topology nogen.json --param q7_desc_gen_cost=25 --report-to-json-file nogen_out.json
expect_out "        1024             256     fp32        5.84 "
# A file that calls itself trn2 and sets parameters never passes for the built-in: the header,
# the JSON and run's first line name the file and what it sets (D47).
expect_out "# sbrdma bench sendrecv: 2 ranks x 1 group on trn2 (topology file nogen.json, which sets q7_desc_gen_cost=0) with q7_desc_gen_cost=25, fp32,"
if [[ $(sed -n '/^  "topology":/,/^  "dtype":/p' "$(work)/nogen_out.json" | tr -d ' \n') == '"topology":"trn2","topology_file":"nogen.json","topology_file_params":{"q7_desc_gen_cost":0.0},"params":{"q7_desc_gen_cost":25.0},"dtype":"fp32",' ]]; then
  pass=$((pass + 1))
else _fail "nogen_out.json does not name the topology file and both sets of parameters"; fi
if grep -q '^  "topology_file": null,$' "$(work)/noparams.json" && grep -q '^  "topology_file_params": {},$' "$(work)/noparams.json"; then
  pass=$((pass + 1))
else _fail "noparams.json: a built-in has no topology file"; fi
# The plot's title cuts the name and its note together, the name first, after a blank.
check params_file_plot 0 - -- bench sendrecv -r 2 -b 1K -e 2K --timing-only --topology nogen.json --plot nogen.svg
if grep -q '>sbrdma bench sendrecv: 2 ranks x 1 group on trn2 (topology file nogen.json, …, fp32<' "$(work)/nogen.svg"; then
  pass=$((pass + 1))
else _fail "the plot title does not name the topology file"; fi
printf '.core 0\nrdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0x1 free_dim_bytes=64\nrdma_desc_start\n' >"$(work)/one.s"
check params_run_file 0 - -- run one.s --topology nogen.json
expect_out "run one.s on trn2 (topology file nogen.json, which sets q7_desc_gen_cost=0); programmed cores: 0"
# The built-in's name alone is enough to be named; parameters alone are told as the file's.
printf '%s\n' '{"chips":2,"torus":[2]}' >"$(work)/trn2.json"
check params_file_named_builtin 0 - -- info topology trn2.json
expect_out "topology trn2 (topology file trn2.json): profile cayman, 2 chips"
printf '%s\n' '{"name":"slowlink","chips":1,"params":{"c2c_latency":400}}' >"$(work)/slowlink.json"
check params_file_own_name 0 - -- bench sendrecv -r 2 -b 1K --timing-only --topology slowlink.json
expect_out "on slowlink (its file sets c2c_latency=400), fp32,"
# A file read from a pipe is read once: info topology and info params --profile take it.
printf '%s\n' '{"name":"piped","chips":1,"params":{"c2c_latency":400}}' >"$(work)/piped.json"
check params_info_topology_pipe 0 piped.json -- info topology /dev/stdin
expect_out "topology piped: profile cayman"
expect_out "/dev/stdin sets c2c_latency=400"
check params_info_params_pipe 0 piped.json -- info params --profile /dev/stdin
expect_out "c2c_latency                400  ns    topology file "
# Several, in any order; a value with a fraction or an exponent (half the gen cost: 2.0 us less).
check params_several 0 - -- bench sendrecv -r 2 -b 1K --timing-only --param dma_fixed_cost=1.3e3 --param=q7_desc_gen_cost=12.5
expect_out "on trn2 with dma_fixed_cost=1300, q7_desc_gen_cost=12.5, fp32"
expect_out "        1024             256     fp32        3.84 "

# Bad values: one line each, exit 1, before anything runs.
check params_unknown 1 - -- bench sendrecv -r 2 -b 1K --param q7_desc_gen_cots=0
expect_err "sbrdma: error: --param: 'q7_desc_gen_cots=0': unknown parameter 'q7_desc_gen_cots' (did you mean 'q7_desc_gen_cost'? see \`sbrdma info params\`)"
expect_err_lines 1
# A name with its last word left out, or a word cut short, is found too.
check params_unknown_shortened 1 - -- bench sendrecv -r 2 -b 1K --param q7_desc_gen=0
expect_err "sbrdma: error: --param: 'q7_desc_gen=0': unknown parameter 'q7_desc_gen' (did you mean 'q7_desc_gen_cost'? see \`sbrdma info params\`)"
expect_err_lines 1
check params_unknown_abbreviated 1 - -- info params --param c2c_lat=1
expect_err "sbrdma: error: --param: 'c2c_lat=1': unknown parameter 'c2c_lat' (did you mean 'c2c_latency'? see \`sbrdma info params\`)"
expect_err_lines 1
check params_no_value 1 - -- bench sendrecv -r 2 -b 1K --param c2c_latency
expect_err "sbrdma: error: --param: 'c2c_latency': expected NAME=VALUE (a parameter of \`sbrdma info params\` and a number in its unit)"
check params_not_number 1 - -- bench sendrecv -r 2 -b 1K --param c2c_latency=0x10
expect_err "sbrdma: error: --param: 'c2c_latency=0x10': '0x10' is not a number"
check params_nan 1 - -- bench sendrecv -r 2 -b 1K --param c2c_latency=nan
expect_err "'nan' is not a number"
check params_range 1 - -- bench sendrecv -r 2 -b 1K --param c2c_bandwidth=0
expect_err "sbrdma: error: --param: 'c2c_bandwidth=0': a bandwidth must be >= 0.001 and <= 1e9 B/ns (GB/s)"
check params_huge 1 - -- bench sendrecv -r 2 -b 1K --param c2c_latency=1e400
expect_err "'c2c_latency=1e400': a time must be >= 0 and <= 1e9 ns"
check params_clock 1 - -- bench sendrecv -r 2 -b 1K --param gpsimd_clock=1.5
expect_err "a clock must be a whole number of MHz, 1 to 1e6"
check params_twice 1 - -- bench sendrecv -r 2 -b 1K --param c2c_latency=1 --param c2c_latency=2
expect_err "sbrdma: error: --param: c2c_latency is given twice"
# One value a flag: a second word is not taken as another parameter.
check params_one_value 1 - -- bench sendrecv -r 2 -b 1K --param c2c_latency=1 c2c_bandwidth=2
expect_err "sbrdma: error: unexpected argument 'c2c_bandwidth=2' for 'sbrdma bench'"
# Told with the other flags' errors.
check params_with_others 1 - -- bench sendrecv -r 2 -b 1K -n 0x --param c2c_latency=-1
expect_err "-n: "
expect_err "'c2c_latency=-1': a time must be >= 0 and <= 1e9 ns"
check params_help 0 - -- bench --help
expect_out "--param NAME=VALUE"

# `sbrdma run`: the same flag; the report's first line names what was set.
check params_run 0 - -- run "$DIR/../../examples/same_die_copy.s"
expect_out "simulated time: 7258.872 ns"
check params_run_fixed 0 - -- run "$DIR/../../examples/same_die_copy.s" --param dma_fixed_cost=0
expect_out "on trn2 with dma_fixed_cost=0; programmed cores: 0"
expect_out "simulated time: 5958.872 ns"
check params_run_bad 1 - -- run "$DIR/../../examples/same_die_copy.s" --param dma_fixed_cost=-5
expect_err "sbrdma: error: --param: 'dma_fixed_cost=-5': a time must be >= 0 and <= 1e9 ns"

# The value printed is the one the model keeps: times to 1 ps, bandwidths to 0.001 B/ns, no -0.
check params_rounded 0 - -- bench sendrecv -r 2 -b 1K --timing-only --param c2c_bandwidth=0.0015 --param c2c_latency=-0 --param dma_desc_cost=0.0001
expect_out "on trn2 with c2c_bandwidth=0.002, c2c_latency=0, dma_desc_cost=0, fp32"
# The name is checked first: an '=' in the value does not hide an unknown name.
check params_name_first 1 - -- bench sendrecv -r 2 -b 1K --param a=b=c
expect_err "sbrdma: error: --param: 'a=b=c': unknown parameter 'a' (see \`sbrdma info params\`)"

# The plot's title and the dumped programs' header name them too, and the dump runs under
# `run` with the same --param in the row's simulated time (it would not without it).
check params_outputs 0 - -- bench allr -r 2 -b 1K -n 1 -w 0 --timing-only --param dma_fixed_cost=0 --plot params.svg --dump-programs params_dump
bench_us=$(awk '$1 == "1024" { print $4 }' "$(work)/out")
if grep -q "on trn2 with dma_fixed_cost=0, fp32 sum" "$(work)/params.svg"; then pass=$((pass + 1)); else
  _fail "the plot's title does not name the --param"; fi
if head -2 "$(work)/params_dump/core0.s" | grep -q "on trn2 with dma_fixed_cost=0: core 0" &&
  head -2 "$(work)/params_dump/core0.s" | grep -q "with the bench's --topology and --param runs"; then
  pass=$((pass + 1))
else _fail "the dumped programs' header does not name the --param"; fi
{ echo ".core 0"; cat "$(work)/params_dump/core0.s"; echo ".core 1"; cat "$(work)/params_dump/core1.s"; } >"$(work)/params_dump.s"
check params_dump_runs 0 - -- run params_dump.s --param dma_fixed_cost=0
run_us=$(awk '/^simulated time:/ { printf "%.2f", $3 / 1000 }' "$(work)/out")
if [[ -n $bench_us && $bench_us == "$run_us" ]]; then pass=$((pass + 1)); else
  _fail "the joined dump ran in $run_us us with the --param, the bench's row says $bench_us us"; fi
check params_dump_runs_without 0 - -- run params_dump.s
run_us=$(awk '/^simulated time:/ { printf "%.2f", $3 / 1000 }' "$(work)/out")
if [[ -n $bench_us && $bench_us != "$run_us" ]]; then pass=$((pass + 1)); else
  _fail "the joined dump ran in the row's time ($run_us us) without the --param"; fi

# `info topology` takes it too: the links built from the parameters show the new values.
check params_info_topology 0 - -- info topology trn2.48xlarge --param c2c_bandwidth=128 --param c2c_latency=400
expect_out "topology trn2.48xlarge with c2c_bandwidth=128, c2c_latency=400: profile cayman, 16 chips"
expect_out "  272   c2c        chip0.die0    chip1.die0         128     400  c2c.x.chip0-chip1"
check params_info_topology_default 0 - -- info topology trn2.48xlarge
expect_out "  272   c2c        chip0.die0    chip1.die0         256     200  c2c.x.chip0-chip1"
check params_info_topology_bad 1 - -- info topology trn2 --param c2c_latency=x
expect_err "sbrdma: error: --param: 'c2c_latency=x': 'x' is not a number"

# `info params` shows the values a --param sets, as kept, with the flag as their source.
check params_info_params 0 - -- info params --param c2c_latency=400.0004 --param q7_desc_gen_cost=0
expect_out "timing parameters of profile cayman with c2c_latency=400, q7_desc_gen_cost=0 (B/ns = GB/s)"
expect_out "q7_desc_gen_cost             0  ns    --param "
expect_out "c2c_latency                400  ns    --param "
expect_out "dma_fixed_cost            1300  ns    DMA-BW"
# A topology file's parameters, as the bench runs them: the file's own, then --param.
printf '%s\n' '{"name":"slow","chips":1,"params":{"q7_desc_gen_cost":10,"c2c_latency":1234.5678}}' >"$(work)/slow.json"
check params_info_params_file 0 - -- info params --profile slow.json --param dma_fixed_cost=1000 --param c2c_latency=7
expect_out "timing parameters of topology slow.json (profile cayman; the file sets c2c_latency, q7_desc_gen_cost) with dma_fixed_cost=1000, c2c_latency=7 (B/ns = GB/s)"
expect_out "q7_desc_gen_cost            10  ns    topology file "
expect_out "c2c_latency                  7  ns    --param "
expect_out "dma_fixed_cost            1000  ns    --param "
expect_out "dma_desc_cost               16  ns    [CHOICE D16] "
check params_info_topology_file 0 - -- info topology slow.json --param c2c_latency=7
expect_out "topology slow with c2c_latency=7: profile cayman"
expect_out "slow.json sets c2c_latency=1234.568, q7_desc_gen_cost=10 (every parameter: sbrdma info params --profile slow.json)"
cp "$(work)/slow.json" "$(work)/slow (copy).json"
check params_info_topology_file_quoted 0 - -- info topology "slow (copy).json"
expect_out "slow (copy).json sets c2c_latency=1234.568, q7_desc_gen_cost=10 (every parameter: sbrdma info params --profile 'slow (copy).json')"
check params_info_params_file_kept 0 - -- info params --profile slow.json
expect_out "timing parameters of topology slow.json (profile cayman; the file sets c2c_latency, q7_desc_gen_cost) (B/ns = GB/s)"
expect_out "c2c_latency              1234.568  ns    topology file "
printf '%s\n' '{"chips":1,"params":{"q7_desc_gen":1}}' >"$(work)/badparam.json"
check params_info_params_file_bad 1 - -- info params --profile badparam.json
expect_err "badparam.json: error: /params/q7_desc_gen: unknown parameter 'q7_desc_gen' (did you mean 'q7_desc_gen_cost'? see \`sbrdma info params\`)"
expect_err_lines 1
check params_info_params_file_missing 1 - -- info params --profile missing.json
expect_err "missing.json: error: cannot open: No such file or directory"
check params_info_params_bad 1 - -- info params --param c2c_latncy=1
expect_err "sbrdma: error: --param: 'c2c_latncy=1': unknown parameter 'c2c_latncy' (did you mean 'c2c_latency'? see \`sbrdma info params\`)"

# A --param that no part of the topology takes is said to change nothing, and why.
check params_no_effect 0 - -- bench sendrecv -r 2 -b 1K --timing-only --param c2c_latency=400
expect_err "bench: note: --param c2c_latency=400 changes nothing on trn2: it has one chip, and no chip-to-chip link"
expect_out "on trn2 with c2c_latency=400, fp32,"
check params_no_effect_run 0 - -- run "$DIR/../../examples/same_die_copy.s" --param d2d_latency=1 --topology trn1.32xlarge
expect_err "run: note: --param d2d_latency=1 changes nothing on trn1.32xlarge: its chips have one die, and no die-to-die link"
check params_with_effect 0 - -- info topology trn2.48xlarge --param c2c_latency=1 --param d2d_latency=1
expect_err_lines 0
check params_no_effect_info 0 - -- info topology trn1 --param d2d_latency=1
expect_err "info topology: note: --param d2d_latency=1 changes nothing on trn1: its chips have one die, and no die-to-die link"
# Judged by the links' kinds, not their values: 128 GB/s is the Z link's own figure, yet
# c2c_bandwidth is still no Z link's.
printf '%s\n' '{"name":"allz","chips":2,"links":[{"from":0,"to":1,"z":true}]}' >"$(work)/allz.json"
check params_no_effect_z_links 0 - -- info topology allz.json --param c2c_bandwidth=128
expect_err "info topology: note: --param c2c_bandwidth=128 changes nothing on allz: every chip-to-chip link there is a Z link (c2c_z_bandwidth)"
# A faster engine rate alone is capped by the port bandwidths, which do not follow it.
check params_engine_rate_capped 0 - -- bench sendrecv -r 2 -b 8M --timing-only -n 1 -w 0 --param dma_engine_rate=46
expect_err "bench: note: --param dma_engine_rate=46: a core's 16 engines at 46 B/ns would stream 736 B/ns together, but sbuf_port_bandwidth (368 B/ns) and onchip_bandwidth (368 B/ns) cap them at 368 B/ns: the ports do not follow the rate; set them too"
check params_engine_rate_with_ports 0 - -- bench sendrecv -r 2 -b 8M --timing-only -n 1 -w 0 --param dma_engine_rate=46 --param sbuf_port_bandwidth=736 --param onchip_bandwidth=736
expect_out "       17.67 "
expect_err_lines 1
# The per-core sizes a program file ranges over: partitions and their bytes, semaphores, engines.
check info_topology_core_sizes 0 - -- info topology trn1
expect_out "each core: 128 SBUF partitions of 0x30000 (196608) bytes (an addr= range's bound), 256 semaphores, 16 DMA engines"
