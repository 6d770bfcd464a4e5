#!/bin/sh
# run-security-tests.sh: a running job keeps its memory and its traffic to
# itself.  A 2-node job that sleeps inside a parallel region
# (sleep_region.c) is inspected from outside while it runs; what must hold:
#   - modes: every shared-memory object of the job (SysV segments created
#     by its processes, in /proc/sysvipc/shm; memfds, /dev/shm files and
#     other tmpfs files its processes hold open or have mapped) is
#     accessible by its owner only: no group or other permission bits.
#     UCX 1.13's SysV transport makes segments 0660, so it must not be in
#     use, with UCX_TLS unset and with UCX_TLS=self,sm alike;
#   - listeners: no TCP or UDP socket of the job's processes listens on
#     anything but a loopback address: with UCX_TLS unset (UCX would open tcp
#     on every interface), with UCX_TLS=self,tcp without UCX_NET_DEVICES, and
#     with UCX_TLS=all (modes checked too);
#   - the same under mpirun (PMIx bootstrap, nodes on one host), UCX_TLS
#     unset;
#   - UCX_TLS naming sysv stops the job with a message naming sysv.
# Multi-host jobs (nodes in network namespaces) are checked by
# tests/netns/run-netns-tests.sh.
#
#   tests/security/run-security-tests.sh BUILD_DIR
#
# Prints "PASS security/<case>" or "FAIL security/<case>" lines, each FAIL
# followed by an indented excerpt, and no summary: the caller counts the
# lines.  Exits 1 if any case failed.  Needs ss (iproute2).
# Environment: OMPDSM_TEST_TIMEOUT seconds per job (default 60).
set -u

. "$(dirname "$0")/../lib.sh"
build_dir "$@"
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=$BUILD/tests/security
RUN=$BUILD/ompdsm-run
TIMEOUT=${OMPDSM_TEST_TIMEOUT:-60}
PROG=$OUT/sleep_region
MPIRUN="mpirun --allow-run-as-root --oversubscribe --timeout $TIMEOUT
        --mca btl self,vader --mca pml ob1 --mca oob_tcp_if_include lo"
mkdir -p "$OUT" || exit 2
failed=0

# The environment this script is run in must not change the cases; UCX's
# transport variables are each case's own.
clean_env
unset UCX_TLS UCX_NET_DEVICES

if ! command -v ss >/dev/null; then
    echo "FAIL security/setup"
    echo "    needs ss (iproute2)"
    exit 1
fi
if ! "$BUILD/tools/ompdsm-cc" -O2 "$SRC/security/sleep_region.c" -o "$PROG" >"$OUT/build.log" 2>&1; then
    verdict security/build 1 "$OUT/build.log"
    exit 1
fi

# ---- looking at a running job ----------------------------------------------

# in_job PID: is PID one of the job's processes ($pids)?
in_job() {
    case " $pids " in *" $1 "*) return 0 ;; esac
    return 1
}

# sysv_report: the SysV segments created by a process of the job, one line
# each: shmid, mode, creator; those with group or other bits are marked BAD.
sysv_report() {
    awk -v pids=" $pids " 'NR > 1 && index(pids, " " $5 " ") {
        mode = substr($3, length($3) - 2)
        printf "sysv shmid %s mode %s cpid %s%s\n", $2, mode, $5, (substr(mode, 2) != "00" ? " BAD" : "")
    }' /proc/sysvipc/shm
}

