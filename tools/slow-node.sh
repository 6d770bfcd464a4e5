#!/bin/sh
# slow-node.sh RANK SLOW CGROUP_PROCS COMMAND...: runs COMMAND; when RANK is
# SLOW, first moves itself into the cgroup whose cgroup.procs file is given
# (a CPU quota makes that node really slower).  Used as the --exec-prefix of
# ompdsm-run by run-sched-tests.sh.
rank=$1 slow=$2 procs=$3
shift 3
if [ "$rank" = "$slow" ]; then
    echo $$ >"$procs" || exit 1
fi
exec "$@"
