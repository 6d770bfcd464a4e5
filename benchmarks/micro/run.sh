#!/bin/sh
# run.sh: the DSM micro-benchmark.  Prints, in one run and for both UCX
# transport families, the raw UCX 4 KiB get latency next to the DSM's fault
# and barrier latencies, and the ratio the design targets:
#     remote read fault / (raw get + local fault)  <= 1.5
#   benchmarks/micro/run.sh [BUILD_DIR]
set -eu
BUILD=$(cd "${1:-.}" && pwd)
RUN="$BUILD/ompdsm-run"
B="$BUILD/benchmarks/micro"

ucx_env() {
    case $1 in
    shm) echo "UCX_TLS=self,sm" ;;
    tcp) echo "UCX_TLS=self,tcp UCX_NET_DEVICES=lo" ;;
    esac
}

val() { echo "$1" | awk -v k="$2" '$1 == k { print $2 }'; }

echo "ompdsm micro-benchmark: $(nproc) cores, $(uname -sr), page $(getconf PAGESIZE) bytes"
echo
printf '| %-4s | %9s | %9s | %9s | %9s | %9s | %9s | %9s | %9s |\n' transport "raw get" "local flt" \
    "remote rd" "ratio" "wr RO" "wr inval" "barrier 2" "barrier 4"
printf '|%s|\n' "------|-----------|-----------|-----------|-----------|-----------|-----------|-----------|-----------"
for tls in shm tcp; do
    # shellcheck disable=SC2046
    get=$(env $(ucx_env $tls) "$RUN" -np 2 "$B/ucx_get" | awk '$1 == "raw_get_4k_us" { print $2 }')
    # shellcheck disable=SC2046
    two=$(env $(ucx_env $tls) "$RUN" -np 2 "$B/dsm_micro")
    # shellcheck disable=SC2046
    four=$(env $(ucx_env $tls) "$RUN" -np 4 "$B/dsm_micro")
    local_f=$(val "$two" local_fault_us)
    remote=$(val "$two" remote_read_fault_us)
    ratio=$(awk -v r="$remote" -v g="$get" -v l="$local_f" 'BEGIN { printf "%.2f", r / (g + l) }')
    printf '| %-4s | %9s | %9s | %9s | %9s | %9s | %9s | %9s | %9s |\n' "$tls" "$get" "$local_f" "$remote" \
        "$ratio" "$(val "$two" write_fault_ro_us)" "$(val "$two" write_fault_inv_us)" \
        "$(val "$two" barrier_us)" "$(val "$four" barrier_us)"
done
echo
echo "All times in microseconds per operation.  raw get: ucp_get of 4 KiB, target sleeping on the"
echo "UCX wakeup fd; local flt: first touch of a home page; remote rd: read fault on a page homed"
echo "at another node; ratio = remote rd / (raw get + local flt), target <= 1.5; wr RO: write to"
echo "a read-only copy (twin); wr inval: write to a page not held (fetch + twin)."
