# report.awk: the benchmark harness's report.  Reads the raw results, one
# line per run, and prints the Markdown tables (stdout), the CSV (to the
# file csv), and one line per failed, unverified or differing run (stderr).
# It sees nothing but the raw file and the variables below, so that a
# recorded raw file always gives the same tables (tests/harness checks
# them).  Exits 1 if a run failed, was not verified or differed from the
# reference, 0 otherwise.
#
#   awk -f benchmarks/report.awk -v nodes="1 2 4" -v migrate="off first" \
#       [-v csv=FILE -v homes="cyclic block" -v mode=... -v ncpu=2 \
#        -v wall=60 -v skipped="cg mg"] RAW
#
# A raw line is
#   bench size impl nodes config rep time checksum verified iter
# impl is libgomp, mpi or ompdsm; config is "static" for libgomp, "-" for
# MPI, and for ompdsm SCHED/HOME/MIGRATE (the OMP_SCHEDULE, OMPDSM_HOME and
# OMPDSM_MIGRATE of the run) or SCHED/default/default for the run with no
# OMPDSM_* variable set, the library's defaults (plain/default/default: the
# harness's --plain build, the source without its schedule clauses, with
# the defaults; it is never the best configuration, being another
# program).  time and checksum are
# FAIL FAILED for a run that failed; verified is yes or no when the
# benchmark verifies itself (the NAS kernels), - otherwise; iter is the
# iteration count the benchmark printed (- if none).
#
# Every measurement (bench size impl config nodes) gets the median of its
# repetitions.  Its checksums must all equal the checksum of libgomp with 1
# thread, which is the reference: bit for bit for Laplace (its sum has a
# fixed order), to 1e-6 relative for Himeno (gosa is a reduction) and the
# NAS kernels (theirs are), to 1e-9 for ADI and Jacobi (a fixed order too,
# printed to 13 digits); a NAS run must also say verified=yes.
#
# The ratios are all written so that above 1 means the run of the row is
# faster than the one it is compared with; the footer says how each is
# formed.  The best configuration of a benchmark at a node count is the
# ompdsm configuration with the smallest median among those whose runs all
# succeeded with the right checksum.  The two summary tables at the end are
# what the suite's goals are judged by: the default configuration on every
# benchmark, and each configuration's geometric mean over the benchmarks.

