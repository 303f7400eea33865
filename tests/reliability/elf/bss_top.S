# A program whose .bss reaches into the top of memory reserved for the hardware.
  .globl _start
_start:
  .insn i 0x0b, 1, x0, x0, 0
  .bss
  .space 0x3d0000
