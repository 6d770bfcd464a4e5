#!/bin/sh
# run-fault-tests.sh: a node that dies or stops in the middle of a job ends
# the job.  Each case starts tests/faults/busy_team (parallel regions,
# barriers, a lock, a critical section, a reduction, in a loop) on several
# nodes, waits until it runs, then sends one node SIGKILL or SIGSTOP and
# checks that
#   - the launcher exits with a non-zero status;
#   - within 5 s of a SIGKILL, or within OMPDSM_NODE_TIMEOUT + 5 s of a
#     SIGSTOP (the nodes' heartbeats find the stopped one);
#   - standard error names the lost node;
#   - no node process is left, the stopped one included.
# The cases run under ompdsm-run (UCX shared memory and tcp on loopback) and
# under Open MPI's mpirun (PMIx bootstrap).
#
#   tests/faults/run-fault-tests.sh BUILD_DIR
#
# Prints one line per case, "PASS faults/<case>" or "FAIL faults/<case>"
# followed by indented log lines, and no summary.  Exits non-zero if any case
# failed.
set -u

. "$(dirname "$0")/../lib.sh"
build_dir "$@"
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=$BUILD/tests/faults
LOG=$BUILD/tests/logs/faults
PROG=$OUT/busy_team
STOP_TIMEOUT=2          # OMPDSM_NODE_TIMEOUT of the SIGSTOP cases
MPIRUN="mpirun --allow-run-as-root --oversubscribe --timeout 120
        --mca btl self,vader --mca pml ob1 --mca oob_tcp_if_include lo"
mkdir -p "$OUT" "$LOG" || exit 2
failed=0

clean_env

fail() {    # fail CASE REASON
    echo "FAIL faults/$1"
    echo "    $2"
    sed -n '1,12s/^/    /p' "$err"
    failed=1
}

now_ms() {
    echo $(($(date +%s%N) / 1000000))
}

# node_pid MARK RANK: the pid of node RANK of the job.
node_pid() {
    for p in $(marked "$1"); do
        r=$(tr '\0' '\n' </proc/"$p"/environ 2>/dev/null \
            | sed -n 's/^OMPDSM_RANK=0*\([0-9]\)/\1/p; s/^OMPI_COMM_WORLD_RANK=//p')
        [ "$r" = "$2" ] && echo "$p" && return
    done
}

# fault CASE LAUNCHER NP RANK SIGNAL DELAY PATTERN [VAR=value...]: starts
# busy_team on NP nodes under LAUNCHER (ompdsm-run-shm, ompdsm-run-tcp or
# mpirun), sends SIGNAL to node RANK DELAY seconds after it runs, and
# judges the end of the job; PATTERN must match a line of standard error.
fault() {
    c=$1 launcher=$2 np=$3 rank=$4 sig=$5 delay=$6 pattern=$7
    shift 7
    mark=$$.$(echo "$c" | tr -c 'a-zA-Z0-9_\n' '.')
    out=$LOG/$mark.out
    err=$LOG/$mark.err
    case $launcher in
    ompdsm-run-shm)
        env "$@" UCX_TLS=self,sm OMPDSM_TEST_MARK="$mark" \
            "$BUILD/ompdsm-run" --timeout 120 -np "$np" "$PROG" 120 >"$out" 2>"$err" </dev/null &
        ;;
    ompdsm-run-tcp)
        env "$@" UCX_TLS=self,tcp UCX_NET_DEVICES=lo OMPDSM_TEST_MARK="$mark" \
            "$BUILD/ompdsm-run" --timeout 120 -np "$np" "$PROG" 120 >"$out" 2>"$err" </dev/null &
        ;;
    mpirun)
        xs="-x UCX_TLS=self,sm -x OMPDSM_TEST_MARK=$mark"
        for v in "$@"; do
            xs="$xs -x $v"
        done
        # shellcheck disable=SC2086
        $MPIRUN $xs -np "$np" "$PROG" 120 >"$out" 2>"$err" </dev/null &
        ;;
    esac
    job=$!
    i=0
    while ! grep -q running "$out" && kill -0 $job 2>/dev/null && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    sleep "$delay"
    victim=$(node_pid "$mark" "$rank")
    if [ -z "$victim" ] || ! grep -q running "$out"; then
        kill -KILL $job $(marked "$mark") 2>/dev/null
        wait $job
        fail "$c" "the job did not get under way (node $rank: '${victim}'); stderr:"
        return
    fi
    t0=$(now_ms)
    kill -"$sig" "$victim"
    case $sig in
    KILL) limit=5000 ;;
    *) limit=$((STOP_TIMEOUT * 1000 + 5000)) ;;
    esac
    # Wait for the launcher, up to three times the limit.
    while kill -0 $job 2>/dev/null && [ $(($(now_ms) - t0)) -lt $((3 * limit)) ]; do
        sleep 0.05
    done
    took=$(($(now_ms) - t0))
    if kill -0 $job 2>/dev/null; then
        kill -KILL $job $(marked "$mark") 2>/dev/null
        wait $job
        fail "$c" "the job still ran $took ms after SIG$sig to node $rank (hang); stderr:"
        return
    fi
    wait $job
    rc=$?
    if [ $rc -eq 0 ]; then
        fail "$c" "exit status 0 after SIG$sig to node $rank; stderr:"
    elif [ $took -gt $limit ]; then
        fail "$c" "the job ended $took ms after SIG$sig to node $rank (limit $limit ms); stderr:"
    elif ! grep -q "$pattern" "$err"; then
        fail "$c" "standard error does not name the lost node ('$pattern'); stderr:"
    elif ! none_left "$mark"; then
        fail "$c" "nodes left behind: $(marked "$mark" | tr '\n' ' ')"
        kill -KILL $(marked "$mark") 2>/dev/null
    else
        echo "PASS faults/$c (exit $rc after $took ms)"
    fi
}

if ! "$BUILD/tools/ompdsm-cc" -O2 "$SRC/busy_team.c" -o "$PROG" >"$LOG/build.log" 2>&1; then
    err=$LOG/build.log
    fail build "ompdsm-cc could not build busy_team.c:"
    exit 1
fi

K="killed by signal 9"
S="stopped responding"
T=OMPDSM_NODE_TIMEOUT=$STOP_TIMEOUT
fault "kill node 1 of 4, shm"        ompdsm-run-shm 4 1 KILL 0   "node 1 (pid [0-9]*) $K"
fault "kill node 0 of 2, tcp"        ompdsm-run-tcp 2 0 KILL 0.5 "node 0 (pid [0-9]*) $K"
fault "kill node 3 of 4 later, shm"  ompdsm-run-shm 4 3 KILL 1.5 "node 3 (pid [0-9]*) $K"
fault "stop node 1 of 3, shm"        ompdsm-run-shm 3 1 STOP 0   "node 1 $S" "$T"
fault "stop node 0 of 2, tcp"        ompdsm-run-tcp 2 0 STOP 0.5 "node 0 $S" "$T"
if command -v mpirun >/dev/null; then
    fault "mpirun: kill node 1 of 4" mpirun 4 1 KILL 0.5 "rank 1 with PID .* on signal 9"
    fault "mpirun: stop node 2 of 4" mpirun 4 2 STOP 0.5 "node 2 $S" "$T"
else
    err=/dev/null
    fail mpirun "mpirun not found: install openmpi-bin (tools/install-deps.sh)"
fi
exit $failed
