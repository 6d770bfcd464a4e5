#!/bin/sh
# run-tests.sh: runs every test of the project but the unit tests (those
# are `make check`'s; tools/check.sh runs both) against a built tree and
# prints one line per test ("PASS name" / "FAIL name"), then a final line
# "N passed, N failed".  Exits non-zero if any test failed.  A case that
# cannot run in this build prints a SKIP line saying why, and is counted in
# a line before the last.
#
#   tests/run-tests.sh [BUILD_DIR]        (default: the current directory)
#
# Multi-node tests run as real jobs of 1..4 processes under ompdsm-run, once
# over UCX shared memory and once over UCX tcp on the loopback interface
# as nodes on several hosts would run (OMPDSM_HOST_SEGMENT=off); the
# OpenMP programs also on 1..3 nodes of 2 and 4 threads each;
# then jobs of 2 and 4 nodes under Open MPI's mpirun, which the nodes join
# through PMIx (tests/mpirun/run-mpirun-tests.sh), and jobs whose nodes each
# run in a network namespace of their own (tests/netns, needs root).
# Environment: OMPDSM_TEST_NODES (default "1 2 3 4"), OMPDSM_TEST_TLS
# (default "shm tcp"), OMPDSM_TEST_TIMEOUT seconds per job (default 120).
set -u
BUILD=$(cd "${1:-.}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
RUN="$BUILD/ompdsm-run"
NODES=${OMPDSM_TEST_NODES:-"1 2 3 4"}
TLS=${OMPDSM_TEST_TLS:-"shm tcp"}
TIMEOUT=${OMPDSM_TEST_TIMEOUT:-120}
LOG=$BUILD/tests/logs
mkdir -p "$LOG"
# One OpenMP thread per node unless a case says otherwise: the cases compare
# N nodes with libgomp's N threads (tests/placement checks the default).
OMPDSM_THREADS_PER_NODE=1
export OMPDSM_THREADS_PER_NODE
SRC_TESTS=$SRC/tests
. "$SRC_TESTS/sanitizers.sh"
passed=0
failed=0
skipped=0

report() {   # report NAME STATUS(0=pass) LOGFILE
    if [ "$2" -eq 0 ]; then
        passed=$((passed + 1))
        echo "PASS $1"
    else
        failed=$((failed + 1))
        echo "FAIL $1 (log: $3)"
        sed 's/^/    /' "$3" | tail -n 15
    fi
}

ucx_env() {   # prints the UCX settings of a transport family
    case $1 in
    shm) echo "UCX_TLS=self,sm" ;;
    tcp) echo "UCX_TLS=self,tcp UCX_NET_DEVICES=lo OMPDSM_HOST_SEGMENT=off" ;;
    esac
}

# dsm_job NAME NP TLS EXTRA_ENV PROGRAM [ARGS...]: the job must exit 0.
# EXTRA_ENV is a space-separated list of VAR=value, or "" for none.
dsm_job() {
    name=$1 np=$2 tls=$3 extra=$4
    shift 4
    log="$LOG/$name.np$np.$tls.log"
    # shellcheck disable=SC2046,SC2086
    env $(ucx_env "$tls") $extra "$RUN" --timeout "$TIMEOUT" -np "$np" "$@" >"$log" 2>&1
    report "$name np=$np tls=$tls" $? "$log"
}

# The segfault test: the job must fail with the launcher naming a segfault,
# and leave no node process behind.  With AddressSanitizer, the DSM passes
# the segfault on to ASan's handler, which reports it and exits with status
# 1: then ASan's report and the launcher naming that exit are wanted.
segv_reported() {     # segv_reported RC LOG
    if [ "$ASAN" = 1 ]; then
        [ "$1" -eq 1 ] && grep -q "$SEGV_REPORT" "$2" && grep -q "node [0-9]* (pid [0-9]*) exited with status 1" "$2"
    else
        [ "$1" -eq 139 ] && grep -q "killed by signal 11 (Segmentation fault)" "$2"
    fi
}

segv_job() {
    np=$1 tls=$2
    log="$LOG/null_deref.np$np.$tls.log"
    env $(ucx_env "$tls") "$RUN" --timeout "$TIMEOUT" -np "$np" "$BUILD/tests/dsm/null_deref" >"$log" 2>&1
    rc=$?
    ok=1
    if segv_reported $rc "$log" && ! grep -q "survived" "$log"; then
        ok=0
    else
        echo "exit status $rc" >>"$log"
    fi
    sleep 0.2
    if pgrep -f "$BUILD/tests/dsm/null_deref" >/dev/null; then
        echo "orphan node processes left:" >>"$log"
        pgrep -af "$BUILD/tests/dsm/null_deref" >>"$log"
        pkill -9 -f "$BUILD/tests/dsm/null_deref"
        ok=1
    fi
    report "null_deref np=$np tls=$tls" $ok "$log"
}

# ---- launcher and bootstrap --------------------------------------------------
log="$LOG/boot.log"
sh "$SRC/tests/boot/run_boot_tests.sh" "$RUN" "$BUILD/tests/boot/boot_node" >"$log" 2>&1
while read -r verdict rest; do
    case $verdict in
    PASS) passed=$((passed + 1)); echo "PASS boot: $rest" ;;
    FAIL) failed=$((failed + 1)); echo "FAIL boot: $rest" ;;
    esac
