#!/bin/sh
# run-netns-tests.sh: ompdsm across hosts.  Every node of a job runs in its
# own network namespace, as on a machine of its own, and the nodes talk UCX
# tcp over veth pairs; what must hold:
#   - an OpenMP program prints the same on 2 and 4 nodes in namespaces as
#     on one host (ompdsm-run with UCX tcp on the loopback interface, same
#     node count) and as libgomp with OMP_NUM_THREADS=N;
#   - with UCX_TLS=tcp and UCX_NET_DEVICES unset, a job listens only on the
#     interface that reaches the other nodes (eth0): not on loopback nor on
#     side0, an interface of every namespace on a network of its own;
#   - the job's traffic really went through the namespaces: during the job
#     the veth of every node carried at least 2 KiB each way (the smallest
#     job here moves about 4 KiB; without the namespaces the nodes talk
#     over another device and a veth carries at most a few hundred bytes of
#     IPv6 neighbour discovery).
#
#   tests/netns/run-netns-tests.sh BUILD_DIR
#
# Needs root and ip (iproute2).  The namespaces ompdsm-t-0 .. ompdsm-t-3
# each hold one end of a veth pair, eth0 with address 10.213.49.(i+1)/24;
# the other ends (ompdsm-t-v0 ..) are ports of a bridge, ompdsm-t-br, that
# carries 10.213.49.254/24 in the root namespace, where ompdsm-run listens
# (--bind) and starts every node with 'ip netns exec ompdsm-t-%r'.  The
# namespaces have no route out, so the jobs' traffic stays on the veths and
# on the loopback interface.  Everything named ompdsm-t-* is removed at exit,
# also after a failure or an interrupt, and at start (left by a run that was
# killed); a lock keeps two runs on one machine from meeting.
#
# The OpenMP programs are the ones tests/omp/run-omp-tests.sh builds into
# BUILD_DIR/tests/omp, used if they are newer than their source, else built
# here, into BUILD_DIR/tests/netns, the same way.  Prints "PASS netns/<name>
# np=N" or "FAIL netns/<name> np=N" lines, each FAIL followed by an indented
# excerpt, and no summary: the caller counts the lines.  Without root, ip
# or flock it prints one FAIL saying so.  Exits 1 if any case failed.
# Environment: OMPDSM_TEST_TIMEOUT seconds per run (default 60), CC
# (default gcc) for the libgomp build.
set -u

. "$(dirname "$0")/../lib.sh"
build_dir "$@"
SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=$BUILD/tests/netns
RUN=$BUILD/ompdsm-run
DSMCC=$BUILD/tools/ompdsm-cc
CC=${CC:-gcc}
TIMEOUT=${OMPDSM_TEST_TIMEOUT:-60}
PROGRAMS="jacobi2d reduction_double lock critical_named matmul for_runtime_dynamic
          migrate_laplace_first"
NODES="2 4"
MAXN=4
NS=ompdsm-t-
NET=10.213.49
MIN_BYTES=2048
SIDE=10.213 SIDE_BASE=50     # each namespace's side0 (a veth pair of its own): a network no other node is on
mkdir -p "$OUT" || exit 2
failed=0

# The environment this script is run in must not change the cases.
clean_env
unset UCX_TLS UCX_NET_DEVICES

pass() { echo "PASS netns/$1"; }
fail() {    # fail CASE REASON [FILE]: FILE's first lines as the excerpt
    echo "FAIL netns/$1"
    echo "    $2"
    [ -z "${3:-}" ] || sed -n '1,12s/^/    /p' "$3"
    failed=1
}

if [ "$(id -u)" -ne 0 ]; then
    fail setup "needs root: it creates network namespaces"
    exit 1
fi
if ! command -v ip >/dev/null || ! command -v flock >/dev/null; then
    fail setup "needs ip (iproute2) and flock (util-linux)"
    exit 1
fi

# ---- the namespaces ------------------------------------------------------------

# Removes everything named $NS*.  The veths go first and explicitly: a
# deleted namespace takes its veth pair along only some time later.
netns_down() {
    for dev in $(ip -o link show | awk -F': ' '{ sub("@.*", "", $2); print $2 }' | grep "^$NS"); do
        ip link del "$dev"
    done
    for ns in $(ip netns list | awk '{ print $1 }' | grep "^$NS"); do
        ip netns del "$ns"
    done
}