function median(list,    v, n, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++)            # insertion sort of a handful of values
        for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    lo = v[1]; hi = v[n]
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function is_nas(bench) { return bench ~ /^(ep|cg|mg|ft|is)$/ }
function tolerance(bench) {
    if (bench == "laplace") return 0
    if (bench == "adi" || bench == "jacobi") return 1e-9
    return 1e-6
}
function same(bench, a, b,    d) {
    if (tolerance(bench) == 0) return a == b
    d = a - b
    return (d < 0 ? -d : d) <= tolerance(bench) * (b < 0 ? -b : b)
}
function is_default(cfg) { return cfg ~ /^[^\/]*\/default\/default$/ }
function label(impl, cfg,    c) {
    if (impl == "libgomp") return "libgomp (threads)"
    if (impl == "mpi") return "MPI (ranks)"
    split(cfg, c, "/")
    if (c[1] == "plain") return "**default**: ompdsm, no schedule clause, no OMPDSM_* set"
    if (is_default(cfg)) return "**default**: ompdsm " c[1] ", no OMPDSM_* set"
    return "ompdsm " c[1] ", home=" c[2] ", migrate=" c[3]
}
function short(impl, cfg,    c) {       # the row's name in a ratio line
    if (cfg ~ /^plain\//) return "**default**, no schedule clause"
    if (is_default(cfg)) return "**default**"
    return label(impl, cfg)
}
function csv_config(impl, cfg,    c) {
    if (impl != "ompdsm") return cfg
    split(cfg, c, "/")
    if (is_default(cfg)) return c[1] "/default"
    return c[1] "/home=" c[2] "/migrate=" c[3]
}
function title(b, s) {
    if (b == "laplace") return "Laplace " s "x" s
    if (b == "himeno") return "Himeno size " s
    if (is_nas(b)) return "NAS " toupper(b) " class " s
    if (b == "adi") return "ADI " s "^3"
    if (b == "jacobi") return "Jacobi (textbook) " s "x" s
    return b " " s
}
function K(impl, cfg, n) { return B SUBSEP S SUBSEP impl SUBSEP cfg SUBSEP n }
function cell(k) {
    if (!(k in nrun)) return "-"
    if (failed[k]) return "FAIL"
    return sprintf("%.3f%s", med[k], bad[k] ? " BAD" : "")
}
function rnum(a, b) {                   # med[a] / med[b], or "" if either is missing
    if (!(a in med) || !(b in med) || med[b] <= 0) return ""
    return med[a] / med[b]
}
function ratio(a, b,    r) {
    r = rnum(a, b)
    return r == "" ? "-" : sprintf("%.2f", r)
}
function best(n) { return (B SUBSEP S SUBSEP n) in bestcfg ? K("ompdsm", bestcfg[B, S, n], n) : "" }
function header(head, cols, ncols, width,    i) {
    split(cols, hc, SUBSEP)
    printf "\n| %-" W "s |", head
    for (i = 1; i <= ncols; i++) printf " %" width "s |", hc[i]
    printf "\n|%s|", dashes(W + 2)
    for (i = 1; i <= ncols; i++) printf "%s|", dashes(width + 2)
    printf "\n"
}
function dashes(n,    s) { s = ""; while (n-- > 0) s = s "-"; return s }
function node_header(head,    i, c) {
    c = ""
    for (i = 1; i <= nn; i++) c = c (i > 1 ? SUBSEP : "") nd[i] (nd[i] == 1 ? " node" : " nodes")
    header(head, c, nn, 9)
}
function line(head, cells, ncols, width,    c, i, any) {
    split(cells, c, SUBSEP)
    any = 0
    for (i = 1; i <= ncols; i++) any = any || c[i] != "-"
    if (!any) return                    # e.g. "vs 1 node" without a 1-node run
    printf "| %-" W "s |", head
    for (i = 1; i <= ncols; i++) printf " %" width "s |", c[i]
    printf "\n"
}
function nline(head, cells) { line(head, cells, nn, 9) }
# ratio_row HEAD IMPL CFG WHAT: one ratio line, t(reference) / t(row) for
# each node count; WHAT says what the reference is (see ref_key).
function ratio_row(head, impl, cfg, what,    c, ni) {
    c = ""
    for (ni = 1; ni <= nn; ni++) c = c (ni > 1 ? SUBSEP : "") ratio(ref_key(what, impl, cfg, nd[ni]), K(impl, cfg, nd[ni]))
    nline(head, c)
}
function ref_key(what, impl, cfg, n,    c) {
    if (what == "gomp1") return K("libgomp", "static", 1)
    if (what == "gompN") return K("libgomp", "static", n)
    if (what == "mpi") return K("mpi", "-", n)
    if (what == "node1") return K(impl, cfg, 1)
    if (what == "best") return best(n)
    split(cfg, c, "/")
    if (what == "mig") return K(impl, c[1] "/" c[2] "/" mg[1], n)
    if (what == "static") return K(impl, "static/" c[2] "/" c[3], n)
    return ""
}
function fmt_geo(sum, cnt, total) {
    if (cnt == 0) return "-"
    return sprintf("%.2f%s", exp(sum / cnt), cnt < total ? "*" : "")
}

BEGIN {
    nn = split(nodes, nd, " ")
    split(migrate, mg, " ")
    W = 56                              # width of the first column, at least
}
NF < 8 { next }
{
    set = $1 SUBSEP $2
    if (!(set in nrow)) { sets[++nsets] = set; nrow[set] = 0 }
    r = $3 SUBSEP $5
    if (!((set, r) in isrow)) { isrow[set, r] = 1; rows[set, ++nrow[set]] = r }
    if ($6 + 0 > nreps[set]) nreps[set] = $6 + 0
    if ($3 == "ompdsm" && !($5 in iscfg)) { iscfg[$5] = 1; cfgs[++ncfg] = $5 }
    k = set SUBSEP r SUBSEP $4
    if (!(k in nrun)) meas[++nmeas] = k
    nrun[k]++
    if ($7 == "FAIL") { failed[k] = 1; next }
    times[k] = times[k] " " $7
    sums[k] = sums[k] " " $8
    if ($9 == "no") unverified[k] = 1
    if (!(set in iters) && $10 != "" && $10 != "-") iters[set] = $10
    if ($3 == "libgomp" && $4 == 1 && $9 != "no" && !(set in ref)) ref[set] = $8
}
END {
    if (csv != "") print "benchmark,size,impl,nodes,config,median_s,min_s,max_s,checksum,verified" > csv
    for (i = 1; i <= nmeas; i++) {
        k = meas[i]; split(k, f, SUBSEP)        # bench size impl config n
        set = f[1] SUBSEP f[2]
        cfg = csv_config(f[3], f[4])
        if (failed[k]) {
            if (csv != "") printf "%s,%s,%s,%d,%s,,,,FAILED,\n", f[1], f[2], f[3], f[5], cfg > csv
            printf "harness: %s %s, %s, %d: FAILED\n", f[1], f[2], label(f[3], f[4]), f[5] > "/dev/stderr"
            nbad++
            continue
        }
        med[k] = median(times[k])
        m = split(sums[k], sv, " "); shown = sv[1]
        for (j = 1; j <= m; j++)
            if (!(set in ref) || !same(f[1], sv[j], ref[set])) { bad[k] = 1; shown = sv[j] }
        if (unverified[k]) bad[k] = 1
        ver = is_nas(f[1]) ? (unverified[k] ? "no" : "yes") : ""
        if (csv != "")
            printf "%s,%s,%s,%d,%s,%.4f,%.4f,%.4f,%s,%s\n", f[1], f[2], f[3], f[5], cfg, med[k], lo, hi, shown,
                ver > csv
        if (unverified[k]) {
            printf "harness: %s %s, %s, %d: NOT VERIFIED (the benchmark says verified=no)\n",
                f[1], f[2], label(f[3], f[4]), f[5] > "/dev/stderr"
            nbad++
        } else if (bad[k]) {
            printf "harness: %s %s, %s, %d: CHECKSUM MISMATCH %s, libgomp 1 thread has %s\n",
                f[1], f[2], label(f[3], f[4]), f[5], shown, (set in ref) ? ref[set] : "none" > "/dev/stderr"
            nbad++
        }
        if (f[3] == "ompdsm" && f[4] !~ /^plain\// && !bad[k] && (!((set, f[5]) in bestcfg) || med[k] < bestmed[set, f[5]])) {
            bestcfg[set, f[5]] = f[4]
            bestmed[set, f[5]] = med[k]
        }
    }

    # The first column fits the longest line title.
    for (i = 1; i <= ncfg; i++) {
        split(cfgs[i], sm, "/")
        if (length(label("ompdsm", cfgs[i]) " vs best configuration") > W)
            W = length(label("ompdsm", cfgs[i]) " vs best configuration")
        if (length("migration gain: ompdsm " sm[1] ", home=" sm[2] ", migrate=" sm[3] " vs " mg[1]) > W)
            W = length("migration gain: ompdsm " sm[1] ", home=" sm[2] ", migrate=" sm[3] " vs " mg[1])
    }

    # ---- one section per benchmark and size ----
    for (si = 1; si <= nsets; si++) {
        split(sets[si], f, SUBSEP); B = f[1]; S = f[2]
        # (EP has no iterations: it prints iter=0.)
        it = (sets[si] in iters) && iters[sets[si]] != 0 ? ", " iters[sets[si]] (B == "adi" ? " steps" : " iterations") : ""
        # (Parentheses: a bare ">" in a print statement is a redirection.)
        printf "\n### %s%s, median of %d run%s\n", title(B, S), it, nreps[sets[si]], (nreps[sets[si]] > 1 ? "s" : "")
        printf "\nReference: libgomp 1 thread, %s s, checksum %s.\n", cell(K("libgomp", "static", 1)),
            (sets[si] in ref) ? ref[sets[si]] : "none"
        node_header("time of the timed part (s)")
        for (ri = 1; ri <= nrow[sets[si]]; ri++) {
            split(rows[sets[si], ri], ic, SUBSEP); c = ""
            for (ni = 1; ni <= nn; ni++) c = c (ni > 1 ? SUBSEP : "") cell(K(ic[1], ic[2], nd[ni]))
            nline(label(ic[1], ic[2]), c)
        }
        node_header("ratio (above 1: the run of the row is faster)")
        for (ri = 1; ri <= nrow[sets[si]]; ri++) {
            split(rows[sets[si], ri], ic, SUBSEP)
            ratio_row(short(ic[1], ic[2]) " vs libgomp 1 thread", ic[1], ic[2], "gomp1")
        }
        for (pass = 1; pass <= 4; pass++)
            for (ri = 1; ri <= nrow[sets[si]]; ri++) {
                split(rows[sets[si], ri], ic, SUBSEP)
                if (ic[1] != "ompdsm") continue
                what = pass == 1 ? "gompN" : pass == 2 ? "mpi" : pass == 3 ? "node1" : "best"
                name = pass == 1 ? "libgomp, same count" : pass == 2 ? "MPI" : pass == 3 ? "ompdsm 1 node" : "best configuration"
                ratio_row(short(ic[1], ic[2]) " vs " name, ic[1], ic[2], what)
            }
        for (ri = 1; ri <= nrow[sets[si]]; ri++) {
            split(rows[sets[si], ri], ic, SUBSEP)
            split(ic[2], sm, "/")
            if (ic[1] != "ompdsm" || is_default(ic[2]) || sm[3] == mg[1]) continue
            ratio_row("migration gain: ompdsm " sm[1] ", home=" sm[2] ", migrate=" sm[3] " vs " mg[1], ic[1], ic[2], "mig")
        }
        for (ri = 1; ri <= nrow[sets[si]]; ri++) {
            split(rows[sets[si], ri], ic, SUBSEP)
            split(ic[2], sm, "/")
            if (ic[1] != "ompdsm" || (sm[1] != "profiled" && sm[1] != "saved")) continue
            ratio_row((sm[1] == "saved" ? "profiled gain, saved profile: home=" : "profiled gain: home=") sm[2] \
                ", migrate=" sm[3], ic[1], ic[2], "static")
        }
        c = ""
        for (ni = 1; ni <= nn; ni++)
            if ((B SUBSEP S SUBSEP nd[ni]) in bestcfg)
                c = c (c == "" ? "" : "; ") nd[ni] ": " short("ompdsm", bestcfg[B, S, nd[ni]])
        if (c != "") printf "\nBest configuration (nodes: configuration): %s.\n", c
    }

    # ---- the suite: the default configuration on every benchmark ----
    # (a table for the defaults, and one for the --plain build's)
    total = nsets
    for (di = 1; di <= ncfg; di++) {
        d = cfgs[di]
        if (!is_default(d)) continue
        cols = ""; ncols = 0
        for (ni = 1; ni <= nn; ni++) if (nd[ni] != 1) { cols = cols (ncols ? SUBSEP : "") nd[ni] " vs 1 node"; ncols++; kind[ncols] = "node1"; kn[ncols] = nd[ni] }
        for (ni = 1; ni <= nn; ni++) { cols = cols (ncols ? SUBSEP : "") nd[ni] " vs libgomp"; ncols++; kind[ncols] = "gompN"; kn[ncols] = nd[ni] }
        for (ni = 1; ni <= nn; ni++) { cols = cols (ncols ? SUBSEP : "") nd[ni] " vs best"; ncols++; kind[ncols] = "best"; kn[ncols] = nd[ni] }
        printf "\n### The suite with the defaults (no OMPDSM_* set)%s\n", d ~ /^plain\// ? ", loops without a schedule clause" : ""
        header("benchmark: default configuration vs ...", cols, ncols, 12)
        for (ci = 1; ci <= ncols; ci++) { gsum[ci] = 0; gcnt[ci] = 0 }
        for (si = 1; si <= nsets; si++) {
            split(sets[si], f, SUBSEP); B = f[1]; S = f[2]
            c = ""
            for (ci = 1; ci <= ncols; ci++) {
                v = bad[K("ompdsm", d, kn[ci])] ? "" : rnum(ref_key(kind[ci], "ompdsm", d, kn[ci]), K("ompdsm", d, kn[ci]))
                if (v != "" && v > 0) { gsum[ci] += log(v); gcnt[ci]++ }
                c = c (ci > 1 ? SUBSEP : "") (v == "" ? "-" : sprintf("%.2f", v))
            }
            line(title(B, S), c, ncols, 12)
        }
        c = ""
        for (ci = 1; ci <= ncols; ci++) c = c (ci > 1 ? SUBSEP : "") fmt_geo(gsum[ci], gcnt[ci], total)
        line("geometric mean over " total " benchmark" (total > 1 ? "s" : ""), c, ncols, 12)
    }

    # ---- every configuration: geometric means over the suite ----
    if (ncfg > 0) {
        printf "\n### Every configuration: geometric mean over the %d benchmark%s\n", total, (total > 1 ? "s" : "")
        node_header("geometric mean of the ratio")
        for (pass = 1; pass <= 4; pass++) {
            ncand = pass == 1 ? 1 : ncfg
            for (i = 1; i <= ncand; i++) {
                impl = pass == 1 ? "libgomp" : "ompdsm"
                cfg = pass == 1 ? "static" : cfgs[i]
                what = pass == 1 ? "gomp1" : pass == 2 ? "node1" : pass == 3 ? "gompN" : "best"
                name = pass == 1 ? " vs libgomp 1 thread" : pass == 2 ? " vs ompdsm 1 node" : pass == 3 ? " vs libgomp, same count" : " vs best configuration"
                c = ""
                for (ni = 1; ni <= nn; ni++) {
                    s = 0; n = 0
                    for (si = 1; si <= nsets; si++) {
                        split(sets[si], f, SUBSEP); B = f[1]; S = f[2]
                        if (bad[K(impl, cfg, nd[ni])]) continue
                        v = rnum(ref_key(what, impl, cfg, nd[ni]), K(impl, cfg, nd[ni]))
                        if (v != "" && v > 0) { s += log(v); n++ }
                    }
                    c = c (ni > 1 ? SUBSEP : "") fmt_geo(s, n, total)
                }
                nline(short(impl, cfg) name, c)
            }
        }
    }

    printf "\n"
    if (mode != "") printf "Setup: %d CPUs; %s.\n", ncpu, mode
    if (ncfg > 0) {
        printf "Configurations: OMPDSM_HOME in {%s} x OMPDSM_MIGRATE in {%s}; **default**: no OMPDSM_* variable set.\n",
            homes, migrate
    }
    printf "Times: the timed part as each benchmark measures it, median of the repetitions.\n"
    printf "Ratios: vs libgomp 1 thread = t(libgomp, 1 thread) / t(row); vs libgomp, same count = t(libgomp, N threads) / t(row, N);\n"
    printf "vs MPI = t(MPI, same count) / t(row); vs ompdsm 1 node = t(same configuration, 1 node) / t(row);\n"
    printf "vs best configuration = t(fastest correct ompdsm configuration, same count) / t(row);\n"
    printf "migration gain = t(migrate=%s, same home) / t(row); profiled gain = t(static) / t(profiled), same home and migrate.\n", mg[1]
    printf "Geometric means: over the benchmarks that have the figure; * marks one over fewer than all of them.\n"
    if (skipped != "") { gsub(/ /, ", ", skipped); printf "Not run (no source in benchmarks/ yet): %s.\n", skipped }
    printf "Checksums against libgomp 1 thread (Laplace bit for bit, Himeno and NAS to 1e-6 with verified=yes, ADI and Jacobi to 1e-9): %s.\n",
        nbad ? "**FAILED, UNVERIFIED OR DIFFERENT in " nbad " measurement(s), marked FAIL / BAD above**" : "all equal"
    if (wall != "") printf "Harness wall time: %d s (building included).\n", wall
    exit nbad > 0
}
