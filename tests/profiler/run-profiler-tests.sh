#!/bin/sh
# run-profiler-tests.sh BUILD_DIR: the trace file and the scripts that read it.
#
#   trace          a 2-node run of tests/sched/profiled_blocks under
#                  OMP_SCHEDULE=profiled with OMPDSM_TRACE: the checksum is
#                  libgomp's, the file is one JSON object with one event
#                  per line, names both nodes, has every execution of the
#                  schedule(runtime) loop on each node, and in each
#                  execution the nodes' blocks tile the iteration space in
#                  node order; each node has barrier events;
#   plot-trace     profiler/plot-trace.sh draws that trace (an SVG);
#   balance-bound  profiler/balance-bound.sh on that trace gives a bound of
#                  at least 1, and on a trace written here by hand exactly
#                  the figures worked out by hand.
# Prints PASS/FAIL/SKIP lines.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/lib.sh"
build_dir "$@"
OUT=$BUILD/tests/profiler
LOG=$BUILD/tests/logs
mkdir -p "$OUT" "$LOG"
export UCX_TLS=self,sm
failed=0
EXECS=12 ITERS=400

build_both "$SRC/tests/sched/profiled_blocks.c" "$OUT/profiled_blocks" || {
    echo "FAIL profiler: cannot build tests/sched/profiled_blocks.c"
    exit 1
}
want=$(OMP_NUM_THREADS=2 "$OUT/profiled_blocks.gomp" $EXECS $ITERS | grep '^checksum')

# ---- the trace of a real run ---------------------------------------------------
trace=$OUT/trace.json
log=$LOG/profiler.trace.log
rm -f "$trace"
OMP_SCHEDULE=profiled OMPDSM_TRACE=$trace "$BUILD/ompdsm-run" -np 2 "$OUT/profiled_blocks.dsm" $EXECS $ITERS >"$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
    echo "the run failed (exit status $rc)" >>"$log"
elif [ "$(grep '^checksum' "$log")" != "$want" ]; then
    echo "checksum differs from libgomp's: $want" >>"$log"
    rc=1
elif [ ! -s "$trace" ]; then
    echo "no trace file written" >>"$log"
    rc=1
else
    awk -v execs=$EXECS -v iters=$ITERS '
        NR == 1 { if ($0 != "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[") bad = "first line: " $0; next }
        $0 == "]}" { closed = NR; next }
        closed { bad = "text after the closing line" }
        !/^\{"name":"[^"]*",.*\},?$/ { bad = "not one event per line: " $0 }
        /"name":"process_name"/ && /"args":\{"name":"node 0"\}/ { named0 = 1 }
        /"name":"process_name"/ && /"args":\{"name":"node 1"\}/ { named1 = 1 }
        /"cat":"sync"/ && /"name":"barrier"/ { if (/"pid":0,/) bar0++; if (/"pid":1,/) bar1++ }
        /"cat":"loop"/ && /"schedule":"profiled"/ {
            node = /"pid":0,/ ? 0 : /"pid":1,/ ? 1 : -1
            if (node < 0) { bad = "a loop event of no node: " $0; next }
            k = ++count[node]
            f = $0; sub(/.*"first":/, "", f); sub(/,.*/, "", f)
            n = $0; sub(/.*"iterations":/, "", n); sub(/\}.*/, "", n)
            first[node, k] = f + 0; size[node, k] = n + 0
        }
        END {
            if (!closed) bad = bad ? bad : "the file does not end with ]}"
            if (!named0 || !named1) bad = bad ? bad : "a node is not named"
            if (count[0] != execs || count[1] != execs)
                bad = bad ? bad : sprintf("profiled loop events: %d and %d, want %d each", count[0], count[1], execs)
            for (k = 1; k <= execs && !bad; k++)
                if (first[0, k] != 0 || first[1, k] != size[0, k] || size[0, k] + size[1, k] != iters)
                    bad = sprintf("execution %d: blocks [%d,+%d) [%d,+%d) do not tile %d iterations",
                                  k, first[0, k], size[0, k], first[1, k], size[1, k], iters)
            if (!bad && (bar0 < execs || bar1 < execs))
                bad = sprintf("barrier events: %d and %d, want at least %d each", bar0, bar1, execs)
            if (bad) { print bad; exit 1 }
            printf "%d events checked\n", NR - 2
        }' "$trace" >>"$log" 2>&1
    rc=$?
