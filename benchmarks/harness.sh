#!/bin/sh
# harness.sh: the benchmark harness.  One command builds the benchmarks
# (Laplace and Himeno, and the suite of real program shapes: the NAS
# kernels EP, CG, MG, FT, IS, the ADI solver and the textbook Jacobi) for
# libgomp, ompdsm and, where a hand-written version exists, MPI; runs each
# of them at the same thread / node / rank counts, ompdsm once per
# configuration (home policy x migration mode, and the defaults); checks
# every result against libgomp's; and prints Markdown tables of median
# times and of ratios computed from this very run (never from figures
# measured another day).  Also writes a CSV (one row per measurement) and
# an SVG plot.  benchmarks/README is the user documentation; `sh
# benchmarks/harness.sh --help` the reference.
#
# Structure: parse options; build (a benchmark whose source is not there
# yet is skipped with a note); set up what the mode needs (a CPU hog for
# --slow, network namespaces for --netns; both undone by the EXIT trap,
# also after a failure or ^C); run every measurement, appending one line
# per run to a raw file; then benchmarks/report.awk turns the raw file into
# the tables, the verdicts and the CSV (tests/harness runs it on a recorded
# raw file), and gnuplot draws the CSV.
set -eu

usage() {
    cat <<'EOF'
NAME
    harness.sh - run the benchmarks on libgomp, ompdsm and MPI, one table

SYNOPSIS
    sh benchmarks/harness.sh [OPTIONS] [BUILD_DIR]

DESCRIPTION
    Builds the benchmarks of benchmarks/ into BUILD_DIR/benchmarks/ (default
    BUILD_DIR: ./build, an ompdsm build tree) with gcc -fopenmp, ompdsm-cc
    and mpicc, then, for every benchmark and size, runs
      - libgomp with 1 thread and with as many threads as each node count;
      - MPI (mpirun, the hand-written benchmarks/mpi versions; Laplace and
        Himeno only) with as many ranks as each node count;
      - ompdsm (ompdsm-run) at each node count, once per configuration:
        the static schedule with each home policy (--home) and each
        home-migration mode (--migrate), with --profiled the profiled
        schedule too, and once with no OMPDSM_* variable set at all (the
        library's defaults, the row marked **default**).
    Each run is repeated (--reps) and the median time is reported.  The time
    is the one the benchmark prints: its timed part (the iteration loop, or
    what the NAS specification times), not start-up or initialisation.  The
    runs get OMP_SCHEDULE=static (profiled for the profiled configuration),
    OMP_NUM_THREADS for libgomp, OMPDSM_HOME and OMPDSM_MIGRATE for ompdsm
    (none for the defaults), UCX_TLS=self,sm (or the --netns settings);
    OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND and every OMPDSM_* variable
    inherited from the caller (but OMPDSM_CC) are dropped.  The benchmarks
    use schedule(runtime) loops, so OMP_SCHEDULE decides their distribution.

    Every run is checked against libgomp with 1 thread: Laplace's checksum
    bit for bit; Himeno's gosa (a reduction summed in an order that depends
    on the thread count) to 1e-6 relative; a NAS kernel must say
    verified=yes and its checksum agree to 1e-6; ADI and Jacobi to 1e-9.
    A mismatch or a failed run is marked in the table, listed on stderr,
    and makes the harness exit with status 1 once everything has run.

    A benchmark whose source is not in benchmarks/ (the NAS kernels arrive
    one by one) is skipped with a note on stderr and in the table's footer.

    Progress goes to stderr, one line per run ("[k/n] what ... time");
    the tables go to stdout; the output of every run to
    BUILD_DIR/benchmarks/harness.log.

OPTIONS
    --bench LIST
        Benchmarks to run, blank- or comma-separated: laplace, himeno, and
        the suite: ep, cg, mg, ft, is (the NAS kernels), adi, jacobi
        (default: laplace himeno).
    --suite
        The suite: --bench 'ep cg mg ft is adi jacobi', each at its suite
        size (NAS class A, ADI 64, Jacobi 2048; with --quick NAS class S).
        Combines with --home, --migrate, --nodes, --sizes ...
    --sizes LIST
        Problem sizes.  A size applies to every benchmark it is a size of:
        1024 and 2048 to Laplace (the grid is N x N); S and M to Himeno
        (65x65x129, 129x129x257); S, W and A to the NAS kernels (the
        class).  BENCH:SIZE applies to one benchmark only, and is the way
        to size ADI (adi:N, an N^3 grid) and Jacobi (jacobi:N, N x N):
        e.g. --sizes 'S adi:32 jacobi:1024'.  A benchmark that the list
        gives no size runs at its default size: Laplace 1024, Himeno S, NAS
        A (S with --quick), ADI 64, Jacobi 2048.
    --nodes LIST
        Node counts, also the libgomp thread counts and MPI rank counts
        (default: 1 2 4).
    --reps N
        Runs of each measurement; the median is reported (default 3).
    --iter N
        Iterations of Laplace, Himeno, ADI (time steps) and Jacobi (default:
        the benchmark's own, 100 for Laplace and Jacobi, 80 for Himeno, 130
        for ADI).  The NAS kernels run the iterations of their class.
    --home LIST
        OMPDSM_HOME values to run ompdsm with: cyclic, block, first-touch,
        or all for the three (default: cyclic).  OMPDSM_HOME places global
        variables (Laplace's, Himeno's grids); memory from malloc (the NAS
        kernels', ADI's, Jacobi's) is homed at the node that allocated it
        whatever the policy.
    --migrate LIST
        OMPDSM_MIGRATE values to run ompdsm with: auto, off, first, every,
        every:N (default: off first).  The first one is the reference of
        the "migration gain" ratio.  Every --home value runs with every
        --migrate value.
    --profiled
        Also run ompdsm with OMP_SCHEDULE=profiled (with each --home and
        --migrate value).  Off by default.
    --plain
        Also build each benchmark as people usually write it: its source
        with every ` schedule(runtime)` clause removed, so that GCC
        schedules those loops itself (it computes the static blocks inline
        and calls no loop function of the runtime), and run that build with
        the library's defaults (the row marked **default**, no schedule
        clause).  The suite's summary then has a second table for it.
    --saved
        With --profiled (which it implies): also run each profiled
        configuration from a saved profile (the "saved" schedule): each
        profiled run writes OMPDSM_PROFILE to a fresh file, and the saved
        run that follows it (same repetition) starts from a copy of it.
        The saved runs have OMPDSM_STATS=1, and a last table gives, per
        benchmark and node count, how far the time the profile predicted
        for each node on each loop's blocks was from the time measured.
    --quick
        A smoke run of a few seconds per benchmark: 1 and 2 nodes, 1
        repetition, 10 iterations, NAS class S.  Options given explicitly
        win.
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
    --threads-per-node T
        Every ompdsm node runs T OpenMP threads (ompdsm-run
        --threads-per-node; default 1).  Where the tables say n, ompdsm
        runs n nodes of T threads, libgomp n x T threads and MPI n x T
        ranks; the setup line says so.
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
    Per benchmark and size, two Markdown tables (benchmarks/report.awk
    makes them from the raw results).  The first gives the median time in
    seconds per implementation and configuration (rows) and node count
    (columns; threads for libgomp, ranks for MPI).  The second gives
    ratios of those medians, each written so that above 1 means the run
    named in the row is faster:
      vs libgomp 1 thread      time(libgomp, 1 thread) / time(run)
      vs libgomp, same count   time(libgomp, N threads) / time(ompdsm, N)
      vs MPI                   time(MPI, N ranks) / time(ompdsm, N)
      vs ompdsm 1 node         time(same configuration, 1 node) / time(N)
      vs best configuration    time(fastest correct ompdsm configuration,
                                 N) / time(this configuration, N)
      migration gain           time(first --migrate value) / time(this
                                 value), same home and schedule
      profiled gain            time(static) / time(profiled), same home
                                 and migration mode
    and which configuration was the best at each node count.  Then two
    summaries over all benchmarks and sizes of the run: the default
    configuration on each (vs 1 node, vs libgomp with as many threads, vs
    the best configuration) with a geometric-mean row, and for every
    configuration the geometric means of those ratios.
    "FAIL" marks a run that failed, "BAD" a checksum mismatch or a NAS
    kernel that did not verify.

    CSV columns: benchmark,size,impl,nodes,config,median_s,min_s,max_s,
    checksum,verified; impl is libgomp, mpi or ompdsm; config is the
    schedule, and for ompdsm also the home policy and migration mode
    (static/home=cyclic/migrate=off; static/default for the defaults);
    verified is yes or no for the NAS kernels, empty otherwise; a failed
    run has empty times and checksum FAILED.

EXIT STATUS
    0  every run succeeded with the right checksum
    1  a run failed or a checksum differed (the tables are still printed)
    2  bad command line, or a build or set-up failure

EXAMPLES
    sh benchmarks/harness.sh build
    sh benchmarks/harness.sh --quick build
    sh benchmarks/harness.sh --suite --home all --nodes '1 2' build
    sh benchmarks/harness.sh --quick --suite --sizes 'adi:32 jacobi:512' build
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
PROFILED=0 SAVED=0 PLAIN=0 QUICK=0 SUITE=0 SLOW="" SLOW_BY=share NETNS=0 HOMES=cyclic TIMEOUT=600 CSV="" PLOT="" TPN=1
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --profiled) PROFILED=1 ;;
    --saved) PROFILED=1 SAVED=1 ;;
    --plain) PLAIN=1 ;;
    --quick) QUICK=1 ;;
    --suite) SUITE=1 ;;
    --netns) NETNS=1 ;;
    --bench | --sizes | --nodes | --reps | --iter | --migrate | --home | --slow | --slow-by | \
        --bind-to | --timeout | --csv | --plot | --threads-per-node)
        [ $# -ge 2 ] || die "option $1 needs a value"
        case $1 in
        --bench) o_bench=$2 ;;
        --sizes) o_sizes=$2 ;;
        --nodes) o_nodes=$2 ;;
        --reps) o_reps=$2 ;;
        --iter) o_iter=$2 ;;
        --migrate) o_migrate=$2 ;;
        --home) HOMES=$2 ;;
        --slow) SLOW=$2 ;;
        --slow-by) SLOW_BY=$2 ;;
        --bind-to) o_bind=$2 ;;
        --timeout) TIMEOUT=$2 ;;
        --csv) CSV=$2 ;;
        --plot) PLOT=$2 ;;
        --threads-per-node) TPN=$2 ;;
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
NAS="ep cg mg ft is"
SUITE_BENCHES="$NAS adi jacobi"
ALL_BENCHES="laplace himeno $SUITE_BENCHES"
if [ $SUITE -eq 1 ]; then
    [ -z "$o_bench" ] || die "--suite and --bench exclude each other (--suite is --bench '$SUITE_BENCHES')"
    o_bench=$SUITE_BENCHES
