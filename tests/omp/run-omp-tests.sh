#!/bin/sh
# run-omp-tests.sh: the OpenMP conformance tests.  Each tests/omp/*.c is a
# small OpenMP program whose standard output must not depend on the number
# of threads or on the schedule; it is built twice, with GCC's libgomp
# (gcc -fopenmp) and with ompdsm (ompdsm-cc), and for every node count N
# and threads per node T the output of ompdsm on N nodes of T threads must
# be identical to the output of libgomp with OMP_NUM_THREADS=N*T.  libgomp
# is the reference.
#
#   tests/omp/run-omp-tests.sh BUILD_DIR
#
# Prints one line per case, "PASS omp/<name> np=N" or "FAIL omp/<name> np=N"
# ("np=N tpn=T" for T > 1) followed by an indented excerpt (diff or log),
# and no summary: the caller counts the lines.  Exits non-zero if any case
# failed.
#
# A test whose header comment has the line " * Run over tcp too." also runs
# over UCX's tcp transport on loopback (lines marked "tls=tcp").
#
# A test that needs environment variables declares them in its first line,
#     /* env: OMP_SCHEDULE=dynamic,3 */
# and they are set for both runs.  A test whose header comment has a line
# " * Compiler flags: FLAGS" is built with FLAGS by both compilers.
#
# Environment: OMPDSM_TEST_NODES (default "1 2 3 4"), OMPDSM_TEST_THREADS
# (threads per node, default "1"), OMPDSM_TEST_TIMEOUT seconds per run
# (default 60), CC (default gcc) for the libgomp build.
set -u

. "$(dirname "$0")/../lib.sh"
build_dir "$@"
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=$BUILD/tests/omp
RUN=$BUILD/ompdsm-run
DSMCC=$BUILD/tools/ompdsm-cc
CC=${CC:-gcc}
NODES=${OMPDSM_TEST_NODES:-"1 2 3 4"}
THREADS=${OMPDSM_TEST_THREADS:-1}
TIMEOUT=${OMPDSM_TEST_TIMEOUT:-60}
mkdir -p "$OUT"
failed=0

# excerpt FILE: the first lines of FILE, indented.
excerpt() {
    sed -n '1,15s/^/    /p' "$1"
}

# fail_all NAME LOG: the test could not be built; one FAIL per node count,
# so that the number of cases does not depend on what broke.
fail_all() {
    for n in $NODES; do
        for t in $THREADS; do
            echo "FAIL omp/$1 $(shape "$n" "$t")"
            excerpt "$2"
        done
    done
    failed=1
}

# shape N T: how a case with N nodes of T threads is named.
shape() {
    if [ "$2" = 1 ]; then echo "np=$1"; else echo "np=$1 tpn=$2"; fi
}

# test_env FILE: the VAR=value list from a first line "/* env: ... */".
test_env() {
    sed -n '1s|^/\* *env: *\(.*[^ ]\) *\*/ *$|\1|p' "$1"
}

# test_cflags FILE: the flags of a header line " * Compiler flags: ...".
test_cflags() {
    sed -n 's|^ \* Compiler flags: *\(.*[^ ]\) *$|\1|p' "$1"
}

# transports FILE: shared memory, and tcp over loopback too for a test whose
# header comment says " * Run over tcp too." (the protocol paths that depend
# on the transport: flush, tasks).
transports() {
    if grep -q '^ \* Run over tcp too\.' "$1"; then echo "sm tcp"; else echo sm; fi
}

for src in "$SRC"/*.c; do
    name=$(basename "$src" .c)
    gomp=$OUT/$name.gomp
    dsm=$OUT/$name.dsm
    log=$OUT/$name.build.log
    cflags=$(test_cflags "$src")
    # shellcheck disable=SC2086
    if ! "$CC" -fopenmp -O2 $cflags "$src" -o "$gomp" -lm >"$log" 2>&1; then
        echo "(libgomp build failed)" >>"$log"
        fail_all "$name" "$log"
        continue
    fi
    # shellcheck disable=SC2086
    if ! "$DSMCC" -O2 $cflags "$src" -o "$dsm" -lm >"$log" 2>&1; then
        echo "(ompdsm-cc build failed)" >>"$log"
        fail_all "$name" "$log"
        continue
    fi
    extra=$(test_env "$src")
    for n in $NODES; do
    for t in $THREADS; do
        case=$(shape "$n" "$t")
        ref=$OUT/$name.np$n.t$t.gomp.out
        got=$OUT/$name.np$n.t$t.dsm.out
        err=$OUT/$name.np$n.t$t.dsm.err
        # shellcheck disable=SC2086
        env $extra OMP_NUM_THREADS="$((n * t))" timeout "$TIMEOUT" "$gomp" >"$ref" 2>"$ref.err"
        rc_ref=$?
        for tls in $(transports "$src"); do
            case $tls in
            sm) tag= ; tls_env="UCX_TLS=self,sm" ;;
            tcp) tag=" tls=tcp" ; tls_env="UCX_TLS=self,tcp UCX_NET_DEVICES=lo OMPDSM_HOST_SEGMENT=off" ;;
            esac
            # shellcheck disable=SC2086
            env $extra $tls_env "$RUN" --timeout "$TIMEOUT" -np "$n" --threads-per-node "$t" "$dsm" \
                >"$got" 2>"$err"
            rc_got=$?
            if [ $rc_ref -ne 0 ]; then
                echo "FAIL omp/$name $case$tag"
                echo "    libgomp reference run exited with status $rc_ref"
                excerpt "$ref.err"
                failed=1
            elif [ $rc_got -ne 0 ]; then
                echo "FAIL omp/$name $case$tag"
                echo "    ompdsm run exited with status $rc_got; stderr:"
                excerpt "$err"
                failed=1
            elif ! cmp -s "$ref" "$got"; then
                echo "FAIL omp/$name $case$tag"
                echo "    output differs (--- libgomp, +++ ompdsm):"
                diff -u "$ref" "$got" | sed -n '3,17s/^/    /p'
                failed=1
            else
                echo "PASS omp/$name $case$tag"
            fi
        done
    done
    done
done
exit $failed
