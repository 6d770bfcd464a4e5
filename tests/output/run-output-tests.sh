#!/bin/sh
# run-output-tests.sh: a job's output follows the program's
# synchronisation and is never lost, and the end of the program is the end
# of the job.
#   - output_order (tests/omp) with standard output to a pipe prints what
#     libgomp prints at the same thread count (tests/omp checks a file);
#   - print_return3 returns 3 from main(), exit_in_region calls exit(5) in
#     a parallel region on its last thread: 10 runs each at 2, 3 and 4
#     nodes, each must print every line libgomp prints, exit with
#     libgomp's status and say nothing on standard error (no "node N exited
#     with status", no "lost the launcher");
#   - hello_plain built with plain gcc, with and without -fopenmp, at 1 and
#     3 nodes: ompdsm-run refuses it with one line saying that it was not
#     built with ompdsm-cc, runs nothing and exits non-zero.
#
#   tests/output/run-output-tests.sh BUILD_DIR
#
# Prints one line per case, "PASS output: <what>" or "FAIL output: <what>"
# followed by indented log lines, and no summary.  Exits non-zero if any
# case failed.  Environment: OMPDSM_TEST_TIMEOUT seconds per run (default
# 60).
set -u

. "$(dirname "$0")/../lib.sh"
build_dir "$@"
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=$BUILD/tests/output
RUN=$BUILD/ompdsm-run
TIMEOUT=${OMPDSM_TEST_TIMEOUT:-60}
RUNS=10
mkdir -p "$OUT" || exit 2
failed=0
clean_env
UCX_TLS=self,sm
export UCX_TLS

# ---- build -------------------------------------------------------------------

build_all() {
    build_both "$SRC/../omp/output_order.c" "$OUT/output_order" &&
        build_both "$SRC/print_return3.c" "$OUT/print_return3" &&
        build_both "$SRC/exit_in_region.c" "$OUT/exit_in_region" &&
        gcc -O2 "$SRC/hello_plain.c" -o "$OUT/hello_plain" &&
        gcc -fopenmp -O2 "$SRC/hello_plain.c" -o "$OUT/hello_plain_omp"
}
if ! build_all >"$OUT/build.log" 2>&1; then
    verdict "output: build" 1 "$OUT/build.log"
    exit 1
fi

# ---- output order through a pipe -----------------------------------------------

for np in 2 3 4; do
    log=$OUT/order_pipe.np$np.log
    OMP_NUM_THREADS=$np "$OUT/output_order.gomp" >"$OUT/order.np$np.ref"
    # The pipe's reader is cat, which writes the file the job's output is
    # compared in.
    { timeout "$TIMEOUT" "$RUN" -np "$np" "$OUT/output_order.dsm" 2>"$log"; echo "status $?" >>"$log"; } |
        cat >"$OUT/order.np$np.out"
    ok=1
    if grep -qx "status 0" "$log" && cmp -s "$OUT/order.np$np.ref" "$OUT/order.np$np.out"; then
        ok=0
    else
        diff "$OUT/order.np$np.ref" "$OUT/order.np$np.out" >>"$log"
    fi
    verdict "output: output_order through a pipe np=$np" $ok "$log"
done

# ---- the end of the program ----------------------------------------------------

# ends NAME NP: RUNS runs of NAME at NP nodes, each compared with libgomp's
# output and status; standard error must stay empty.
ends() {
    name=$1 np=$2
    log=$OUT/$name.np$np.log
    : >"$log"
    OMP_NUM_THREADS=$np "$OUT/$name.gomp" >"$OUT/$name.np$np.ref"
    want=$?
    bad=0
    i=0
    while [ $i -lt $RUNS ]; do
        timeout "$TIMEOUT" "$RUN" -np "$np" "$OUT/$name.dsm" >"$OUT/$name.np$np.out" 2>"$OUT/$name.np$np.err"
        got=$?
        if [ $got -ne $want ] || [ -s "$OUT/$name.np$np.err" ] ||
            ! cmp -s "$OUT/$name.np$np.ref" "$OUT/$name.np$np.out"; then
            bad=$((bad + 1))
            {
                echo "run $i: status $got (libgomp: $want), $(wc -l <"$OUT/$name.np$np.out") lines" \
                    "(libgomp: $(wc -l <"$OUT/$name.np$np.ref")); stderr:"
                cat "$OUT/$name.np$np.err"
            } >>"$log"
        fi
        i=$((i + 1))
    done
    [ $bad -eq 0 ] || echo "$bad of $RUNS runs wrong" >>"$log"
    verdict "output: $name np=$np, $RUNS runs: all output, status $want, quiet" $bad "$log"
}

for np in 2 3 4; do
    ends print_return3 "$np"
    ends exit_in_region "$np"
done

# ---- a program not built with ompdsm-cc ---------------------------------------

for prog in hello_plain hello_plain_omp; do
    for np in 1 3; do
        log=$OUT/$prog.np$np.log
        timeout "$TIMEOUT" "$RUN" -np "$np" "$OUT/$prog" >"$OUT/$prog.np$np.out" 2>"$log"
        rc=$?
        ok=1
        if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ ! -s "$OUT/$prog.np$np.out" ] &&
            [ "$(wc -l <"$log")" -eq 1 ] && grep -q "not built with ompdsm-cc" "$log"; then
            ok=0
        else
            echo "status $rc; stdout: $(head -c 200 "$OUT/$prog.np$np.out")" >>"$log"
        fi
        verdict "output: $prog (plain gcc) refused np=$np" $ok "$log"
    done
done
exit $failed
