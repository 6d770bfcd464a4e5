#!/bin/sh
# slow-node.sh: makes one node of a job really slower, with a cgroup CPU
# quota of half a CPU (cgroup v1 "cpu" or cgroup v2 "cpu.max"; needs root).
# Used by the tests (tests/sched) and the benchmark harness.
#
#   slow-node.sh cgroup NAME
#       Creates the cgroup NAME with a quota of 1 ms of CPU time per 2 ms
#       and prints the path of its cgroup.procs file; exits 1 if no CPU
#       controller is available.  Remove it with rmdir of that file's
#       directory once its processes are gone.
#   slow-node.sh exec RANK SLOW PROCS COMMAND [ARG...]
#       Runs COMMAND; when RANK equals SLOW, first moves itself into the
#       cgroup whose cgroup.procs file is PROCS.  Meant as a launcher's
#       per-node prefix, e.g.
#           ompdsm-run --exec-prefix "sh slow-node.sh exec %r 1 PROCS" ...
case ${1:-} in
cgroup)
    [ $# -eq 2 ] || { echo "usage: $0 cgroup NAME" >&2; exit 2; }
    if [ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
        d=/sys/fs/cgroup/cpu/$2
        mkdir -p "$d" && echo 2000 >"$d/cpu.cfs_period_us" && echo 1000 >"$d/cpu.cfs_quota_us" &&
            echo "$d/cgroup.procs"
    elif [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
        d=/sys/fs/cgroup/$2
        echo +cpu >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
        mkdir -p "$d" && echo "1000 2000" >"$d/cpu.max" && echo "$d/cgroup.procs"
    else
        exit 1
    fi
    ;;
exec)
    [ $# -ge 5 ] || { echo "usage: $0 exec RANK SLOW PROCS COMMAND [ARG...]" >&2; exit 2; }
    rank=$2 slow=$3 procs=$4
    shift 4
    if [ "$rank" = "$slow" ]; then
        echo $$ >"$procs" || exit 1
    fi
    exec "$@"
    ;;
*)
    echo "usage: $0 cgroup NAME | exec RANK SLOW PROCS COMMAND [ARG...]" >&2
    exit 2
    ;;
esac