fi
verdict "profiler: trace of a 2-node profiled run" $rc "$log"
traced=$rc

# ---- plot-trace.sh --------------------------------------------------------------
log=$LOG/profiler.plot.log
if ! command -v gnuplot >/dev/null; then
    echo "SKIP profiler: plot-trace draws a trace"
    echo "    not run: gnuplot is not installed (tools/install-deps.sh installs it)"
elif [ $traced -ne 0 ]; then
    echo "the trace test failed: nothing to draw" >"$log"
    verdict "profiler: plot-trace draws a trace" 1 "$log"
else
    rm -f "$OUT/trace.svg"
    sh "$SRC/profiler/plot-trace.sh" "$trace" "$OUT/trace.svg" >"$log" 2>&1 &&
        grep -q "<svg" "$OUT/trace.svg" 2>>"$log"
    verdict "profiler: plot-trace draws a trace" $? "$log"
fi

# ---- balance-bound.sh -----------------------------------------------------------
# By hand: node 0 runs its 100 iterations in 10 ms, node 1 in 20 ms, twice,
# 25 ms apart (the span is 45 ms); a run-once loop comes first.  Per
# iteration 0.1 and 0.2 ms: a perfect split of the 400 iterations takes
# 400 / (10 + 5) = 26.667 ms, the rest is 45 - 40 = 5 ms, the bound
# 45 / 31.667 = 1.42.
log=$LOG/profiler.bound.log
hand=$OUT/by-hand.json
ev() {   # ev SITE PID TS DUR FIRST ITERATIONS
    printf '{"name":"loop %s","cat":"loop","ph":"X","ts":%s,"dur":%s,"pid":%s,"tid":0,"args":{"site":"%s","schedule":"static","first":%s,"iterations":%s}},\n' \
        "$1" "$3" "$4" "$2" "$1" "$5" "$6"
}
{
    echo '{"displayTimeUnit":"ms","traceEvents":['
    ev 0x10 0 0.000 5000.000 0 8
    ev 0x20 0 6000.000 10000.000 0 100
    ev 0x20 1 6000.000 20000.000 100 100
    ev 0x20 0 31000.000 10000.000 0 100
    ev 0x20 1 31000.000 20000.000 100 100
    echo '{"name":"process_name","ph":"M","pid":0,"args":{"name":"node 0"}}'
    echo ']}'
} >"$hand"
sh "$SRC/profiler/balance-bound.sh" "$hand" >"$log" 2>&1 &&
    grep -q "^  node 0: 20.000 ms in its loops, 200 iterations, 100.000 us per iteration$" "$log" &&
    grep -q "^  node 1: 40.000 ms in its loops, 200 iterations, 200.000 us per iteration$" "$log" &&
    grep -q "^perfect split: 26.667 ms; .*: 5.000 ms$" "$log" &&
    grep -q "^bound: 1.42 " "$log"
verdict "profiler: balance-bound on a trace worked out by hand" $? "$log"

log=$LOG/profiler.bound-run.log
if [ $traced -ne 0 ]; then
    echo "the trace test failed: nothing to read" >"$log"
    rc=1
else
    sh "$SRC/profiler/balance-bound.sh" "$trace" >"$log" 2>&1 &&
        awk '/^bound: / { b = $2 } END { exit !(b >= 1) }' "$log"
    rc=$?
fi
verdict "profiler: balance-bound on the trace of a real run" $rc "$log"
exit $failed
