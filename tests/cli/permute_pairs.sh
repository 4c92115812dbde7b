# `sbrdma bench permute --custom-src-target-pairs FILE`: nccom-test's permute along the pairs
# of a JSON file, one list per replica group or one for all, positions in the group (D30j).
PAIRS_DATA="$DIR/../data/bench"

# nccom-test's documented command (nccom-test.rst), with -b 1K: its file, its flag order.
cp "$PAIRS_DATA/pairs.json" "$(work)/pairs.json"
check pairs_nccom_doc 0 - -- bench -r 8 --custom-src-target-pairs pairs.json permute -b 1K -c random --report-to-json-file pairs_run.json
expect_out "# sbrdma bench permute: 8 ranks x 1 group on trn2, fp32, custom source-target pairs, 5 iterations"
expect_row 1024 256 fp32
# The report says which pairs ran.
if tr -d ' \n' <"$(work)/pairs_run.json" |
  grep -qF '"src_target_pairs":[[[0,1],[1,0],[2,3],[3,2],[4,4],[5,5],[6,6],[7,7]]]'; then
  pass=$((pass + 1)); else _fail "pairs_run.json does not record the pairs"; fi
check pairs_ring_report 0 - -- bench -r 2 permute -b 1K --timing-only -n 1 -w 0 --report-to-json-file ring_run.json
if grep -qF '"src_target_pairs": null' "$(work)/ring_run.json"; then pass=$((pass + 1)); else
  _fail "a ring permute's report names pairs"; fi

# The pairs, not the ring, are what runs: rank 1 sends to rank 0, rank 5 to itself.
check pairs_dump 0 - -- bench -r 8 --custom-src-target-pairs pairs.json permute -b 1K -c random -n 1 -w 0 --dump-programs pairs_dump
expect_row 1024 256 fp32
if grep -q "p2p: to position 0" "$(work)/pairs_dump/core1.s" &&
  grep -q "p2p: to position 5" "$(work)/pairs_dump/core5.s" &&
  ! grep -q "p2p: to position 2" "$(work)/pairs_dump/core1.s"; then
  pass=$((pass + 1)); else _fail "the dumped programs do not send along pairs.json"; fi

# The bare list; a 3-cycle (0 -> 2 -> 4 -> 0) and two ranks that keep their buffers.
check pairs_cycle3 0 - -- bench permute -r 5 -b 1000 -d bf16 -c random --custom-src-target-pairs "$PAIRS_DATA/pairs_cycle3.json"
expect_row 1000 500 bf16

# Two replica groups: a list each, or one for both (--data-parallel-dimension too).
echo '[[[0, 1], [1, 2], [2, 0]], [[0, 0], [1, 2], [2, 1]]]' >"$(work)/pairs_2x3.json"
check pairs_two_groups 0 - -- bench permute -b 999 -c random --custom-replica-groups "$PAIRS_DATA/groups_2x3.json" --custom-src-target-pairs pairs_2x3.json
expect_out "# sbrdma bench permute: 3 ranks x 2 groups on trn2"
expect_row 996 249 fp32
echo '{"src_target_pairs": [[[0, 3], [3, 0], [1, 1], [2, 2]]]}' >"$(work)/pairs_one_for_all.json"
check pairs_one_for_all 0 - -- bench permute -r 8 --data-parallel-dimension 4 -b 4K -c random --custom-src-target-pairs pairs_one_for_all.json
expect_out "# sbrdma bench permute: 4 ranks x 2 groups on trn2"
expect_row 4096 1024 fp32

