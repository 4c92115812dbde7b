# sbrdma decode addr | decode desc | info regs (soc layer).

# The wiki's worked values (wiki-facts 4.3).
# One past the 16 queue banks of an M2S engine: no queue, no register; the last bank's end is
# still queue 15.
check addr_past_queues 0 - -- decode addr 0x1002511000
expect_out "  M2S +0x11000: beyond the queue banks"
check addr_last_queue 0 - -- decode addr 0x1002510ffc
expect_out "  M2S queue 15 +0xffc: no known register"
check addr_neighbour_fold 0 - -- decode addr 0x58800000100000
expect_out "EXIT_DIE                     [51]     0x1"
expect_out "route from chip 0 die 0: neighbor -> this chip (0), die 1, LOCAL 0x100000"
expect_out "hits nothing (chip-relative address 0x800000100000)"
check addr_chip_id_fold 0 - -- decode addr 0x0052_8000_0010_0000 --chip 3
expect_out "CAYMAN_ID                    [53:48]  0x12"
expect_out "chip-id -> chip 18, die 1, LOCAL 0x100000"

# Regions, registers, semaphore windows.
check addr_doorbell 0 - -- decode addr 0x1002506038
expect_out "region SE_0.SDMA_5.UDMA_M2S +0x6038: DMA engine 5 of core 0 (chip 0 tpb 0, die 0)"
expect_out "M2S queue 5 register TDRTP_inc (+0x38, RW, doorbell, broadcast)"
# A core of another chip is named as run, .core and the traces number it: chip x 8 + tpb.
check addr_global_core 0 - -- decode addr 0x4a806000020000
expect_out "region TPB_6.STATE_BUF +0x20000: core 86 (chip 10 tpb 6, die 1)"
# The MISC block's registers are named as `info regs` lists them.
check addr_misc_register 0 - -- decode addr 0x1002540100
expect_out "region SE_0.SDMA_5.MISC +0x100: DMA engine 5 of core 0 (chip 0 tpb 0, die 0)"
expect_out "  MISC register BROADCAST_CFG_GROUP (+0x100, RW)"
check addr_misc_unknown 0 - -- decode addr 0x1002540108
expect_out "  MISC +0x108: no known register"
check addr_bcast 0 - -- decode addr 0x50040A4038
expect_out "engine group of core 2"
expect_out "broadcast S2M queue 3 register RDRTP_inc"
# TOP_SP windows (wiki-facts 4.2): named, with their semaphore slots and doorbells.
check addr_top_sp_sem 0 - -- decode addr 0x808280001c08
expect_out "region TOP_SP_10 +0x1c08: die 1 of chip 0"
expect_out "TOP_SP DEC window, semaphore 2"
expect_out "decoded only, the simulator does not run it"
check addr_top_sp_doorbell 0 - -- decode addr 0x82800615a0
expect_out "LOCAL_REG doorbell host_trigger START (+0x615a0; control plane)"
check addr_top_sp_doorbell_sunda 0 - -- decode addr 0x8280060848 --profile sunda
expect_out "LOCAL_REG doorbell host_trigger START (+0x60848; control plane)"
# A descriptor writing a TOP_SP semaphore slot is no core's semaphore write.
check desc_top_sp_not_a_core_semaphore 0 - -- decode desc 04000001030008010418008082000000
if grep -q "a semaphore write" "$(work)/out"; then _fail "TOP_SP slot called a semaphore write"; else
  pass=$((pass + 1)); fi
# An EVT_SEM buf_ptr is a semaphore write only where a run makes one (D5): an S2M buffer at
# an aligned slot of a writable window; the rest is said to be refused.
check desc_sem_s2m_inc 0 - -- decode desc --s2m 04000000000000000018700228000000
expect_out "buf_ptr -> chip 0 TPB_0.EVT_SEM +0x1800 INC[0]  (a semaphore write)"
check desc_sem_m2s_source 0 - -- decode desc 0400000c000000000018700228000000
expect_out "INC[0]  (an M2S source is read: EVT_SEM is not memory, a run refuses it)"
check desc_sem_read_window 0 - -- decode desc --s2m 04000000000000000010700228000000
expect_out "READ[0]  (the READ window is read-only: a run refuses this write)"
check desc_sem_unaligned 0 - -- decode desc --s2m 04000000000000000118700228000000
expect_out "INC[0]  (not an aligned 4-byte slot: a run refuses this write)"
check addr_sem_inc 0 - -- decode addr 0x2802701804
expect_out "region TPB_0.EVT_SEM +0x1804: core 0 (chip 0 tpb 0, die 0)"
expect_out "EVT_SEM INC window, semaphore 1"
check addr_sbuf_decimal 0 - -- decode addr 137439211520
expect_out "TPB_0.STATE_BUF +0x3f000"
expect_out "SBUF partition 0, byte 0x3f000 (beyond the partition's active bytes)"
check addr_sunda_has_two_cores 0 - -- decode addr 0x6000000000 --profile sunda
expect_out "hits nothing"
check addr_sunda_has_one_die 0 - -- decode addr 0x800000000000 --profile sunda
expect_out "route from chip 0 die 0: local -> this chip (0), die 1, LOCAL 0x0"
expect_out "hits nothing: profile sunda has 1 die per chip, no die 1"
check addr_maverick_has_no_map 0 - -- decode addr 0x10 --profile maverick
expect_out "no public SoC address map"
# A built-in topology's name stands for its profile (trn1: sunda, one die).
check addr_profile_of_topology 0 - -- decode addr 0x800000000000 --profile trn1
expect_out "hits nothing: profile sunda has 1 die per chip, no die 1"
check addr_peb_not_routed 0 - -- decode addr 0x0020008002000000
expect_out "PEB                          [53]     0x1"
expect_out "route: not routable"

