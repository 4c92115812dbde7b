# `sbrdma info topology NAME|FILE` and `sbrdma info params [--profile P]`.
TOPO_DATA="$DIR/../data/topology"

check topo_default 0 - -- info topology
expect_out "topology trn2: profile cayman, 1 chip x 2 dies x 4 cores = 8 cores, single chip"
expect_out "die 0: cores 0-3  die 1: cores 4-7"
expect_out "core 7    chip 0   die 1 tpb 7"
expect_out "d2d.chip0"

check topo_trn2_48xl 0 - -- info topology trn2.48xlarge
expect_out "16 chips x 2 dies x 4 cores = 128 cores, torus 4 x 4"
expect_out "chip 15  routing_id 15  coords (3,3)"
expect_out "degree 4"
expect_out "c2c.x.chip0-chip1"
expect_out "c2c.y.chip0-chip4"

check topo_trn2u 0 - -- info topology trn2u
expect_out "64 chips x 2 dies x 4 cores = 512 cores, torus 4 x 4 x 4"
expect_out "degree 6"
expect_out "c2c        chip0.die0    chip16.die0        128     200  c2c.z.chip0-chip16"
expect_out "c2c        chip0.die0    chip1.die0         256     200  c2c.x.chip0-chip1"

check topo_trn1 0 - -- info topology trn1
expect_out "topology trn1: profile sunda, 1 chip x 1 die x 2 cores = 2 cores"
check topo_trn1_32xl 0 - -- info topology trn1.32xlarge
expect_out "16 chips x 1 die x 2 cores = 32 cores, torus 4 x 4"
expect_out "c2c        chip0.die0    chip1.die0          96     200  c2c.x.chip0-chip1"

check topo_file_ring4 0 - -- info topology "$TOPO_DATA/ring4.json"
expect_out "topology ring4: profile cayman, 4 chips x 2 dies x 4 cores = 32 cores, explicit links"
expect_out "c2c        chip2.die0    chip3.die0         128     400  c2c.chip2-chip3"

check topo_file_bad_link 1 - -- info topology "$TOPO_DATA/link_to_missing_chip.json"
expect_err "link_to_missing_chip.json: error: /links/3/to: chip 17 does not exist (16 chips)"
expect_err_first "$TOPO_DATA/link_to_missing_chip.json: error:"  # the file at fault heads it
expect_err_lines 1
# A key twice is refused, not read as its last value (here: 1 chip and an unrelated error).
check topo_file_duplicate_key 1 - -- info topology "$TOPO_DATA/duplicate_key.json"
expect_err 'duplicate_key.json: error: /chips: duplicate key "chips"'
expect_err_lines 1
check topo_file_duplicate_override 1 - -- info topology "$TOPO_DATA/duplicate_override.json"
expect_err "duplicate_override.json: error: /link_overrides/1: duplicate of /link_overrides/0 (chip 0 - chip 1)"
expect_err_lines 1
check topo_file_malformed 1 - -- info topology "$TOPO_DATA/bad_syntax.json"
expect_err "bad_syntax.json:3: error: malformed JSON:"
expect_err_lines 1
check topo_file_missing 1 - -- info topology "$TOPO_DATA/absent.json"
expect_err "absent.json: error: cannot open: No such file or directory"
check topo_unknown 1 - -- info topology trn9
expect_err_first "sbrdma: error: unknown topology 'trn9' (built-in: trn2, trn2.48xlarge, trn2u, trn1, trn1.32xlarge; or a JSON file)"
expect_err_lines 1

check params_default 0 - -- info params
expect_out "timing parameters of profile cayman"
expect_out "dma_engine_rate             23  B/ns  DMA-OV"
expect_out "dma_fixed_cost            1300  ns    DMA-BW"
expect_out "c2c_z_bandwidth            128  B/ns"
check params_sunda 0 - -- info params --profile sunda
expect_out "dma_engine_rate             17  B/ns"
expect_out "c2c_bandwidth               96  B/ns"
check params_mariana 0 - -- info params --profile mariana
expect_out "dma_engine_rate             33  B/ns"
# A built-in topology's name stands for its profile: trn1's is sunda, trn2u's cayman.
check params_sunda_again 0 - -- info params --profile sunda
cp "$(work)/out" "$(work)/sunda_params"
check params_of_topology 0 - -- info params --profile trn1.32xlarge
expect_out_file "$(work)/sunda_params"
check params_of_topology_cayman 0 - -- info params --profile trn2u
expect_out "timing parameters of profile cayman"
check params_unknown 1 - -- info params --profile maverick
expect_err_first "sbrdma: error: --profile: unknown profile 'maverick' (known: cayman, sunda, mariana)"
expect_err_lines 1

