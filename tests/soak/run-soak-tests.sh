#!/bin/sh
# run-soak-tests.sh: the soak tests.  Each tests/soak/*.c is an OpenMP
# program that repeats one kind of work many times -- lock_100k 100,000
# lock acquisitions, regions_10k 10,000 parallel regions -- and samples the
# resident memory of every node (RssAnon + RssShmem, see memsample.h) at
# ten evenly spaced points of its run.  Each runs on 4 nodes, and two
# things must hold:
#
#   soak/NAME np=N              its standard output is identical to that of
#                               the libgomp build (gcc -fopenmp) with
#                               OMP_NUM_THREADS=N, the reference;
#   soak/NAME.flat_memory np=N  no node's memory grows by more than
#                               MEM_BOUND_KIB over the second half of the
#                               run (from the 5th sample to the 10th).
#
# Why the second half, and why 512 KiB.  What a node allocates while it
# warms up (the pages it fetches, the allocator's pools, UCX's buffers) is
# allocated once, mostly in the first rounds; a leak grows with the work,
# as much in the second half as in the first.  Over the second half every
# node takes part in 5,000 regions and makes 12,500 lock acquisitions (and
# the manager of a lock serves all of that lock's 12,500 or more), so a
# leak of 105 bytes per region or 42 bytes per acquisition adds 512 KiB.
# A run without a leak stays far below: the figures move by whole pages,
# mostly as UCX touches a little more of its shared-memory segments, which
# are mapped once at a fixed size; second halves measured on 4 nodes grow
# by 0 to 28 KiB.  The bound does not depend on the number of iterations,
# so it is one figure for both programs.
#
#   tests/soak/run-soak-tests.sh BUILD_DIR
#
# Prints one line per case, "PASS soak/..." or "FAIL soak/..." followed by
# an indented excerpt, and no summary: the caller counts the lines.  Before
# the verdicts of a program it prints, unindented and starting with "#",
# the time of each run and every node's samples in KiB.  Exits non-zero if
# any case failed.
#
# Under AddressSanitizer (configure --enable-sanitizers), freed blocks wait
# in ASan's quarantine (256 MiB by default) before they are reused, so
# memory grows with the work until the quarantine is full, leak or not.
# The runs therefore get ASAN_OPTIONS=quarantine_size_mb=0: a freed block
# is reused at once, as in other builds, and a leak grows as it would.
#
# Environment: OMPDSM_SOAK_NODES (default 4), OMPDSM_SOAK_TIMEOUT seconds
# per run (default 300), CC (default gcc) for the libgomp build.
set -u

. "$(dirname "$0")/../lib.sh"
build_dir "$@"
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=$BUILD/tests/soak
RUN=$BUILD/ompdsm-run
DSMCC=$BUILD/tools/ompdsm-cc
CC=${CC:-gcc}
NP=${OMPDSM_SOAK_NODES:-4}
TIMEOUT=${OMPDSM_SOAK_TIMEOUT:-300}
MEM_BOUND_KIB=512
mkdir -p "$OUT"
failed=0
SRC_TESTS=$(cd "$SRC/.." && pwd)
. "$SRC_TESTS/sanitizers.sh"
if [ "$ASAN" = 1 ]; then
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
    export ASAN_OPTIONS
fi

# excerpt FILE: the first lines of FILE, indented.
excerpt() {
    sed -n '1,15s/^/    /p' "$1"
}

# fail_both NAME WHY: no verdict could be reached; both cases fail, with
# the indented lines WHY, so that the number of cases does not depend on
# what broke.
fail_both() {
    echo "FAIL soak/$1 np=$NP"
    echo "$2"
    echo "FAIL soak/$1.flat_memory np=$NP"
    echo "$2"
    failed=1
}

