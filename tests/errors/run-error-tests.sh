#!/bin/sh
# run-error-tests.sh: bad inputs must stop a job cleanly.  Each case gives
# ompdsm-run or the runtime one bad input (an environment variable's value,
# a launcher argument, a program that exhausts the shared memory, a region
# address in use, a barrier that not every thread meets) and checks that
#   - the job exits with a non-zero status, not killed by a signal;
#   - standard error has one line naming the cause (the variable or the key
#     words, matched on a single line);
#   - it ends within 30 seconds (timeout 30; a timeout is a failure);
#   - no node process of the program is left once ompdsm-run has returned.
# The OMP_* values are judged by libgomp: the case runs omp_small built
# with gcc -fopenmp first, and where libgomp says "Invalid value for
# environment variable X", ompdsm must stop as above; where libgomp takes
# the value, the ompdsm job must succeed.  A few limits must also let a
# healthy job run (the lowest OMPDSM_NODE_TIMEOUT).
#
#   tests/errors/run-error-tests.sh BUILD_DIR
#
# The test programs (tests/errors/*.c) are built into BUILD_DIR/tests/errors/:
# the OpenMP ones with ompdsm-cc, exhaust.c (DSM API) with $CC against
# BUILD_DIR/.libs/libompdsm.  Every program runs through a symlink in a
# directory unique to this run, so that leftover nodes are found by path
# (pgrep -f) without seeing other runs.
#
# Prints one line per case, "PASS errors: <what>" or "FAIL errors: <what>",
# followed by indented log lines, and no summary.  Exits non-zero if any case
# failed.  Environment: CC (default gcc) for exhaust.c.
set -u

. "$(dirname "$0")/../lib.sh"
build_dir "$@"
SRC=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SRC/../.." && pwd)
OUT=$BUILD/tests/errors
RUN=$BUILD/ompdsm-run
DSMCC=$BUILD/tools/ompdsm-cc
CC=${CC:-gcc}
LIMIT=30
mkdir -p "$OUT" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
SRC_TESTS=$TOP/tests
. "$SRC_TESTS/sanitizers.sh"
# Shared-memory transports only: the job runs on this machine.
UCX_TLS=${UCX_TLS:-self,sm}
export UCX_TLS
failed=0

# The environment this script is run in must not change the cases.
clean_env

indent() {
    sed -n '1,12s/^/    /p'
}

# ---- build -------------------------------------------------------------------

# build NAME COMMAND...: runs the build command; on failure prints a FAIL for
# the cases that need NAME and returns 1.
build() {
    name=$1
    shift
    if "$@" >"$OUT/$name.build.log" 2>&1; then
        ln -s "$OUT/$name" "$tmp/$name"
        return 0
    fi
    echo "FAIL errors: build $name"
    indent <"$OUT/$name.build.log"
    failed=1
    return 1
}

for p in omp_small malloc_exhaust barrier_not_met file_read_elsewhere nested_enabled nested_doacross \
    map_count_exhaust; do
    build $p "$DSMCC" -O2 "$SRC/$p.c" -o "$OUT/$p"
done
# The libgomp build of omp_small: the judge of OMP_* values.
build omp_small.gomp "$CC" -fopenmp -O2 "$SRC/omp_small.c" -o "$OUT/omp_small.gomp"
# Another build of omp_small (other code, so another build id).
build omp_small_O0 "$DSMCC" -O0 "$SRC/omp_small.c" -o "$OUT/omp_small_O0"
# shellcheck disable=SC2086
build exhaust "$CC" -O2 $SANITIZE_CFLAGS -I"$TOP/include" "$SRC/exhaust.c" -o "$OUT/exhaust" \
    $SANITIZE_LDFLAGS -L"$BUILD/.libs" -Wl,-rpath,"$BUILD/.libs" -lompdsm

# ---- one case ------------------------------------------------------------------

