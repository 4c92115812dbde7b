# Top-level behaviour of the sbrdma binary.
check version 0 - -- --version
expect_out "sbrdma 0.1.0"
# --version stands alone: a word with it is a usage error, named as it would be without it
# (CLI11 printed the version and exited 0 whatever came before or after the flag).
check version_then_word 1 - -- --version x
expect_err "sbrdma: error: unexpected argument 'x' for 'sbrdma --version'"
expect_err "run 'sbrdma --help' for usage"
expect_err_lines 2
check version_then_command 1 - -- --version info ops
expect_err "sbrdma: error: unexpected argument 'info' for 'sbrdma --version'"
check version_after_dashes 1 - -- --version -- x
expect_err "sbrdma: error: unexpected argument 'x' for 'sbrdma --version'"
check word_then_version 1 - -- x --version
expect_err "sbrdma: error: unknown command 'x' for 'sbrdma' (one of: asm, disasm, decode, info, demo, run, bench)"
expect_err_lines 2
check version_then_unknown_option 1 - -- --version --bogus
expect_err "sbrdma: error: unknown option '--bogus' for 'sbrdma'"
check version_twice 1 - -- --version --version
expect_err "sbrdma: error: --version given more than once"
check command_then_version 1 - -- info ops --version
expect_err "sbrdma: error: unknown option '--version' for 'sbrdma info ops'"
# Help wins over every other word, --version too, as "sbrdma --help x" prints help.
check version_and_help 0 - -- --version --help
expect_out "Usage: sbrdma [OPTIONS] SUBCOMMAND"
check help_and_version 0 - -- --help --version
expect_out "Usage: sbrdma [OPTIONS] SUBCOMMAND"
check help 0 - -- --help
expect_out "asm"
expect_out "disasm"
expect_out "decode"
check unknown_subcommand 1 - -- frobnicate
expect_err "sbrdma: error: unknown command 'frobnicate' for 'sbrdma' (one of: asm, disasm, decode, info, demo, run, bench)"
expect_err "run 'sbrdma --help' for usage"
expect_err_lines 2
# A usage error names the command it belongs to, and the help that describes it.
check unknown_decode_form 1 - -- decode frob 12
expect_err "sbrdma: error: unknown command 'frob' for 'sbrdma decode' (one of: addr, desc, word)"
expect_err "run 'sbrdma decode --help' for usage"
expect_err_lines 2
check info_needs_a_form 1 - -- info
expect_err "sbrdma: error: 'sbrdma info' needs a command (one of: ops, regs, topology, params)"
expect_err "run 'sbrdma info --help' for usage"
expect_err_lines 2
# An unknown option before the command is named as such, not as a missing command.
check unknown_top_option 1 - -- --bogus
expect_err "sbrdma: error: unknown option '--bogus' for 'sbrdma'"
expect_err_lines 2
check unknown_option_before_collective 1 - -- bench --bogus=3 allr -r 2
expect_err "sbrdma: error: unknown option '--bogus=3' for 'sbrdma bench'"
expect_err "run 'sbrdma bench --help' for usage"
# A negative number is a command's argument, not an unknown option: the real error is told.
check negative_argument_not_an_option 1 - -- decode addr -1 --chip 99
expect_err "error: --chip: '99' is not a chip routing id (a whole number, 0 to 63)"
# Known options before the collective, joined values included, still run.
check bench_options_first 0 - -- bench -r2 --topology=trn2 allr -b 1K -n 1 -w 0
expect_out "2 ranks x 1 group on trn2"
check bench_usage_points_to_bench_help 1 - -- bench allr -r 2 -i 1K -f 2
expect_err "sbrdma: error: --stepfactor excludes --stepbytes"
expect_err "run 'sbrdma bench --help' for usage"
expect_err_lines 2
check run_needs_a_program 1 - -- run
expect_err "run 'sbrdma run --help' for usage"
# Output that cannot be written (a full disk) fails the command instead of exiting 0.
if [[ -w /dev/full ]]; then
  cur=stdout_full
  "$SBRDMA" info ops >/dev/full 2>"$(work)/err"
  rc=$?
  if [[ $rc -eq 1 ]]; then pass=$((pass + 1)); else _fail "exit $rc with stdout on /dev/full"; fi
  expect_err "sbrdma: error: cannot write standard output: No space left on device"
  expect_err_lines 1
  # So does help or the version that cannot be written (CLI11 prints them).
  for words in "--help" "--version" "run --help" "bench allr --help -r 2"; do
    cur="stdout_full_${words// /_}"
    # shellcheck disable=SC2086 # the words are split on purpose
    "$SBRDMA" $words >/dev/full 2>"$(work)/err"
    rc=$?
    if [[ $rc -eq 1 ]]; then pass=$((pass + 1)); else _fail "exit $rc with stdout on /dev/full"; fi
    expect_err "sbrdma: error: cannot write standard output: No space left on device"
    expect_err_lines 1
  done
