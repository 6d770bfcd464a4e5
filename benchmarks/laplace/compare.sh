#!/bin/sh
# compare.sh: Laplace (Jacobi, N x N, ITER iterations) on ompdsm at 1, 2 and
# 4 local nodes next to libgomp on this machine, in one run, with the
# checksums that must agree.  A first look; benchmarks/RESULTS.md holds
# the full comparison.
#   benchmarks/laplace/compare.sh BUILD_DIR [N] [ITER]
set -eu
BUILD=$(cd "${1:-build}" && pwd)
N=${2:-1024}
ITER=${3:-100}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=$BUILD/benchmarks/laplace
mkdir -p "$OUT"
gcc -fopenmp -O2 -DN="$N" "$SRC/laplace.c" -o "$OUT/laplace_gomp.$N"
"$BUILD/tools/ompdsm-cc" -O2 -DN="$N" "$SRC/laplace.c" -o "$OUT/laplace_dsm.$N"
export OMP_SCHEDULE=static UCX_TLS=self,sm

field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

printf '\nLaplace %dx%d, %d iterations, OMP_SCHEDULE=static, %s cores\n\n' "$N" "$N" "$ITER" "$(nproc)"
printf '| %-27s | %9s | %9s | %-16s |\n' run "time (s)" "vs gomp 1" checksum
printf '|%s|\n' "-----------------------------|-----------|-----------|------------------"
ref=""
row() {   # row LABEL OUTPUT
    t=$(field "$2" time)
    c=$(field "$2" checksum)
    [ -n "$ref" ] || ref=$t
    printf '| %-27s | %9s | %9s | %-16s |\n' "$1" "$t" "$(awk -v a="$ref" -v b="$t" 'BEGIN { printf "%.2f", a / b }')" "$c"
}
row "libgomp 1 thread" "$(OMP_NUM_THREADS=1 "$OUT/laplace_gomp.$N" "$ITER")"
row "libgomp 2 threads" "$(OMP_NUM_THREADS=2 "$OUT/laplace_gomp.$N" "$ITER")"
for np in 1 2 4; do
    row "ompdsm $np node(s), cyclic" "$("$BUILD/ompdsm-run" -np "$np" "$OUT/laplace_dsm.$N" "$ITER")"
done
for np in 2 4; do
    row "ompdsm $np nodes, 1st-touch" \
        "$(OMPDSM_HOME=first-touch "$BUILD/ompdsm-run" -np "$np" "$OUT/laplace_dsm.$N" "$ITER")"
done
echo
echo "vs gomp 1 = time of libgomp with 1 thread / time of the run (higher is faster)."
echo "cyclic: the default initial homes (page p at node p mod N); 1st-touch: OMPDSM_HOME=first-touch."
