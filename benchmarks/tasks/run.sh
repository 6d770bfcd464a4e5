#!/bin/sh
# run.sh: the task benchmarks (tasks.c) with libgomp threads and ompdsm
# nodes side by side, in one run: recursive fib with a cut-off and a flat
# loop of uneven tasks, at 1, 2 and 4 threads/nodes, medians of REPS runs.
#   benchmarks/tasks/run.sh [BUILD_DIR] [REPS]
set -eu
BUILD=$(cd "${1:-build}" && pwd)
REPS=${2:-3}
SRC=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O2 -fopenmp "$SRC/tasks.c" -o "$tmp/tasks.gomp"
"$BUILD/tools/ompdsm-cc" -O2 "$SRC/tasks.c" -o "$tmp/tasks.dsm"
export UCX_TLS=self,sm

# median COMMAND...: the median time of REPS runs; "WRONG" if a result was.
median() {
    i=0
    while [ $i -lt "$REPS" ]; do
        out=$("$@")
        case $out in *" ok") ;; *) echo WRONG; return ;; esac
        echo "$out" | awk '{ print $4 }'
        i=$((i + 1))
    done | sort -n | awk '{ v[NR] = $1 } END { print (v[1] == "WRONG") ? "WRONG" : v[int((NR + 1) / 2)] }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

echo "Task benchmarks: $(nproc) cores, medians of $REPS runs, seconds"
echo
printf '| %-12s | %5s | %9s | %9s | %14s | %14s |\n' kernel n libgomp ompdsm "ompdsm/libgomp" "ompdsm speedup"
printf '|%s|\n' "--------------|-------|-----------|-----------|----------------|----------------"
for kernel in "fib 42 28" "flat 200"; do
    one=""
    for n in 1 2 4; do
        # shellcheck disable=SC2086
        g=$(OMP_NUM_THREADS=$n median "$tmp/tasks.gomp" $kernel)
        # shellcheck disable=SC2086
        d=$(median "$BUILD/ompdsm-run" -np $n --threads-per-node 1 "$tmp/tasks.dsm" $kernel)
        [ $n = 1 ] && one=$d
        printf '| %-12s | %5s | %9s | %9s | %14s | %14s |\n' "$kernel" "$n" "$g" "$d" "$(ratio "$d" "$g")" \
            "$(ratio "$one" "$d")"
    done
done
echo
echo "n: libgomp threads / ompdsm nodes (one thread each) on this machine; ompdsm speedup: the"
echo "1-node time over the n-node time.  fib N CUT: recursive tasks, taskwait, sequential below"
echo "CUT; flat N: N uneven tasks made in a single region."
