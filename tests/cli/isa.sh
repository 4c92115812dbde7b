# sbrdma asm / disasm / decode word / info ops (sourced by tests/tools/run_cli_tests.sh).
D=$DIR/../data/isa

# The canonical text of a golden file (its instruction lines) and its hand-written bytes.
isa_text() { grep -v -e '^#' -e '^[[:space:]]*$' "$1"; }
isa_hex() { sed 's/#.*//' "$1" | tr -d ' \t\n' | fold -w 128; echo; }
isa_bin() { printf '%b' "$(sed 's/#.*//' "$1" | tr -d ' \t\n' | sed 's/../\\x&/g')"; }

for op in rdma_desc_gen rdma_desc_start sb2sb_collective ext_tensor_tensor_arith event_semaphore ext_opaque raw; do
  isa_text "$D/golden_$op.s" >"$(work)/$op.txt"
  isa_hex "$D/golden_$op.bytes" >"$(work)/$op.hex"
  isa_bin "$D/golden_$op.bytes" >"$(work)/$op.bin"

  # text -> exact bytes (stdout), and the same through -o
  check "asm_$op" 0 - -- asm "$D/golden_$op.s"
  expect_out_file "$(work)/$op.bin"
  check "asm_o_$op" 0 - -- asm "$D/golden_$op.s" -o "$op.out.bin"
  expect_out_file /dev/null
  # bytes -> exact text, through the binary asm wrote
  check "disasm_$op" 0 - -- disasm "$op.out.bin"
  expect_out_file "$(work)/$op.txt"
  # --hex both ways
  check "asm_hex_$op" 0 - -- asm --hex "$D/golden_$op.s"
  expect_out_file "$(work)/$op.hex"
  check "disasm_hex_$op" 0 - -- disasm --hex "$(work)/$op.hex"
  expect_out_file "$(work)/$op.txt"
  # the disassembly assembles back to the same bytes (stdin in, stdout out)
  check "reasm_$op" 0 "$(work)/$op.txt" -- asm -
  expect_out_file "$(work)/$op.bin"
done

check disasm_stdin 0 "$(work)/rdma_desc_gen.bin" -- disasm
expect_out_file "$(work)/rdma_desc_gen.txt"

# decode word: one word, spaces and 0x tolerated
start_hex=$(head -n 2 "$(work)/rdma_desc_start.hex" | tail -n 1)
check decode_word 0 - -- decode word "$start_hex"
expect_out "rdma_desc_start wait_mode=ge_imm wait_idx=4 update_mode=inc_complete update_idx=5 semaphore_value=16"
check decode_word_spaced 0 - -- decode word "0x${start_hex:0:64} ${start_hex:64}"
expect_out "rdma_desc_start wait_mode=ge_imm"
check decode_word_args 0 - -- decode word "${start_hex:0:64}" "${start_hex:64}"
expect_out "rdma_desc_start wait_mode=ge_imm"
# A word split over arguments may carry a 0x before each part's digits.
check decode_word_split_0x 0 - -- decode word "0xa01$(printf '0%.0s' {1..61})" "0X$(printf '0%.0s' {1..64})"
expect_out "event_semaphore"
check decode_word_0x_twice 1 - -- decode word "0x0xa01$(printf '0%.0s' {1..125})"
expect_err "bad hex digit 'x'"
# An enum's name takes its article as read aloud: "an UPDATE_MODE", "a WAIT_MODE".
check decode_word_bad_update_mode 0 - -- decode word "a0100000000042$(printf '0%.0s' {1..114})"
expect_out "# event_semaphore: update_mode 0x42 is not an UPDATE_MODE"
check decode_word_raw 0 - -- decode word "f0100000000000000000000005$(printf '0%.0s' {1..102})"
expect_out ".raw f0100000000000000000000005"
expect_out "# illegal extended_opcode 5 (not in EXTENDED_OPCODES1)"
check decode_word_short 1 - -- decode word 12
expect_err "error: HEX: expected 128 hex digits, got 2"
expect_err_lines 1
check decode_word_nonhex 1 - -- decode word "zz$(printf '0%.0s' {1..126})"
expect_err "error: HEX: bad hex digit 'z'"

# info ops: the table
check info_ops 0 - -- info ops
expect_out "0xf0/8  rdma_desc_gen"
expect_out "0xf0/9  rdma_desc_start"
expect_out "0xbf    sb2sb_collective"
expect_out "0xa0    event_semaphore"
expect_out "0xf0/6  ext_sbuf_to_sbuf"
expect_out "  14  1  local_sem            u8"
expect_out "  24  4  dma_engine_mask      IMM_VAL_INST_FIELD"
expect_out "  16 16  src_mem_pattern      TENSOR3D: start_addr step_elem[3] num_elem[3]"
expect_out "  13  1  completion_info      EXT_COMPLETION_INFO: has_read has_write num_active_ports"
expect_out "   4  1  wait_mode            enum WAIT_MODE"
expect_out "  44 20  reserved1            reserved"
expect_out "WAIT_MODE: 0x00=none 0x01=eq_imm"
expect_out "0x13=inc_complete"

