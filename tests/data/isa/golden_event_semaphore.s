# event_semaphore = 0xA0: header + events public, bytes 12..63 an opaque payload (D15d)
# The first word is the wiki's worked example (pool.bin slot 2, `EVENT_SEMAPHORE $S[11]>0`).
event_semaphore wait_mode=gt_imm wait_idx=11
event_semaphore update_mode=wr_imm_complete update_idx=200 semaphore_value=7 payload=01
