#!/bin/sh
# balance-bound.sh TRACE.json: how much faster the run of an OMPDSM_TRACE
# file could have been with perfectly balanced loop blocks and nothing
# else changed.
#
# It looks at the loops run more than once (a run's initialisation loop,
# run once, is left out) from the first one's start to the last one's end
# (the span), and at each node's time in them and iterations done, which
# give the node's time per iteration over all those loops together.  A
# perfect split of the same iterations in proportion to those speeds would
# keep every node busy for the same time; the rest of the span (the span
# minus the busiest node's loop time: barriers, coherence, migrations)
# is taken to stay as it was.  The bound is span / (perfect split + rest).
# Run it on a static run's trace to see what a profiled schedule could gain
# at most; on a profiled run's trace, to see how far its blocks were from
# the balance.  The bound assumes a node's time per iteration does not
# depend on its block, and that moving iterations costs nothing.
set -eu
if [ $# -ne 1 ]; then
    echo "usage: $0 TRACE.json" >&2
    exit 2
fi
[ -r "$1" ] || { echo "balance-bound: cannot read $1" >&2; exit 1; }
awk '
    function num(key,    s) {
        if (!match($0, "\"" key "\":[0-9.]+"))
            return -1
        s = substr($0, RSTART, RLENGTH)
        sub(/.*:/, "", s)
        return s + 0
    }
    /"cat":"loop"/ {
        match($0, /"site":"0x[0-9a-f]+"/)
        site = substr($0, RSTART + 8, RLENGTH - 9)
        n++
        s[n] = site; p[n] = num("pid"); t[n] = num("ts"); d[n] = num("dur"); it[n] = num("iterations")
        if (p[n] < 0 || t[n] < 0 || d[n] < 0 || it[n] < 0) { bad = 1; exit }
        runs[site, p[n]]++
    }
    END {
        if (bad) { print "balance-bound: malformed loop event: " $0 > "/dev/stderr"; exit 1 }
        for (i = 1; i <= n; i++) {
            if (runs[s[i], p[i]] < 2)
                continue
            if (!seen++ || t[i] < lo) lo = t[i]
            if (t[i] + d[i] > hi) hi = t[i] + d[i]
            busy[p[i]] += d[i]; iters[p[i]] += it[i]; nodes[p[i]] = 1
            if (p[i] > last) last = p[i]
            total += it[i]
        }
        if (!seen) { print "balance-bound: no loop ran more than once in this trace" > "/dev/stderr"; exit 1 }
        span = (hi - lo) / 1000
        printf "loops run more than once: %.3f ms from the first start to the last end\n", span
        for (q = 0; q <= last; q++) {
            if (!(q in nodes))
                continue
            b = busy[q] / 1000
            if (b > most) most = b
            if (iters[q] > 0) {
                per = b / iters[q]; rate += 1 / per
                printf "  node %d: %.3f ms in its loops, %d iterations, %.3f us per iteration\n", q, b, iters[q], per * 1000
            } else {
                printf "  node %d: %.3f ms in its loops, no iterations\n", q, b
            }
        }
        if (rate <= 0) { print "balance-bound: no node did any iteration" > "/dev/stderr"; exit 1 }
        even = total / rate; rest = span - most
        printf "perfect split: %.3f ms; the rest (span minus the busiest node'"'"'s loops): %.3f ms\n", even, rest
        printf "bound: %.2f (span / (perfect split + rest))\n", span / (even + rest)
    }' "$1"