fi
BENCHES=$(echo "${o_bench:-laplace himeno}" | tr , ' ')
SIZES=$(echo "$o_sizes" | tr , ' ')
NODES=$(echo "${o_nodes:-$d_nodes}" | tr , ' ')
REPS=${o_reps:-$d_reps}
ITER=${o_iter:-$d_iter}
MIGRATE=$(echo "${o_migrate:-off first}" | tr , ' ')
HOMES=$(echo "$HOMES" | tr , ' ')
[ "$HOMES" != all ] || HOMES="cyclic block first-touch"
BIND=${o_bind:-none}
[ -n "$SLOW" ] && [ -z "$o_bind" ] && BIND=core

is_count() { case $1 in '' | *[!0-9]*) return 1 ;; *) [ "$1" -ge "$2" ] ;; esac; }
is_nas() { case " $NAS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# fits BENCH SIZE: whether SIZE is one of BENCH's sizes (ADI's and Jacobi's
# are any N of 3 or more, given as adi:N, jacobi:N).
fits() {
    case $1 in
    laplace) case $2 in 1024 | 2048) return 0 ;; esac ;;
    himeno) case $2 in S | M) return 0 ;; esac ;;
    ep | cg | mg | ft | is) case $2 in S | W | A) return 0 ;; esac ;;
    adi | jacobi) is_count "$2" 3 && return 0 ;;
    esac
    return 1
}