# memory_table ERR: every node's samples from the "soak mem_kib" lines of
# ERR, as "# node N: S1 ... S10 (10%->50% +A, 50%->100% +B KiB)", then a
# last line "ok" if there are NP nodes with 10 positive samples each and
# every second half grew by at most MEM_BOUND_KIB, or else what is wrong.
memory_table() {
    awk -v np="$NP" -v bound="$MEM_BOUND_KIB" '
        $1 == "soak" && $2 == "mem_kib" && $3 == "node" {
            node = $4; sub(/:$/, "", node)
            line = "# node " node ":"
            good = NF == 14
            for (i = 5; i <= NF; i++) {
                line = line " " $i
                if ($i + 0 <= 0) good = 0
            }
            if (!good) {
                print line
                invalid = invalid " " node
                next
            }
            printf "%s (10%%->50%% %+d, 50%%->100%% %+d KiB)\n", line, $9 - $5, $14 - $9
            if ($14 - $9 > bound)
                grew = grew sprintf(" node %s %+d KiB;", node, $14 - $9)
            nodes++
        }
        END {
            if (invalid != "")
                print "no 10 valid samples from node(s)" invalid
            else if (nodes != np)
                print "samples from " nodes + 0 " nodes, expected " np
            else if (grew != "")
                print "grew by more than " bound " KiB over the second half:" grew
            else
                print "ok"
        }' "$1"
}

for src in "$SRC"/*.c; do
    name=$(basename "$src" .c)
    gomp=$OUT/$name.gomp
    dsm=$OUT/$name.dsm
    log=$OUT/$name.build.log
    if ! "$CC" -fopenmp -O2 "$src" -o "$gomp" >"$log" 2>&1; then
        fail_both "$name" "$(echo "    (libgomp build failed)"; excerpt "$log")"
        continue
    fi
    if ! "$DSMCC" -O2 "$src" -o "$dsm" >"$log" 2>&1; then
        fail_both "$name" "$(echo "    (ompdsm-cc build failed)"; excerpt "$log")"
        continue
    fi
    ref=$OUT/$name.np$NP.gomp.out
    got=$OUT/$name.np$NP.dsm.out
    err=$OUT/$name.np$NP.dsm.err

    start=$(date +%s)
    OMP_NUM_THREADS="$NP" timeout "$TIMEOUT" "$gomp" >"$ref" 2>"$ref.err"
    rc_ref=$?
    secs_ref=$(($(date +%s) - start))
    start=$(date +%s)
    UCX_TLS=self,sm "$RUN" --timeout "$TIMEOUT" -np "$NP" "$dsm" >"$got" 2>"$err"
    rc_got=$?
    secs_got=$(($(date +%s) - start))
    inner=$(sed -n 's/^soak seconds: //p' "$err")
    echo "# $name: libgomp (OMP_NUM_THREADS=$NP) $secs_ref s; ompdsm (-np $NP) $secs_got s," \
        "of which the soak loop ${inner:-?} s"

    if [ $rc_ref -ne 0 ]; then
        fail_both "$name" "$(echo "    libgomp reference run exited with status $rc_ref"; excerpt "$ref.err")"
        continue
    fi
    if [ $rc_got -ne 0 ]; then
        fail_both "$name" "$(echo "    ompdsm run exited with status $rc_got after $secs_got s; stderr:"
            excerpt "$err")"
        continue
    fi

    if cmp -s "$ref" "$got"; then
        echo "PASS soak/$name np=$NP"
    else
        echo "FAIL soak/$name np=$NP"
        echo "    output differs (--- libgomp, +++ ompdsm):"
        diff -u "$ref" "$got" | sed -n '3,17s/^/    /p'
        failed=1
    fi

    table=$(memory_table "$err")
    echo "$table" | sed '$d'
    verdict=$(echo "$table" | sed -n '$p')
    if [ "$verdict" = ok ]; then
        echo "PASS soak/$name.flat_memory np=$NP"
    else
        echo "FAIL soak/$name.flat_memory np=$NP"
        echo "    $verdict"
        echo "$table" | sed '$d' | sed 's/^# /    /'
        failed=1
    fi
done
exit $failed