netns_up() {
    ip link add "${NS}br" type bridge &&
        ip addr add "$NET.254/24" dev "${NS}br" &&
        ip link set "${NS}br" up || return 1
    i=0
    while [ $i -lt $MAXN ]; do
        ip netns add "$NS$i" &&
            ip link add "${NS}v$i" type veth peer name eth0 netns "$NS$i" &&
            ip link set "${NS}v$i" master "${NS}br" up &&
            ip -n "$NS$i" addr add "$NET.$((i + 1))/24" dev eth0 &&
            ip -n "$NS$i" link set eth0 up &&
            ip -n "$NS$i" link set lo up &&
            ip -n "$NS$i" link add side0 type veth peer name side1 &&
            ip -n "$NS$i" addr add "$SIDE.$((SIDE_BASE + i)).1/24" dev side0 &&
            ip -n "$NS$i" link set side1 up &&
            ip -n "$NS$i" link set side0 up || return 1
        i=$((i + 1))
    done
}

# The lock is held until this script and its jobs have ended: whatever is
# named $NS* once we hold it was left by a run that was killed.
LOCK=/run/lock/ompdsm-netns-tests.lock
mkdir -p /run/lock
exec 9>>"$LOCK"
if ! flock -w 600 9; then
    fail setup "another run of this script has held $LOCK for 10 minutes"
    exit 1
fi
trap netns_down EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
netns_down 2>/dev/null
# The routes of any table to, into or around $NET.0/24, but default ones.
used=$({ ip -4 route show table all match "$NET.0/24"; ip -4 route show table all root "$NET.0/24"; } |
    grep -v '^default' | sort -u)
if [ -n "$used" ]; then
    fail setup "$NET.0/24 is already in use on this machine:"
    echo "$used" | sed 's/^/    /'
    exit 1
fi
if ! netns_up >"$OUT/setup.log" 2>&1; then
    fail setup "cannot create the namespaces" "$OUT/setup.log"
    exit 1
fi

# ---- the cases -------------------------------------------------------------------

# binaries NAME: sets $gomp and $dsm, the libgomp and ompdsm builds of
# tests/omp/NAME.c; false if they cannot be built.  (-nt: dash, bash and
# busybox sh have it.)
# shellcheck disable=SC3013
binaries() {
    src=$SRC/omp/$1.c
    gomp=$BUILD/tests/omp/$1.gomp dsm=$BUILD/tests/omp/$1.dsm
    [ "$gomp" -nt "$src" ] && [ "$dsm" -nt "$src" ] && return 0
    gomp=$OUT/$1.gomp dsm=$OUT/$1.dsm
    [ "$gomp" -nt "$src" ] && [ "$dsm" -nt "$src" ] && return 0
    "$CC" -fopenmp -O2 "$src" -o "$gomp" -lm >"$OUT/$1.build.log" 2>&1 &&
        "$DSMCC" -O2 "$src" -o "$dsm" -lm >>"$OUT/$1.build.log" 2>&1
}

# veth_bytes: "rx tx" of the bridge side of every veth, one line per node;
# rx is what the node sent, tx what it received.
veth_bytes() {
    i=0
    while [ $i -lt $MAXN ]; do
        echo "$(cat "/sys/class/net/${NS}v$i/statistics/rx_bytes")" \
            "$(cat "/sys/class/net/${NS}v$i/statistics/tx_bytes")"
        i=$((i + 1))
    done
}

# quiet_veths NP BEFORE AFTER: the nodes below NP whose veth carried fewer
# than $MIN_BYTES bytes one way between the two veth_bytes readings.
quiet_veths() {
    printf '%s\n%s\n' "$2" "$3" |
        awk -v n=$MAXN -v np="$1" -v min=$MIN_BYTES '
            NR <= n { rx[NR] = $1; tx[NR] = $2; next }
            { i = NR - n; sent = $1 - rx[i]; got = $2 - tx[i] }
            i <= np && (sent < min || got < min) { printf " node %d (%d bytes sent, %d received)", i - 1, sent, got }'
}