# files_report: the memfds, /dev/shm files and SysV attachments the job's
# processes hold open or have mapped, with their modes; BAD as above.
files_report() {
    for p in $pids; do
        for f in /proc/"$p"/fd/* /proc/"$p"/map_files/*; do
            t=$(readlink "$f" 2>/dev/null) || continue
            case $t in
            /memfd:* | /dev/shm/*) ;;
            /SYSV*) echo "pid $p: $t: a SysV segment attached BAD" && continue ;;
            *) continue ;;
            esac
            m=$(stat -L -c %a "$f" 2>/dev/null) || continue
            case $m in
            *00) echo "pid $p: $t mode $m" ;;
            *) echo "pid $p: $t mode $m BAD" ;;
            esac
        done
    done | sort -u
}

# listen_report: the listening TCP and bound UDP sockets of the job's
# processes; those on other than a loopback address are marked BAD.
listen_report() {
    ss -Htulnp | while read -r proto _ _ _ local _ users; do
        for p in $(echo "$users" | grep -o 'pid=[0-9]*' | cut -d= -f2); do
            in_job "$p" || continue
            case ${local%:*} in
            127.* | \[::1\] | ::1 | \[::ffff:127.*\]) echo "$proto $local pid $p" ;;
            *) echo "$proto $local pid $p BAD" ;;
            esac
        done
    done
}

# wait_ready FILE: true once the job printed "ready", false after 30 s.
wait_ready() {
    i=0
    until grep -q '^ready' "$1" 2>/dev/null; do
        [ $i -ge 300 ] && return 1
        sleep 0.1
        i=$((i + 1))
    done
}

# inspect CASE CHECKS: while the job marked $mark runs, writes the reports
# named in CHECKS (sysv files listen) to $OUT/CASE.report.
inspect() {
    report=$OUT/$1.report
    : >"$report"
    if ! wait_ready "$out"; then
        echo "the job never said ready" >>"$report"
        return
    fi
    pids=$(marked "$mark" | tr '\n' ' ')
    for c in $2; do
        "${c}_report" >>"$report"
    done
}

# judge CASE RC: PASS if the job exited 0, its report names objects or says
# nothing, and nothing in it is BAD.
judge() {
    log=$OUT/$1.log
    { cat "$err"; echo "report:"; cat "$OUT/$1.report"; echo "exit status $2"; } >"$log"
    ok=0
    if [ "$2" -ne 0 ] || grep -q "BAD\|never said ready" "$OUT/$1.report"; then
        ok=1
    fi
    # Every node holds its memfds: a report without them saw nothing.
    case $3 in *files*) grep -q "memfd:ompdsm-region" "$OUT/$1.report" || ok=1 ;; esac
    # The excerpt is the log's end: the objects and sockets at fault.
    grep BAD "$OUT/$1.report" | sed 's/^/not private: /' >>"$log"
    verdict "security/$1" $ok "$log"
}

# local_case CASE CHECKS [VAR=value...]: a 2-node ompdsm-run job.
local_case() {
    name=$1 checks=$2
    shift 2
    mark=$$.$name
    out=$OUT/$name.out
    err=$OUT/$name.err
    rm -f "$out"        # a "ready" left by an earlier run must not count
    env "$@" OMPDSM_TEST_MARK="$mark" "$RUN" --timeout "$TIMEOUT" -np 2 "$PROG" 4 >"$out" 2>"$err" &
    job=$!
    inspect "$name" "$checks"
    wait $job
    judge "$name" $? "$checks"
}

# mpirun_case CASE CHECKS [VAR=value...]: a 2-node job under mpirun.
mpirun_case() {
    name=$1 checks=$2
    shift 2
    mark=$$.$name
    out=$OUT/$name.out
    err=$OUT/$name.err
    rm -f "$out"
    xs=""
    for v in "$@" OMPDSM_TEST_MARK="$mark"; do
        xs="$xs -x $v"
    done
    # shellcheck disable=SC2086
    $MPIRUN $xs -np 2 "$PROG" 4 >"$out" 2>"$err" </dev/null &
    job=$!
    inspect "$name" "$checks"
    wait $job
    judge "$name" $? "$checks"
}

# ---- the cases ----------------------------------------------------------------

local_case shm_modes.default "sysv files"
local_case shm_modes.self_sm "sysv files" UCX_TLS=self,sm
local_case listeners.default "listen"
local_case listeners.self_tcp "listen" UCX_TLS=self,tcp
local_case all_tls "sysv files listen" UCX_TLS=all
if command -v mpirun >/dev/null; then
    mpirun_case mpirun.default "sysv files listen"
else
    echo "FAIL security/mpirun.default"
    echo "    mpirun not found: install openmpi-bin (tools/install-deps.sh)"
    failed=1
fi

# UCX_TLS naming sysv: refused, naming it, before anything is shared.
log=$OUT/refuse_sysv.log
UCX_TLS=self,sysv "$RUN" --timeout "$TIMEOUT" -np 2 "$PROG" 0 >"$log" 2>&1
rc=$?
ok=1
if [ $rc -ne 0 ] && grep -q "node [0-9]: UCX_TLS=self,sysv names sysv" "$log"; then
    ok=0
fi
echo "exit status $rc" >>"$log"
verdict security/refuse_sysv $ok "$log"

exit $failed