# Live processes whose command line names PROGRAM (this run's symlink).
left_pids() {
    pgrep -f -- "$1" 2>/dev/null
}

# check WHAT PROGRAM PATTERN COMMAND...: runs COMMAND (an ompdsm-run command
# line, possibly preceded by env VAR=value) under timeout; PROGRAM is the
# program path to look for afterwards ("" for a command that runs none); PATTERN an extended regular
# expression (case-insensitive) one line of standard error must match.
check() {
    what=$1 prog=$2 pattern=$3
    shift 3
    # A program of this run that failed to build: the case cannot run.
    if [ -n "$prog" ] && [ "$prog" != "$tmp/no-such-program" ] && [ ! -e "$prog" ]; then
        echo "FAIL errors: $what"
        echo "    not run: $(basename "$prog") was not built"
        failed=1
        return
    fi
    start=$(date +%s)
    timeout $LIMIT "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    secs=$(($(date +%s) - start))
    why=
    if [ $rc -eq 124 ]; then
        why="timed out after $LIMIT s"
    elif [ $rc -eq 0 ]; then
        why="exited with status 0"
    elif [ $rc -ge 128 ]; then
        why="exited with status $rc (killed by signal $((rc - 128)))"
    fi
    msg=$(grep -E -i -m 1 -- "$pattern" "$tmp/err")
    if [ -z "$msg" ]; then
        why="${why:+$why; }no line of stderr matches /$pattern/"
    fi
    pids=
    if [ -n "$prog" ]; then
        pids=$(left_pids "$prog")
        if [ -n "$pids" ]; then
            why="${why:+$why; }node processes left after the run: $(echo "$pids" | tr "\n" " ")"
            # They belong to this case: stop them, by pid.
            # shellcheck disable=SC2086
            kill -KILL $pids 2>/dev/null
        fi
    fi
    if [ -z "$why" ]; then
        echo "PASS errors: $what"
        echo "$msg" | indent
    else
        echo "FAIL errors: $what"
        echo "    $why"
        echo "    command: $*"
        echo "    exit status $rc after ${secs}s; stderr:"
        indent <"$tmp/err"
        failed=1
    fi
}

# check_ok WHAT PROGRAM COMMAND...: the command must exit 0 within the
# limit and leave no node process of PROGRAM.
check_ok() {
    what=$1 prog=$2
    shift 2
    timeout $LIMIT "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    pids=$(left_pids "$prog")
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null
    if [ $rc -eq 0 ] && [ -z "$pids" ]; then
        echo "PASS errors: $what"
    else
        echo "FAIL errors: $what"
        echo "    exit status $rc${pids:+; node processes left: $pids}; command: $*; stderr:"
        indent <"$tmp/err"
        failed=1
    fi
}

P=$tmp/omp_small

# ---- bad environment values, OpenMP program at -np 2 ---------------------------

# bad_env VAR=VALUE PATTERN: the variable's bad value must name the variable.
bad_env() {
    check "bad $1" "$P" "$2" env "$1" "$RUN" -np 2 "$P"
}

