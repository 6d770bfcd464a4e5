#!/bin/sh
# run-kernel-tests.sh BUILD_DIR: the benchmark suite's programs compute the
# right result on ompdsm.  Every NAS kernel in benchmarks/nas/*.c (the glob
# picks up kernels as they are added) at class S, the ADI solver (24^3, 10
# steps) and the textbook Jacobi (256 x 256, 20 iterations) are built with
# libgomp (gcc -fopenmp) and with ompdsm-cc, and run on 1..4 nodes
# (OMPDSM_TEST_NODES) over UCX shared memory.  A case passes when
#   - the program exits 0 and prints its result line;
#   - a NAS kernel says verified=yes (its own check against the published
#     values of the class) and its checksum is libgomp's with 1 thread to
#     1e-6 relative (the kernels' sums are reductions, summed in an order
#     that depends on the thread count);
#   - ADI's and Jacobi's checksum is libgomp's with 1 thread to 1e-9
#     relative (every point is computed the same way whatever the thread
#     count; the line prints 11 to 13 digits).
# The runs get OMP_SCHEDULE=static, as in the benchmark harness, and the
# environment of the caller is otherwise cleared of OMP_* and OMPDSM_*.
# Each case is meant to take well under 20 s on 2 cores; the log of every
# run has its wall time.
#
# Prints one line per case, "PASS kernels/<name> np=N" or "FAIL ..." with
# an indented excerpt, and no summary.  Exits non-zero if any case failed.
# Environment: OMPDSM_TEST_NODES (default "1 2 3 4"), OMPDSM_TEST_TIMEOUT
# seconds per run (default 60).
set -u
. "$(dirname "$0")/../lib.sh"
build_dir "$@"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BENCH=$TOP/benchmarks
OUT=$BUILD/tests/kernels
RUN=$BUILD/ompdsm-run
NODES=${OMPDSM_TEST_NODES:-"1 2 3 4"}
TIMEOUT=${OMPDSM_TEST_TIMEOUT:-60}
mkdir -p "$OUT"
clean_env
export OMP_SCHEDULE=static UCX_TLS=self,sm
failed=0

# fail_all NAME LOG WHY: the program could not be built or its reference
# run failed: one FAIL per node count, so that the number of cases does not
# depend on what broke.
fail_all() {
    for n in $NODES; do
        echo "FAIL kernels/$1 np=$n"
        echo "    $3"
        sed -n '1,10s/^/    /p' "$2"
    done
    failed=1
}

field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# close A B TOL: whether A and B agree to TOL relative to B.
close() {
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; if (b < 0) b = -b; exit !(d <= t * b) }'
}

# result NAME FILE: the program's result line in FILE ("<name> ..."), or "".
result() {
    grep "^$1 " "$2" | tail -n 1
}

# kernel NAME SOURCE TOL ARGS...: builds SOURCE both ways, runs libgomp with
# 1 thread for the reference, then ompdsm at each node count.
kernel() {
    name=$1 src=$2 tol=$3
    shift 3
    prog=$(basename "$src" .c)
    case $name in nas/*) nas=1 ;; *) nas=0 ;; esac
    exe=$OUT/$prog
    log=$OUT/$prog.build.log
    if ! gcc -fopenmp -O2 "$src" -o "$exe.gomp" -lm >"$log" 2>&1 ||
        ! "$BUILD/tools/ompdsm-cc" -O2 "$src" -o "$exe.dsm" -lm >>"$log" 2>&1; then
        fail_all "$name" "$log" "building $src failed"
        return
    fi
    ref_out=$OUT/$prog.gomp.out
    OMP_NUM_THREADS=1 timeout "$TIMEOUT" "$exe.gomp" "$@" >"$ref_out" 2>&1
    rc=$?
    ref=$(result "$prog" "$ref_out")
    want=$(field "$ref" checksum)
    if [ $rc -ne 0 ] || [ -z "$want" ] || { [ $nas -eq 1 ] && [ "$(field "$ref" verified)" != yes ]; }; then
        fail_all "$name" "$ref_out" "the libgomp reference run (1 thread) failed or did not verify (exit status $rc)"
        return
    fi
    for n in $NODES; do
        log=$OUT/$prog.np$n.log
        t0=$(date +%s.%N)
        timeout $((TIMEOUT + 10)) "$RUN" --timeout "$TIMEOUT" -np "$n" "$exe.dsm" "$@" >"$log" 2>&1
        rc=$?
        t1=$(date +%s.%N)
        echo "(wall time $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s; libgomp 1 thread: $ref)" >>"$log"
        got=$(result "$prog" "$log")
        sum=$(field "$got" checksum)
        why=""
        if [ $rc -ne 0 ]; then
            why="ompdsm run exited with status $rc"
        elif [ -z "$sum" ]; then
            why="no result line"
        elif [ $nas -eq 1 ] && [ "$(field "$got" verified)" != yes ]; then
            why="not verified"
        elif ! close "$sum" "$want" "$tol"; then
            why="checksum $sum, libgomp 1 thread has $want (tolerance $tol relative)"
        elif [ "$(field "$got" threads)" != "$n" ]; then
            why="ran with $(field "$got" threads) threads, not $n"
        fi
        if [ -z "$why" ]; then
            echo "PASS kernels/$name np=$n"
        else
            echo "FAIL kernels/$name np=$n"
            echo "    $why; last lines of $log:"
            tail -n 8 "$log" | sed 's/^/    /'
            failed=1
        fi
    done
}

for src in "$BENCH"/nas/*.c; do
    [ -f "$src" ] || continue           # no kernel merged yet
    kernel "nas/$(basename "$src" .c) class=S" "$src" 1e-6 S
done
kernel "adi N=24 steps=10" "$BENCH/adi/adi.c" 1e-9 24 10
kernel "jacobi N=256 iter=20" "$BENCH/jacobi/jacobi.c" 1e-9 256 20
exit $failed
