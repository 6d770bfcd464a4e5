#!/bin/sh
# run_boot_tests.sh LAUNCHER NODE: checks that ompdsm-run starts, serves and
# supervises a job, using boot_node (tests/boot/boot_node.c) as the program.
# Prints "PASS name" or "FAIL name" per check; exits 1 if any check failed.
#
# The node runs through a symlink with a name unique to this run, so that
# "no node is left" can be checked by process name without seeing the nodes
# of other test runs.

launcher=$1
node_bin=$2
if [ ! -x "$launcher" ] || [ ! -x "$node_bin" ]; then
    echo "usage: $0 path/to/ompdsm-run path/to/boot_node" >&2
    exit 2
fi
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
name=bnode$$
node=$tmp/$name
ln -s "$(cd "$(dirname "$node_bin")" && pwd)/$(basename "$node_bin")" "$node"
failures=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; failures=$((failures + 1)); }

# run ARGS...: runs the launcher; sets $rc, $out, $err.
run() {
    "$launcher" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    out=$(cat "$tmp/out")
    err=$(cat "$tmp/err")
}

# Live (non-zombie) processes of this run's node program.
nodes_left() {
    ps -eo stat=,comm= | awk -v n="$name" '$1 !~ /^Z/ && $2 == n' | wc -l
}

# no_nodes_within SEC: true once no node is left, false after SEC seconds.
no_nodes_within() {
    i=0
    while [ "$(nodes_left)" -ne 0 ]; do
        [ $i -ge $(($1 * 10)) ] && return 1
        sleep 0.1
        i=$((i + 1))
    done
}

expect() {      # expect NAME CONDITION-TEXT: evaluates the condition
    if eval "$2"; then pass "$1"; else fail "$1" "rc=$rc $(echo "$err" | head -3)"; fi
}

for n in 1 2 3 4; do
    run -np $n "$node"
    expect "allgather_${n}_nodes" \
        '[ $rc -eq 0 ] && [ "$(echo "$out" | grep -c "^ok rank .* of '$n'$")" -eq '$n' ]'
done

BOOT_TEST_SEGV=1 run -np 3 "$node"
expect segfault_is_reported \
    '[ $rc -eq 139 ] && echo "$err" | grep -q "node 1 (pid [0-9]*) killed by signal 11 (Segmentation fault)"'
if no_nodes_within 5; then pass segfault_stops_other_nodes; else fail segfault_stops_other_nodes; fi

BOOT_TEST_EXIT3=2 run -np 3 "$node"
expect exit_status_is_passed_on '[ $rc -eq 3 ] && echo "$err" | grep -q "node 2 .* exited with status 3"'

run -np 2 "$tmp/no-such-program"
expect missing_program '[ $rc -eq 127 ] && echo "$err" | grep -q "cannot execute"'

run -np 0 "$node"
expect zero_nodes_is_usage_error '[ $rc -eq 2 ] && echo "$err" | grep -q "Try"'

run "$node"
expect missing_np_is_usage_error '[ $rc -eq 2 ]'

BOOT_TEST_BADTOKEN=1 run -np 2 "$node"
expect bad_token_is_refused \
    '[ $rc -ne 0 ] && echo "$err" | grep -q "bootstrap refused" &&
     echo "$err" | grep -q "refused a bootstrap connection with a bad token"'

start=$(date +%s)
BOOT_TEST_SLEEP=30 run --timeout 1 -np 2 "$node"
expect timeout_stops_job '[ $rc -eq 124 ] && [ $(($(date +%s) - start)) -le 5 ]'

BOOT_TEST_LATE=2 run --boot-timeout 1 -np 3 "$node"
expect boot_timeout_names_missing_node '[ $rc -eq 1 ] && echo "$err" | grep -q "node 2 did not join"'

if no_nodes_within 5; then pass no_node_left; else fail no_node_left; fi

run --help
expect help '[ $rc -eq 0 ] && echo "$out" | grep -q SYNOPSIS'
run --version
expect version '[ $rc -eq 0 ] && echo "$out" | grep -q "^ompdsm-run (ompdsm) "'

[ $failures -eq 0 ]
