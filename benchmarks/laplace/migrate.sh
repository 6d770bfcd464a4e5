#!/bin/sh
# migrate.sh: Laplace N x N, ITER iterations, cyclic initial homes, at 2
# and 4 nodes, with home migration off, at the first loop end, and every
# K-th loop end, in one run; median of RUNS runs each.
#   benchmarks/laplace/migrate.sh BUILD_DIR [N] [ITER] [RUNS] [K]
set -eu
BUILD=$(cd "${1:-build}" && pwd)
N=${2:-2048}
ITER=${3:-100}
RUNS=${4:-3}
K=${5:-10}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=$BUILD/benchmarks/laplace
mkdir -p "$OUT"
"$BUILD/tools/ompdsm-cc" -O2 -DN="$N" "$SRC/laplace.c" -o "$OUT/laplace_dsm.$N"
export OMP_SCHEDULE=static OMPDSM_HOME=cyclic UCX_TLS=${UCX_TLS:-self,sm}

# median time of RUNS runs of: np MIGRATE
median() {
    i=0
    while [ $i -lt "$RUNS" ]; do
        OMPDSM_MIGRATE=$2 "$BUILD/ompdsm-run" -np "$1" --threads-per-node 1 "$OUT/laplace_dsm.$N" "$ITER" |
            tr ' ' '\n' | sed -n 's/^time=//p'
        i=$((i + 1))
    done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

printf '\nLaplace %dx%d, %d iterations, cyclic homes, median of %d runs, %s cores\n\n' \
    "$N" "$N" "$ITER" "$RUNS" "$(nproc)"
printf '| nodes | %10s | %10s | %12s | %10s | %12s |\n' "off (s)" "first (s)" "every:$K (s)" "off/first" \
    "off/every:$K"
printf '|-------|------------|------------|--------------|------------|--------------|\n'
for np in 2 4; do
    printf 'running %d nodes...\n' "$np" >&2
    off=$(median "$np" off)
    first=$(median "$np" first)
    every=$(median "$np" "every:$K")
    printf '| %5d | %10s | %10s | %12s | %10s | %12s |\n' "$np" "$off" "$first" "$every" \
        "$(awk -v a="$off" -v b="$first" 'BEGIN { printf "%.2f", a / b }')" \
        "$(awk -v a="$off" -v b="$every" 'BEGIN { printf "%.2f", a / b }')"
done