fi
check run_argument_too_many 1 - -- run a.s b.s
expect_err "sbrdma: error: unexpected argument 'b.s' for 'sbrdma run'"
expect_err "run 'sbrdma run --help' for usage"
expect_err_lines 2

# A flag given twice is a usage error in every command, as an option given twice is.
printf 'rdma_desc_start\n' >"$(work)/twice.s"
check asm_flag_twice 1 - -- asm twice.s --hex --hex
expect_err "sbrdma: error: --hex given more than once"
expect_err "run 'sbrdma asm --help' for usage"
expect_err_lines 2
check disasm_flag_twice 1 - -- disasm --hex --hex -
expect_err "sbrdma: error: --hex given more than once"
check run_flag_twice 1 - -- run "$DIR/../../examples/ping_pong.s" --timing-only --timing-only
expect_err "sbrdma: error: --timing-only given more than once"
check run_no_abort_twice 1 - -- run "$DIR/../../examples/ping_pong.s" --no-ring-id-abort --no-ring-id-abort
expect_err "sbrdma: error: --no-ring-id-abort given more than once"
# A flag takes no value: "--timing-only=0" would otherwise turn it off without a word.
# "=true" too: a flag is on when given, it takes no value at all.
check bench_flag_value_true 1 - -- bench allr -r 2 -b 1K -n 1 -w 0 --timing-only=true
expect_err "sbrdma: error: --timing-only takes no value (give it to turn it on)"
expect_err_lines 2
expect_out_file /dev/null
check run_flag_value_true 1 - -- run x.s --no-ring-id-abort=true
expect_err "sbrdma: error: --no-ring-id-abort takes no value (give it to turn it on)"
check bench_flag_value 1 - -- bench allr -r 2 -b 1K -n 1 -w 0 --timing-only=0
expect_err "sbrdma: error: --timing-only takes no value (give it to turn it on)"
expect_err "run 'sbrdma bench --help' for usage"
expect_err_lines 2
expect_out_file /dev/null
check asm_flag_value 1 - -- asm twice.s --hex=1
expect_err "sbrdma: error: --hex takes no value (give it to turn it on)"
check bench_flag_twice 1 - -- bench allr -r 2 -b 1K --show-algorithm --show-algorithm
expect_err "sbrdma: error: --show-algorithm given more than once"
expect_err_lines 2

# --chip and --die read numbers as every number on the line is (decimal, 0x-hex, '_'), and a
# bad one is told by its flag.
check addr_chip_decimal 0 - -- decode addr 0x0052_8000_0010_0000 --chip 010
expect_out "route from chip 10 die 0"
check addr_chip_hex 0 - -- decode addr 0x0052_8000_0010_0000 --chip 0x1_0
expect_out "route from chip 16 die 0"
# A '_' groups digits only between two of them: a stray one is no number.
for bad in 0x_10 1_ _1 1__0; do
  check "addr_chip_underscore_$bad" 1 - -- decode addr 0 --chip "$bad"
  expect_err "error: --chip: '$bad' is not a chip routing id (a whole number, 0 to 63)"
done
check bench_ranks_underscore 1 - -- bench allr -r 8_ -b 1K
expect_err "error: -r: '8_' is not a number of ranks (a whole number, 1 to 4294967295)"
check addr_chip_fraction 1 - -- decode addr 0 --chip 3.0
# A flag's bad value is the program's error, named as the parser's usage errors are.
expect_err_first "sbrdma: error: --chip: '3.0' is not a chip routing id (a whole number, 0 to 63)"
expect_err_lines 1
check addr_chip_binary 1 - -- decode addr 0 --chip 0b11
expect_err "error: --chip: '0b11' is not a chip routing id (a whole number, 0 to 63)"
check addr_die_too_large 1 - -- decode addr 0 --die 2
expect_err "error: --die: '2' is not a die (a whole number, 0 to 1)"