# default_size BENCH: its size when --sizes gives it none.
default_size() {
    case $1 in
    laplace) echo 1024 ;;
    himeno) echo S ;;
    adi) echo 64 ;;
    jacobi) echo 2048 ;;
    *) if [ $QUICK -eq 1 ]; then echo S; else echo A; fi ;;
    esac
}

# sizes_of BENCH: the sizes BENCH runs at: its BENCH:SIZE entries of
# --sizes, the plain entries that are sizes of it (never for ADI and
# Jacobi, whose N is only taken qualified), or its default size.
sizes_of() {
    got=""
    for s in $SIZES; do
        case $s in
        "$1":*) got="$got ${s#*:}" ;;
        *:*) ;;
        *) case $1 in adi | jacobi) ;; *) ! fits "$1" "$s" || got="$got $s" ;; esac ;;
        esac
    done
    [ -n "$got" ] || got=$(default_size "$1")
    echo "${got# }"
}

for b in $BENCHES; do
    case " $ALL_BENCHES " in *" $b "*) ;; *) die "unknown benchmark '$b' ($ALL_BENCHES)" ;; esac
done
for s in $SIZES; do
    case $s in
    *:*)
        b=${s%%:*}
        case " $BENCHES " in *" $b "*) ;; *) die "size '$s': $b is not among the benchmarks ($BENCHES)" ;; esac
        fits "$b" "${s#*:}" || die "size '$s': not a size of $b" ;;
    *)
        ok=0
        for b in $ALL_BENCHES; do
            case $b in adi | jacobi) ;; *) ! fits "$b" "$s" || ok=1 ;; esac
        done
        [ $ok -eq 1 ] || die "unknown size '$s' (1024, 2048, S, M, W, A, or BENCH:SIZE, e.g. adi:32)" ;;
    esac
