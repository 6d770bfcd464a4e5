#!/bin/sh
# harness.sh: the benchmark harness.  One command builds Laplace and Himeno
# for libgomp, ompdsm and MPI, runs each of them at the same thread / node /
# rank counts, checks every checksum against libgomp's, and prints one
# Markdown table of median times and of ratios computed from this very run
# (never from figures measured another day).  Also writes a CSV (one row per
# run) and an SVG plot.  benchmarks/README is the user documentation; `sh
# benchmarks/harness.sh --help` the reference.
#
# Structure: parse options; build; set up what the mode needs (a CPU hog for
# --slow, network namespaces for --netns; both undone by the EXIT trap, also
# after a failure or ^C); run every measurement, appending one line per run
# to a raw file; then one awk program turns the raw file into the tables,
# the checksum verdicts and the CSV, and gnuplot draws the CSV.
set -eu

usage() {
    cat <<'EOF'
NAME
    harness.sh - run Laplace and Himeno on libgomp, ompdsm and MPI, one table

SYNOPSIS
    sh benchmarks/harness.sh [OPTIONS] [BUILD_DIR]

DESCRIPTION
    Builds the benchmarks of benchmarks/ into BUILD_DIR/benchmarks/ (default
    BUILD_DIR: ./build, an ompdsm build tree) with gcc -fopenmp, ompdsm-cc
    and mpicc, then, for every benchmark and size, runs
      - libgomp with 1 thread and with as many threads as each node count;
      - MPI (mpirun, the hand-written benchmarks/mpi versions) with as many
        ranks as each node count;
      - ompdsm (ompdsm-run) at each node count, once per configuration: the
        static schedule with each home-migration mode (--migrate), and with
        --profiled the profiled schedule too.
    Each run is repeated (--reps) and the median time is reported.  The time
    is the one the benchmark prints: its iteration loop, not start-up or
    initialisation.  The runs get OMP_SCHEDULE=static (profiled for the
    profiled configuration), OMP_NUM_THREADS for libgomp, OMPDSM_MIGRATE
    and OMPDSM_HOME for ompdsm, UCX_TLS=self,sm (or the --netns settings);
    OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND, OMPDSM_MIGRATE and
    OMPDSM_HOME inherited from the caller are dropped.  The benchmarks use
    schedule(runtime) loops, so OMP_SCHEDULE decides their distribution.

    Every run's checksum must equal the checksum of libgomp with 1 thread:
    bit for bit for Laplace; for Himeno, whose gosa is a reduction summed
    in an order that depends on the thread count, to 1e-6 relative.  A
    mismatch or a failed run is marked in the table, listed on stderr, and
    makes the harness exit with status 1 once everything has run.

    Progress goes to stderr, one line per run ("[k/n] what ... time");
    the tables go to stdout; the output of every run to
    BUILD_DIR/benchmarks/harness.log.

OPTIONS
    --bench LIST
        Benchmarks to run, blank- or comma-separated: laplace, himeno
        (default: both).
    --sizes LIST
        Problem sizes: 1024 and/or 2048 for Laplace (the grid is N x N),
        S and/or M for Himeno (65x65x129, 129x129x257).  Each size applies
        to the benchmark it belongs to (default: 1024 S).
    --nodes LIST
        Node counts, also the libgomp thread counts and MPI rank counts
        (default: 1 2 4).
    --reps N
        Runs of each measurement; the median is reported (default 3).
    --iter N
        Iterations of every benchmark (default: the benchmark's own, 100
        for Laplace, 80 for Himeno).
    --migrate LIST
        OMPDSM_MIGRATE values to run ompdsm with: off, first, every,
        every:N (default: off first).  The first one is the reference of
        the "migration gain" ratio.
    --profiled
        Also run ompdsm with OMP_SCHEDULE=profiled (with each --migrate
        value).  Off by default.
    --home POLICY
        OMPDSM_HOME for every ompdsm run: cyclic, block, first-touch
        (default cyclic, the library's default).
    --quick
        A smoke run of a few seconds: 1 and 2 nodes, 1 repetition, 10
        iterations (sizes as by default).  Options given explicitly win.
    --slow NODE
        Make node NODE (and MPI rank NODE) slower for real, the way
        --slow-by says.  Implies --bind-to core.
    --slow-by share|quota|hog
        share (the default): tools/cpu-share, bound to the CPU of node
        NODE (MPI rank NODE, libgomp thread NODE), takes half of that CPU
        in turns of 400 us at real-time priority (needs root): whatever
        runs there gets the other half of every turn, a node that computes
        in short bursts as much as one that never sleeps.  quota: node NODE
        and MPI rank NODE run in a cgroup with a CPU quota of half a CPU
        (tools/slow-node.sh; needs root and a cgroup CPU controller): at
        most 1 ms of CPU per 2 ms, so a node busy less than half the time
        runs at full speed and one busy more is stalled up to 1 ms at a
        time; libgomp's threads are not slowed.  hog: a plain busy loop at
        normal priority bound to that CPU; the scheduler favours a node
        that wakes from a barrier, so it loses much less than half.  With
        more nodes than CPUs, every node that shares that CPU is slowed
        too (share and hog).
    --bind-to core|none
        core: bind ompdsm node i, MPI rank i and libgomp thread i to the
        (i mod n)-th of the n CPUs the harness may run on (ompdsm-run
        --bind-to core, mpirun --bind-to core, OMP_PLACES).  none: no
        binding for any of them (MPI's own default binding is turned off
        too).  Default: none, or core with --slow.
    --netns
        The cluster case (needs root).  Each ompdsm node and each MPI rank
        runs in its own network namespace (ompdsm-h-0, ompdsm-h-1, ...),
        whose veth device (eth0 inside, 10.213.47.(i+1)) is attached to a
        bridge (ompdsm-h-br, 10.213.47.254/24) in the root namespace; both
        ends of every veth are rate-limited to 1 Gbit/s with tc tbf.  No
        latency is added (tc netem is not available in this kernel).
        Nodes are started with ip netns exec (ompdsm-run --exec-prefix)
        and use UCX tcp (UCX_TLS=tcp, UCX_NET_DEVICES=eth0); ompdsm-run
        and mpirun stay in the root namespace and listen on the bridge.
        MPI ranks use Open MPI's tcp BTL on eth0.  libgomp runs natively,
        as the reference.  Everything named ompdsm-h-* is removed at exit,
        also after a failure or an interrupt.
    --timeout SEC
        Stop a single run after SEC seconds and count it as failed
        (default 600).
    --csv FILE
        Where to write the CSV (default BUILD_DIR/benchmarks/harness.csv).
    --plot FILE.svg
        Where to write the plot (default BUILD_DIR/benchmarks/harness.svg).
        Skipped with a message if gnuplot is not installed.
    -h, --help
        Print this help and exit.

OUTPUT
    Per benchmark and size, two Markdown tables.  The first gives the
    median time in seconds per implementation (rows) and node count
    (columns; threads for libgomp, ranks for MPI).  The second gives
    ratios of those medians, each written so that above 1 means the run
    named in the row is faster:
      speedup vs libgomp 1 thread   time(libgomp, 1 thread) / time(run)
      vs MPI                        time(MPI, N ranks) / time(ompdsm, N)
      migration gain                time(ompdsm, first --migrate value)
                                      / time(ompdsm, this value)
      profiled gain                 time(ompdsm static) / time(ompdsm
                                      profiled), same --migrate value;
                                      and static with the first --migrate
                                      value against profiled with another
      vs ompdsm 1 node              time(ompdsm, 1 node) / time(ompdsm, N)
    "FAIL" marks a run that failed, "BAD" a checksum mismatch.

    CSV columns: benchmark,size,impl,nodes,config,median_s,min_s,max_s,
    checksum; impl is libgomp, mpi or ompdsm; config is the schedule, and
    for ompdsm also the migration mode (static/migrate=off); a failed run
    has empty times and checksum FAILED.

EXIT STATUS
    0  every run succeeded with the right checksum
    1  a run failed or a checksum differed (the tables are still printed)
    2  bad command line, or a build or set-up failure

EXAMPLES
    sh benchmarks/harness.sh build
    sh benchmarks/harness.sh --bench laplace --sizes '1024 2048' build
    sh benchmarks/harness.sh --quick --slow 1 build
    sh benchmarks/harness.sh --netns --nodes '2 4' --bench himeno build
EOF
}

die() {
    echo "harness: $*" >&2
    exit 2
}

# ---- options -----------------------------------------------------------------

BUILD=build
o_bench="" o_sizes="" o_nodes="" o_reps="" o_iter="" o_migrate="" o_bind=""
PROFILED=0 QUICK=0 SLOW="" SLOW_BY=share NETNS=0 HOME_POLICY=cyclic TIMEOUT=600 CSV="" PLOT=""
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --profiled) PROFILED=1 ;;
    --quick) QUICK=1 ;;
    --netns) NETNS=1 ;;
    --bench | --sizes | --nodes | --reps | --iter | --migrate | --home | --slow | --slow-by | \
        --bind-to | --timeout | --csv | --plot)
        [ $# -ge 2 ] || die "option $1 needs a value"
        case $1 in
        --bench) o_bench=$2 ;;
        --sizes) o_sizes=$2 ;;
        --nodes) o_nodes=$2 ;;
        --reps) o_reps=$2 ;;
        --iter) o_iter=$2 ;;
        --migrate) o_migrate=$2 ;;
        --home) HOME_POLICY=$2 ;;
        --slow) SLOW=$2 ;;
        --slow-by) SLOW_BY=$2 ;;
        --bind-to) o_bind=$2 ;;
        --timeout) TIMEOUT=$2 ;;
        --csv) CSV=$2 ;;
        --plot) PLOT=$2 ;;
        esac
        shift ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) BUILD=$1 ;;
    esac
    shift