# Refused, with one line naming the flag or the file's offending entry by its JSON path.
check pairs_not_permute 1 - -- bench allr -r 8 -b 1K --custom-src-target-pairs pairs.json
expect_err "error: --custom-src-target-pairs: only permute sends along source-target pairs, not allr"
expect_err_lines 1
check pairs_and_groups_both_stdin 1 - -- bench permute -b 1K --custom-replica-groups - --custom-src-target-pairs -
expect_err "error: --custom-replica-groups - and --custom-src-target-pairs -: only one of them can read standard input; give the other a file"
expect_err_lines 1
check pairs_out_of_range 1 - -- bench permute -r 4 -b 1K --custom-src-target-pairs pairs.json
expect_err "pairs.json: error: /src_target_pairs/0/4/0: group 0: position 4 is not in the group (positions 0..3)"
expect_err_lines 1
echo '[[[0, 1], [1, 0], [2, 0]]]' >"$(work)/pairs_twice.json"
check pairs_not_a_permutation 1 - -- bench permute -r 3 -b 1K --custom-src-target-pairs pairs_twice.json
expect_err "pairs_twice.json: error: /0/2/1: group 0: position 0 is the target of pairs 1 and 2"
echo '[[[0, 1], [1, 0]]]' >"$(work)/pairs_short.json"
check pairs_missing_position 1 - -- bench permute -r 3 -b 1K --custom-src-target-pairs pairs_short.json
expect_err "pairs_short.json: error: /0: group 0: position 2 is no pair's source"
check pairs_group_count 1 - -- bench permute -r 3 -b 1K --custom-src-target-pairs pairs_2x3.json
expect_err "pairs_2x3.json: error: /: 2 pair lists for 1 replica group: give one list per group, or one for every group"
echo '{"src_target_pairs": [[[0, 0]]], "src_target_pairs": [[[0, 0]]]}' >"$(work)/pairs_dup_key.json"
check pairs_duplicate_key 1 - -- bench permute -r 1 -b 1K --custom-src-target-pairs pairs_dup_key.json
expect_err 'pairs_dup_key.json: error: /src_target_pairs: duplicate key "src_target_pairs"'
printf '{"src_target_pairs":[[[0,0]]],"%s":1}\n' "$(head -c 10000000 /dev/zero | tr '\0' k)" \
  >"$(work)/pairs_long_key.json"
check pairs_long_key 1 - -- bench permute -r 1 -b 1K --custom-src-target-pairs pairs_long_key.json
expect_err "pairs_long_key.json: error: /kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk...: unknown field"
expect_err_bytes_below 200
check pairs_malformed 1 - -- bench permute -r 2 -b 1K --custom-src-target-pairs "$PAIRS_DATA/pairs_malformed.json"
expect_err "pairs_malformed.json:2: error: malformed JSON:"
expect_err_lines 1
check pairs_no_file 1 - -- bench permute -r 2 -b 1K --custom-src-target-pairs no_such_pairs.json
expect_err "no_such_pairs.json: error: cannot open: No such file or directory"
check pairs_empty_flag 1 - -- bench permute -r 2 -b 1K --custom-src-target-pairs ""
expect_err "error: --custom-src-target-pairs: must not be empty"

# The pairs file is an input of the run: no output may replace it.
check pairs_output_is_input 1 - -- bench permute -r 8 -b 1K --custom-src-target-pairs pairs.json --report-to-json-file pairs.json
expect_err "error: --report-to-json-file pairs.json: that is --custom-src-target-pairs (pairs.json), an input of this run"
mkdir -p "$(work)/pairs_in_dump"
cp "$PAIRS_DATA/pairs.json" "$(work)/pairs_in_dump/core3.s"
check pairs_dump_over_input 1 - -- bench permute -r 8 -b 1K --custom-src-target-pairs pairs_in_dump/core3.s --dump-programs pairs_in_dump
expect_err "error: --dump-programs pairs_in_dump: it may write a program over --custom-src-target-pairs (pairs_in_dump/core3.s), an input of this run"

# More iterations than semaphore slots (32) on a 34-cycle beside two fixed points: the cycle's
# slots are credited back by their receivers, the fixed points' are not (mixed in one group).
check pairs_credits_mixed_cycles 0 - -- bench permute -r 36 --topology trn2.48xlarge -b 512 -n 34 -w 0 -c random --custom-src-target-pairs "$PAIRS_DATA/pairs_cycle34.json" --dump-programs credits
expect_row 512 128 fp32
if grep -q "p2p: credit" "$(work)/credits/core1.s" && ! grep -q "p2p: credit" "$(work)/credits/core34.s"; then
  pass=$((pass + 1)); else _fail "credits are not where the cycles need them"; fi
