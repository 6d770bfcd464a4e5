#!/bin/sh
# run-placement-tests.sh: how many OpenMP threads each node runs when
# OMPDSM_THREADS_PER_NODE is not set.  libgomp runs a thread per CPU of its
# affinity mask, or OMP_NUM_THREADS of them; ompdsm must give the team
# libgomp would give with as many threads as the nodes have in all:
#   - one node: exactly libgomp's team, with all CPUs, under taskset, and
#     with OMP_NUM_THREADS;
#   - N nodes started by ompdsm-run without binding share the CPUs ompdsm-run
#     may run on: max(1, CPUs / N) threads each; the same with --bind-to
#     core, which gives each node that many CPUs;
#   - OMP_NUM_THREADS=k over N nodes: a team of k (nodes of k / N threads,
#     rounded up), as libgomp's;
#   - OMPDSM_THREADS_PER_NODE and --threads-per-node still decide when given;
#   - under mpirun: the CPUs each rank is bound to (--bind-to core), or the
#     ranks' share of the CPUs they have in common (--bind-to none).
# Each case compares the program's output with libgomp's, run with the
# thread count the rule gives; the count comes from nproc (the CPUs this
# script may run on) or from the ranks' own nproc, never a fixed figure.
#
#   tests/placement/run-placement-tests.sh BUILD_DIR
#
# Prints "PASS placement: ..." or "FAIL placement: ..." lines (a FAIL with
# the outputs), and no summary.  Exits 1 if any case failed.
set -u
. "$(dirname "$0")/../lib.sh"
build_dir "$@"
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=$BUILD/tests/placement
RUN=$BUILD/ompdsm-run
TIMEOUT=${OMPDSM_TEST_TIMEOUT:-60}
mkdir -p "$OUT" || exit 2
clean_env
unset OMPDSM_THREADS_PER_NODE
UCX_TLS=${UCX_TLS:-self,sm}
export UCX_TLS
failed=0

if ! build_both "$SRC/team.c" "$OUT/team" >"$OUT/build.log" 2>&1; then
    echo "FAIL placement: build (log: $OUT/build.log)"
    sed 's/^/    /' "$OUT/build.log" | tail -n 12
    exit 1
fi

CPUS=$(nproc)

# check WHAT THREADS GOT: GOT must be what libgomp prints with THREADS threads.
check() {
    want=$(OMP_NUM_THREADS=$2 "$OUT/team.gomp" 2>&1)
    if [ "$3" = "$want" ]; then
        echo "PASS placement: $1"
    else
        echo "FAIL placement: $1"
        echo "    ompdsm:  $3"
        echo "    libgomp: $want (OMP_NUM_THREADS=$2)"
        failed=1
    fi
}

# same WHAT PREFIX...: the one-node job under PREFIX (a command such as
# taskset, or env with variables) prints what libgomp prints under it.
same() {
    what=$1
    shift
    got=$("$@" "$RUN" --timeout "$TIMEOUT" -np 1 "$OUT/team.dsm" 2>&1)
    want=$("$@" "$OUT/team.gomp" 2>&1)
    if [ "$got" = "$want" ]; then
        echo "PASS placement: $what"
    else
        echo "FAIL placement: $what"
        echo "    ompdsm:  $got"
        echo "    libgomp: $want"
        failed=1
    fi
}

share() {   # share N: the threads each of N unbound nodes runs
    s=$((CPUS / $1))
    [ "$s" -ge 1 ] || s=1
    echo "$s"
}

# ---- one node: libgomp's team ------------------------------------------------
same "1 node, every CPU" env
same "1 node, taskset -c 0" taskset -c 0
[ "$CPUS" -ge 2 ] && same "1 node, taskset -c 0,1" taskset -c 0,1
same "1 node, OMP_NUM_THREADS=3" env OMP_NUM_THREADS=3

# ---- several nodes under ompdsm-run ------------------------------------------
for np in 2 3; do
    t=$(share $np)
    check "$np nodes, no binding: $t thread(s) each" $((np * t)) \
        "$("$RUN" --timeout "$TIMEOUT" -np $np "$OUT/team.dsm" 2>&1)"
    check "$np nodes, --bind-to core: $t thread(s) each" $((np * t)) \
        "$("$RUN" --timeout "$TIMEOUT" -np $np --bind-to core "$OUT/team.dsm" 2>&1)"
done
check "2 nodes, OMP_NUM_THREADS=5" 5 \
    "$(OMP_NUM_THREADS=5 "$RUN" --timeout "$TIMEOUT" -np 2 "$OUT/team.dsm" 2>&1)"
check "2 nodes, OMPDSM_THREADS_PER_NODE=3" 6 \
    "$(OMPDSM_THREADS_PER_NODE=3 "$RUN" --timeout "$TIMEOUT" -np 2 "$OUT/team.dsm" 2>&1)"
check "2 nodes, --threads-per-node 3 and OMP_NUM_THREADS=4" 4 \
    "$(OMP_NUM_THREADS=4 "$RUN" --timeout "$TIMEOUT" -np 2 --threads-per-node 3 "$OUT/team.dsm" 2>&1)"

# ---- under mpirun --------------------------------------------------------------
if ! command -v mpirun >/dev/null; then
    echo "FAIL placement: mpirun not found: install openmpi-bin (tools/install-deps.sh)"
    exit 1
fi
MPIRUN="mpirun --allow-run-as-root --oversubscribe --timeout $TIMEOUT
        --mca btl self,vader --mca pml ob1 --mca oob_tcp_if_include lo -np 2"
# The CPUs the ranks get with binding BIND, the fewest of the two.
rank_cpus() {
    # shellcheck disable=SC2086
    $MPIRUN --bind-to "$1" nproc 2>/dev/null | sort -n | head -n 1
}
c=$(rank_cpus core)
# shellcheck disable=SC2086
check "mpirun --bind-to core: the rank's $c CPU(s)" $((2 * c)) \
    "$($MPIRUN --bind-to core -x UCX_TLS "$OUT/team.dsm" 2>&1)"
c=$(rank_cpus none)
t=$((c / 2))
[ "$t" -ge 1 ] || t=1
# shellcheck disable=SC2086
check "mpirun --bind-to none: $t thread(s) each" $((2 * t)) \
    "$($MPIRUN --bind-to none -x UCX_TLS "$OUT/team.dsm" 2>&1)"

exit $failed