done

# Explicit options win over --quick, which wins over the defaults.
if [ $QUICK -eq 1 ]; then
    d_nodes="1 2" d_reps=1 d_iter=10
else
    d_nodes="1 2 4" d_reps=3 d_iter=""
fi
BENCHES=$(echo "${o_bench:-laplace himeno}" | tr , ' ')
SIZES=$(echo "${o_sizes:-1024 S}" | tr , ' ')
NODES=$(echo "${o_nodes:-$d_nodes}" | tr , ' ')
REPS=${o_reps:-$d_reps}
ITER=${o_iter:-$d_iter}
MIGRATE=$(echo "${o_migrate:-off first}" | tr , ' ')
BIND=${o_bind:-none}
[ -n "$SLOW" ] && [ -z "$o_bind" ] && BIND=core

is_count() { case $1 in '' | *[!0-9]*) return 1 ;; *) [ "$1" -ge "$2" ] ;; esac; }
for b in $BENCHES; do
    case $b in laplace | himeno) ;; *) die "unknown benchmark '$b' (laplace, himeno)" ;; esac
done
for s in $SIZES; do
    case $s in 1024 | 2048 | S | M) ;; *) die "unknown size '$s' (1024, 2048, S, M)" ;; esac
done
for n in $NODES; do is_count "$n" 1 || die "bad node count '$n'"; done
is_count "$REPS" 1 || die "bad --reps '$REPS'"
[ -z "$ITER" ] || is_count "$ITER" 1 || die "bad --iter '$ITER'"
is_count "$TIMEOUT" 1 || die "bad --timeout '$TIMEOUT'"
for m in $MIGRATE; do
    case $m in off | first | every | every:[0-9]*) ;; *) die "bad --migrate value '$m'" ;; esac
