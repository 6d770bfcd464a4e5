#!/bin/sh
# run.sh: the DSM micro-benchmark.  Prints, in one run and for both UCX
# transport families, the raw UCX 4 KiB get latency next to the DSM's fault
# and barrier latencies, and the ratio the design targets:
#     remote read fault / (raw get + local fault)  <= 1.5
# with the raw get measured against a sleeping target, as a fault meets it.
#   benchmarks/micro/run.sh [BUILD_DIR]
set -eu
BUILD=$(cd "${1:-.}" && pwd)
RUN="$BUILD/ompdsm-run"
B="$BUILD/benchmarks/micro"

ucx_env() {
    case $1 in
    shm) echo "UCX_TLS=self,sm" ;;
    tcp) echo "UCX_TLS=self,tcp UCX_NET_DEVICES=lo OMPDSM_HOST_SEGMENT=off" ;;
    esac
}

val() { echo "$1" | awk -v k="$2" '$1 == k { print $2 }'; }

echo "ompdsm micro-benchmark: $(nproc) cores, $(uname -sr), page $(getconf PAGESIZE) bytes"
echo
printf '| %-4s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s |\n' tls "get b2b" "get iso" \
    "local" "1st rd" "ratio" "re-rd" "ratio" "wr RO" "wr inv" "bar 2" "bar 4"
printf '|%s|\n' "------|----------|----------|----------|----------|----------|----------|----------|----------|----------|----------|----------"
for tls in shm tcp; do
    # shellcheck disable=SC2046
    raw=$(env $(ucx_env $tls) "$RUN" -np 2 --threads-per-node 1 "$B/ucx_get")
    # shellcheck disable=SC2046
    two=$(env $(ucx_env $tls) "$RUN" -np 2 --threads-per-node 1 "$B/dsm_micro")
    # shellcheck disable=SC2046
    four=$(env $(ucx_env $tls) "$RUN" -np 4 --threads-per-node 1 "$B/dsm_micro")
    iso=$(val "$raw" raw_get_4k_isolated_us)
    loc=$(val "$two" local_fault_us)
    first=$(val "$two" remote_read_fault_us)
    again=$(val "$two" refetch_fault_us)
    ratio() { awk -v r="$1" -v g="$iso" -v l="$loc" 'BEGIN { printf "%.2f", r / (g + l) }'; }
    printf '| %-4s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s | %8s |\n' "$tls" \
        "$(val "$raw" raw_get_4k_us)" "$iso" "$loc" "$first" "$(ratio "$first")" "$again" "$(ratio "$again")" \
        "$(val "$two" write_fault_ro_us)" "$(val "$two" write_fault_inv_us)" \
        "$(val "$two" barrier_us)" "$(val "$four" barrier_us)"
done
echo
echo "Microseconds per operation, 2 nodes unless marked.  get b2b: ucp_get of 4 KiB back to back;"
echo "get iso: the same, 100 us apart (the target's progress thread asleep, as at a page fault);"
echo "local: first touch of a page this node is home of (SIGSEGV + mprotect); 1st rd: first read"
echo "of a page homed at the other node; re-rd: read after the home wrote it and a barrier"
echo "invalidated the copy (the steady state); ratio = read / (get iso + local), target <= 1.5;"
echo "wr RO: write to a read-only copy (twin); wr inv: write to a page not held (fetch + twin);"
echo "bar 2/4: empty barrier at 2 and 4 nodes."

# The flush hand-off: threads pass a token through a plain variable and
# `#pragma omp flush` (flush_handoff.c), libgomp's threads against ompdsm's
# nodes, 10,000 hand-offs.
SRC=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -fopenmp "$SRC/flush_handoff.c" -o "$tmp/handoff.gomp"
"$BUILD/tools/ompdsm-cc" -O2 "$SRC/flush_handoff.c" -o "$tmp/handoff.dsm"
us() { awk '{ for (i = 1; i < NF; i++) if ($i == "hand-off") print $(i + 1) }'; }
echo
printf '| %-24s | %8s | %8s | %8s |\n' "flush hand-off (us)" "2" "3" "4"
printf '|%s|\n' "--------------------------|----------|----------|----------"
row="| $(printf '%-24s' "libgomp threads")"
for n in 2 3 4; do row="$row | $(printf '%8s' "$(OMP_NUM_THREADS=$n "$tmp/handoff.gomp" | us)")"; done
echo "$row |"
for tls in shm tcp; do
    row="| $(printf '%-24s' "ompdsm nodes, $tls")"
    for n in 2 3 4; do
        # shellcheck disable=SC2046
        row="$row | $(printf '%8s' "$(env $(ucx_env $tls) "$RUN" -np $n --threads-per-node 1 "$tmp/handoff.dsm" | us)")"
    done
    echo "$row |"
done
echo
echo "Microseconds per hand-off of a token passed round the threads (nodes) through a plain"
echo "shared variable and #pragma omp flush; $(nproc) cores, so more than $(nproc) spinning threads"
echo "share them."

# The OpenMP barrier as a program pays it (omp_barrier.c: `#pragma omp
# barrier` in a loop, and an empty-bodied `#pragma omp parallel for`), back
# to back with MPI_Barrier on as many processes (mpi_barrier.c, Open MPI).
gcc -O2 -fopenmp "$SRC/omp_barrier.c" -o "$tmp/barrier.gomp"
"$BUILD/tools/ompdsm-cc" -O2 "$SRC/omp_barrier.c" -o "$tmp/barrier.dsm"
have_mpi=false
if command -v mpicc >/dev/null && mpicc -O2 "$SRC/mpi_barrier.c" -o "$tmp/barrier.mpi" 2>/dev/null; then
    have_mpi=true
