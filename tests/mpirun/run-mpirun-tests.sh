#!/bin/sh
# run-mpirun-tests.sh: ompdsm jobs started by Open MPI's mpirun instead of
# ompdsm-run.  The nodes then join the job through PMIx (net/boot_pmix.c):
# rank and size from the PMIx server, all-gathers through its key-value
# store.  What must hold:
#   - the PMIx bootstrap all-gathers data of every length correctly;
#   - DSM programs and OpenMP programs run correctly on 2 and 4 nodes, over
#     UCX shared memory and over tcp on the loopback interface, and an
#     OpenMP program prints what libgomp prints with OMP_NUM_THREADS=N;
#   - a node that segfaults or exits non-zero makes mpirun end the job with
#     a non-zero status, without hanging and without leaving a node behind;
#   - PMIx variables without a PMIx server are a clear one-line error.
#
#   tests/mpirun/run-mpirun-tests.sh BUILD_DIR
#
# Needs the OpenMP programs that tests/omp/run-omp-tests.sh builds into
# BUILD_DIR/tests/omp.  Prints "PASS mpirun/<name> ..." or "FAIL ..." lines,
# each FAIL followed by an indented excerpt, and no summary: the caller
# counts the lines.  Exits 1 if any case failed.
#
# mpirun is kept to loopback and shared memory for its own traffic, and UCX
# is told its transports explicitly, so that nothing leaves the machine.
# Environment: OMPDSM_TEST_TIMEOUT seconds per job (default 60).
set -u

. "$(dirname "$0")/../lib.sh"
build_dir "$@"
SRC=$(cd "$(dirname "$0")/.." && pwd)
OMP=$BUILD/tests/omp
LOG=$BUILD/tests/logs/mpirun
TIMEOUT=${OMPDSM_TEST_TIMEOUT:-60}
MPIRUN="mpirun --allow-run-as-root --oversubscribe --timeout $TIMEOUT
        --mca btl self,vader --mca pml ob1 --mca oob_tcp_if_include lo"
mkdir -p "$LOG"
failed=0
SRC_TESTS=$SRC
. "$SRC_TESTS/sanitizers.sh"

pass() { echo "PASS mpirun/$1"; }
fail() {    # fail CASE LOG REASON
    echo "FAIL mpirun/$1"
    echo "    $3"
    [ -f "$2" ] && sed -n '1,12s/^/    /p' "$2"
    failed=1
}

ucx_env() {   # the UCX settings of a transport family
    case $1 in
    shm) echo "UCX_TLS=self,sm" ;;
    tcp) echo "UCX_TLS=self,tcp UCX_NET_DEVICES=lo OMPDSM_HOST_SEGMENT=off" ;;
    esac
}

# job CASE NP "VAR=value ..." PROGRAM [ARGS...]: runs PROGRAM on NP nodes
# under mpirun, with the variables exported to the nodes (-x).  Sets $rc;
# the nodes' output goes to $out and $err.
job() {
    base=$(echo "$1" | tr -c 'a-zA-Z0-9_\n' '.') np=$2 vars=$3
    shift 3
    mark=$$.$base
    out=$LOG/$base.out
    err=$LOG/$base.err
    xs=""
    for v in $vars OMPDSM_TEST_MARK=$mark; do
        xs="$xs -x $v"
    done
    # shellcheck disable=SC2086
    $MPIRUN $xs -np "$np" "$@" >"$out" 2>"$err" </dev/null
    rc=$?
}

# expect_ok CASE: the job ended well and left no node behind.
expect_ok() {
    if [ $rc -ne 0 ]; then
        fail "$1" "$err" "exit status $rc; stderr:"
    elif ! none_left "$mark"; then
        fail "$1" "$err" "nodes left behind: $(marked "$mark" | tr '\n' ' ')"
    else
        pass "$1"
    fi
}

# expect_failed CASE PATTERN: the job failed (non-zero status, mpirun's
# stderr matching PATTERN) and no node is left.
expect_failed() {
    if [ $rc -eq 0 ] || [ $rc -eq 110 ]; then   # 110: mpirun's own timeout
        fail "$1" "$err" "exit status $rc, wanted a failure of the job"
    elif ! grep -q "$2" "$err"; then
        fail "$1" "$err" "mpirun did not report '$2'; stderr:"
    elif ! none_left "$mark"; then
        fail "$1" "$err" "nodes left behind: $(marked "$mark" | tr '\n' ' ')"
    else
        pass "$1"
    fi
}