# File names are user text: a control byte in one is echoed as \xNN, in errors and in the
# run's header, never sent to the terminal.
# So is every flag value and word a message quotes, whoever wrote the message (CLI11 too).
check flag_value_escaped 1 - -- bench allr -r 2 -b $'1\x1b[31mK'
expect_err "error: -b: bad size '1\x1b[31mK' ("
expect_err_lines 1
check run_log_value_escaped 1 - -- run x.s --log $'de\x1b[31mbug'
expect_err "sbrdma: error: --log: unknown level 'de\x1b[31mbug' (info or debug)"
expect_err_lines 1
check cli11_option_escaped 1 - -- run x.s --lo$'\x1b[31m'g debug
expect_err "sbrdma: error: unknown option '--lo\x1b[31mg' for 'sbrdma run'"
# A bad level is told as every other bad value is, in one line (not as a usage error).
check run_log_unknown 1 - -- run x.s --log trace
expect_err "sbrdma: error: --log: unknown level 'trace' (info or debug)"
expect_err_lines 1
printf '{"chips":1,"profile":"\\u0000tail"}' >"$(work)/nulprofile.json"
check json_nul_value_escaped 1 - -- info topology nulprofile.json
expect_err "nulprofile.json: error: /profile: unknown profile '\x00tail' (known: cayman, sunda, mariana)"
check asm_missing_file_escaped 1 - -- asm $'no\x1b[31mred'
expect_err 'no\x1b[31mred: error: cannot open: No such file or directory'
printf 'frob\n' >"$(work)/f"$'\x1b'"x.s"
check asm_error_file_escaped 1 - -- asm "f"$'\x1b'"x.s"
expect_err 'f\x1bx.s:1: error: unknown mnemonic'
cp "$DIR/../../examples/ping_pong.s" "$(work)/p"$'\x1b'".s"
check run_header_escaped 0 - -- run "p"$'\x1b'".s"
expect_out 'run p\x1b.s on trn2'
expect_out 'p\x1b.s:23: .expect sem core=0 idx=3 value=16: ok'
cur=no_escape_byte_out
if grep -q $'\x1b' "$(work)/out" "$(work)/err"; then _fail "an ESC byte reached the output"; else
  pass=$((pass + 1)); fi
# Standard input has one name, in the header as in the expects' lines.
check run_stdin_name 0 "$DIR/../../examples/ping_pong.s" -- run -
expect_out "run <stdin> on trn2"
expect_out "<stdin>:23: .expect sem core=0 idx=3 value=16: ok"
# An empty file name is refused by its argument's name, as an empty -o is.
check run_empty_program 1 - -- run ""
expect_err "sbrdma: error: PROGRAM: must not be empty"
expect_err_lines 1
check asm_empty_file 1 - -- asm ""
expect_err "sbrdma: error: FILE: must not be empty"
check info_topology_empty 1 - -- info topology ""
expect_err "sbrdma: error: NAME|FILE: must not be empty"
# An option without its value: the line's end, or another option where the value should be
# (CLI11 alone took "-r" as -b's value and blamed the "2"; -t took "-n" and "1" as statistics).
check bench_value_missing_before_option 1 - -- bench allr -b -r 2
expect_err "sbrdma: error: -b/--minbytes needs a value (the next word, '-r', is an option)"
expect_err "run 'sbrdma bench --help' for usage"
expect_err_lines 2
expect_out_file /dev/null
check bench_stats_missing_before_option 1 - -- bench allr -r 2 -b 1K -t -n 1
expect_err "sbrdma: error: -t/--stats/--time-stats needs a value (the next word, '-n', is an option)"
check bench_value_missing_at_end 1 - -- bench allr -r 2 -b
expect_err "sbrdma: error: -b/--minbytes needs a value"
expect_err_lines 2
check bench_long_value_missing 1 - -- bench allr -r 2 --maxbytes --seed 3
expect_err "sbrdma: error: -e/--maxbytes needs a value (the next word, '--seed', is an option)"
check asm_value_missing 1 - -- asm twice.s -o --hex
expect_err "sbrdma: error: -o/--output needs a value (the next word, '--hex', is an option)"
expect_err "run 'sbrdma asm --help' for usage"
# "--name=" gives no value: CLI11 alone took the next word as it, and "asm --output= FILE"
# read standard input and wrote its words over FILE.
cp "$(work)/twice.s" "$(work)/victim.s"
check asm_empty_value_after_equals 1 - -- asm --output= victim.s
expect_err "sbrdma: error: -o/--output needs a value ('--output=' has none after the '=')"
expect_err "run 'sbrdma asm --help' for usage"
expect_err_lines 2
expect_out_file /dev/null
if cmp -s "$(work)/twice.s" "$(work)/victim.s"; then pass=$((pass + 1)); else
  _fail "asm --output= changed the file after it"; fi
