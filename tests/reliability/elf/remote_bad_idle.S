# As remote_bad, but PE 1 is idle (it ended its only thread) when the bad SYSWR arrives.
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
2:.insn i 0x0b, 1, x0, x0, 0       # end: PE 1 waits for packets
