#!/bin/sh
# run-harness-tests.sh BUILD_DIR: the benchmark harness's report and
# command line, and the saved profile's predictions of a short real run.
#
#   report         benchmarks/report.awk on report.raw, a raw file written
#                  by hand (Laplace with MPI and 3 repetitions, NAS CG class
#                  S, ADI 16; the defaults and 2 home policies x 2 migration
#                  modes at 1 and 2 nodes) gives exactly the figures worked
#                  out by hand: medians, each kind of ratio, the best
#                  configuration (a faster run that did not verify, or whose
#                  checksum differs, is not the best), the summary of the
#                  defaults with its geometric means, the per-configuration
#                  geometric means (marked * when a benchmark lacks the
#                  figure), the FAIL and BAD marks (a NAS kernel that says
#                  verified=no; a NAS checksum off by 2e-6 but not one off by
#                  1e-7; an ADI checksum off by 1e-8 but not one off by
#                  1e-10), the --plain build's row (never the best, though
#                  the fastest) and its own summary table, the CSV, the
#                  messages on stderr and exit status 1;
#                  on the Laplace lines alone, "all equal" and status 0;
#   plot           benchmarks/plot.awk on the CSV the report wrote: one
#                  panel per benchmark and size in a 1x3 layout, one series
#                  per implementation and configuration, the medians as
#                  points, a failed run left out; gnuplot, when installed,
#                  draws it to an SVG naming each panel;
#   command line   bad options stop the harness with status 2 and a message
#                  before anything is built; a benchmark whose source does
#                  not exist is skipped with a note;
#   predictions    a real run of the textbook Jacobi 512 at 2 nodes with
#                  --saved: the table of the saved profile's predictions
#                  counts every prediction the saved runs printed
#                  (OMPDSM_STATS) and gives the largest of their errors.
# Prints PASS/FAIL lines; the report is also checked with every other awk
# installed (mawk, gawk, nawk), as the harness runs whichever is "awk".
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/lib.sh"
build_dir "$@"
OUT=$BUILD/tests/harness
mkdir -p "$OUT"
RAW=$SRC/tests/harness/report.raw
failed=0

# section TITLE FILE: the lines of the report's section "### TITLE..." (up
# to the next section).
section() {
    awk -v t="### $1" 'index($0, t) == 1 { on = 1; print; next } /^### / { on = 0 } on' "$2"
}

# cells TITLE LABEL FILE: the cells of the table line LABEL in section
# TITLE, separated by "|" (the cells trimmed).
cells() {
    section "$1" "$3" | awk -F'|' -v l="$2" '
        { x = $2; gsub(/^ +| +$/, "", x) }
        x == l { s = ""; for (i = 3; i < NF; i++) { c = $i; gsub(/^ +| +$/, "", c); s = s (i > 3 ? "|" : "") c }; print s; exit }'
}

# expect WHAT GOT WANT: one comparison, written to the log when it fails.
expect() {
    if [ "$2" != "$3" ]; then
        echo "$1: got '$2', want '$3'" >>"$log"
        ok=1
    fi
}

