# Loops forever: for the time-limit test.
  .globl _start
_start:
  j _start
