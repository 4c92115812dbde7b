# Semaphore values are signed 32-bit (udma-facts §4.4): a decrement from 0 gives -1, which a
# wait for "< 1" accepts; the second word then increments sem[6].
.core 0
event_semaphore update_mode=dec_read update_idx=5
event_semaphore wait_mode=lt_imm wait_idx=5 semaphore_value=1 update_mode=inc_read update_idx=6
.expect sem core=0 idx=5 value=-1
.expect sem core=0 idx=6 value=1