done
for n in $NODES; do is_count "$n" 1 || die "bad node count '$n'"; done
is_count "$REPS" 1 || die "bad --reps '$REPS'"
[ -z "$ITER" ] || is_count "$ITER" 1 || die "bad --iter '$ITER'"
is_count "$TIMEOUT" 1 || die "bad --timeout '$TIMEOUT'"
is_count "$TPN" 1 || die "bad --threads-per-node '$TPN'"
for m in $MIGRATE; do
    case $m in auto | off | first | every | every:[0-9]*) ;; *) die "bad --migrate value '$m'" ;; esac
done
for h in $HOMES; do
    case $h in cyclic | block | first-touch) ;; *) die "bad --home value '$h' (cyclic, block, first-touch, all)" ;; esac
done
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
# Only what this harness sets may steer the runs: the default configuration
# is the one with no OMPDSM_* variable at all (OMPDSM_CC, which only
# ompdsm-cc reads, may stay).
unset OMP_NUM_THREADS OMP_PLACES OMP_PROC_BIND || true
for v in $(env | sed -n 's/^\(OMPDSM_[A-Za-z0-9_]*\)=.*/\1/p'); do
    [ "$v" = OMPDSM_CC ] || unset "$v"
done

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

# Laplace and Himeno fix their size at compile time (one executable per
# size, named with it); the suite's benchmarks take it on the command line.
source_of() { if is_nas "$1"; then echo "$SRC/nas/$1.c"; else echo "$SRC/$1/$1.c"; fi; }
compiled_size() { [ "$1" = laplace ] || [ "$1" = himeno ]; }
size_flag() { if [ "$1" = laplace ]; then echo "-DN=$2"; else echo "-DSIZE_$2"; fi; }
has_mpi() { [ $HAVE_MPI -eq 1 ] && [ -f "$SRC/mpi/${1}_mpi.c" ]; }

# exe_of BENCH SIZE gomp|dsm|plain|mpi: the executable of one build (plain:
# ompdsm's build of the source without its schedule clauses, --plain).
exe_of() {
    if compiled_size "$1"; then echo "$OUT/$1/$1.$3.$2"; else echo "$OUT/$1/$1.$3"; fi
}

# args_of BENCH SIZE: the command-line arguments of a run.
args_of() {
    if compiled_size "$1"; then
        echo "$ITER"
    elif is_nas "$1"; then
        echo "$2"
    else
        echo "$2 $ITER"
    fi
}