check_report() {     # check_report AWK
    out=$OUT/report.$1.md err=$OUT/report.$1.err csv=$OUT/report.$1.csv
    "$1" -f "$SRC/benchmarks/report.awk" -v nodes="1 2" -v migrate="off first" -v homes="cyclic block" \
        -v csv="$csv" -v skipped="ep mg" "$RAW" >"$out" 2>"$err"
    rc=$?
    log=$OUT/report.$1.log
    : >"$log"
    ok=0
    expect "exit status" "$rc" 1
    L="Laplace 1024x1024" C="NAS CG class S" A="ADI 16^3"
    expect "laplace heading" "$(section "$L" "$out" | head -n 1)" "### $L, 100 iterations, median of 3 runs"
    expect "cg heading" "$(section "$C" "$out" | head -n 1)" "### $C, 15 iterations, median of 1 run"
    expect "adi heading" "$(section "$A" "$out" | head -n 1)" "### $A, 20 steps, median of 1 run"
    # medians of 1.0 1.2 0.9 and 0.5 0.6 0.4
    expect "laplace libgomp" "$(cells "$L" "libgomp (threads)" "$out")" "1.000|0.500"
    expect "laplace default" "$(cells "$L" "**default**: ompdsm static, no OMPDSM_* set" "$out")" "1.100|0.880"
    expect "laplace vs libgomp 1" "$(cells "$L" "MPI (ranks) vs libgomp 1 thread" "$out")" "1.11|2.22"
    expect "laplace vs same count" "$(cells "$L" "ompdsm static, home=block, migrate=first vs libgomp, same count" "$out")" "0.83|1.25"
    expect "laplace vs MPI" "$(cells "$L" "**default** vs MPI" "$out")" "0.82|0.51"
    expect "laplace vs 1 node" "$(cells "$L" "**default** vs ompdsm 1 node" "$out")" "1.00|1.25"
    expect "laplace vs best" "$(cells "$L" "ompdsm static, home=cyclic, migrate=off vs best configuration" "$out")" "0.91|0.18"
    expect "laplace migration gain" "$(cells "$L" "migration gain: ompdsm static, home=block, migrate=first vs off" "$out")" "1.00|1.50"
    expect "laplace best" "$(section "$L" "$out" | grep '^Best')" \
        "Best configuration (nodes: configuration): 1: ompdsm static, home=cyclic, migrate=first; 2: ompdsm static, home=block, migrate=first."
    # cg: libgomp 2 threads is 1e-7 off (equal), cyclic/first did not verify, block/first is 2e-6 off
    expect "cg libgomp" "$(cells "$C" "libgomp (threads)" "$out")" "2.000|1.000"
    expect "cg unverified" "$(cells "$C" "ompdsm static, home=cyclic, migrate=first" "$out")" "2.000|1.600 BAD"
    expect "cg differs" "$(cells "$C" "ompdsm static, home=block, migrate=first" "$out")" "2.000|2.500 BAD"
    expect "cg no MPI" "$(section "$C" "$out" | grep -c 'MPI')" 0
    expect "cg default vs best" "$(cells "$C" "**default** vs best configuration" "$out")" "1.00|0.50"
    expect "cg best" "$(section "$C" "$out" | grep '^Best')" \
        "Best configuration (nodes: configuration): 1: **default**; 2: ompdsm static, home=block, migrate=off."
    # adi: a failed run, a checksum 1e-8 off (different), one 1e-10 off (equal)
    expect "adi failed" "$(cells "$A" "ompdsm static, home=cyclic, migrate=off" "$out")" "FAIL|0.250"
    expect "adi differs" "$(cells "$A" "ompdsm static, home=cyclic, migrate=first" "$out")" "0.100|0.125 BAD"
    expect "adi equal" "$(cells "$A" "ompdsm static, home=block, migrate=first" "$out")" "0.100|0.080"
    # adi: the --plain build with the defaults, the fastest at 2 nodes but another program
    expect "adi plain" "$(cells "$A" "**default**: ompdsm, no schedule clause, no OMPDSM_* set" "$out")" "0.100|0.050"
    expect "adi plain vs best" "$(cells "$A" "**default**, no schedule clause vs best configuration" "$out")" "1.00|1.60"
    expect "adi best" "$(section "$A" "$out" | grep '^Best')" \
        "Best configuration (nodes: configuration): 1: **default**; 2: ompdsm static, home=block, migrate=first."
    expect "adi no 1-node ratio of a failed run" \
        "$(cells "$A" "ompdsm static, home=cyclic, migrate=off vs ompdsm 1 node" "$out")" ""
    # the summaries
    D="The suite with the defaults"
    expect "defaults header" "$(section "$D" "$out" | sed -n 3p | tr -s ' ')" \
        "| benchmark: default configuration vs ... | 2 vs 1 node | 1 vs libgomp | 2 vs libgomp | 1 vs best | 2 vs best |"
    expect "defaults cg" "$(cells "$D" "$C" "$out")" "0.50|1.00|0.25|1.00|0.50"
    expect "defaults geometric mean" "$(cells "$D" "geometric mean over 3 benchmarks" "$out")" \
        "0.68|0.97|0.33|0.97|0.45"
    P="The suite with the defaults (no OMPDSM_* set), loops without a schedule clause"
    expect "plain defaults adi" "$(cells "$P" "$A" "$out")" "2.00|1.00|1.00|1.00|1.60"
    expect "plain defaults, no other benchmark" "$(cells "$P" "$C" "$out")" ""
    expect "plain defaults geometric mean" "$(cells "$P" "geometric mean over 3 benchmarks" "$out")" \
        "2.00*|1.00*|1.00*|1.00*|1.60*"
    E="Every configuration"
    expect "geomean with a missing figure" \
        "$(cells "$E" "ompdsm static, home=cyclic, migrate=off vs ompdsm 1 node" "$out")" "1.00*|0.35*"
    expect "geomean without bad runs" \
        "$(cells "$E" "ompdsm static, home=cyclic, migrate=first vs ompdsm 1 node" "$out")" "1.00|2.00*"
    expect "geomean of the defaults vs best" "$(cells "$E" "**default** vs best configuration" "$out")" "0.97|0.45"
    expect "not run" "$(grep '^Not run' "$out")" "Not run (no source in benchmarks/ yet): ep, mg."
    expect "verdict" "$(grep -c 'FAILED, UNVERIFIED OR DIFFERENT in 4 measurement' "$out")" 1
    # stderr
    expect "stderr lines" "$(grep -c '^harness: ' "$err")" 4
    expect "stderr unverified" "$(grep -c '^harness: cg S, ompdsm static, home=cyclic, migrate=first, 2: NOT VERIFIED' "$err")" 1
    expect "stderr failed" "$(grep -c '^harness: adi 16, ompdsm static, home=cyclic, migrate=off, 1: FAILED' "$err")" 1
    # the CSV
    expect "csv rows" "$(wc -l <"$csv" | tr -d ' ')" 41
    expect "csv plain" "$(grep '^adi,16,ompdsm,2,plain/' "$csv")" \
        "adi,16,ompdsm,2,plain/default,0.0500,0.0500,0.0500,3.974730676643e+02,"
    expect "csv header" "$(head -n 1 "$csv")" "benchmark,size,impl,nodes,config,median_s,min_s,max_s,checksum,verified"
    expect "csv median, min, max" "$(grep '^laplace,1024,libgomp,2,' "$csv")" \
        "laplace,1024,libgomp,2,static,0.5000,0.4000,0.6000,2.1041428618e+04,"
    expect "csv unverified" "$(grep '^cg,S,ompdsm,2,static/home=cyclic/migrate=first,' "$csv")" \
        "cg,S,ompdsm,2,static/home=cyclic/migrate=first,1.6000,1.6000,1.6000,1.000000000000e+01,no"
    expect "csv defaults" "$(grep -c '^cg,S,ompdsm,[12],static/default,' "$csv")" 2
    expect "csv failed" "$(grep '^adi,16,ompdsm,1,' "$csv" | grep FAILED)" \
        "adi,16,ompdsm,1,static/home=cyclic/migrate=off,,,,FAILED,"
    # all good: the Laplace lines alone
    grep '^laplace ' "$RAW" >"$OUT/laplace.raw"
    "$1" -f "$SRC/benchmarks/report.awk" -v nodes="1 2" -v migrate="off first" -v homes="cyclic block" \
        "$OUT/laplace.raw" >"$out.good" 2>"$err.good"
    expect "exit status, all good" $? 0
    expect "verdict, all good" "$(grep -c ': all equal\.$' "$out.good")" 1
    expect "stderr, all good" "$(wc -c <"$err.good" | tr -d ' ')" 0
    [ $ok -eq 0 ] || echo "(the report: $out)" >>"$log"
    verdict "harness/report ($1): the figures of a recorded run" $ok "$log"
}

