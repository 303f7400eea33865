#!/bin/sh
# The training mix of the profile-guided build (EMX_PGO, docs/performance.md): runs the
# instrumented emx on a representative spread of work, not only on the benchmarks: the
# network engine (stream, radix, MPI in both libraries and matching/protocol variants),
# the ISS (compiled and interpreted, integer and float), tracing, small and large machines.
# Each run takes a second or less; the profile is what they add up to (about 10 s).
#   cmake/pgo_train.sh EMX PROGRAMS_DIR
set -eu
emx=$1
p=$2
run() { "$emx" run -q "$@" > /dev/null || { echo "pgo_train.sh: failed: emx run $*" >&2; exit 1; }; }
run --pes 80 "$p/bench_stream.elf" 10 512
run --pes 1024 "$p/bench_stream.elf" 1 512
run --config emx80-20mhz --pes 64 "$p/radix_fine.elf" 65536 64 1
run --config emx80-20mhz --pes 64 "$p/radix_coarse.elf" 65536 64 1
run --pes 80 "$p/bench_mpi_ring.elf" 200 8 1
run --pes 80 "$p/bench_mpi_ring.elf" 200 8 0
run --pes 80 "$p/bench_mpi_ring.elf" 200 8 1 -mpi-option=all
run --pes 80 "$p/bench_mpi_ring.elf" 100 64 0 -mpi-matching=both -mpi-protocol=buffered
run --pes 80 "$p/mpi_pingpong.elf" naive 4 20
run --pes 80 "$p/mpi_pingpong.elf" advance 4 20
run --pes 80 "$p/mpi_pingpong.elf" naive 64 10 -mpi-protocol=sync
run --pes 80 "$p/mpi_pingpong.elf" advance 64 10 -mpi-matching=receiver
run --pes 1 "$p/bench_compute.elf" 100 3
run --pes 4 --set sim.iss.translate=false "$p/bench_compute.elf" 5 3
run --pes 80 --set sim.iss.translate=false "$p/bench_stream.elf" 2 512
run --pes 80 --trace-text "$p/hello.elf" 2> /dev/null
run --pes 80 "$p/demo.elf"