done
case $HOME_POLICY in cyclic | block | first-touch) ;; *) die "bad --home '$HOME_POLICY'" ;; esac
case $BIND in core | none) ;; *) die "bad --bind-to '$BIND' (core, none)" ;; esac
case $SLOW_BY in share | quota | hog) ;; *) die "bad --slow-by '$SLOW_BY' (share, quota, hog)" ;; esac
MAXN=$(echo "$NODES" | tr ' ' '\n' | sort -n | tail -n 1)
[ -z "$SLOW" ] || { is_count "$SLOW" 0 && [ "$SLOW" -lt "$MAXN" ]; } ||
    die "--slow NODE must be a node number below the largest node count ($MAXN)"
[ $NETNS -eq 0 ] || [ "$(id -u)" -eq 0 ] || die "--netns needs root (it creates network namespaces)"
[ $NETNS -eq 0 ] || [ "$MAXN" -le 250 ] || die "--netns: at most 250 nodes (one /24 network)"

if [ ! -x "$BUILD/ompdsm-run" ] || [ ! -x "$BUILD/tools/ompdsm-cc" ]; then
    die "'$BUILD' is not an ompdsm build tree (no ompdsm-run, tools/ompdsm-cc); build first"
fi
BUILD=$(cd "$BUILD" && pwd)
SRC=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SRC/.." && pwd)
OUT=$BUILD/benchmarks
CSV=${CSV:-$OUT/harness.csv}
PLOT=${PLOT:-$OUT/harness.svg}
LOG=$OUT/harness.log
HAVE_MPI=1
command -v mpicc >/dev/null && command -v mpirun >/dev/null || HAVE_MPI=0
# Only what this harness sets may steer the runs.
unset OMP_NUM_THREADS OMP_PLACES OMP_PROC_BIND OMPDSM_MIGRATE OMPDSM_HOME || true

# ---- clean-up (hog, namespaces, temporary files) -----------------------------

STARTED=$(date +%s)
TMP=$(mktemp -d)
HOG="" QUOTA=""
NS=ompdsm-h-
NET=10.213.47

# Removes everything named $NS*.  The veths go first and explicitly: a
# deleted namespace takes its veth pair along only some time later.
netns_down() {
    for dev in $(ip -o link show | awk -F': ' '{ sub("@.*", "", $2); print $2 }' | grep "^$NS" || true); do
        ip link del "$dev"
    done
    for ns in $(ip netns list | awk '{ print $1 }' | grep "^$NS" || true); do
        ip netns del "$ns"
    done
}

cleanup() {
    [ -z "$HOG" ] || kill "$HOG" 2>/dev/null || true
    [ -z "$QUOTA" ] || rmdir "$(dirname "$QUOTA")" 2>/dev/null || true
    [ $NETNS -eq 0 ] || netns_down
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# ---- build -------------------------------------------------------------------

# size_flag BENCH SIZE: the -D flag that selects SIZE.  fits BENCH SIZE:
# whether SIZE is one of BENCH's sizes.
size_flag() { if [ "$1" = laplace ]; then echo "-DN=$2"; else echo "-DSIZE_$2"; fi; }
fits() { case $1:$2 in laplace:[0-9]* | himeno:[SM]) return 0 ;; *) return 1 ;; esac; }