bad_env OMPDSM_REGION_BASE=0x1234      "OMPDSM_REGION_BASE.*0x1234"
bad_env OMPDSM_REGION_BASE=nowhere     "OMPDSM_REGION_BASE.*nowhere"
bad_env OMPDSM_REGION_SIZE=lots        "OMPDSM_REGION_SIZE.*lots"
bad_env OMPDSM_REGION_SIZE=0           "OMPDSM_REGION_SIZE.*'0'"
bad_env OMPDSM_PAGE_SIZE=5000          "OMPDSM_PAGE_SIZE.*5000"
bad_env OMPDSM_PAGE_SIZE=1G            "OMPDSM_PAGE_SIZE.*1G"
bad_env OMPDSM_HOME=random             "OMPDSM_HOME.*random"
bad_env OMPDSM_MIGRATE=sometimes       "OMPDSM_MIGRATE.*sometimes"
bad_env OMPDSM_MIGRATE=every:0         "OMPDSM_MIGRATE.*every:0"
bad_env OMPDSM_SPIN_US=-1              "OMPDSM_SPIN_US.*-1"
bad_env OMPDSM_SPIN_US=fast            "OMPDSM_SPIN_US.*fast"
bad_env OMPDSM_PROGRESS_NICE=-21        "OMPDSM_PROGRESS_NICE.*-21"
bad_env OMPDSM_PROGRESS_NICE=high       "OMPDSM_PROGRESS_NICE.*high"
bad_env OMPDSM_STATS=maybe             "OMPDSM_STATS.*maybe"
bad_env OMPDSM_HOST_SEGMENT=shared     "OMPDSM_HOST_SEGMENT.*shared"
bad_env OMPDSM_HOST_BOX=1K             "OMPDSM_HOST_BOX.*1K"
bad_env OMPDSM_NODE_TIMEOUT=-3       "OMPDSM_NODE_TIMEOUT.*-3"
bad_env OMPDSM_NODE_TIMEOUT=10s      "OMPDSM_NODE_TIMEOUT.*10s"
bad_env OMPDSM_READAHEAD=many        "OMPDSM_READAHEAD.*many"
bad_env OMPDSM_READAHEAD=5000        "OMPDSM_READAHEAD.*5000"
bad_env OMPDSM_THREADS_PER_NODE=0     "OMPDSM_THREADS_PER_NODE='0'"
bad_env OMPDSM_THREADS_PER_NODE=lots  "OMPDSM_THREADS_PER_NODE='lots'"
bad_env OMPDSM_THREADS_PER_NODE=2000  "OMPDSM_THREADS_PER_NODE='2000'"
bad_env OMPDSM_BOOT_TIMEOUT=soon       "boot.timeout.*soon"
bad_env OMPDSM_BOOT_TIMEOUT=-5         "boot.timeout.*-5"
bad_env OMP_NUM_THREADS=zero           "OMP_NUM_THREADS.*zero"
bad_env OMP_NUM_THREADS=0              "OMP_NUM_THREADS.*'0'"
bad_env OMP_SCHEDULE=sometimes         "OMP_SCHEDULE.*sometimes"
bad_env OMP_SCHEDULE=dynamic,x         "OMP_SCHEDULE.*dynamic,x"
bad_env OMP_SCHEDULE=profiled,alpha=x  "OMP_SCHEDULE.*alpha=x"
bad_env OMP_DYNAMIC=maybe              "OMP_DYNAMIC.*maybe"
bad_env OMP_NESTED=maybe               "OMP_NESTED.*maybe"
bad_env OMP_MAX_ACTIVE_LEVELS=-1       "OMP_MAX_ACTIVE_LEVELS.*-1"
bad_env OMP_THREAD_LIMIT=0             "OMP_THREAD_LIMIT.*'0'"
bad_env OMP_DISPLAY_ENV=loud           "OMP_DISPLAY_ENV.*loud"
bad_env OMP_WAIT_POLICY=spin           "OMP_WAIT_POLICY.*spin"
bad_env OMP_PROC_BIND=7                "OMP_PROC_BIND.*'7'"
bad_env OMP_STACKSIZE=big              "OMP_STACKSIZE.*big"
bad_env OMP_CANCELLATION=maybe         "OMP_CANCELLATION.*maybe"
bad_env OMPDSM_NODE_TIMEOUT=0.001      "OMPDSM_NODE_TIMEOUT='0.001'.*minimum"
check_ok "OMPDSM_NODE_TIMEOUT=1 (the minimum) lets a healthy job finish" "$P" \
    env OMPDSM_NODE_TIMEOUT=1 "$RUN" -np 2 "$P"