# build BENCH [SIZE]: SIZE for Laplace and Himeno only.
build() {
    mkdir -p "$OUT/$1"
    f=""
    [ $# -lt 2 ] || f=$(size_flag "$1" "$2")
    s=${2:-}
    # shellcheck disable=SC2086
    gcc -fopenmp -O2 $f "$(source_of "$1")" -o "$(exe_of "$1" "$s" gomp)" -lm &&
        "$BUILD/tools/ompdsm-cc" -O2 $f "$(source_of "$1")" -o "$(exe_of "$1" "$s" dsm)" -lm &&
        { ! has_mpi "$1" || mpicc -O2 $f "$SRC/mpi/${1}_mpi.c" -o "$(exe_of "$1" "$s" mpi)" -lm; } &&
        { [ $PLAIN -eq 0 ] || build_plain "$1" "$s" "$f"; }
}

# build_plain BENCH SIZE FLAGS: the --plain build, from a copy of the source
# next to the executable (its includes found in the source's directory).
build_plain() {
    plain=$(exe_of "$1" "$2" plain).c
    sed 's/ schedule(runtime)//' "$(source_of "$1")" >"$plain"
    # shellcheck disable=SC2086
    "$BUILD/tools/ompdsm-cc" -O2 $3 -I"$(dirname "$(source_of "$1")")" "$plain" -o "$(exe_of "$1" "$2" plain)" -lm
}

SKIPPED="" present=""
for b in $BENCHES; do
    if [ -f "$(source_of "$b")" ]; then
        present="$present${present:+ }$b"
    else
        echo "harness: $(source_of "$b" | sed "s|^$TOP/||") does not exist (yet): $b skipped" >&2
        SKIPPED="$SKIPPED${SKIPPED:+ }$b"
    fi
done
BENCHES=$present
[ -n "$BENCHES" ] || die "none of the benchmarks asked for exists yet ($SKIPPED)"

mkdir -p "$OUT"
: >"$LOG"
for b in $BENCHES; do
    if compiled_size "$b"; then
        for s in $(sizes_of "$b"); do
            build "$b" "$s" >>"$LOG" 2>&1 || { tail -n 20 "$LOG" >&2; die "building $b $s failed (see $LOG)"; }
        done
    else
        build "$b" >>"$LOG" 2>&1 || { tail -n 20 "$LOG" >&2; die "building $b failed (see $LOG)"; }
    fi
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
TPN_NOTE=""
[ "$TPN" -eq 1 ] || TPN_NOTE=" x $TPN threads"
[ "$TPN" -eq 1 ] ||
    MODE="$MODE; each ompdsm node runs $TPN OpenMP threads: where the tables say n, libgomp runs n x $TPN threads and MPI n x $TPN ranks"

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
    t=$(($2 * TPN))
    if [ "$BIND" = core ]; then
        OMP_PLACES=$(omp_places "$t") OMP_PROC_BIND=close OMP_NUM_THREADS=$t OMP_SCHEDULE=static \
            timeout --foreground "$TIMEOUT" "$1" $ARGS
    else
        OMP_NUM_THREADS=$t OMP_SCHEDULE=static timeout --foreground "$TIMEOUT" "$1" $ARGS
    fi
}

# shellcheck disable=SC2086
run_mpi() {
    # overload-allowed: more ranks than cores is what --oversubscribe asks for.
    exe=$1 bind=$BIND
    [ "$BIND" = none ] || bind=core:overload-allowed
    set -- mpirun --allow-run-as-root --oversubscribe --timeout "$TIMEOUT" --bind-to "$bind" -np $(($2 * TPN))
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
    exe=$1 sched=$3 dsm_env=""
    # The default configuration: no OMPDSM_* variable at all.
    [ "$4" = default ] || dsm_env="OMPDSM_HOME=$4 OMPDSM_MIGRATE=$5"
    # A profiled run learns a profile afresh; the saved run after it starts
    # from a copy.
    learned=$TMP/profile.$(basename "$exe").$2.$4.$5
    case $sched in
    profiled)
        rm -f "$learned"
        dsm_env="$dsm_env OMPDSM_PROFILE=$learned" ;;
    saved)
        cp "$learned" "$learned.saved" 2>/dev/null || rm -f "$learned.saved"
        sched=profiled dsm_env="$dsm_env OMPDSM_PROFILE=$learned.saved OMPDSM_STATS=1" ;;
    esac
    set -- "$BUILD/ompdsm-run" -np "$2" --threads-per-node "$TPN" --timeout "$TIMEOUT" --bind-to "$BIND"
    if [ $NETNS -eq 1 ]; then
        # UCX must start inside the namespace: setns in the process is not enough.
        env $dsm_env OMP_SCHEDULE=$sched UCX_TLS=tcp UCX_NET_DEVICES=eth0 \
            "$@" --bind "$NET.254" --exec-prefix "$PREFIX ip netns exec $NS%r" "$exe" $ARGS
    else
        [ -z "$PREFIX" ] || set -- "$@" --exec-prefix "$PREFIX"
        env $dsm_env OMP_SCHEDULE=$sched UCX_TLS=self,sm "$@" "$exe" $ARGS
    fi
}