build() {
    mkdir -p "$OUT/$1"
    f=$(size_flag "$1" "$2")
    exe=$OUT/$1/$1
    gcc -fopenmp -O2 "$f" "$SRC/$1/$1.c" -o "$exe.gomp.$2" &&
        "$BUILD/tools/ompdsm-cc" -O2 "$f" "$SRC/$1/$1.c" -o "$exe.dsm.$2" &&
        { [ $HAVE_MPI -eq 0 ] || mpicc -O2 "$f" "$SRC/mpi/${1}_mpi.c" -o "$exe.mpi.$2"; }
}

mkdir -p "$OUT"
: >"$LOG"
for b in $BENCHES; do
    any=0
    for s in $SIZES; do
        fits "$b" "$s" || continue
        any=1
        build "$b" "$s" >>"$LOG" 2>&1 || { tail -n 20 "$LOG" >&2; die "building $b $s failed (see $LOG)"; }
    done
    [ $any -eq 1 ] || echo "harness: no size of $b in --sizes '$SIZES': $b skipped" >&2
done
[ $HAVE_MPI -eq 1 ] || echo "harness: mpicc/mpirun not found: MPI runs skipped" >&2

# ---- the modes: CPU binding, slow node, network namespaces -------------------

# The CPUs we may run on, one per line, as ompdsm-run --bind-to core numbers them.
CPUS=$(taskset -pc $$ | sed 's/.*: *//' | tr , '\n' |
    awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }')
NCPU=$(echo "$CPUS" | wc -l)
cpu_of() { echo "$CPUS" | sed -n "$(($1 % NCPU + 1))p"; }

MODE="UCX shared memory (UCX_TLS=self,sm), MPI over its shared-memory transport"
if [ $NETNS -eq 1 ]; then
    command -v tc >/dev/null || die "--netns needs tc (iproute2)"
    netns_down                          # leftovers of a harness that was killed
    ! ip -4 route | grep -q "^$NET\." || die "$NET.0/24 is already in use on this machine"
    TBF="rate 1gbit burst 256kb latency 50ms"
    ip link add "${NS}br" type bridge
    ip addr add "$NET.254/24" dev "${NS}br"
    ip link set "${NS}br" up
    i=0
    while [ $i -lt "$MAXN" ]; do
        ip netns add "$NS$i"
        ip link add "${NS}v$i" type veth peer name eth0 netns "$NS$i"
        ip link set "${NS}v$i" master "${NS}br" up
        ip -n "$NS$i" addr add "$NET.$((i + 1))/24" dev eth0
        ip -n "$NS$i" link set eth0 up
        ip -n "$NS$i" link set lo up
        # One limit per direction: the bridge side shapes what a node
        # receives, the namespace side what it sends.
        # shellcheck disable=SC2086
        tc qdisc add dev "${NS}v$i" root tbf $TBF
        # shellcheck disable=SC2086
        tc -n "$NS$i" qdisc add dev eth0 root tbf $TBF
        i=$((i + 1))
    done
    MODE="one network namespace per node/rank, veth + bridge, tbf 1 Gbit/s each way, NO added latency (tc netem is not in this kernel); ompdsm over UCX tcp, MPI over its tcp BTL"
fi

# PREFIX: what starts node/rank i (%r for ompdsm-run, $OMPI_COMM_WORLD_RANK
# for mpirun), before ip netns exec if any.
PREFIX=""
if [ -n "$SLOW" ] && [ "$SLOW_BY" != quota ]; then
    core=$(cpu_of "$SLOW")
    if [ "$SLOW_BY" = share ]; then
        [ -x "$BUILD/tools/cpu-share" ] || die "$BUILD/tools/cpu-share is not built (make in $BUILD)"
        taskset -c "$core" "$BUILD/tools/cpu-share" -p 50 -t 400 &
        HOG=$!
        sleep 0.2
        kill -0 "$HOG" 2>/dev/null || die "tools/cpu-share did not start (it needs root for real-time priority)"
        MODE="$MODE; node $SLOW slowed by tools/cpu-share taking half of CPU $core (200 us of every 400 us, real-time priority)"
    else
        # The load generator: a plain busy loop, bound to the slow node's CPU.
        taskset -c "$core" sh -c 'while :; do :; done' &
        HOG=$!
        MODE="$MODE; node $SLOW slowed by a busy loop on CPU $core"
    fi
