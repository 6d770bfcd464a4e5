#!/bin/sh
# demo.sh: the main job.  Installs what is missing, builds, then runs the
# DSM micro-benchmark and the Laplace comparison on local nodes, printing
# tables of results.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
sh "$SRC/tools/build.sh"
sh "$SRC/benchmarks/micro/run.sh" "$SRC/build"
sh "$SRC/benchmarks/laplace/compare.sh" "$SRC/build" 1024 100