# bad input: every error on its own line, exit 1, nothing written
check asm_unknown_mnemonic 1 - -- asm "$D/bad_unknown_mnemonic.s" -o never.bin
expect_err "bad_unknown_mnemonic.s:2: error: unknown mnemonic 'frob'"
expect_err "bad_unknown_mnemonic.s:4: error: unknown mnemonic 'RDMA_DESC_GEN'"
expect_err_lines 3
expect_out_file /dev/null
check no_partial_output 1 - -- disasm never.bin
expect_err "never.bin: error: cannot open: No such file or directory"

check asm_unknown_field 1 "$D/bad_unknown_field.s" -- asm - -o never.bin
expect_err "<stdin>:1: error: unknown field 'local_semaphore' for rdma_desc_gen"
expect_err_lines 9
check asm_out_of_range 1 - -- asm "$D/bad_out_of_range.s"
expect_err "bad_out_of_range.s:2: error: value 256 out of range for local_sem (0..255)"
expect_err "bad_out_of_range.s:4: error: value 0x20000000 out of range for src_addr (0..0x1fffffff)"
expect_err_lines 14
expect_out_file /dev/null
check asm_rules 1 - -- asm --hex "$D/bad_rules.s"
expect_err "bad_rules.s:2: error: rdma_desc_gen: dma_engine_mask 0x0 selects 0 engines (must be 1, 2, 4, 8 or 16); dma_engine_mask was not given, and 0 is no value for it"
expect_err "bad_rules.s:3: error: rdma_desc_gen: dma_engine_mask 0x7 selects 3 engines (must be 1, 2, 4, 8 or 16)"
expect_err "bad_rules.s:5: error: rdma_desc_gen: is_bidirectional=1 is not supported"
expect_err_lines 13
expect_out_file /dev/null
check asm_missing_file 1 - -- asm no_such_file.s
expect_err "no_such_file.s: error: cannot open: No such file or directory"
expect_err_lines 1

head -c 100 "$(work)/rdma_desc_gen.bin" >"$(work)/trunc.bin"
check disasm_truncated 1 - -- disasm "$(work)/trunc.bin"
expect_err "trunc.bin: error: truncated: 100 bytes is not a multiple of 64"
expect_err_lines 1
expect_out_file /dev/null
# Binary words given where text is read, and hex text given where words are: one error each
# that says what the input looks like and what reads it.
check asm_of_binary 1 - -- asm "$(work)/rdma_desc_gen.bin"
expect_err "rdma_desc_gen.bin:1: error: byte 0x"
expect_err "is not text (binary input? 64-byte binary words are read by 'sbrdma disasm')"
expect_err_lines 1
check disasm_hex_of_binary 1 - -- disasm --hex "$(work)/rdma_desc_gen.bin"
expect_err "is not text (binary input? raw 64-byte words are read without --hex)"
expect_err_lines 1
check disasm_of_hex 1 - -- disasm "$(work)/rdma_desc_gen.hex"
expect_err "rdma_desc_gen.hex: error: truncated: 387 bytes is not a multiple of 64 (the input is text: hex words need --hex, assembly 'sbrdma asm')"
printf '%s\n' 'rdma_desc_start  # 63 characters: one word with its newline xxx' >"$(work)/word_sized.s"
check disasm_text_of_a_word 1 - -- disasm word_sized.s
expect_err "word_sized.s: error: 64 bytes of text lines, not binary words: hex words need --hex, assembly 'sbrdma asm'"
# Lines that end in a lone CR (classic Mac text) are text lines too.
printf 'rdma_desc_start\rrdma_desc_start\rrdma_desc_start\rrdma_desc_start\r' >"$(work)/cr_word_sized.s"
check disasm_text_of_a_word_cr 1 - -- disasm cr_word_sized.s
expect_err "cr_word_sized.s: error: 64 bytes of text lines, not binary words"
expect_err_lines 1
# A comment may hold any byte (a form feed here); a program file too.
printf 'rdma_desc_start\n# page\f\n' >"$(work)/ff.s"
check asm_control_byte_in_comment 0 - -- asm "$(work)/ff.s" -o ff.bin
printf 'nop\303\251 x=1\n' >"$(work)/utf8.s"
check asm_echo_is_printable 1 - -- asm "$(work)/utf8.s"
expect_err "utf8.s:1: error: unknown mnemonic 'nop\\xc3\\xa9'"
expect_err_lines 1
printf '# hex\n%s\nnot hex at all\n12\n' "$(head -n 1 "$(work)/rdma_desc_gen.hex")" >"$(work)/bad.hex"
check disasm_nonhex 1 - -- disasm --hex "$(work)/bad.hex"
expect_err "bad.hex:3: error: bad hex digit 'n'"
expect_err "bad.hex:4: error: expected 128 hex digits, got 2"
expect_err_lines 2
expect_out_file /dev/null

