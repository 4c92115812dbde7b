# ExtendedInst sub-ops without a public layout: envelope + inst_specific0[18] (14..31) and
# inst_specific1[32] (32..63), kept verbatim (D12, D15e)
ext_engine_nop
ext_copy completion_info.has_read=1 completion_info.has_write=1 inst_specific0=0102030405060708090a0b0c0d0e0f101112 inst_specific1=ff
ext_rand_set_state inst_specific1=000000000000000000000000000000000000000000000000000000000000002a
ext_rand_get_state wait_mode=eq_reg wait_idx=1
ext_sbuf_to_sbuf inst_specific0=aa
ext_cptc_decode debug_cmd=5 completion_info.num_active_ports=1