for a in mawk gawk nawk awk; do
    command -v "$a" >/dev/null || continue
    [ "$a" != awk ] || [ -z "${awks:-}" ] || continue
    awks="${awks:-} $a"
    check_report "$a"
done

# ---- the plot ----------------------------------------------------------------

# block N_S FILE: the data block $dN_S of a gnuplot script, its lines joined by ";".
block() {
    awk -v b="\$d$1 << EOD" '$0 == b { on = 1; next } on && $0 == "EOD" { exit } on' "$2" | paste -sd ';' -
}

check_plot() {      # check_plot AWK
    csv=$OUT/report.$1.csv gp=$OUT/plot.$1.gp svg=$OUT/plot.$1.svg
    log=$OUT/plot.$1.log
    : >"$log"
    ok=0
    "$1" -F, -v out="$svg" -v nodes="1 2" -f "$SRC/benchmarks/plot.awk" "$csv" >"$gp"
    expect "plot status" $? 0
    expect "output" "$(grep '^set output' "$gp")" "set output \"$svg\""
    expect "layout" "$(grep '^set multiplot' "$gp")" "set multiplot layout 1,3"
    expect "xtics" "$(grep '^set xtics' "$gp")" "set xtics (1, 2)"
    expect "panels" "$(sed -n 's/^set title "\(.*\)" noenhanced$/\1/p' "$gp" | paste -sd ';' -)" \
        "Laplace 1024x1024;NAS CG class S;ADI 16^3"
    expect "laplace series" "$(grep -c '^\$d1_' "$gp")" 7
    expect "laplace libgomp" "$(block 1_1 "$gp")" "1 1.0000;2 0.5000"
    expect "laplace mpi" "$(block 1_2 "$gp")" "1 0.9000;2 0.4500"
    expect "cg series" "$(grep -c '^\$d2_' "$gp")" 6
    expect "adi failed run left out" "$(block 3_4 "$gp")" "2 0.2500"
    expect "series title" "$(grep -o 'title "ompdsm static/home=block/migrate=first"' "$gp" | wc -l | tr -d ' ')" 3
    if command -v gnuplot >/dev/null; then
        rm -f "$svg"
        gnuplot "$gp" 2>>"$log"
        expect "gnuplot drew the panels" "$(grep -c 'Laplace 1024x1024\|NAS CG class S\|ADI 16^3' "$svg" 2>/dev/null)" 3
    fi
    [ $ok -eq 0 ] || echo "(the script: $gp)" >>"$log"
    verdict "harness/plot ($1): the gnuplot script of a recorded run" $ok "$log"
}