# Bad input: one error line, exit 1.
check addr_not_a_number 1 - -- decode addr 0x12zz
expect_err "error: ADDR: '0x12zz' is not a whole number (0 or more, decimal or 0x-hex)"
expect_err_lines 1
check addr_too_big 1 - -- decode addr 0x1ffffffffffffffff
expect_err "does not fit in 64 bits"
expect_err_lines 1
check addr_unknown_profile 1 - -- decode addr 0 --profile trn9
expect_err "error: --profile: unknown profile 'trn9' (known: cayman, sunda, mariana, maverick)"
expect_err_lines 1
check addr_missing 1 - -- decode addr
expect_err "error"
check addr_bad_die 1 - -- decode addr 0 --die 2
expect_err "error"

# Descriptors: the 16 bytes as they lie in memory.
check desc_sema_inc 0 - -- decode desc 04000001030008010418700228000000
expect_out_file "$DIR/../data/soc/sema_inc_desc.txt"
check desc_64k_ok 0 - -- decode desc 0000000c030008010000000020000000
expect_out "LEN                  [15:0]   0x0  (65536 bytes)"
expect_out "buf_ptr 0x0000002000000000"
# Groups of digits as separate arguments, in the order given (as decode word takes them).
check desc_split_args 0 - -- decode desc 04000001 03000801 04187002 28000000
expect_out_file "$DIR/../data/soc/sema_inc_desc.txt"
# The viewpoint flags are decode addr's, read before the digits.
check desc_bad_die 1 - -- decode desc --die 2 00
expect_err "sbrdma: error: --die: '2' is not a die (a whole number, 0 to 1)"
check desc_sunda_profile 0 - -- decode desc --profile trn1 04000001030008010418700228000000
expect_out "(seen from chip 0 die 0, the issuing core's: --chip and --die set it)"
# --s2m: the receive layout (no FIRST/LAST/DMB; bit 29 is STRONG_ORDER_WR on v3+).
check desc_s2m 0 - -- decode desc --s2m 00100021000000000000000000000000
expect_out "word0 0x21001000  len_ctrl (S2M)"
expect_out "STRONG_ORDER_WR      [29]     0x1  (v3 and later; NO_SNOOP_H on v2)"
expect_out "word1 0x00000000  buf2_ptr_lo (unused)"
expect_out "buf_ptr 0x0000000000000000  (destination)"
check desc_m2s_bit29 0 - -- decode desc 00100021000000000000000000000000
expect_out "NO_SNOOP             [29]     0x1"
check desc_help 0 - -- decode desc --help
expect_out "--s2m" 
expect_out "as they lie in memory"
check desc_short 1 - -- decode desc 0000000c
expect_err "error: descriptor hex must be exactly 32 hex digits (16 bytes), got 8"
expect_err_lines 1
check desc_non_hex 1 - -- decode desc 0000000c03000801000000002000000g
expect_err "error: descriptor hex: 'g' at position 32 is not a hex digit"
expect_err_lines 1
check desc_0x 1 - -- decode desc 0x00000c030008010000000020000000
expect_err "not a 0x number"
expect_err_lines 1

