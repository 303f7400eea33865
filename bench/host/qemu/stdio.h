/* printf for bench/programs/compute.c under qemu-riscv32 (bench/host/README.md). */
#pragma once
int printf(const char *fmt, ...);
