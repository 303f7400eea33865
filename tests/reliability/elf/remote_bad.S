# PE 0, after a loop, sends a SYSWR to word 0 of PE 1 (the null guard); PE 1 spins, or
# with PE1_IDLE (remote_bad_idle.elf) ends its thread and waits. The memory unit's error
# must name the arrival clock and the sending instruction.
  .globl _start
_start:
  csrr t1, 0xcc0          # emx.peid
  bnez t1, 2f
  li t2, 3000
1:addi t2, t2, -1
  bnez t2, 1b
  li t0, 1 << 22          # PE 1, word 0
bad_send:
  .insn r 0x0b, 0, 4, x0, t0, x0   # send.syswr zero, t0
3:j 3b
2:
#ifdef PE1_IDLE
  .insn i 0x0b, 1, x0, x0, 0       # end: PE 1 waits for packets
#else
  j 2b
#endif