check asm_help 0 - -- asm --help
expect_out "--hex"
expect_out "-o,--output"
check disasm_help 0 - -- disasm --help
expect_out "--hex"

# An input that is a directory (named, or as standard input) is refused, not an internal error.
mkdir -p "$(work)/indir"
check asm_input_is_dir 1 - -- asm indir
expect_err "indir: error: cannot read: Is a directory"
expect_err_lines 1
expect_out_file /dev/null
check disasm_input_is_dir 1 - -- disasm --hex indir
expect_err "indir: error: cannot read: Is a directory"
expect_err_lines 1
check asm_stdin_is_dir 1 "$(work)/indir" -- asm -
expect_err "<stdin>: error: cannot read: Is a directory"
expect_err_lines 1
expect_out_file /dev/null
# An endless input is refused at a bound, not read until memory runs out.
check disasm_endless_input 1 - -- disasm /dev/zero
expect_err "/dev/zero: error: file too large (over 256 MiB)"
expect_err_lines 1
expect_out_file /dev/null
check run_endless_input 1 - -- run /dev/zero
expect_err "/dev/zero: error: file too large (over 256 MiB)"
expect_err_lines 1
expect_out_file /dev/null

# An ADDR_REG operand names one of 64 registers (NUM_ADDR_REGISTERS). [HIGH] wiki-facts §1.7
printf 'rdma_desc_gen dma_engine_mask=0x1 src_addr=addr_reg:64\n' >"$(work)/areg.s"
check asm_addr_reg_64 1 - -- asm areg.s -o areg.bin
expect_err "areg.s:1: error: value 64 out of range for the addr_reg index of src_addr (0..63)"

# Any whole number of 64-byte words disassembles, whatever its bytes: a word with no control
# byte (all 0xff, or 64 ASCII '0') is no text mistaken for words but a .raw line, as
# `decode word` prints it; the hint to --hex only comes with a real error.
printf '.raw %s  # no zero byte\n' "$(printf 'ff%.0s' {1..64})" >"$(work)/rawff.s"
check asm_raw_ff 0 - -- asm rawff.s -o rawff.bin
check disasm_raw_ff 0 - -- disasm rawff.bin
expect_out ".raw $(printf 'ff%.0s' {1..64})  # illegal opcode 0xff"
check disasm_raw_ff_stdin 0 "$(work)/rawff.bin" -- disasm -
expect_out "# illegal opcode 0xff"
printf '0%.0s' {1..64} >"$(work)/ascii0.bin"
check disasm_ascii_zeros 0 - -- disasm ascii0.bin
expect_out ".raw $(printf '30%.0s' {1..64})  # illegal opcode 0x30"

# info ops gives semaphore_value the kind text reads it as: signed 32-bit (D11; -1 assembles).
check info_ops_semaphore_value_signed 0 - -- info ops
expect_out "semaphore_value      i32"

# A UTF-8 byte order mark (some editors write one) starts a text input without being part of it;
# raw words keep every byte.
printf '\xef\xbb\xbfrdma_desc_start\n' >"$(work)/bom.s"
check asm_bom 0 - -- asm bom.s -o bom.bin
check asm_bom_same_word 0 - -- disasm bom.bin
expect_out "rdma_desc_start"
check asm_bom_hex 0 - -- asm bom.s --hex
cp "$(work)/out" "$(work)/bom_hex.txt"
printf '\xef\xbb\xbf' | cat - "$(work)/bom_hex.txt" >"$(work)/bom.hex"
check disasm_hex_bom 0 - -- disasm --hex bom.hex
expect_out "rdma_desc_start"
printf '\xef\xbb\xbf' | cat - "$(work)/bom.bin" >"$(work)/bom_raw.bin"
check disasm_raw_keeps_bom 1 - -- disasm bom_raw.bin