# The name heads run and bench output: an empty one is refused, not printed as 'on ;'.
printf '%s\n' '{"chips":1,"name":""}' >"$(work)/empty_name.json"
check topo_empty_name 1 - -- info topology empty_name.json
expect_err 'empty_name.json: error: /name: expected a non-empty string, got ""'
expect_err_lines 1
check run_topology_empty_name 1 - -- run "$DIR/../../examples/semaphore_only.s" --topology empty_name.json
expect_err 'empty_name.json: error: /name: expected a non-empty string, got ""'
expect_err_lines 1
# A name of spaces only is as empty ('on    ;'), and so is a file stem that gives it.
printf '%s\n' '{"chips":1,"name":"   "}' >"$(work)/blank_name.json"
check topo_blank_name 1 - -- info topology blank_name.json
expect_err 'blank_name.json: error: /name: expected a non-blank string, got "   "'
expect_err_lines 1
check bench_topology_blank_name 1 - -- bench allr -r 2 -b 1K --topology blank_name.json
expect_err 'blank_name.json: error: /name: expected a non-blank string, got "   "'
expect_err_lines 1
printf '%s\n' '{"chips":1}' >"$(work)/  .json"
check topo_blank_stem 1 - -- info topology "./  .json"
expect_err "./  .json: error: /: the file name, the topology's name when it gives none, is blank: give a \"name\""
expect_err_lines 1
# A parameter's key is a JSON path segment: '/' and '~' are escaped (RFC 6901), as in every
# other path.
printf '%s\n' '{"chips":1,"params":{"a/b~c":1}}' >"$(work)/slash_param.json"
check topo_slash_param 1 - -- info topology slash_param.json
expect_err "slash_param.json: error: /params/a~1b~0c: unknown parameter 'a/b~c'"
expect_err_lines 1

# A number past a double's range is malformed JSON like any other (nlohmann throws another
# exception for it), in every JSON input.
printf '{"chips": 1,\n "params": {"c2c_latency": -1e999}}\n' >"$(work)/huge_number.json"
check topo_huge_number 1 - -- info topology huge_number.json
expect_err "huge_number.json:2: error: malformed JSON: number overflow parsing '-1e999'"
expect_err_lines 1
printf '[[0, 1e400]]\n' >"$(work)/huge_groups.json"
check bench_groups_huge_number 1 - -- bench allr -b 1K --custom-replica-groups huge_groups.json
expect_err "huge_groups.json:1: error: malformed JSON: number overflow parsing '1e400'"
expect_out_file /dev/null
# Names go into UTF-8 headers, JSON reports and XML plots: a stem that is not UTF-8, or a
# noncharacter, is refused before the run.
printf '{"chips":1}\n' >"$(work)/$(printf 'n\xe9').json"
check bench_topology_latin1_stem 1 - -- bench allr -r 2 -b 1K -n 1 -w 0 --topology "$(printf 'n\xe9').json" --report-to-json-file rep.json
expect_err "n\xe9.json: error: /: the file name, the topology's name when it gives none, is not UTF-8 text that XML allows: \xe9 at byte 1: give a \"name\""
expect_err_lines 1
expect_out_file /dev/null
printf '{"chips":1,"name":"a\\uffffb"}\n' >"$(work)/nonchar.json"
check bench_topology_nonchar_name 1 - -- bench allr -r 2 -b 1K -n 1 -w 0 --topology nonchar.json --plot p.svg
expect_err "nonchar.json: error: /name: the name is not UTF-8 text that XML allows: \\xef\\xbf\\xbf at byte 1"
# Only the faulty bytes are quoted, not the good ones after them.
printf '{"chips":1}\n' >"$(work)/$(printf 'ab\xffcdef').json"
check bench_topology_bad_byte_mid_stem 1 - -- bench allr -r 2 -b 1K -n 1 -w 0 --topology "$(printf 'ab\xffcdef').json"
expect_err "is not UTF-8 text that XML allows: \xff at byte 2: give a \"name\""

# A name heads one-line outputs: at most 100 bytes, from the file or its stem. [D42]
n100=$(printf 'n%.0s' {1..100})
printf '{"chips":1,"name":"%s"}\n' "$n100" >"$(work)/name_100.json"
check topo_name_100 0 - -- info topology name_100.json
expect_out "$n100"
printf '{"chips":1,"name":"%sx"}\n' "$n100" >"$(work)/name_101.json"
check topo_name_101 1 - -- info topology name_101.json
expect_err 'name_101.json: error: /name: 101 bytes long; a name has at most 100'
expect_err_lines 1
printf '%s\n' '{"chips":1}' >"$(work)/${n100}x.json"
check topo_long_stem 1 - -- info topology "${n100}x.json"
expect_err "${n100}x.json: error: /: the file name, the topology's name when it gives none, is 101 bytes long (at most 100): give a \"name\""
expect_err_lines 1

