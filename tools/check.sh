#!/bin/sh
# check.sh: the test command.  Installs what is missing, builds, and runs
# every test, the unit tests (make check) and the suite (tests/run-tests.sh),
# twice: on the normal build (./build), then on a build with
# AddressSanitizer and UndefinedBehaviorSanitizer and the protocol's run-time
# checks (./build-san, configure --enable-sanitizers --enable-checking),
# whose lines are marked "[san]".  The last line is
# "N passed, N failed" for both passes together; the exit status is
# non-zero if any test failed.
#   tools/check.sh [--no-sanitizers]      (the second pass left out)
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
SAN=1
case ${1:-} in
--no-sanitizers) SAN=0 ;;
"") ;;
*) echo "usage: $0 [--no-sanitizers]" >&2; exit 2 ;;
esac
out=$(mktemp)
trap 'rm -f "$out"' EXIT
passed=0
failed=0

# unit TAG DIR: the unit tests, `make check` (automake's test driver) in
# DIR, one line per test ("PASS unit: name", prefixed with TAG); adds the
# counts (ERROR and XPASS count as failures).
unit() {
    tag=$1 dir=$2
    make -s -C "$SRC/$dir" check >"$out" 2>&1
    sed -n 's/^\(PASS\|FAIL\|ERROR\|XPASS\|SKIP\): \(.*\)$/\1 '"$tag"'unit: \2/p' "$out" |
        sed 's/^\(ERROR\|XPASS\) /FAIL /'
    total=$(sed -n 's/^# TOTAL: *//p' "$out")
    if [ -z "$total" ]; then
        echo "FAIL ${tag}unit: make check did not finish"
        tail -n 15 "$out" | sed 's/^/    /'
        failed=$((failed + 1))
        return
    fi
    for kind in FAIL ERROR XPASS; do
        failed=$((failed + $(sed -n "s/^# $kind: *//p" "$out")))
    done
    passed=$((passed + $(sed -n 's/^# PASS: *//p' "$out")))
}

# pass TAG DIR [configure options...]: builds DIR, runs the unit tests and
# then the suite on it, echoing its lines (PASS/FAIL/SKIP ones prefixed
# with TAG), and adds its counts; a build that fails counts as one failure.
pass() {
    tag=$1 dir=$2
    shift 2
    if ! sh "$SRC/tools/build.sh" --dir "$dir" "$@"; then
        echo "FAIL ${tag}build ($dir)"
        failed=$((failed + 1))
        return
    fi
    unit "$tag" "$dir"
    sh "$SRC/tests/run-tests.sh" "$SRC/$dir" 2>&1 | tee "$out" |
        sed '/^[0-9]* passed, [0-9]* failed$/d; s/^\(PASS\|FAIL\|SKIP\) /\1 '"$tag"'/'
    last=$(tail -n 1 "$out")
    case $last in
    *" passed, "*" failed")
        passed=$((passed + ${last%% passed*}))
        f=${last#* passed, }
        failed=$((failed + ${f%% failed})) ;;
    *)
        echo "FAIL ${tag}suite did not finish (last line: $last)"
        failed=$((failed + 1)) ;;
    esac
}

pass "" build
[ $SAN = 1 ] && pass "[san] " build-san --enable-sanitizers --enable-checking
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
