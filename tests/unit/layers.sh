#!/bin/sh
# layers.sh: the include rule of the runtime's layers, checked on every
# #include "..." of their sources.  A layer includes only the layers
# below it, and the layers above the coherence layer only its interface:
#
#     util/  <-  net/  <-  dsm/  <-  migrate/, profiler/  <-  omp_rt/
#
#   util/      util/
#   net/       net/ util/
#   dsm/       dsm/ net/ util/ include/
#   migrate/   migrate/ net/ util/ include/, dsm/dsm.h, dsm/rehome.h
#   profiler/  profiler/ net/ util/ include/, dsm/dsm.h
#   omp_rt/    omp_rt/ migrate/ profiler/ net/ util/ include/, dsm/dsm.h
#   tools/     tools/, net/boot_wire.h (the launcher does not link the library)
#
# dsm/dsm.h is the coherence layer's interface (it says why); dsm/rehome.h
# is what home migration takes from the page-state module besides.  Tests
# and benchmarks may reach into any layer: they are not checked.
#
# An include is resolved as the compiler does (the includer's directory,
# then include/); one that resolves to no file fails too, so that an
# include cannot slip past by a search path.  Run by `make check`
# (automake sets srcdir), or by hand: sh tests/unit/layers.sh [SRCDIR].
set -u
top=${1:-${srcdir:-$(dirname "$0")/../..}}
cd "$top" || exit 1
files=$(ls util/*.[ch] net/*.[ch] dsm/*.[ch] migrate/*.[ch] profiler/*.[ch] omp_rt/*.[ch] tools/*.c 2>/dev/null)
# shellcheck disable=SC2086
awk '
# The path without "." and "dir/.." steps.
function norm(p,    n, i, part, out, k) {
    n = split(p, part, "/")
    k = 0
    for (i = 1; i <= n; i++) {
        if (part[i] == "." || part[i] == "")
            continue
        if (part[i] == ".." && k > 0 && out[k] != "..")
            k--
        else
            out[++k] = part[i]
    }
    p = out[1]
    for (i = 2; i <= k; i++)
        p = p "/" out[i]
    return p
}
function exists(p,    line, r) {
    r = (getline line < p) >= 0
    close(p)
    return r
}
BEGIN {
    allow["util"] = " util "
    allow["net"] = " net util "
    allow["dsm"] = " dsm net util include "
    allow["migrate"] = " migrate net util include dsm/dsm.h dsm/rehome.h "
    allow["profiler"] = " profiler net util include dsm/dsm.h "
    allow["omp_rt"] = " omp_rt migrate profiler net util include dsm/dsm.h "
    allow["tools"] = " tools net/boot_wire.h "
}
FNR == 1 {
    nfiles++
    dir = FILENAME
    sub(/\/[^\/]*$/, "", dir)
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
    name = $0
    sub(/^[^"]*"/, "", name)
    sub(/".*$/, "", name)
    target = norm(dir "/" name)
    if (!exists(target)) {
        target = norm("include/" name)
        if (!exists(target)) {
            printf "%s:%d: #include \"%s\" is no file of %s/ nor of include/\n", FILENAME, FNR, name, dir
            bad++
            next
        }
    }
    nincludes++
    layer = target
    sub(/\/.*$/, "", layer)
    if (index(allow[dir], " " layer " ") || index(allow[dir], " " target " "))
        next
    ok = allow[dir]
    gsub(/^ | $/, "", ok)
    printf "%s:%d: #include \"%s\" (%s): %s/ may include only %s\n", FILENAME, FNR, name, target, dir, ok
    bad++
}
END {
    if (nfiles < 50) {
        printf "layers: found only %d source files below %s\n", nfiles, ENVIRON["PWD"]
        exit 1
    }
    printf "layers: %d includes of %d files checked, %d against the rule\n", nincludes, nfiles, bad
    exit bad > 0
}
' $files