for np in $NODES; do
    for name in $PROGRAMS; do
        c="$name np=$np"
        base=$OUT/$name.np$np
        if ! binaries "$name"; then
            fail "$c" "cannot build tests/omp/$name.c" "$OUT/$name.build.log"
            continue
        fi
        extra=$(sed -n '1s|^/\* *env: *\(.*[^ ]\) *\*/ *$|\1|p' "$SRC/omp/$name.c")
        # shellcheck disable=SC2086
        env $extra OMP_NUM_THREADS="$np" timeout "$TIMEOUT" "$gomp" >"$base.gomp.out" 2>"$base.gomp.err"
        rc_gomp=$?
        # shellcheck disable=SC2086
        env $extra UCX_TLS=self,tcp UCX_NET_DEVICES=lo \
            "$RUN" --timeout "$TIMEOUT" -np "$np" "$dsm" >"$base.host.out" 2>"$base.host.err"
        rc_host=$?
        before=$(veth_bytes)
        # shellcheck disable=SC2086
        env $extra OMPDSM_HOST_SEGMENT=off UCX_TLS=tcp UCX_NET_DEVICES=eth0 "$RUN" --timeout "$TIMEOUT" -np "$np" \
            --bind "$NET.254" --exec-prefix "ip netns exec $NS%r" "$dsm" >"$base.out" 2>"$base.err"
        rc=$?
        quiet=$(quiet_veths "$np" "$before" "$(veth_bytes)")
        if [ $rc_gomp -ne 0 ]; then
            fail "$c" "libgomp reference run exited with status $rc_gomp; stderr:" "$base.gomp.err"
        elif [ $rc_host -ne 0 ]; then
            fail "$c" "one-host ompdsm run exited with status $rc_host; stderr:" "$base.host.err"
        elif [ $rc -ne 0 ]; then
            fail "$c" "ompdsm run in namespaces exited with status $rc; stderr:" "$base.err"
        elif ! cmp -s "$base.host.out" "$base.out"; then
            diff -u "$base.host.out" "$base.out" | sed 1,2d >"$base.diff"
            fail "$c" "output differs (--- one host, +++ namespaces):" "$base.diff"
        elif ! cmp -s "$base.gomp.out" "$base.out"; then
            diff -u "$base.gomp.out" "$base.out" | sed 1,2d >"$base.diff"
            fail "$c" "output differs (--- libgomp, +++ namespaces):" "$base.diff"
        elif [ -n "$quiet" ]; then
            fail "$c" "traffic did not go through the veths of every node:$quiet"
        else
            pass "$c"
        fi
    done
done

# listen_report NP: every listening socket in the namespaces of the first NP
# nodes; those on other than eth0's network or loopback are marked BAD.
listen_report() {
    i=0
    while [ $i -lt "$1" ]; do
        ip netns exec "$NS$i" ss -Htlnp | awk -v ns="$NS$i" -v net="$NET." '{
            a = $4; sub(/:[0-9]+$/, "", a)
            ok = index(a, net) == 1 || a ~ /^127\./ || a == "[::1]"
            printf "%s: %s %s%s\n", ns, $4, $6, ok ? "" : " BAD"
        }'
        i=$((i + 1))
    done
}

# Default devices across "hosts": nodes listen where the other nodes are.
# (UCX_TLS is named: left unset, UCX 1.13 also uses shared memory between
# the namespaces, which share a kernel, and such jobs can hang.)
src=$SRC/security/sleep_region.c prog=$OUT/sleep_region
for np in $NODES; do
    c="listeners.tcp np=$np"
    base=$OUT/listeners.np$np
    if ! "$DSMCC" -O2 "$src" -o "$prog" >"$base.build.log" 2>&1; then
        fail "$c" "cannot build $src" "$base.build.log"
        continue
    fi
    rm -f "$base.out"
    UCX_TLS=tcp "$RUN" --timeout "$TIMEOUT" -np "$np" --bind "$NET.254" \
        --exec-prefix "ip netns exec $NS%r" "$prog" 4 >"$base.out" 2>"$base.err" &
    job=$!
    i=0
    until grep -q '^ready' "$base.out" 2>/dev/null || [ $i -ge 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    listen_report "$np" >"$base.report"
    wait $job
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "$c" "job exited with status $rc; stderr:" "$base.err"
    elif grep -q BAD "$base.report"; then
        fail "$c" "listening off the nodes' network (side0 is $SIDE.$SIDE_BASE+i.1):" "$base.report"
    elif [ "$(grep -c " $NET\." "$base.report")" -lt "$np" ]; then
        fail "$c" "not every node listens on eth0; listeners:" "$base.report"
    else
        pass "$c"
    fi
done
exit $failed
