#!/bin/sh
# check.sh: the test command.  Installs what is missing, builds, and runs
# every test twice: on the normal build (./build), then on a build with
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

# pass TAG DIR [configure options...]: builds DIR and runs the suite on it,
# echoing its lines (PASS/FAIL/SKIP ones prefixed with TAG), and adds its
# counts; a build that fails counts as one failure.
pass() {
    tag=$1 dir=$2
    shift 2
    if ! sh "$SRC/tools/build.sh" --dir "$dir" "$@"; then
        echo "FAIL ${tag}build ($dir)"
        failed=$((failed + 1))
        return
    fi
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
