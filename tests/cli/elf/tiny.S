# A minimal program for loader tests: prints "ok\n" through a host packet and exits 0.
  .globl _start
_start:
  csrr t1, 0xcc0          # emx.peid
  slli t1, t1, 22
  li t0, (1 << 16) | 3    # console, 3 bytes
  or t0, t0, t1
  li a1, 0x000a6b6f       # "ok\n"
  .insn r 0x0b, 0, 8, x0, t0, a1
  li t0, (2 << 16)        # exit
  or t0, t0, t1
  .insn r 0x0b, 0, 8, x0, t0, x0
  .insn i 0x0b, 1, x0, x0, 0