bad_env UCX_TLS=                       "UCX_TLS=''.*no transport"
bad_env UCX_TLS=,                      "UCX_TLS=','.*no transport"
# UCX's own: segments of 64 KiB or more break its shared-memory transports
bad_env UCX_POSIX_SEG_SIZE=64k         "UCX_POSIX_SEG_SIZE=64k.*64 KiB"
bad_env UCX_SYSV_SEG_SIZE=131072       "UCX_SYSV_SEG_SIZE=131072.*64 KiB"

# ---- OMP_* values: refused exactly where libgomp finds them invalid ----------

# omp_env VAR=VALUE: libgomp decides whether the value is valid (it warns
# "Invalid value for environment variable VAR" and ignores it); ompdsm must
# then stop naming the variable and the value, else run the job.
omp_env() {
    var=${1%%=*}
    if [ ! -e "$tmp/omp_small.gomp" ]; then
        echo "FAIL errors: $1 against libgomp"
        echo "    not run: the libgomp build of omp_small was not built"
        failed=1
    elif env "$1" "$tmp/omp_small.gomp" 2>&1 >/dev/null | grep -q "Invalid value.*environment variable $var\$"; then
        check "$1 (invalid for libgomp) is refused" "$P" "$var='" env "$1" "$RUN" -np 2 "$P"
    else
        check_ok "$1 (valid for libgomp) is accepted" "$P" env "$1" "$RUN" -np 2 "$P"
    fi
}

for v in OMP_PROC_BIND=garbage OMP_PROC_BIND=true,close OMP_PROC_BIND=master,garbage OMP_PROC_BIND=close, \
    "OMP_PROC_BIND= spread , close " OMP_PROC_BIND=primary OMP_PROC_BIND=FALSE \
    OMP_PLACES=everywhere "OMP_PLACES={0" "OMP_PLACES=threads()" "OMP_PLACES={}" "OMP_PLACES={0},,{1}" \
    "OMP_PLACES=cores(2)" "OMP_PLACES= threads ( 2 ) " "OMP_PLACES={0}" OMP_PLACES=sockets \
    OMP_STACKSIZE=0x10 OMP_STACKSIZE=8MB OMP_STACKSIZE=8Ki OMP_STACKSIZE=-1 OMP_STACKSIZE=99999999999G \
    "OMP_STACKSIZE= 8 M " OMP_STACKSIZE=512 OMP_STACKSIZE=64k \
    OMP_WAIT_POLICY=spin "OMP_WAIT_POLICY= passive " OMP_WAIT_POLICY=Active \
    OMP_DYNAMIC=1 OMP_DYNAMIC=yes "OMP_DYNAMIC= true " OMP_NESTED=on OMP_NESTED=FALSE \
    OMP_DISPLAY_ENV=1 "OMP_DISPLAY_ENV= verbose " OMP_CANCELLATION=0 OMP_CANCELLATION=false \
    OMP_DEFAULT_DEVICE=-1 OMP_DEFAULT_DEVICE=99999999999 OMP_DEFAULT_DEVICE=0 \
    OMP_MAX_TASK_PRIORITY=-1 OMP_MAX_TASK_PRIORITY=high OMP_MAX_TASK_PRIORITY=5 \
    OMP_NUM_TEAMS=0 OMP_NUM_TEAMS=2 OMP_TEAMS_THREAD_LIMIT=0 OMP_TEAMS_THREAD_LIMIT=4 \
    OMP_ALLOCATOR=big OMP_ALLOCATOR=3 OMP_ALLOCATOR=omp_high_bw_mem_alloc \
    OMP_TARGET_OFFLOAD=sometimes "OMP_TARGET_OFFLOAD=DISABLED " OMP_TARGET_OFFLOAD=mandatory \
    OMP_DISPLAY_AFFINITY=maybe OMP_DISPLAY_AFFINITY=false OMP_AFFINITY_FORMAT=anything \
    OMP_MAX_ACTIVE_LEVELS=x OMP_MAX_ACTIVE_LEVELS=300 OMP_MAX_ACTIVE_LEVELS=99999999999 \
    OMP_THREAD_LIMIT=0 OMP_THREAD_LIMIT=-1 "OMP_THREAD_LIMIT= 4 " OMP_THREAD_LIMIT=99999999999 \
    OMP_SCHEDULE=static,0 OMP_SCHEDULE=dynamic,0 OMP_SCHEDULE=auto,3 "OMP_SCHEDULE=static , 4" \
    OMP_SCHEDULE=guided,x; do
    omp_env "$v"