elif [ -n "$SLOW" ]; then
    QUOTA=$(sh "$TOP/tools/slow-node.sh" cgroup "ompdsm-harness-$$") ||
        die "--slow-by quota needs root and a cgroup CPU controller (or use --slow-by share)"
    PREFIX="sh $TOP/tools/slow-node.sh exec %r $SLOW $QUOTA"
    MODE="$MODE; node $SLOW and MPI rank $SLOW limited to half a CPU (cgroup CPU quota 1 ms per 2 ms, the progress thread spared; libgomp threads not slowed)"
fi
[ "$BIND" = none ] || MODE="$MODE; node/rank/thread i bound to CPU number i mod $NCPU"

# ---- runs --------------------------------------------------------------------

# omp_places N: an OMP_PLACES list that puts libgomp thread i on cpu_of(i),
# the CPU of ompdsm node i.
omp_places() {
    i=0 places=""
    while [ $i -lt "$1" ]; do
        places="$places${places:+,}{$(cpu_of $i)}"
        i=$((i + 1))
    done
    echo "$places"
}

# run_gomp / run_mpi EXE N, run_dsm EXE N SCHED MIGRATE: one run of EXE
# with $ARGS (the iteration count, or nothing), its output on stdout.
# shellcheck disable=SC2086
run_gomp() {
    if [ "$BIND" = core ]; then
        OMP_PLACES=$(omp_places "$2") OMP_PROC_BIND=close OMP_NUM_THREADS=$2 OMP_SCHEDULE=static \
            timeout --foreground "$TIMEOUT" "$1" $ARGS
    else
        OMP_NUM_THREADS=$2 OMP_SCHEDULE=static timeout --foreground "$TIMEOUT" "$1" $ARGS
    fi
}

# shellcheck disable=SC2086
run_mpi() {
    # overload-allowed: more ranks than cores is what --oversubscribe asks for.
    exe=$1 bind=$BIND
    [ "$BIND" = none ] || bind=core:overload-allowed
    set -- mpirun --allow-run-as-root --oversubscribe --timeout "$TIMEOUT" --bind-to "$bind" -np "$2"
    # The node prefix with the rank of the process.
    pre=$(echo "$PREFIX" | sed 's/%r/$OMPI_COMM_WORLD_RANK/g')
    if [ $NETNS -eq 1 ]; then
        # Ranks reach mpirun's PMIx server over the bridge and each other
        # over their own eth0 (tcp BTL); shared memory is left out.
        PMIX_MCA_ptl_tcp_if_include=${NS}br "$@" --mca pml ob1 --mca btl tcp,self \
            --mca btl_tcp_if_include eth0 \
            sh -c "exec $pre ip netns exec $NS\$OMPI_COMM_WORLD_RANK \"\$0\" \"\$@\"" "$exe" $ARGS
    elif [ -n "$pre" ]; then
        "$@" sh -c "exec $pre \"\$0\" \"\$@\"" "$exe" $ARGS
    else
        "$@" "$exe" $ARGS
    fi
}

# shellcheck disable=SC2086
run_dsm() {
    exe=$1 sched=$3 mig=$4
    set -- "$BUILD/ompdsm-run" -np "$2" --timeout "$TIMEOUT" --bind-to "$BIND"
    if [ $NETNS -eq 1 ]; then
        # UCX must start inside the namespace: setns in the process is not enough.
        OMP_SCHEDULE=$sched OMPDSM_MIGRATE=$mig OMPDSM_HOME=$HOME_POLICY UCX_TLS=tcp \
            UCX_NET_DEVICES=eth0 "$@" --bind "$NET.254" --exec-prefix "$PREFIX ip netns exec $NS%r" \
            "$exe" $ARGS
    else
        [ -z "$PREFIX" ] || set -- "$@" --exec-prefix "$PREFIX"
        OMP_SCHEDULE=$sched OMPDSM_MIGRATE=$mig OMPDSM_HOME=$HOME_POLICY UCX_TLS=self,sm \
            "$@" "$exe" $ARGS
    fi
}

# plan: the measurements of one benchmark and size, one per line,
# "IMPL N CONFIG"; CONFIG is the schedule, plus /migrate for ompdsm, - for MPI.
plan() {
    for n in $(echo "1 $NODES" | tr ' ' '\n' | sort -nu); do echo "libgomp $n static"; done
    if [ $HAVE_MPI -eq 1 ]; then
        for n in $NODES; do echo "mpi $n -"; done
    fi
    scheds=static
    [ $PROFILED -eq 0 ] || scheds="static profiled"
    for sc in $scheds; do
        for m in $MIGRATE; do
            for n in $NODES; do echo "ompdsm $n $sc/$m"; done
        done
    done
}

plural() { [ "$1" -eq 1 ] || echo s; }
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

TOTAL=0
for b in $BENCHES; do
    for s in $SIZES; do
        ! fits "$b" "$s" || TOTAL=$((TOTAL + REPS * $(plan | wc -l)))
    done
done
[ $TOTAL -gt 0 ] || die "no benchmark matches the sizes given (--sizes '$SIZES')"

