#!/bin/sh
# The ISS against QEMU user mode on the same program (docs/performance.md, "Against QEMU
# and SimGrid"): builds bench/programs/compute.c as a static Linux RISC-V program with the
# project's compiler and the flags the simulated machine's programs get, runs it under
# qemu-riscv32 (Debian: apt-get install qemu-user) and under `emx run --pes 1`, and
# prints CPU seconds (user + system, wall beside) and instructions per CPU second.
# QEMU does not count instructions: emx's count of the same binary's loop is used for
# both (the programs differ only in start-up and printf, a few thousand instructions).
#   bench/qemu_compute.sh [REPS [PARTS]]   (default 200 3; PARTS 1: the integer half,
#                                          2: the float half, 3: both; see compute.c)
# EMX=path/to/emx runs another build of emx (e.g. an older one, side by side).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
reps=${1:-200}
parts=${2:-3}
emx=${EMX:-$top/build/sim/emx}
"$top/scripts/setup" --quiet
command -v qemu-riscv32 >/dev/null || { echo "qemu-riscv32 missing: apt-get install qemu-user" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
riscv64-unknown-elf-gcc -march=rv32imf -mabi=ilp32f -O2 -ffreestanding -fbuiltin \
  -fno-math-errno -mstrict-align -nostdlib -nostdinc -static -Wl,--no-warn-rwx-segments \
  -I "$top/bench/host/qemu" -I "$top/bench/host" -isystem "$(riscv64-unknown-elf-gcc -print-file-name=include)" \
  "$top/bench/programs/compute.c" "$top/bench/host/qemu/linux_start.c" -lgcc -o "$out/compute"
cpu() {  # CPU and wall seconds of a command, from /usr/bin/time's format
  /usr/bin/time -f "%U %S %e" -o "$out/t" "$@" > "$out/stdout"
  awk '{printf "%.3f %.3f", $1 + $2, $3}' "$out/t"
}
set -- $(cpu qemu-riscv32 "$out/compute" "$reps" "$parts")
qemu_cpu=$1 qemu_wall=$2
qemu_sum=$(cat "$out/stdout")
"$emx" run -q --pes 1 --stats "$out/s.json" "$top/build/programs/bench_compute.elf" "$reps" "$parts" > "$out/stdout"
python3 - "$out/s.json" "$qemu_cpu" "$qemu_wall" "$qemu_sum" "$(cat "$out/stdout")" "$parts" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
qc, qw = float(sys.argv[2]), float(sys.argv[3])
n = s["instructions"]
print(f"compute.c, parts {sys.argv[6]}, {n} instructions (emx's count)")
print(f"{'':8} {'CPU s':>7} {'wall s':>7} {'M instr/CPU s':>14}")
print(f"{'emx':8} {s['host_cpu_seconds']:7.3f} {s['host_seconds']:7.3f} {n / s['host_cpu_seconds'] / 1e6:14.0f}")
print(f"{'qemu':8} {qc:7.3f} {qw:7.3f} {n / qc / 1e6:14.0f}")
print(f"emx / qemu: {qc / s['host_cpu_seconds']:.2f}x; outputs: emx '{sys.argv[5]}', qemu '{sys.argv[4]}'")
PY