# plan BENCH: the measurements of one benchmark and size, one per line,
# "IMPL N CONFIG"; CONFIG is the schedule for libgomp, - for MPI, and
# SCHED/HOME/MIGRATE for ompdsm, static/default/default for the defaults,
# plain/default/default for the --plain build with the defaults.
plan() {
    for n in $(echo "1 $NODES" | tr ' ' '\n' | sort -nu); do echo "libgomp $n static"; done
    if has_mpi "$1"; then
        for n in $NODES; do echo "mpi $n -"; done
    fi
    for n in $NODES; do echo "ompdsm $n static/default/default"; done
    if [ $PLAIN -eq 1 ]; then
        for n in $NODES; do echo "ompdsm $n plain/default/default"; done
    fi
    scheds=static
    [ $PROFILED -eq 0 ] || scheds="static profiled"
    [ $SAVED -eq 0 ] || scheds="static profiled saved"
    for sc in $scheds; do
        for h in $HOMES; do
            for m in $MIGRATE; do
                for n in $NODES; do echo "ompdsm $n $sc/$h/$m"; done
            done
        done
    done
}

plural() { [ "$1" -eq 1 ] || echo s; }
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

TOTAL=0
for b in $BENCHES; do
    TOTAL=$((TOTAL + REPS * $(plan "$b" | wc -l) * $(sizes_of "$b" | wc -w)))
done