check decode_empty_value_after_equals 1 - -- decode desc --chip= 3 04000001000000000c18700228000000
expect_err "sbrdma: error: --chip needs a value ('--chip=' has none after the '=')"
check decode_empty_value_after_equals_at_end 1 - -- decode addr 0x0 --die=
expect_err "sbrdma: error: --die needs a value ('--die=' has none after the '=')"
expect_err_lines 2
check bench_empty_value_after_equals 1 - -- bench allr --nworkers= 2
expect_err "sbrdma: error: -r/--nworkers needs a value ('--nworkers=' has none after the '=')"
# ... and an option whose value is optional: CLI11 took "all_ones" after "--check=".
check bench_optional_value_after_equals 1 - -- bench allr -r 2 -b 1K -n 1 -w 0 --check= all_ones
expect_err "sbrdma: error: -c/--check: '--check=' has no value after the '=' (give the option alone, or a value after the '=')"
expect_out_file /dev/null
# "-x=" gave "=" as the value: "asm -o=" wrote a file named "=".
check asm_short_empty_value_after_equals 1 - -- asm -o= twice.s
expect_err "sbrdma: error: -o/--output needs a value ('-o=' has none after the '=')"
if [[ -e "$(work)/=" ]]; then _fail "asm -o= wrote a file named ="; else pass=$((pass + 1)); fi
check bench_short_empty_value_after_equals 1 - -- bench allr -r 2 -t= avg
expect_err "sbrdma: error: -t/--stats/--time-stats needs a value ('-t=' has none after the '=')"
# "-x=VALUE" is VALUE, as nccom-test's argparse reads it (CLI11 took "=VALUE").
check bench_short_value_after_equals 0 - -- bench allr -r=2 -b=1K -n=1 -w=0 -c=all_ones -d=bf16
expect_out "2 ranks x 1 group on trn2, bf16 sum, 1 iteration after 0 warmups, all-ones data checked"
echo rdma_desc_start >"$(work)/eq.s"
check asm_short_value_after_equals 0 - -- asm eq.s -o=eq.bin
if [[ -s "$(work)/eq.bin" && ! -e "$(work)/=eq.bin" ]]; then pass=$((pass + 1)); else
  _fail "asm -o=eq.bin did not write eq.bin"; fi
# Help where the value should be is help (CLI11 alone wrote asm's program to a file named
# --help and exited 0, and bench called '--help' a bad size).
check asm_help_as_value 0 - -- asm -o --help
expect_out "Usage: sbrdma asm [OPTIONS] [FILE]"
if [[ -e "$(work)/--help" ]]; then _fail "asm wrote a file named --help"; else
  pass=$((pass + 1)); fi
check bench_help_as_value 0 - -- bench allr -r 2 -b -h
expect_out "Usage: sbrdma bench [OPTIONS] [COLLECTIVE]"
expect_err_lines 0
check decode_help_as_value 0 - -- decode addr --profile --help 0x0
expect_out "Usage: sbrdma decode addr [OPTIONS] ADDR"
# A value that only looks like an option is still a value: the command judges it.
check bench_negative_value_is_a_value 1 - -- bench allr -r -1
expect_err "error: -r: '-1' is not a number of ranks"