# asm --core N reads a program file as `sbrdma run` does and assembles core N's words; plain asm
# names the program-file directives once with that hint.
printf '.init core=0 addr=0 bytes=64 pattern=iota\n.core 0\nrdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xffff free_dim_bytes=64\nrdma_desc_start\n.core 1\nevent_semaphore wait_mode=ge_imm wait_idx=4 semaphore_value=16\n.expect sbuf core=1 addr=0 bytes=64 pattern=iota\n.core 3\n' >"$(work)/two_cores.s"
check asm_core_1 0 - -- asm --core 1 two_cores.s -o core1.bin
check asm_core_1_words 0 - -- disasm core1.bin
expect_out_lines "event_semaphore wait_mode=ge_imm wait_idx=4 semaphore_value=16"
# Core 0's words are those plain asm makes of its two lines alone.
printf 'rdma_desc_gen local_sem=3 remote_sem=4 remote_core_id=1 dma_engine_mask=0xffff free_dim_bytes=64\nrdma_desc_start\n' >"$(work)/core0_only.s"
check asm_core_0_alone 0 - -- asm core0_only.s --hex
cp "$(work)/out" "$(work)/core0_only.hex"
check asm_core_0_hex 0 - -- asm --core 0x0 two_cores.s --hex
expect_out_file "$(work)/core0_only.hex"
expect_out "f010000000000000000000000900000000000000"
check asm_core_without_words 1 - -- asm --core 3 two_cores.s -o never.bin
expect_err "sbrdma: error: two_cores.s: core 3 has no words here (cores with words: 0, 1)"
expect_err_lines 1
check asm_core_beyond_topology 1 - -- asm --core 8 two_cores.s
expect_err "sbrdma: error: --core: core 8 does not exist (topology trn2 has 8 cores; trn2.48xlarge and trn2u have it: --topology NAME)"
check asm_core_other_topology 1 - -- asm --core 8 --topology trn2.48xlarge two_cores.s
expect_err "core 8 has no words here (cores with words: 0, 1)"
check asm_topology_without_core 1 - -- asm --topology trn2 two_cores.s
expect_err "sbrdma: error: --topology: only with --core (it numbers a program file's cores)"
# The whole file is checked, as run checks it: every error, and nothing written.
printf '.core 0\n.expect sem core=0 idx=999 value=1\nfrob\n' >"$(work)/bad_program.s"
check asm_core_program_errors 1 - -- asm --core 0 bad_program.s -o never.bin
expect_err "bad_program.s:2: error: idx 999 out of range (0..255)"
expect_err "bad_program.s:3: error: unknown mnemonic 'frob'"
expect_err_lines 2
expect_out_file /dev/null
check asm_program_file_hint_once 1 - -- asm two_cores.s
expect_err "two_cores.s:1: error: unknown directive '.init' (a program file's: \`sbrdma run\` reads it, and \`sbrdma asm --core N\` assembles core N's words)"
expect_err "two_cores.s:2: error: unknown directive '.core' (a program file's)"
expect_err_lines 5
# A lone CR (classic Mac text) ends a line: the error is on the line an editor shows.
printf 'rdma_desc_start\rrdma_desc_start\r\rfrob\r' >"$(work)/cr.s"
check asm_lone_cr_lines 1 - -- asm cr.s
expect_err "cr.s:4: error: unknown mnemonic 'frob'"
expect_err_lines 1
# asm --core reads a folder as run does, and -o may name no file it reads (the topology's too).
mkdir -p "$(work)/asmdir" && printf 'rdma_desc_start\n.expect sem core=0 idx=0 value=0\n' >"$(work)/asmdir/core2.s"
check asm_core_folder 0 - -- asm --core 2 asmdir --hex
expect_out "f010000000000000000000000900000000000000"
check asm_core_folder_out_is_input 1 - -- asm --core 2 asmdir -o asmdir/core2.s
expect_err "sbrdma: error: -o asmdir/core2.s: that is a program file (asmdir/core2.s), an input of this run"
cp "$DIR/../data/topology/line3_sunda.json" "$(work)/asm_topo.json"
check asm_core_out_is_topology 1 - -- asm --core 0 --topology asm_topo.json two_cores.s -o asm_topo.json
expect_err "sbrdma: error: -o asm_topo.json: that is --topology (asm_topo.json), an input of this run"
check asm_core_topology_kept 0 - -- info topology asm_topo.json
check asm_core_no_words_at_all 1 "$(work)/two_cores.s" -- asm --core 3 -
expect_err "core 3 has no words here (cores with words: 0, 1)"
printf '.core 0\n' >"$(work)/only_core_line.s"
check asm_core_none_has_any 1 - -- asm --core 0 only_core_line.s
expect_err "sbrdma: error: only_core_line.s: core 0 has no words here (no core has any)"
# One coreN.s file of a folder, directives and all: its words (before any .core line) are the
# asked core's, the same words the folder gives.
check asm_core_one_folder_file 0 - -- asm --core 2 asmdir/core2.s --hex
expect_out_lines "f010000000000000000000000900000000000000"
check asm_core_plain_file_is_a_program 1 - -- asm asmdir/core2.s
expect_err "asmdir/core2.s:2: error: unknown directive '.expect'"
