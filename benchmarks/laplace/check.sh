#!/bin/sh
# check.sh: a quick self-check of the Laplace and Himeno benchmarks and their
# MPI baselines, natively (no DSM).  Builds the four programs into a temporary
# directory, then checks that
#   - laplace (N=1024, 20 iterations) prints the same checksum, to the last
#     printed digit, with 1 and 2 OpenMP threads under OMP_SCHEDULE=static and
#     dynamic,4, and as laplace_mpi on 1, 2 and 4 ranks;
#   - himeno (size S, 10 iterations) prints gosa values that agree to 1e-6
#     relative with 1 and 2 OpenMP threads and as himeno_mpi on 1 and 2 ranks
#     (gosa is a reduction, so only its last digits may differ).
# Prints one PASS/FAIL line per check and exits non-zero if any failed.
#   benchmarks/laplace/check.sh
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(dirname "$HERE")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILED=0
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
CFLAGS="-O2 -Wall -Wextra -Werror"

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; FAILED=1; }

# CFLAGS is split into words on purpose.
# shellcheck disable=SC2086
build() {
    gcc -fopenmp $CFLAGS "$SRC/laplace/laplace.c" -o "$TMP/laplace"
    gcc -fopenmp $CFLAGS "$SRC/himeno/himeno.c" -o "$TMP/himeno"
    mpicc $CFLAGS "$SRC/mpi/laplace_mpi.c" -o "$TMP/laplace_mpi"
    mpicc $CFLAGS "$SRC/mpi/himeno_mpi.c" -o "$TMP/himeno_mpi"
}

# field LINE KEY: the value of KEY=value in a benchmark's output line.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# record NAME LINE KEY: print the line, append "NAME value" to $TMP/KEY.
record() {
    echo "  $2"
    v=$(field "$2" "$3")
    [ -n "$v" ] || { fail "$1: no $3 in output"; return 0; }
    echo "$1 $v" >>"$TMP/$3"
}

run_laplace() {
    for t in 1 2; do
        for s in static dynamic,4; do
            out=$(OMP_NUM_THREADS=$t OMP_SCHEDULE=$s "$TMP/laplace" 20) || fail "laplace t=$t $s: exit $?"
            record "omp:t=$t:$s" "$out" checksum
        done
    done
    for r in 1 2 4; do
        out=$($MPIRUN -np $r "$TMP/laplace_mpi" 20) || fail "laplace_mpi np=$r: exit $?"
        record "mpi:np=$r" "$out" checksum
    done
}

run_himeno() {
    for t in 1 2; do
        out=$(OMP_NUM_THREADS=$t OMP_SCHEDULE=static "$TMP/himeno" 10) || fail "himeno t=$t: exit $?"
        record "omp:t=$t" "$out" gosa
    done
    for r in 1 2; do
        out=$($MPIRUN -np $r "$TMP/himeno_mpi" 10) || fail "himeno_mpi np=$r: exit $?"
        record "mpi:np=$r" "$out" gosa
    done
}

check_laplace() {
    n=$(awk '{ print $2 }' "$TMP/checksum" | sort -u | wc -l)
    if [ "$n" -eq 1 ] && [ "$(wc -l <"$TMP/checksum")" -eq 7 ]; then
        pass "laplace checksums identical over 7 runs ($(awk 'NR == 1 { print $2 }' "$TMP/checksum"))"
    else
        fail "laplace checksums differ:"; sed 's/^/    /' "$TMP/checksum"
    fi
}

check_himeno() {
    if [ "$(wc -l <"$TMP/gosa")" -eq 4 ] && awk '
        NR == 1 { ref = $2 + 0 }
        { d = $2 - ref; if (d < 0) d = -d; if (ref == 0 || d / (ref < 0 ? -ref : ref) > 1e-6) bad = 1 }
        END { exit bad }' "$TMP/gosa"; then
        pass "himeno gosa agrees to 1e-6 relative over 4 runs"
    else
        fail "himeno gosa differs:"; sed 's/^/    /' "$TMP/gosa"
    fi
}

if build; then pass "build (-Wall -Wextra -Werror)"; else fail "build"; exit 1; fi
: >"$TMP/checksum"
: >"$TMP/gosa"
run_laplace
check_laplace
run_himeno
check_himeno
[ "$FAILED" -eq 0 ] && echo "check.sh: all passed" || echo "check.sh: FAILED"
exit "$FAILED"
