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
#       With cgroup v1, an ompdsm node's progress thread (the thread named
#       ompdsm-progress) is moved back out of the cgroup once it exists:
#       the quota slows the program's own work, and the node still answers
#       its peers at once, as a slower machine of a cluster would.  A quota
#       on that thread would make every request to the node wait for the
#       next period (up to a millisecond), which no slower CPU does.  (With
#       cgroup v2, whose cpu controller would need a threaded subtree, the
#       whole process stays in the cgroup.)
# spare_progress_thread PID TASKS: waits (up to 20 s) for the thread of
# process PID named ompdsm-progress and writes its id to the cgroup v1
# tasks file TASKS.  Reads with the shell's own read, not a process per
# look.
spare_progress_thread() {
    i=0
    while [ $i -lt 1000 ] && [ -d "/proc/$1" ]; do
        for t in /proc/"$1"/task/*; do
            name=
            read -r name <"$t/comm" 2>/dev/null
            if [ "$name" = ompdsm-progress ]; then
                echo "${t##*/}" >"$2"
                return
            fi
        done
        sleep 0.02
        i=$((i + 1))
    done
}

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
        parent=$(dirname "$(dirname "$procs")")/tasks
        [ -f "$parent" ] && spare_progress_thread $$ "$parent" &
    fi
    exec "$@"
    ;;
*)
    echo "usage: $0 cgroup NAME | exec RANK SLOW PROCS COMMAND [ARG...]" >&2
    exit 2
    ;;
esac