# The raw results, one line per run: bench size impl n config rep time checksum
# (time and checksum are FAIL FAILED for a failed run).
RAW=$TMP/raw
: >"$RAW"
plan >"$TMP/plan"
ARGS=$ITER
k=0
for b in $BENCHES; do
    [ "$b" = laplace ] && key=checksum || key=gosa
    for s in $SIZES; do
        fits "$b" "$s" || continue
        exe=$OUT/$b/$b
        # Repetitions outermost: a slow spell of the machine then spreads
        # over every configuration instead of hitting one.
        rep=1
        while [ $rep -le "$REPS" ]; do
            while read -r impl n cfg; do
                k=$((k + 1))
                case $impl in
                libgomp) what="libgomp, $n thread$(plural "$n")" ;;
                mpi) what="MPI, $n rank$(plural "$n")" ;;
                ompdsm) what="ompdsm ${cfg%/*} migrate=${cfg#*/}, $n node$(plural "$n")" ;;
                esac
                what="$b $s: $what, rep $rep/$REPS"
                printf 'harness: [%d/%d] %s ... ' $k $TOTAL "$what" >&2
                echo "### $what" >>"$LOG"
                rc=0
                case $impl in
                libgomp) out=$(run_gomp "$exe.gomp.$s" "$n" </dev/null 2>>"$LOG") || rc=$? ;;
                mpi) out=$(run_mpi "$exe.mpi.$s" "$n" </dev/null 2>>"$LOG") || rc=$? ;;
                ompdsm) out=$(run_dsm "$exe.dsm.$s" "$n" "${cfg%/*}" "${cfg#*/}" </dev/null 2>>"$LOG") ||
                    rc=$? ;;
                esac
                echo "$out" >>"$LOG"
                line=$(echo "$out" | grep "^$b " | tail -n 1)
                t=$(field "$line" time)
                c=$(field "$line" "$key")
                if [ $rc -ne 0 ] || [ -z "$t" ] || [ -z "$c" ]; then
                    echo "FAILED (exit status $rc; see $LOG)" >&2
                    t=FAIL c=FAILED
                else
                    echo "$t s" >&2
                fi
                echo "$b $s $impl $n $cfg $rep $t $c" >>"$RAW"
            done <"$TMP/plan"
            rep=$((rep + 1))
        done
    done
done
WALL=$(($(date +%s) - STARTED))
[ -z "$HOG" ] || { kill "$HOG"; HOG=""; }

# ---- report ------------------------------------------------------------------