done

# same_as_libgomp WHAT WANT GOT: ompdsm's standard error (GOT) says what
# libgomp's (WANT, not empty) says.
same_as_libgomp() {
    if [ -n "$2" ] && [ "$3" = "$2" ]; then
        echo "PASS errors: $1 as libgomp does"
    else
        echo "FAIL errors: $1 as libgomp does"
        echo "    libgomp: '$2'; ompdsm: '$3'"
        failed=1
    fi
}

# display_same VAR=VALUE: OMP_DISPLAY_ENV shows VAR as libgomp does.
display_same() {
    var=${1%%=*}
    same_as_libgomp "OMP_DISPLAY_ENV with $1 shows $var" \
        "$(env OMP_DISPLAY_ENV=true "$1" "$tmp/omp_small.gomp" 2>&1 >/dev/null | grep "^ *$var = ")" \
        "$(env OMP_DISPLAY_ENV=true "$1" timeout $LIMIT "$RUN" -np 2 "$P" 2>&1 >/dev/null | grep "^ *$var = " | sort -u)"
}

for v in OMP_WAIT_POLICY=active "OMP_WAIT_POLICY= Passive " OMP_WAIT_POLICY= OMP_TARGET_OFFLOAD=mandatory \
    OMP_NUM_TEAMS=3 OMP_TEAMS_THREAD_LIMIT=4 OMP_CANCELLATION=true OMP_DISPLAY_AFFINITY=true \
    OMP_DEFAULT_DEVICE=2 "OMP_AFFINITY_FORMAT=thread %n" OMP_NUM_THREADS=3,2 OMP_NESTED=true \
    OMP_MAX_ACTIVE_LEVELS=3; do
    display_same "$v"
done

# OMP_DISPLAY_AFFINITY: each thread of the team shows its line once, as
# libgomp's threads do (a format without addresses or CPUs).
same_as_libgomp "OMP_DISPLAY_AFFINITY shows each thread's line" \
    "$(env OMP_NUM_THREADS=2 OMP_DISPLAY_AFFINITY=true "OMP_AFFINITY_FORMAT=thread %n of %N at level %L" \
        "$tmp/omp_small.gomp" 2>&1 >/dev/null | sort)" \
    "$(env OMP_DISPLAY_AFFINITY=true "OMP_AFFINITY_FORMAT=thread %n of %N at level %L" \
        timeout $LIMIT "$RUN" -np 2 "$P" 2>&1 >/dev/null | sort)"

# ---- bad launcher arguments ------------------------------------------------------

check "ompdsm-run with a non-existent program" "$tmp/no-such-program" \
    "cannot execute.*no-such-program" "$RUN" -np 2 "$tmp/no-such-program"
check "ompdsm-run -np 0" "$P" "number of nodes.*'0'" "$RUN" -np 0 "$P"
check "ompdsm-run --threads-per-node 0" "$P" "threads per node.*'0'" "$RUN" -np 2 --threads-per-node 0 "$P"
check "ompdsm-run -np without its value" "$P" "'-np' needs a value" "$RUN" -np
check "ompdsm-run -np followed by the program, no value" "$P" \
    "(number of nodes|-np).*omp_small" "$RUN" -np "$P"
check "ompdsm-run with an unknown option" "$P" "unknown option.*--bogus" \
    "$RUN" --bogus -np 2 "$P"