done <"$log"

# counted LOG PREFIX: counts and echoes the PASS/FAIL lines of a sub-suite.
counted() {
    while IFS= read -r line; do
        case $line in
        PASS*) passed=$((passed + 1)); echo "$line" ;;
        FAIL*) failed=$((failed + 1)); echo "$line" ;;
        SKIP*) skipped=$((skipped + 1)); echo "$line" ;;
        "    "*) echo "$line" ;;
        esac
    done <"$1"
}

# ---- the DSM, multi-process --------------------------------------------------
for tls in $TLS; do
    for np in $NODES; do
        dsm_job block_rw "$np" "$tls" "" "$BUILD/tests/dsm/block_rw"
        dsm_job block_rw.home-block "$np" "$tls" "OMPDSM_HOME=block" "$BUILD/tests/dsm/block_rw"
        dsm_job false_sharing "$np" "$tls" "" "$BUILD/tests/dsm/false_sharing"
        dsm_job false_sharing.first-touch "$np" "$tls" "OMPDSM_HOME=first-touch" \
            "$BUILD/tests/dsm/false_sharing"
        dsm_job home_writes_during_diffs "$np" "$tls" "OMPDSM_HOME=cyclic" "$BUILD/tests/dsm/home_writes_during_diffs"
        dsm_job lock_counter "$np" "$tls" "" "$BUILD/tests/dsm/lock_counter" 10000
        dsm_job concurrent_faults "$np" "$tls" "" "$BUILD/tests/dsm/concurrent_faults"
        dsm_job libc_on_shared "$np" "$tls" "" "$BUILD/tests/dsm/libc_on_shared"
        dsm_job progress_nice "$np" "$tls" "" "$BUILD/tests/dsm/progress_nice"
        dsm_job progress_nice.5 "$np" "$tls" "OMPDSM_PROGRESS_NICE=5" "$BUILD/tests/dsm/progress_nice"
        dsm_job sparse_region "$np" "$tls" "OMPDSM_REGION_SIZE=8G" "$BUILD/tests/dsm/sparse_region"
        segv_job "$np" "$tls"
        dsm_job migrate_laplace_homes "$np" "$tls" "OMPDSM_HOME=cyclic" "$BUILD/tests/migrate/laplace_homes"
        dsm_job migrate_rules "$np" "$tls" "" "$BUILD/tests/migrate/rules"
        dsm_job migrate_random_every "$np" "$tls" "" "$BUILD/tests/migrate/random_every" 1000
    done
done

# suite NAME SCRIPT: runs the sub-suite tests/SCRIPT and counts its lines.
suite() {
    log="$LOG/$1.log"
    sh "$SRC/tests/$2" "$BUILD" >"$log" 2>&1
    counted "$log"
}

# OpenMP programs: ompdsm against libgomp
suite omp omp/run-omp-tests.sh
# the same on 1..3 nodes of 2 and 4 threads each, against libgomp with as
# many threads in all
log="$LOG/omp-threads.log"
OMPDSM_TEST_NODES="1 2 3" OMPDSM_TEST_THREADS="2 4" sh "$SRC/tests/omp/run-omp-tests.sh" "$BUILD" >"$log" 2>&1
counted "$log"
# threads per node when no variable says: libgomp's team on one node, a
# share of the CPUs on several, the CPUs bound to each rank under mpirun
suite placement placement/run-placement-tests.sh
# bad input: a clear message and a non-zero exit, no hang, no orphans
suite errors errors/run-error-tests.sh
# output follows synchronisation, is never lost; the program's end is the job's
suite output output/run-output-tests.sh
# a node killed or stopped mid-run ends the job, naming it, leaving nothing
suite faults faults/run-fault-tests.sh
# the profiled schedule on equal and really slowed nodes
suite sched sched/run-sched-tests.sh
# the profiler: a real run's trace, and the scripts that read traces
suite profiler profiler/run-profiler-tests.sh
# the benchmark harness: its report's figures on a recorded run, its options
suite harness harness/run-harness-tests.sh
# the benchmark suite's programs (NAS kernels class S, ADI, Jacobi) give
# libgomp's verified results on 1..4 nodes
suite kernels kernels/run-kernel-tests.sh
# soak: 100,000 lock acquisitions and 10,000 regions on 4 nodes, exact and flat
suite soak soak/run-soak-tests.sh
# under mpirun: the PMIx bootstrap (uses the OpenMP programs built above)
suite mpirun mpirun/run-mpirun-tests.sh
# a running job's shared memory is its owner's alone, and it listens on
# loopback only (ompdsm-run and mpirun on one host)
suite security security/run-security-tests.sh
# on "hosts": each node in its own network namespace, UCX tcp over veths
# (needs root; uses the OpenMP programs built above)
suite netns netns/run-netns-tests.sh

[ "$skipped" -eq 0 ] || echo "$skipped skipped (see the SKIP lines)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