# Medians, checksum verdicts, the CSV and the tables, from the raw file alone.
# Measurements are keyed "bench size impl config n"; exits 1 if a run failed
# or a checksum differed.
report() {
    awk -v nodes="$NODES" -v migrate="$MIGRATE" -v reps="$REPS" -v iter="$ITER" -v csv="$CSV" \
        -v mode="$MODE" -v home="$HOME_POLICY" -v ncpu="$NCPU" -v wall="$WALL" '
function median(list,    v, n, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++)            # insertion sort of a handful of values
        for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    lo = v[1]; hi = v[n]
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
# Laplace sums in a fixed order: bit for bit.  Himeno gosa is a reduction.
function same(bench, a, b,    d) {
    if (bench == "laplace") return a == b
    d = a - b
    return (d < 0 ? -d : d) <= 1e-6 * (b < 0 ? -b : b)
}
function label(impl, cfg) {
    if (impl == "libgomp") return "libgomp (threads)"
    if (impl == "mpi") return "MPI (ranks)"
    sub("/", ", migrate=", cfg)
    return "ompdsm " cfg
}
function K(impl, cfg, n) { return B SUBSEP S SUBSEP impl SUBSEP cfg SUBSEP n }
function cell(k) {
    if (!(k in nrun)) return "-"
    if (failed[k]) return "FAIL"
    return sprintf("%.3f%s", med[k], bad[k] ? " BAD" : "")
}
function ratio(a, b) {                  # med[a] / med[b]
    if (!(a in med) || !(b in med) || med[b] <= 0) return "-"
    return sprintf("%.2f", med[a] / med[b])
}
function header(title,    i) {
    printf "\n| %-52s |", title
    for (i = 1; i <= nn; i++) printf " %9s |", nd[i] (nd[i] == 1 ? " node" : " nodes")
    printf "\n|------------------------------------------------------|"
    for (i = 1; i <= nn; i++) printf "-----------|"
    printf "\n"
}
function line(title, cells,    c, i, any) {
    split(cells, c, SUBSEP)
    for (i = 1; i <= nn; i++) any = any || c[i] != "-"
    if (!any) return                    # e.g. "vs 1 node" without a 1-node run
    printf "| %-52s |", title
    for (i = 1; i <= nn; i++) printf " %9s |", c[i]
    printf "\n"
}
BEGIN { nn = split(nodes, nd, " "); split(migrate, mg, " ") }
{
    set = $1 SUBSEP $2
    if (!(set in nrow)) { sets[++nsets] = set; nrow[set] = 0 }
    r = $3 SUBSEP $5
    if (!((set, r) in isrow)) { isrow[set, r] = 1; rows[set, ++nrow[set]] = r }
    k = set SUBSEP r SUBSEP $4
    if (!(k in nrun)) meas[++nmeas] = k
    nrun[k]++
    if ($7 == "FAIL") failed[k] = 1
    else { times[k] = times[k] " " $7; sums[k] = sums[k] " " $8 }
    if ($3 == "libgomp" && $4 == 1 && $7 != "FAIL" && !(set in ref)) ref[set] = $8
}
END {
    print "benchmark,size,impl,nodes,config,median_s,min_s,max_s,checksum" > csv
    for (i = 1; i <= nmeas; i++) {
        k = meas[i]; split(k, f, SUBSEP)        # bench size impl config n
        set = f[1] SUBSEP f[2]
        cfg = f[4]
        sub("/", "/migrate=", cfg)
        if (failed[k]) {
            printf "%s,%s,%s,%d,%s,,,,FAILED\n", f[1], f[2], f[3], f[5], cfg > csv
            printf "harness: %s %s, %s, %d: FAILED\n", f[1], f[2], label(f[3], f[4]), f[5] > "/dev/stderr"
            nbad++
            continue
        }
        med[k] = median(times[k])
        m = split(sums[k], sv, " "); shown = sv[1]
        for (j = 1; j <= m; j++)
            if (!(set in ref) || !same(f[1], sv[j], ref[set])) { bad[k] = 1; shown = sv[j] }
        printf "%s,%s,%s,%d,%s,%.4f,%.4f,%.4f,%s\n", f[1], f[2], f[3], f[5], cfg, med[k], lo, hi, shown > csv
        if (bad[k]) {
            printf "harness: %s %s, %s, %d: CHECKSUM MISMATCH %s, libgomp 1 thread has %s\n",
                f[1], f[2], label(f[3], f[4]), f[5], shown, (set in ref) ? ref[set] : "none" > "/dev/stderr"
            nbad++
        }
    }
    for (si = 1; si <= nsets; si++) {
        split(sets[si], f, SUBSEP); B = f[1]; S = f[2]
        if (B == "laplace") printf "\n### Laplace %sx%s", S, S
        else printf "\n### Himeno size %s", S
        # (Parentheses: a bare ">" in a print statement is a redirection.)
        printf ", %s iterations, median of %d run%s\n", (iter != "" ? iter : B == "laplace" ? 100 : 80),
            reps, (reps > 1 ? "s" : "")
        g1 = K("libgomp", "static", 1)
        printf "\nReference: libgomp 1 thread, %s s, checksum %s.\n", cell(g1), (sets[si] in ref) ? ref[sets[si]] : "none"
        header("time of the iteration loop (s)")
        for (ri = 1; ri <= nrow[sets[si]]; ri++) {
            split(rows[sets[si], ri], ic, SUBSEP); c = ""
            for (ni = 1; ni <= nn; ni++) c = c (ni > 1 ? SUBSEP : "") cell(K(ic[1], ic[2], nd[ni]))
            line(label(ic[1], ic[2]), c)
        }
        header("ratio (above 1: the run of the row is faster)")
        for (ri = 1; ri <= nrow[sets[si]]; ri++) {
            split(rows[sets[si], ri], ic, SUBSEP); c = ""
            for (ni = 1; ni <= nn; ni++)
                c = c (ni > 1 ? SUBSEP : "") ratio(K("libgomp", "static", 1), K(ic[1], ic[2], nd[ni]))
            line(label(ic[1], ic[2]) " vs libgomp 1 thread", c)
        }
        for (ri = 1; ri <= nrow[sets[si]]; ri++) {
            split(rows[sets[si], ri], ic, SUBSEP); c = ""
            if (ic[1] != "ompdsm") continue
            for (ni = 1; ni <= nn; ni++)
                c = c (ni > 1 ? SUBSEP : "") ratio(K("mpi", "-", nd[ni]), K(ic[1], ic[2], nd[ni]))
            line(label(ic[1], ic[2]) " vs MPI", c)
        }
        for (ri = 1; ri <= nrow[sets[si]]; ri++) {
            split(rows[sets[si], ri], ic, SUBSEP); c = ""
            split(ic[2], sm, "/")
            if (ic[1] != "ompdsm" || sm[2] == mg[1]) continue
            for (ni = 1; ni <= nn; ni++)
                c = c (ni > 1 ? SUBSEP : "") ratio(K("ompdsm", sm[1] "/" mg[1], nd[ni]), K(ic[1], ic[2], nd[ni]))
            line("migration gain: ompdsm " sm[1] ", migrate=" sm[2] " vs " mg[1], c)
        }
        for (ri = 1; ri <= nrow[sets[si]]; ri++) {
            split(rows[sets[si], ri], ic, SUBSEP); c = ""
            split(ic[2], sm, "/")
            if (ic[1] != "ompdsm" || sm[1] != "profiled") continue
            for (ni = 1; ni <= nn; ni++)
                c = c (ni > 1 ? SUBSEP : "") ratio(K("ompdsm", "static/" sm[2], nd[ni]), K(ic[1], ic[2], nd[ni]))
            line("profiled gain: ompdsm static vs profiled, migrate=" sm[2], c)
            if (sm[2] == mg[1]) continue
            c = ""
            for (ni = 1; ni <= nn; ni++)
                c = c (ni > 1 ? SUBSEP : "") ratio(K("ompdsm", "static/" mg[1], nd[ni]), K(ic[1], ic[2], nd[ni]))
            line("ompdsm static, migrate=" mg[1] " vs profiled, migrate=" sm[2], c)
        }
        for (ri = 1; ri <= nrow[sets[si]]; ri++) {
            split(rows[sets[si], ri], ic, SUBSEP); c = ""
            if (ic[1] != "ompdsm") continue
            for (ni = 1; ni <= nn; ni++)
                c = c (ni > 1 ? SUBSEP : "") ratio(K(ic[1], ic[2], 1), K(ic[1], ic[2], nd[ni]))
            line(label(ic[1], ic[2]) " vs ompdsm 1 node", c)
        }
    }
    printf "\nSetup: %d CPUs; %s; OMPDSM_HOME=%s.\n", ncpu, mode, home
    printf "Times: the iteration loop as each benchmark measures it, median of the repetitions.\n"
    printf "Ratios: vs libgomp 1 thread = t(libgomp, 1 thread) / t(row); vs MPI = t(MPI, same count) / t(row);\n"
    printf "migration gain = t(migrate=%s) / t(row); profiled gain = t(static, same migrate) / t(profiled);\n", mg[1]
    printf "vs ompdsm 1 node = t(same configuration, 1 node) / t(row).\n"
    printf "Checksums against libgomp 1 thread (Laplace bit for bit, Himeno gosa to 1e-6): %s.\n",
        nbad ? "**FAILED OR DIFFERENT in " nbad " measurement(s), marked FAIL / BAD above**" : "all equal"
    printf "Harness wall time: %d s (building included).\n", wall
    exit nbad > 0
}' "$RAW"
}