# Node 1 runs the other build: --exec-prefix starts each node through a
# script that swaps the program for node 1.
cat >"$tmp/node1-other" <<EOF
#!/bin/sh
[ "\$1" = 1 ] && shift 2 && exec "$tmp/omp_small_O0" "\$@"
shift
exec "\$@"
EOF
chmod +x "$tmp/node1-other"
check "another build of the program on node 1" "$P" \
    "node 1 runs another build of the program than node 0 \\(build id" \
    "$RUN" -np 2 --exec-prefix "$tmp/node1-other %r" "$P"

# ---- shared memory exhausted -------------------------------------------------------

check "ompdsm_alloc beyond OMPDSM_REGION_SIZE=64M" "$tmp/exhaust" \
    "shared memory exhausted.*OMPDSM_REGION_SIZE" \
    env OMPDSM_REGION_SIZE=64M "$RUN" -np 2 "$tmp/exhaust"
# The shared heap is the upper half of the region (the lower half must hold
# the runtime's 64M main stack, so an OpenMP program needs more than 64M):
# 256M gives each node a 64M arena at -np 2, and the program mallocs 512M.
# ompdsm stops the program with a fatal error (malloc does not return NULL).
check "malloc beyond the shared heap (OMPDSM_REGION_SIZE=256M)" "$tmp/malloc_exhaust" \
    "shared heap exhausted.*OMPDSM_REGION_SIZE" \
    env OMPDSM_REGION_SIZE=256M "$RUN" -np 2 "$tmp/malloc_exhaust"
check "OpenMP program with a region too small for its stack and heap" "$tmp/omp_small" \
    "OMPDSM_REGION_SIZE=64M is too small for an OpenMP program" \
    env OMPDSM_REGION_SIZE=64M "$RUN" -np 2 "$tmp/omp_small"

# ---- region address in use ----------------------------------------------------------

# With address randomisation off (setarch -R, inherited by the nodes), a PIE
# executable loads at 0x555555554000: the region would cover its text.
if setarch "$(uname -m)" -R true 2>/dev/null; then
    check "OMPDSM_REGION_BASE at the program's text (0x555555554000)" "$P" \
        "already in use.*omp_small.*OMPDSM_REGION_BASE" \
        env OMPDSM_REGION_BASE=0x555555554000 setarch "$(uname -m)" -R "$RUN" -np 2 "$P"
else
    echo "FAIL errors: OMPDSM_REGION_BASE at the program's text (0x555555554000)"
    echo "    not run: setarch -R (to turn address randomisation off) does not work here"
    failed=1
fi

# ---- AddressSanitizer in the way of the DSM's SIGSEGV handler ----------------------

# Only in a build configured with --enable-sanitizers (with address).
if [ "$ASAN" = 1 ]; then
    check "ASAN_OPTIONS=allow_user_segv_handler=0 (ASan keeps SIGSEGV)" "$P" \
        "SIGSEGV handler could not be installed.*allow_user_segv_handler" \
        env ASAN_OPTIONS=allow_user_segv_handler=0 "$RUN" -np 2 "$P"
fi

# ---- programs OpenMP forbids ---------------------------------------------------------

# A barrier only thread 0 meets: the nodes arrive at different barriers,
# whether the region's end is a home migration's gather or a plain barrier.
check "a barrier not every thread meets" "$tmp/barrier_not_met" \
    "at different barriers of the program" "$RUN" -np 2 --threads-per-node 1 "$tmp/barrier_not_met"
check "a barrier not every thread meets, OMPDSM_MIGRATE=off" "$tmp/barrier_not_met" \
    "at different barriers of the program" \
    env OMPDSM_MIGRATE=off "$RUN" -np 2 --threads-per-node 1 "$tmp/barrier_not_met"

# A construct ompdsm does not run: a doacross loop in a nested team.
check "a doacross loop inside a nested parallel region" "$tmp/nested_doacross" \
    "doacross.*inside a nested parallel region is not supported" \
    "$RUN" -np 2 --threads-per-node 1 "$tmp/nested_doacross"