fi
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
echo
printf '| %-24s | %10s | %10s | %14s | %14s |\n' "barrier (us)" "bar 2" "bar 4" "par-for 2" "par-for 4"
printf '|%s|\n' "--------------------------|------------|------------|----------------|----------------"
row() {   # row LABEL COMMAND-PREFIX-FOR-N (N substituted for @)
    label=$1
    shift
    line="| $(printf '%-24s' "$label")"
    b="" p=""
    for n in 2 4; do
        out=$(eval "$(echo "$*" | sed "s/@/$n/g")")
        b="$b | $(printf '%10s' "$(echo "$out" | field barrier_us)")"
        p="$p | $(printf '%14s' "$(echo "$out" | field parallel_for_us)")"
    done
    echo "$line$b$p |"
}
row "libgomp threads" 'OMP_NUM_THREADS=@ OMP_PROC_BIND=close OMP_PLACES=cores "$tmp/barrier.gomp"'
for tls in shm tcp; do
    row "ompdsm nodes, $tls" 'env $(ucx_env '"$tls"') "$RUN" --bind-to core --threads-per-node 1 -np @ "$tmp/barrier.dsm"'
done
if $have_mpi; then
    row "MPI_Barrier, Open MPI" 'mpirun --allow-run-as-root --oversubscribe -np @ "$tmp/barrier.mpi"'
fi
echo
echo "Microseconds per #pragma omp barrier (bar) and per #pragma omp parallel for over 4096"
echo "elements, each thread writing pages of its own (par-for: a region start and end), at 2"
echo "and 4 threads, nodes or ranks; MPI_Barrier on as many Open MPI ranks, shared memory."
echo "Each bound to a CPU, as mpirun binds its ranks (ompdsm-run --bind-to core, OMP_PROC_BIND);"
echo "the tcp rows run without the host segment (OMPDSM_HOST_SEGMENT=off), as across hosts."

# Fault throughput of a node's threads (fault_threads.c): the last of 2
# nodes writes pages homed at node 0, each write a write miss (fetch and
# twin), or, read first, a write upgrade (twin and protection change), with
# 1 and 2 OpenMP threads per node.
"$BUILD/tools/ompdsm-cc" -O2 "$SRC/fault_threads.c" -o "$tmp/fault_threads.dsm"
echo
printf '| %-24s | %14s | %14s | %8s |\n' "writes per second" "1 thread" "2 threads" "ratio"
printf '|%s|\n' "--------------------------|----------------|----------------|----------"
for mode in miss upgrade; do
    for tls in shm tcp; do
        rate() {
            # shellcheck disable=SC2046
            env $(ucx_env $tls) OMPDSM_MIGRATE=off OMPDSM_READAHEAD=0 "$RUN" -np 2 --threads-per-node "$1" \
                "$tmp/fault_threads.dsm" $mode | field writes_per_s
        }
        one=$(rate 1)
        two=$(rate 2)
        printf '| %-24s | %14s | %14s | %8s |\n' "$mode, 2 nodes, $tls" "$one" "$two" \
            "$(awk -v a="$one" -v b="$two" 'BEGIN { printf "%.2f", b / a }')"
    done
done
echo
echo "Writes per second by the threads of one node to disjoint blocks of pages homed at the other"
echo "node (no read-ahead, no migration), with 1 and 2 OpenMP threads per node: miss, pages not"
echo "held (a fetch and a twin each); upgrade, pages read just before (a twin and a protection"
echo "change each, or none when write-ahead made them writable with an earlier one)."

# What atomics cost by memory order, a spin lock made of atomics against an
# omp lock, and stdio on a shared array (atomics_io.c), libgomp's threads
# against ompdsm's nodes.
gcc -O2 -fopenmp "$SRC/atomics_io.c" -o "$tmp/atomics_io.gomp"
"$BUILD/tools/ompdsm-cc" -O2 "$SRC/atomics_io.c" -o "$tmp/atomics_io.dsm"
keys="relaxed_add_us seq_cst_add_us spin_lock_us omp_lock_us fwrite_mb_s fread_mb_s"
echo
printf '| %-24s | %9s | %9s | %9s | %9s | %9s | %9s |\n' "atomics and stdio" "relaxed" "seq_cst" "spin lk" \
    "omp lock" "fwrite" "fread"
printf '|%s|\n' "--------------------------|-----------|-----------|-----------|-----------|-----------|-----------"
io_row() {   # io_row LABEL OUTPUT
    line="| $(printf '%-24s' "$1")"
    for k in $keys; do line="$line | $(printf '%9s' "$(echo "$2" | field "$k")")"; done
    echo "$line |"
}
io_row "libgomp, 2 threads" "$(OMP_NUM_THREADS=2 "$tmp/atomics_io.gomp")"
for tls in shm tcp; do
    # shellcheck disable=SC2046
    io_row "ompdsm 2 nodes, $tls" "$(env $(ucx_env $tls) "$RUN" -np 2 --threads-per-node 1 "$tmp/atomics_io.dsm")"
done
echo
echo "Microseconds per operation of one thread, 2 threads or nodes: relaxed, #pragma omp atomic;"
echo "seq_cst, C11's atomic_fetch_add (a flush before and after it across nodes); spin lk, an"
echo "acquire of a lock made of __sync_lock_test_and_set, a guarded addition and the release;"
echo "omp lock, the same with omp_set_lock.  fwrite, fread: MB/s of the master writing a 64 MB"
echo "array that a parallel loop filled to a temporary file, and reading it back."
