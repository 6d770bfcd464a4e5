#!/bin/sh
# demo.sh: the main job.  Installs what is missing, builds, then runs the
# DSM micro-benchmark and the benchmark harness on Laplace 1024x1024 (libgomp,
# MPI and ompdsm at 1, 2 and 4 local nodes), printing tables of results.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
sh "$SRC/tools/build.sh"
sh "$SRC/benchmarks/micro/run.sh" "$SRC/build"
sh "$SRC/benchmarks/harness.sh" --bench laplace --sizes 1024 "$SRC/build"