if ! command -v mpirun >/dev/null; then
    fail "mpirun" /dev/null "mpirun not found: install openmpi-bin (tools/install-deps.sh)"
    exit 1
fi

# ---- PMIx variables but no PMIx server -----------------------------------------
c="pmix_init_failure_is_reported"
err=$LOG/pmix_init_failure.err
env -u OMPDSM_BOOTSTRAP PMIX_NAMESPACE=no-such-job PMIX_RANK=0 \
    timeout "$TIMEOUT" "$BUILD/tests/boot/boot_node" >/dev/null 2>"$err"
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$err")" -eq 1 ] && grep -q "PMIx_Init failed" "$err"; then
    pass "$c"
else
    fail "$c" "$err" "exit status $rc (wanted 1 and one line naming PMIx_Init); stderr:"
fi

for np in 2 4; do
    # ---- the bootstrap alone: all-gathers of every length ----------------------
    c="boot_allgather np=$np"
    job "$c" "$np" "" "$BUILD/tests/boot/boot_node"
    if [ $rc -eq 0 ] && [ "$(grep -c "^ok rank .* of $np\$" "$out")" -ne "$np" ]; then
        rc=1
    fi
    expect_ok "$c"

    # ---- DSM programs ------------------------------------------------------------
    for tls in shm tcp; do
        c="block_rw np=$np tls=$tls"
        job "$c" "$np" "$(ucx_env "$tls")" "$BUILD/tests/dsm/block_rw"
        expect_ok "$c"
        c="lock_counter np=$np tls=$tls"
        job "$c" "$np" "$(ucx_env "$tls")" "$BUILD/tests/dsm/lock_counter" 1000
        expect_ok "$c"
    done

    # ---- OpenMP programs against libgomp -------------------------------------------
    for t in jacobi2d:shm jacobi2d:tcp for_runtime_dynamic:shm reduction_int:shm; do
        name=${t%:*} tls=${t#*:}
        c="omp/$name np=$np tls=$tls"
        if [ ! -x "$OMP/$name.dsm" ] || [ ! -x "$OMP/$name.gomp" ]; then
            fail "$c" /dev/null "$OMP/$name.dsm or .gomp is missing (run tests/omp/run-omp-tests.sh first)"
            continue
        fi
        extra=$(sed -n '1s|^/\* *env: *\(.*[^ ]\) *\*/ *$|\1|p' "$SRC/omp/$name.c")
        ref=$LOG/$name.np$np.gomp.out
        # shellcheck disable=SC2086
        env $extra OMP_NUM_THREADS="$np" timeout "$TIMEOUT" "$OMP/$name.gomp" >"$ref" 2>&1
        job "$c" "$np" "$extra $(ucx_env "$tls")" "$OMP/$name.dsm"
        if [ $rc -eq 0 ] && ! cmp -s "$ref" "$out"; then
            diff -u "$ref" "$out" >"$err.diff"
            fail "$c" "$err.diff" "output differs (--- libgomp, +++ ompdsm):"
            continue
        fi
        expect_ok "$c"
    done

    # ---- a node dies ----------------------------------------------------------------
    # With AddressSanitizer the DSM passes the segfault on to ASan's handler,
    # which reports it and exits with status 1.
    c="segfault_ends_job np=$np"
    job "$c" "$np" "$(ucx_env shm)" "$BUILD/tests/dsm/null_deref"
    if grep -q "survived" "$out"; then
        fail "$c" "$out" "the other nodes went on after the crash:"
    elif [ "$ASAN" = 1 ]; then
        expect_failed "$c" "$SEGV_REPORT"
    else
        expect_failed "$c" "exited on signal 11"
    fi

    c="nonzero_exit_ends_job np=$np"
    job "$c" "$np" "BOOT_TEST_EXIT3=1" "$BUILD/tests/boot/boot_node"
    expect_failed "$c" "Exit code: *3"
done
exit $failed
