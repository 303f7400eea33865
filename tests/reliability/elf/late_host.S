# After a loop, sends a host packet with an unknown command, then spins: the error must
# name the packet's arrival clock, whatever the quantum.
  .globl _start
_start:
  csrr t1, 0xcc0          # emx.peid
  slli t1, t1, 22
  li t2, 3000
1:addi t2, t2, -1
  bnez t2, 1b
  li t0, (7 << 16)        # host command 7: there is none
  or t0, t0, t1
  .insn r 0x0b, 0, 8, x0, t0, x0
2:j 2b
