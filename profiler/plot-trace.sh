#!/bin/sh
# plot-trace.sh TRACE.json OUT.svg [SITE]: draws, for one loop site of an
# OMPDSM_TRACE file, each node's time and block size per execution (two
# panels, one line per node) with gnuplot.  SITE is the site's offset as
# the trace names it (0x...); by default the site executed most often.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 TRACE.json OUT.svg [SITE]" >&2
    exit 2
fi
trace=$1 out=$2 site=${3:-}
command -v gnuplot >/dev/null || { echo "plot-trace: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One line per loop event: site node dur_ms iterations (the trace writes one
# event per line).
sed -n 's/.*"cat":"loop".*"dur":\([0-9.]*\),"pid":\([0-9]*\),.*"site":"\(0x[0-9a-f]*\)".*"iterations":\([0-9]*\).*/\3 \2 \1 \4/p' \
    "$trace" >"$tmp/loops"
[ -s "$tmp/loops" ] || { echo "plot-trace: no loop events in $trace" >&2; exit 1; }
[ -n "$site" ] || site=$(awk '{ n[$1]++ } END { for (s in n) if (n[s] > best) { best = n[s]; b = s }; print b }' "$tmp/loops")
nodes=$(awk -v s="$site" '$1 == s { print $2 }' "$tmp/loops" | sort -n | uniq)
[ -n "$nodes" ] || { echo "plot-trace: no events of site $site" >&2; exit 1; }
plots_t="" plots_b=""
for n in $nodes; do
    awk -v s="$site" -v n="$n" '$1 == s && $2 == n { k++; printf "%d %.3f %s\n", k, $3 / 1000, $4 }' \
        "$tmp/loops" >"$tmp/node$n"
    plots_t="$plots_t${plots_t:+, }'$tmp/node$n' using 1:2 with linespoints title 'node $n'"
    plots_b="$plots_b${plots_b:+, }'$tmp/node$n' using 1:3 with linespoints title 'node $n'"
done
gnuplot <<GP
set terminal svg size 900,640 dynamic
set output '$out'
set multiplot layout 2,1 title "loop site $site"
set xlabel 'execution'
set ylabel 'time (ms)'
set key outside right
plot $plots_t
set ylabel 'block (iterations)'
plot $plots_b
unset multiplot
GP
echo "plot-trace: $out (site $site, nodes $(echo $nodes | tr '\n' ' '))"