for a in $awks; do
    check_plot "$a"
done

# ---- the command line ------------------------------------------------------
log=$OUT/cmdline.log
: >"$log"
ok=0
# refused WANT ARGS...: the harness stops with status 2 and a message with WANT
refused() {
    want=$1
    shift
    sh "$SRC/benchmarks/harness.sh" "$@" "$BUILD" >"$OUT/cmd.out" 2>"$OUT/cmd.err"
    rc=$?
    if [ $rc -ne 2 ] || ! grep -q "$want" "$OUT/cmd.err"; then
        echo "harness $*: status $rc, stderr:" >>"$log"
        cat "$OUT/cmd.err" >>"$log"
        ok=1
    fi
}
refused "unknown benchmark 'sp'" --bench sp
refused "bad --home value 'random'" --home 'cyclic random'
refused "not a size of adi" --bench adi --sizes adi:2
refused "not among the benchmarks" --bench laplace --sizes jacobi:512
refused "unknown size '4096'" --sizes 4096
refused "exclude each other" --suite --bench laplace
refused "bad --threads-per-node '0'" --threads-per-node 0
# A copy of the harness with no benchmark sources beside it: every
# benchmark asked for is skipped with a note, and then there is nothing to do.
rm -rf "$OUT/nosrc"
mkdir -p "$OUT/nosrc/benchmarks"
cp "$SRC/benchmarks/harness.sh" "$SRC/benchmarks/report.awk" "$OUT/nosrc/benchmarks/"
sh "$OUT/nosrc/benchmarks/harness.sh" --bench 'cg adi' "$BUILD" >"$OUT/cmd.out" 2>"$OUT/cmd.err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "benchmarks/nas/cg.c does not exist (yet): cg skipped" "$OUT/cmd.err" ||
    ! grep -q "benchmarks/adi/adi.c does not exist (yet): adi skipped" "$OUT/cmd.err" ||
    ! grep -q "none of the benchmarks asked for exists yet" "$OUT/cmd.err"; then
    echo "harness without sources: status $rc, stderr:" >>"$log"
    cat "$OUT/cmd.err" >>"$log"
    ok=1
fi
verdict "harness/command line: bad options refused, missing sources skipped" $ok "$log"

# ---- the saved profile's predictions, from a real run ----------------------
log=$OUT/predictions.log
: >"$log"
ok=0
sh "$SRC/benchmarks/harness.sh" --bench jacobi --sizes jacobi:512 --nodes 2 --reps 2 --iter 30 --saved "$BUILD" \
    >"$OUT/pred.out" 2>"$OUT/pred.err" || { echo "harness: status $?" >>"$log"; cat "$OUT/pred.err" >>"$log"; ok=1; }
sed -n "s/.* on the saved profile's blocks: .*(error \([-+0-9.]*\)%)\$/\1/p" "$BUILD/benchmarks/harness.log" |
    tr -d + | tr -d - | sort -n >"$OUT/pred.errors"
n=$(wc -l <"$OUT/pred.errors")
largest=$(tail -n 1 "$OUT/pred.errors")
[ "$n" -gt 0 ] || { echo "no prediction in the saved runs' output" >>"$log"; ok=1; }
row=$(cells "The saved profile's predictions" "jacobi 512" "$OUT/pred.out")
expect "predictions table, jacobi 512" "$row" "2|$n|$(awk -v n="$n" '{ e[NR] = $1 } END {
    printf "%.1f %%", n % 2 ? e[(n + 1) / 2] : (e[n / 2] + e[n / 2 + 1]) / 2 }' "$OUT/pred.errors")|$largest %"
[ $ok -eq 0 ] || cat "$OUT/pred.out" >>"$log"
verdict "harness/predictions: the saved runs' prediction errors counted, median and largest" $ok "$log"
exit $failed
