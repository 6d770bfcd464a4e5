#!/bin/sh
# compare.sh: the first Laplace comparison, kept as a shorthand for the
# benchmark harness (benchmarks/harness.sh, see benchmarks/README): Laplace
# N x N, ITER iterations, on libgomp, MPI and ompdsm at 1, 2 and 4 nodes,
# median of 3 runs, with the checksums checked.
#   benchmarks/laplace/compare.sh BUILD_DIR [N] [ITER]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
exec sh "$HERE/../harness.sh" --bench laplace --sizes "${2:-1024}" --iter "${3:-100}" "${1:-build}"
