# plot.awk: the gnuplot script of the harness's plot, from its CSV
# (benchmarks/harness.sh writes both; tests/harness checks this on the
# recorded run's CSV).
#
#   awk -F, -v out=PLOT.svg -v nodes="1 2 4" -f plot.awk RESULTS.csv >plot.gp
#
# Median time against node count, log-log, one panel per benchmark and
# size (at most 4 a row), one line per implementation and configuration;
# rows without a median (failed runs) are left out.
NR == 1 || $6 == "" { next }
{
    if ($1 == "laplace" || $1 == "jacobi") panel = ($1 == "laplace" ? "Laplace " : "Jacobi ") $2 "x" $2
    else if ($1 == "himeno") panel = "Himeno " $2
    else if ($1 == "adi") panel = "ADI " $2 "^3"
    else panel = "NAS " toupper($1) " class " $2
    ser = $3 == "ompdsm" ? "ompdsm " $5 : $3 == "mpi" ? "MPI" : "libgomp"
    if (!(panel in pi)) { pi[panel] = ++np; pname[np] = panel }
    p = pi[panel]
    if (!((p, ser) in si)) { si[p, ser] = ++ns[p]; sname[p, ns[p]] = ser }
    data[p, si[p, ser]] = data[p, si[p, ser]] $4 " " $6 "\n"
}
END {
    cols = np < 4 ? np : 4                  # at most 4 panels a row
    rows = int((np + cols - 1) / cols)
    printf "set terminal svg size %d,%d dynamic font \"sans,11\" background \"white\"\n", 480 * cols, 440 * rows
    printf "set output \"%s\"\n", out
    for (p = 1; p <= np; p++)
        for (s = 1; s <= ns[p]; s++) printf "$d%d_%d << EOD\n%sEOD\n", p, s, data[p, s]
    n = split(nodes, nd, " "); tics = ""
    for (i = 1; i <= n; i++) tics = tics (i > 1 ? ", " : "") nd[i]
    printf "set logscale xy\nset xtics (%s)\nset xrange [0.8:%g]\n", tics, nd[n] * 1.25
    print "set xlabel \"nodes (libgomp: threads, MPI: ranks)\"\nset ylabel \"median time (s), log scale\""
    print "set key top left noenhanced\nset grid"
    printf "set multiplot layout %d,%d\n", rows, cols
    for (p = 1; p <= np; p++) {
        printf "set title \"%s\" noenhanced\nplot ", pname[p]
        for (s = 1; s <= ns[p]; s++)
            printf "%s$d%d_%d using 1:2 with linespoints title \"%s\"", (s > 1 ? ", " : ""), p, s, sname[p, s]
        printf "\n"
    }
    print "unset multiplot"
}
