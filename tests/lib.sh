# lib.sh: shell functions the test sub-suites share.  Sourced, as
#     . "$(dirname "$0")/../lib.sh"

# build_dir "$@": the sub-suite's one argument, BUILD_DIR; sets BUILD to its
# absolute path, or stops with a usage message.
build_dir() {
    if [ $# -ne 1 ]; then
        echo "usage: $0 BUILD_DIR" >&2
        exit 2
    fi
    BUILD=$(cd "$1" && pwd) || exit 2
}

# clean_env: unsets the caller's OMP_* and OMPDSM_* variables, so that the
# environment the suite is run in does not change its cases, and runs one
# OpenMP thread per node (the cases compare N nodes with libgomp's N
# threads; tests/placement checks the default count).
clean_env() {
    for v in $(env | sed -n 's/^\(OMP_[A-Za-z_]*\)=.*/\1/p; s/^\(OMPDSM_[A-Za-z_]*\)=.*/\1/p'); do
        unset "$v"
    done
    OMPDSM_THREADS_PER_NODE=1
    export OMPDSM_THREADS_PER_NODE
}

# The nodes of a job carry a variable unique to the job,
# OMPDSM_TEST_MARK=MARK, so that the nodes it leaves behind can be found
# without seeing other jobs on the machine.
# marked MARK: the live processes with that mark (a zombie's environment
# reads as empty).
marked() {
    grep -lsxz "OMPDSM_TEST_MARK=$1" /proc/[0-9]*/environ | cut -d/ -f3
}

# none_left MARK: true once no node of the job is left, false after 5 s.
none_left() {
    i=0
    while [ -n "$(marked "$1")" ]; do
        [ $i -ge 50 ] && return 1
        sleep 0.1
        i=$((i + 1))
    done
}

# verdict NAME OK LOG: prints "PASS NAME" if OK is 0; else "FAIL NAME", the
# log's last lines, and sets failed=1.
verdict() {
    if [ "$2" -eq 0 ]; then
        echo "PASS $1"
    else
        echo "FAIL $1 (log: $3)"
        sed 's/^/    /' "$3" | tail -n 12
        failed=1
    fi
}

# build_both SOURCE OUT: builds the OpenMP program SOURCE twice, against
# libgomp (OUT.gomp) and with ompdsm-cc (OUT.dsm); BUILD must be set.
build_both() {
    gcc -fopenmp -O2 "$1" -o "$2.gomp" && "$BUILD/tools/ompdsm-cc" -O2 "$1" -o "$2.dsm"
}