# A 10 MB key is echoed in the JSON path (and the message) cut to 40 characters, as a value is.
key=$(head -c 10000000 /dev/zero | tr '\0' k)
cut=kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...
printf '{"chips":1,"params":{"%s":1}}\n' "$key" >"$(work)/long_param.json"
printf '{"chips":1,"links":[{"from":0,"%s":1}]}\n' "$key" >"$(work)/long_field.json"
printf '{"chips":1,"%s":1,"%s":2}\n' "${key:0:5000000}" "${key:0:5000000}" >"$(work)/long_dup.json"
printf '{"chips":1,"%s\n' "$key" >"$(work)/long_unclosed.json"
unset key
check topo_long_param_key 1 - -- info topology long_param.json
expect_err "long_param.json: error: /params/$cut: unknown parameter '$cut' (see \`sbrdma info params\`)"
expect_err_lines 1
expect_err_bytes_below 200
check topo_long_unknown_key 1 - -- info topology long_field.json
expect_err "long_field.json: error: /links/0/$cut: unknown field"
expect_err_bytes_below 200
check topo_long_duplicate_key 1 - -- info topology long_dup.json
expect_err "long_dup.json: error: /$cut: duplicate key \"${cut:1}"
expect_err_bytes_below 200
# So is a value refused by name: a 10 MB profile, in a file or given to --profile (as long as
# an argument may be).
printf '{"chips":1,"profile":"%s"}\n' "$(head -c 10000000 /dev/zero | tr '\0' p)" \
  >"$(work)/long_profile.json"
check topo_long_profile 1 - -- info topology long_profile.json
expect_err "long_profile.json: error: /profile: unknown profile 'ppppppppppppppppppppppppppppppppppppp...' (known: cayman, sunda, mariana)"
expect_err_bytes_below 200
check params_long_profile 1 - -- info params --profile "$(head -c 100000 /dev/zero | tr '\0' p)"
expect_err "error: --profile: unknown profile 'ppppppppppppppppppppppppppppppppppppp...' (known: cayman, sunda, mariana); or a built-in topology for its profile: trn2, trn2.48xlarge, trn2u, trn1, trn1.32xlarge; or a topology file (a path, or a name ending in .json)"
expect_err_bytes_below 300
# Malformed JSON quotes the token it stopped in: cut the same way.
check topo_long_unclosed_key 1 - -- info topology long_unclosed.json
expect_err "long_unclosed.json:1: error: malformed JSON: syntax error while parsing object key - invalid string: control character U+000A (LF) must be escaped to \\u000A or \\n; last read: '\"${cut:1}'; expected string literal"
expect_err_bytes_below 300

# A torus far past 64 chips is shown as written, every size of it.
printf '%s\n' '{"chips":4,"torus":[65536,65536,65536,65536]}' >"$(work)/huge_torus.json"
check topo_torus_past_64_chips 1 - -- info topology huge_torus.json
expect_err "huge_torus.json: error: /torus: 65536 x 65536 x 65536 x 65536 is not 4 chips (/chips)"
expect_err_lines 1

# Columns stay apart whatever the width of their values.
printf '%s\n' '{"chips":2,"links":[{"from":0,"to":1,"bandwidth_gbps":123456789.0125,"latency_ns":999999999.9999}]}' >"$(work)/wide.json"
check topo_wide_values 0 - -- info topology wide.json
expect_out " 123456789.013 1000000000  c2c.chip0-chip1"

# A symbolic link named like a topology is read as a file even where it leads nowhere: the
# error is why it cannot be opened, not "unknown topology".
ln -s loop2 "$(work)/loop1" && ln -s loop1 "$(work)/loop2" && ln -s nowhere "$(work)/dangling_topo"
check topology_symlink_loop 1 - -- info topology loop1
expect_err "loop1: error: cannot open: Too many levels of symbolic links"
check topology_symlink_dangling 1 - -- info topology dangling_topo
expect_err "dangling_topo: error: cannot open: No such file or directory"
# Chips without links, and an override of a chip with itself, say what is wrong.
printf '%s\n' '{"chips":2}' >"$(work)/nolinks.json"
check topology_no_links 1 - -- info topology nolinks.json
expect_err 'nolinks.json: error: /chips: 2 chips and no links between them: "links", "torus" or "mesh" connects them'