# notes WHAT PROGRAM COUNT PATTERN COMMAND...: the command exits 0 within
# the limit, leaves no node process of PROGRAM, and exactly COUNT lines of
# its stderr match PATTERN.
notes() {
    what=$1 prog=$2 count=$3 pattern=$4
    shift 4
    timeout $LIMIT "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    n=$(grep -E -c -- "$pattern" "$tmp/err")
    pids=$(left_pids "$prog")
    # shellcheck disable=SC2086
    [ -z "$pids" ] || kill -KILL $pids 2>/dev/null
    if [ $rc -eq 0 ] && [ "$n" -eq "$count" ] && [ -z "$pids" ]; then
        echo "PASS errors: $what"
        grep -E -- "$pattern" "$tmp/err" | indent
    else
        echo "FAIL errors: $what"
        echo "    exit status $rc, $n lines of stderr match /$pattern/ (want $count)${pids:+, node processes left: $pids};"
        echo "    command: $*; stderr:"
        indent <"$tmp/err"
        failed=1
    fi
}
notes "nested regions, nesting enabled: no note" "$tmp/nested_enabled" 0 "nested|team of one" \
    env OMP_MAX_ACTIVE_LEVELS=2 "$RUN" -np 2 --threads-per-node 2 "$tmp/nested_enabled"
notes "nested regions inside a team of one, nesting enabled: no note" "$tmp/nested_enabled" 0 \
    "nested|team of one" env OMP_MAX_ACTIVE_LEVELS=2 "$RUN" -np 2 --threads-per-node 2 "$tmp/nested_enabled" alone

# Protections that alternate page by page past vm.max_map_count (its
# default here: a machine that raised it runs the program to its end; under
# AddressSanitizer, whose own mappings then fail first, ASan stops it).
if [ "$ASAN" = 1 ]; then
    echo "SKIP errors: protections alternating past vm.max_map_count (AddressSanitizer's mappings fail first)"
elif [ "$(cat /proc/sys/vm/max_map_count)" -le 65530 ]; then
    check "protections alternating past vm.max_map_count" "$tmp/map_count_exhaust" \
        "mprotect failed.*vm.max_map_count.*sysctl vm.max_map_count=" \
        "$RUN" -np 2 --threads-per-node 1 "$tmp/map_count_exhaust"
else
    echo "SKIP errors: protections alternating past vm.max_map_count (vm.max_map_count is raised here)"
fi

# A file node 0 opened, read at another node (writes go to node 0, reads
# are not supported).
check "a file node 0 opened, read at another node" "$tmp/file_read_elsewhere" \
    "fgets on a file that node 0 opened: other nodes may only write" \
    "$RUN" -np 2 --threads-per-node 1 "$tmp/file_read_elsewhere"

# ---- what ompdsm-cc refuses to build ---------------------------------------------------

# A flush whose fence GCC does not emit, and link-time code generation,
# which would keep fences out of the runtime's sight.
check "ompdsm-cc: #pragma omp flush acq_rel" "" \
    "flush_acq_rel.c:11:.*memory-order clause is not supported" \
    "$DSMCC" -c "$SRC/flush_acq_rel.c" -o "$tmp/flush_acq_rel.o"
check "ompdsm-cc: -flto" "" "-flto is not supported" \
    "$DSMCC" -O2 -flto "$SRC/omp_small.c" -o "$tmp/lto"
check "ompdsm-cc: -static" "" "-static is not supported" \
    "$DSMCC" -O2 -static "$SRC/omp_small.c" -o "$tmp/static"
check "ompdsm-cc: -fsanitize=thread" "" "-fsanitize=thread is not supported" \
    "$DSMCC" -O2 -fsanitize=thread "$SRC/omp_small.c" -o "$tmp/tsan"

exit $failed
