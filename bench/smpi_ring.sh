#!/bin/sh
# The MPI ring under SimGrid SMPI, for the side-by-side table in docs/performance.md
# ("Against QEMU and SimGrid"): builds bench/programs/mpi_ring.c with smpicc (Debian:
# apt-get install libsimgrid-dev) and runs it with RANKS ranks on a cluster platform of
# that many hosts, printing messages per CPU second (user + system; wall beside) and the
# peak memory. Compare with `python3 bench/mpi_ring.py` (the simulated EM-X, same code).
#   bench/smpi_ring.sh [RANKS [ITER [BYTES [MODE]]]]   (default 80 1000 8 1; MODE 1:
#   receives posted ahead, 0: MPI_Sendrecv)
# With SMPI_HOST_INSTRUCTIONS=1 it runs the ring once under valgrind (cachegrind, user-mode
# instructions, which the host's load does not change) and prints the host instructions
# per message instead, start-up and end included (bench/mpi_ring.py --host-instructions
# --smpi). SMPI then simulates no computation (smpi/simulate-computation:no): by default
# it times the code between MPI calls on the host and injects bursts above 1 us into the
# simulation, and under valgrind's slowdown the ring's short bursts would pass that
# threshold and add simulation work they do not cause natively (and make the count vary).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ranks=${1:-80} iter=${2:-1000} bytes=${3:-8} mode=${4:-1}
command -v smpicc >/dev/null || { echo "smpicc missing: apt-get install libsimgrid-dev" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
smpicc -O2 -I "$top/bench/host" "$top/bench/programs/mpi_ring.c" -o "$out/ring" 2>/dev/null
# A cluster of RANKS one-core hosts behind one switch (the platform changes simulated
# times, not the work SMPI does per message).
cat > "$out/platform.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="h" suffix="" radical="0-$((ranks - 1))" speed="1Gf"
           bw="10Gbps" lat="1us" bb_bw="100Gbps" bb_lat="1us"/>
</platform>
XML
i=0; while [ $i -lt "$ranks" ]; do echo "h$i"; i=$((i + 1)); done > "$out/hosts"
if [ "${SMPI_HOST_INSTRUCTIONS:-0}" = 1 ]; then
  command -v valgrind >/dev/null || { echo "valgrind missing: apt-get install valgrind" >&2; exit 2; }
  smpirun -wrapper "valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=$out/cg.out" \
    -np "$ranks" -platform "$out/platform.xml" -hostfile "$out/hosts" \
    --cfg=smpi/host-speed:1Gf --cfg=smpi/simulate-computation:no --log=root.thres:critical \
    "$out/ring" "$iter" "$bytes" "$mode" > "$out/stdout" 2>&1 || { cat "$out/stdout" >&2; exit 1; }
  total=$(cg_annotate --auto=no "$out/cg.out" | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
  msgs=$((ranks * iter * 2))
  echo "SMPI, $ranks ranks x $iter rounds x 2 messages: $(grep -v '^==' "$out/stdout" | tail -1)"
  echo "$msgs messages, $total host instructions: $((total / msgs)) per message"
  exit 0
fi
/usr/bin/time -f "%U %S %e %M" -o "$out/t" smpirun -np "$ranks" -platform "$out/platform.xml" \
  -hostfile "$out/hosts" --cfg=smpi/host-speed:1Gf --log=root.thres:critical \
  "$out/ring" "$iter" "$bytes" "$mode" > "$out/stdout" 2>&1
read -r user sys wall rss < "$out/t"
python3 - "$user" "$sys" "$wall" "$rss" "$ranks" "$iter" "$(tail -1 "$out/stdout")" <<'PY'
import sys
user, sys_, wall, rss = map(float, sys.argv[1:5])
ranks, iters = int(sys.argv[5]), int(sys.argv[6])
msgs = ranks * iters * 2
cpu = user + sys_
print(f"SMPI, {ranks} ranks x {iters} rounds x 2 messages: {sys.argv[7]}")
print(f"{msgs} messages, CPU {cpu:.2f} s (user {user:.2f} s, system {sys_:.2f} s; wall {wall:.2f} s): "
      f"{msgs / cpu / 1e3:.0f} k messages / CPU s; peak memory {rss / 1024:.0f} MiB")
PY
