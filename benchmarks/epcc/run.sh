#!/bin/sh
# run.sh: EPCC-style overheads of OpenMP constructs, ompdsm at 2 and 4 nodes
# next to libgomp with the same number of threads, in one run.
#   benchmarks/epcc/run.sh BUILD_DIR [REPS] [RUNS]
# Each figure is the median of RUNS runs (default 5).
set -eu
BUILD=$(cd "${1:-build}" && pwd)
REPS=${2:-1000}
RUNS=${3:-5}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=$BUILD/benchmarks/epcc
mkdir -p "$OUT"
gcc -fopenmp -O2 "$SRC/epcc.c" -o "$OUT/epcc_gomp"
"$BUILD/tools/ompdsm-cc" -O2 "$SRC/epcc.c" -o "$OUT/epcc_dsm"
export UCX_TLS=self,sm
# runs COMMAND... RUNS times and prints every output line of every run
repeat() {
    i=0
    while [ $i -lt "$RUNS" ]; do
        "$@"
        i=$((i + 1))
    done
}
g2=$(OMP_NUM_THREADS=2 repeat "$OUT/epcc_gomp" "$REPS")
g4=$(OMP_NUM_THREADS=4 repeat "$OUT/epcc_gomp" "$REPS")
d2=$(repeat "$BUILD/ompdsm-run" -np 2 --threads-per-node 1 "$OUT/epcc_dsm" "$REPS")
d4=$(repeat "$BUILD/ompdsm-run" -np 4 --threads-per-node 1 "$OUT/epcc_dsm" "$REPS")
# median over the runs of construct $2 in output $1
val() {
    echo "$1" | awk -v k="$2" '$1 == k { print $2 }' | sort -n |
        awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
printf '\nOverhead per construct, microseconds (EPCC method, %s repetitions, median of %s runs, %s cores)\n\n' \
    "$REPS" "$RUNS" "$(nproc)"
printf '| %-12s | %10s | %10s | %10s | %10s |\n' construct "gomp 2 thr" "ompdsm 2" "gomp 4 thr" "ompdsm 4"
printf '|%s|\n' "--------------|------------|------------|------------|------------"
for c in parallel barrier single for_dynamic reduction critical lock atomic; do
    printf '| %-12s | %10s | %10s | %10s | %10s |\n' "$c" "$(val "$g2" "$c")" "$(val "$d2" "$c")" \
        "$(val "$g4" "$c")" "$(val "$d4" "$c")"
done
echo
echo "ompdsm N = N nodes (processes) on this machine, one OpenMP thread each, over UCX shared memory."