# Register tables.
check info_regs 0 - -- info regs
expect_out "M2S_Q registers (offsets from UDMA_M2S + 0x1000 + q*0x1000, q = 0..15)"
expect_out "0x0038  TDRTP_inc"
expect_out "0x0038  RDRTP_inc"
expect_out "pref_ring_id                 [17]"
expect_out "pref_ring_id                 [11]"
expect_out "0x025c  pref_queue_en"
expect_out "MISC registers (offsets from the engine's MISC (SDMA wrapper) block, +0x40000)"
expect_out "0x0100  BROADCAST_CFG_GROUP"
# The issuer's die must exist in the profile (sunda chips have one die).
check addr_die_of_one_die_profile 1 - -- decode addr 0x1002506038 --profile sunda --die 1
expect_err "error: --die 1: profile sunda has 1 die per chip"
check addr_die_of_two_die_profile 0 - -- decode addr 0x1002506038 --die 1

# --profile takes a topology file too: its profile decodes.
printf '%s\n' '{"chips":1,"profile":"sunda"}' >"$(work)/sunda1.json"
check addr_profile_file 1 - -- decode addr 0x1000 --profile sunda1.json --die 1
expect_err "sbrdma: error: --die 1: profile sunda has 1 die per chip"
printf '%s\n' '{"chips":16,"torus":[4,4]}' >"$(work)/sixteen.json"
check addr_profile_file_cayman 0 - -- decode addr 0x4a806000020000 --profile sixteen.json
expect_out "region TPB_6.STATE_BUF +0x20000: core 86 (chip 10 tpb 6, die 1)"
check addr_profile_file_missing 1 - -- decode addr 0x1000 --profile missing.json
expect_err "missing.json: error: cannot open: No such file or directory"
# The firmware's DEBUG lines print doorbells as their low 32 bits (D22c): such an address,
# which hits nothing, names the DMA registers it is the low half of, on either die.
check addr_low_32_bits 0 - -- decode addr 0x020a1038
expect_out "hits nothing (chip-relative address 0x20a1038)"
expect_out "  the low 32 bits of 0x10020a1038 (SE_0.SDMA_0.BCAST_UDMA_S2M +0x1038), as DEBUG lines print DMA addresses (D22c): sbrdma decode addr 0x10020a1038"
expect_out "  the low 32 bits of 0x8010020a1038 (SE_2.SDMA_0.BCAST_UDMA_S2M +0x1038)"
check addr_low_32_bits_none 0 - -- decode addr 0x1000
expect_out "hits nothing (chip-relative address 0x1000)"
if grep -q "low 32 bits" "$(work)/out"; then _fail "0x1000 is the low half of no DMA register"; else pass=$((pass + 1)); fi
# A profile's name stays one, whatever the current folder holds under that name.
mkdir -p "$(work)/cayman"
check addr_profile_name_beside_folder 0 - -- decode addr 0x1000
expect_out "hits nothing (chip-relative address 0x1000)"
# The 32-bit hint's commands keep the flags that change the answer.
check addr_low_32_bits_flags 0 - -- decode addr 0x020a1038 --profile sunda --chip 5
expect_out "(D22c): sbrdma decode addr 0x10020a1038 --profile sunda --chip 5"
# ... and keep a topology file's name as one shell word: quoted where a shell would split or
# expand it, whole however long (a cut name is no command to paste).
printf '%s\n' '{"chips":1}' >"$(work)/my topo'x.json"
check addr_low_32_bits_quoted_profile 0 - -- decode addr 0x020a1038 --profile "my topo'x.json"
expect_out "(D22c): sbrdma decode addr 0x10020a1038 --profile 'my topo'\\''x.json'"
long_topo=topology-files-for-the-cluster-of-the-west-wing.json
printf '%s\n' '{"chips":1}' >"$(work)/$long_topo"
check addr_low_32_bits_long_profile 0 - -- decode addr 0x020a1038 --profile "$long_topo"
expect_out "(D22c): sbrdma decode addr 0x10020a1038 --profile $long_topo"
# An S2M descriptor read without --s2m (no packet bits, word1 0): the output says which flag
# reads it; an M2S one gets no such line.
check desc_s2m_hint 0 - -- decode desc 00010001 00000000 00400000 30005800
expect_out "(FIRST and LAST clear and word1 0, as in an S2M descriptor: --s2m reads it as one)"
check desc_s2m_no_hint 0 - -- decode desc --s2m 00010001 00000000 00400000 30005800
expect_out "len_ctrl (S2M)"
# A pasted dump line's bad digit is told at its place in the line as given; two tags are refused.
check desc_tag_position 1 - -- decode desc "    M2S: 0400000d 0300080g 00000040 20000000"
expect_err "sbrdma: error: descriptor hex: 'g' at position 26 is not a hex digit"
check desc_two_tags 1 - -- decode desc "S2M: M2S: 04000001 00000000 0c187002 28000000"
expect_err "sbrdma: error: HEX: two M2S:/S2M: tags; a line of .dump ring's has one"
