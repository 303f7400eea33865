# Writes the tag of a word in the null-pointer guard.
  .globl _start
_start:
  li t0, 0x10
  li t1, 1
  .insn r 0x0b, 3, 0, x0, t0, t1   # wtag t1, t0
  .insn i 0x0b, 1, x0, x0, 0
