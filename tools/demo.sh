#!/bin/sh
# demo.sh: the main job.  Installs what is missing, builds, then runs the
# DSM micro-benchmark, the benchmark harness on Laplace 1024x1024 (libgomp,
# MPI and ompdsm at 1, 2 and 4 local nodes), and the suite of real program
# shapes (the NAS kernels at class A, ADI, the textbook Jacobi) at 1 and 2
# nodes with the defaults next to home migration off, and built without
# their schedule clauses as most programs are written, and Laplace, Himeno
# and the textbook Jacobi on one node of 2 OpenMP threads against libgomp
# with 2 threads, printing tables of results.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
sh "$SRC/tools/build.sh"
sh "$SRC/benchmarks/micro/run.sh" "$SRC/build"
sh "$SRC/benchmarks/harness.sh" --bench laplace --sizes 1024 "$SRC/build"
sh "$SRC/benchmarks/harness.sh" --suite --nodes '1 2' --reps 1 --migrate off --plain "$SRC/build"
sh "$SRC/benchmarks/harness.sh" --bench 'laplace himeno jacobi' --sizes '2048 S jacobi:2048' --nodes 1 \
    --threads-per-node 2 --migrate off "$SRC/build"
