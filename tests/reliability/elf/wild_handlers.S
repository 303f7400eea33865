# Points the special-handler table outside memory, then sends itself a special packet.
  .globl _start
_start:
  li t0, 0xfffff000
  csrw 0x800, t0          # emx.handlers
  csrr t1, 0xcc0
  slli t1, t1, 22
  .insn r 0x0b, 0, 3, x0, t1, x0   # send.spec zero, t1
  .insn i 0x0b, 1, x0, x0, 0