# The raw results, one line per run (benchmarks/report.awk says more):
#   bench size impl n config rep time checksum verified iter
# time and checksum are FAIL FAILED for a failed run; verified is the NAS
# kernels' verdict, - for the others.
RAW=$TMP/raw
: >"$RAW"
# The saved profile's predictions, one line per loop and node of a saved
# run: bench size n rep node error-percent.
PRED=$TMP/predictions
: >"$PRED"
k=0
for b in $BENCHES; do
    key=checksum
    [ "$b" != himeno ] || key=gosa
    plan "$b" >"$TMP/plan"
    for s in $(sizes_of "$b"); do
        ARGS=$(args_of "$b" "$s")
        # Repetitions outermost: a slow spell of the machine then spreads
        # over every configuration instead of hitting one.
        rep=1
        while [ $rep -le "$REPS" ]; do
            while read -r impl n cfg; do
                k=$((k + 1))
                case $impl in
                libgomp) what="libgomp, $((n * TPN)) thread$(plural $((n * TPN)))" ;;
                mpi) what="MPI, $((n * TPN)) rank$(plural $((n * TPN)))" ;;
                ompdsm)
                    h=${cfg#*/} m=${cfg##*/}
                    h=${h%/*}
                    if [ "${cfg%%/*}" = plain ]; then
                        what="ompdsm defaults, no schedule clause, $n node$(plural "$n")$TPN_NOTE"
                    elif [ "$h" = default ]; then
                        what="ompdsm ${cfg%%/*} defaults, $n node$(plural "$n")$TPN_NOTE"
                    else
                        what="ompdsm ${cfg%%/*} home=$h migrate=$m, $n node$(plural "$n")$TPN_NOTE"
                    fi ;;
                esac
                what="$b $s: $what, rep $rep/$REPS"
                printf 'harness: [%d/%d] %s ... ' $k $TOTAL "$what" >&2
                echo "### $what" >>"$LOG"
                rc=0
                logged=$(wc -l <"$LOG")
                case $impl in
                libgomp) out=$(run_gomp "$(exe_of "$b" "$s" gomp)" "$n" </dev/null 2>>"$LOG") || rc=$? ;;
                mpi) out=$(run_mpi "$(exe_of "$b" "$s" mpi)" "$n" </dev/null 2>>"$LOG") || rc=$? ;;
                ompdsm)
                    exe=$(exe_of "$b" "$s" dsm) sched=${cfg%%/*}
                    [ "$sched" != plain ] || exe=$(exe_of "$b" "$s" plain) sched=static
                    out=$(run_dsm "$exe" "$n" "$sched" "$h" "$m" </dev/null 2>>"$LOG") || rc=$? ;;
                esac
                echo "$out" >>"$LOG"
                if [ "$impl" = ompdsm ] && [ "${cfg%%/*}" = saved ]; then
                    tail -n +$((logged + 1)) "$LOG" |
                        sed -n "s/.* node \([0-9]*\) on the saved profile's blocks: .*(error \([-+0-9.]*\)%)\$/\1 \2/p" |
                        while read -r node err; do echo "$b $s $n $rep $node $err"; done >>"$PRED"
                fi
                line=$(echo "$out" | grep "^$b " | tail -n 1)
                t=$(field "$line" time)
                c=$(field "$line" "$key")
                v=$(field "$line" verified)
                it=$(field "$line" iter)
                # A NAS kernel that did not verify exits 1 but has a time:
                # the report marks it, with its checksum.
                if [ $rc -eq 1 ] && [ "$v" = no ] && [ -n "$t" ] && [ -n "$c" ]; then
                    echo "$t s, NOT VERIFIED" >&2
                elif [ $rc -ne 0 ] || [ -z "$t" ] || [ -z "$c" ]; then
                    echo "FAILED (exit status $rc; see $LOG)" >&2
                    t=FAIL c=FAILED
                else
                    echo "$t s" >&2
                fi
                echo "$b $s $impl $n $cfg $rep $t $c ${v:--} ${it:--}" >>"$RAW"
            done <"$TMP/plan"
            rep=$((rep + 1))
        done
    done
done
WALL=$(($(date +%s) - STARTED))
[ -z "$HOG" ] || { kill "$HOG"; HOG=""; }

# ---- report ------------------------------------------------------------------

# Medians, verdicts, the CSV and the tables, from the raw file alone
# (benchmarks/report.awk); exits 1 if a run failed, did not verify or
# differed from libgomp's.
report() {
    rc=0
    awk -f "$SRC/report.awk" -v nodes="$NODES" -v migrate="$MIGRATE" -v homes="$HOMES" \
        -v csv="$CSV" -v mode="$MODE" -v ncpu="$NCPU" -v wall="$WALL" -v skipped="$SKIPPED" "$RAW" \
        >"$TMP/report" || rc=$?
    # With T threads per node, libgomp's reference runs T threads.
    if [ "$TPN" -eq 1 ]; then cat "$TMP/report"; else sed "s/libgomp 1 thread/libgomp $TPN threads/g" "$TMP/report"; fi
    return $rc
}

# plot: median time against node count, one panel per benchmark and size,
# one line per implementation and configuration, log-log; from the CSV
# (benchmarks/plot.awk).
plot() {
    awk -F, -v out="$PLOT" -v nodes="$NODES" -f "$SRC/plot.awk" "$CSV" >"$TMP/plot.gp" && gnuplot "$TMP/plot.gp"
}

# predictions: the saved profile's prediction errors (OMPDSM_STATS of the
# saved runs), per benchmark, size and node count: how many loop-and-node
# predictions, the median and the largest of their absolute errors.
predictions() {
    [ -s "$PRED" ] || return 0
    echo
    echo "### The saved profile's predictions: the time predicted for each node on a loop's blocks against the time measured"
    echo
    echo "| benchmark | nodes | predictions | median error | largest error |"
    echo "|---|---|---|---|---|"
    sort -k1,1 -k2,2 -k3,3n "$PRED" | awk '
        function flush() {
            if (n == 0) return
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (e[j] < e[i]) { x = e[i]; e[i] = e[j]; e[j] = x }
            med = n % 2 ? e[(n + 1) / 2] : (e[n / 2] + e[n / 2 + 1]) / 2
            printf "| %s %s | %s | %d | %.1f %% | %.1f %% |\n", b, s, nn, n, med, e[n]
            n = 0
        }
        { if ($1 != b || $2 != s || $3 != nn) { flush(); b = $1; s = $2; nn = $3 }
          v = $6 < 0 ? -$6 : $6; e[++n] = v }
        END { flush() }'
}

status=0
report || status=1
predictions
echo "CSV: $CSV" >&2
if ! command -v gnuplot >/dev/null; then
    echo "harness: gnuplot not installed, no plot (tools/install-deps.sh installs gnuplot-nox)" >&2
elif plot; then
    echo "Plot: $PLOT" >&2
else
    echo "harness: gnuplot failed, no plot" >&2
fi
exit $status