# plot: median time against node count, one panel per benchmark and size,
# one line per implementation and configuration, log-log; from the CSV.
plot() {
    awk -F, -v out="$PLOT" -v nodes="$NODES" '
NR == 1 || $6 == "" { next }
{
    panel = ($1 == "laplace" ? "Laplace " $2 "x" $2 : "Himeno " $2)
    ser = $3 == "ompdsm" ? "ompdsm " $5 : $3 == "mpi" ? "MPI" : "libgomp"
    if (!(panel in pi)) { pi[panel] = ++np; pname[np] = panel }
    p = pi[panel]
    if (!((p, ser) in si)) { si[p, ser] = ++ns[p]; sname[p, ns[p]] = ser }
    data[p, si[p, ser]] = data[p, si[p, ser]] $4 " " $6 "\n"
}
END {
    printf "set terminal svg size %d,440 dynamic font \"sans,11\" background \"white\"\n", 480 * np
    printf "set output \"%s\"\n", out
    for (p = 1; p <= np; p++)
        for (s = 1; s <= ns[p]; s++) printf "$d%d_%d << EOD\n%sEOD\n", p, s, data[p, s]
    n = split(nodes, nd, " "); tics = ""
    for (i = 1; i <= n; i++) tics = tics (i > 1 ? ", " : "") nd[i]
    printf "set logscale xy\nset xtics (%s)\nset xrange [0.8:%g]\n", tics, nd[n] * 1.25
    print "set xlabel \"nodes (libgomp: threads, MPI: ranks)\"\nset ylabel \"median time (s), log scale\""
    print "set key top left noenhanced\nset grid"
    printf "set multiplot layout 1,%d\n", np
    for (p = 1; p <= np; p++) {
        printf "set title \"%s\" noenhanced\nplot ", pname[p]
        for (s = 1; s <= ns[p]; s++)
            printf "%s$d%d_%d using 1:2 with linespoints title \"%s\"", (s > 1 ? ", " : ""), p, s, sname[p, s]
        printf "\n"
    }
    print "unset multiplot"
}' "$CSV" >"$TMP/plot.gp" && gnuplot "$TMP/plot.gp"
}

status=0
report || status=1
echo "CSV: $CSV" >&2
if ! command -v gnuplot >/dev/null; then
    echo "harness: gnuplot not installed, no plot (tools/install-deps.sh installs gnuplot-nox)" >&2
elif plot; then
    echo "Plot: $PLOT" >&2
else
    echo "harness: gnuplot failed, no plot" >&2
fi
exit $status
