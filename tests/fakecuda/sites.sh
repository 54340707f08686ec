#!/usr/bin/env bash
# tests/fakecuda/sites.sh DIR: the C and Fortran call sites (ffi-tests/run.sh, fortran-tests/run.sh)
# on the fake CUDA built into DIR, every tile call forced onto the devices with device tiles of 16:
#   gpu1  one fake GPU taking every tile column (HETLA_HOST_SHARE=0), ample memory;
#   gpu2  two fake GPUs of 48K each taking every tile column: evictions and write-backs.
# Each runner's own [PASS]/[FAIL] lines are passed through (prefixed with the setup); then per
# setup: every fake GPU ran tasks, evictions happened where memory is short, and no program's
# stderr has a `fakecuda:` line. test_rss runs n = 480 with 120 calls (FFI_RSS_N, FFI_RSS_CALLS):
# its default n = 1500 with 200 calls takes minutes on the fake GPUs. Needs target/release/libhetla.so.
set -uo pipefail
cd "$(dirname "$0")/../.."
DIR=$(cd "${1:?usage: sites.sh DIR}" && pwd)
passed=0
failed=0
pass() { echo "[PASS] fakecuda-sites $1"; passed=$((passed + 1)); }
fail() { echo "[FAIL] fakecuda-sites $1"; failed=$((failed + 1)); }

# setup NAME GPUS ENV...
setup() {
    local name=$1 gpus=$2 d
    shift 2
    local logs=target/fakecuda-sites/$name
    rm -rf "$logs"
    mkdir -p "$logs"
    for r in ffi-tests fortran-tests; do
        env LD_LIBRARY_PATH="$DIR" FAKECUDA_DEVICES="$gpus" HETLA_GPUS=all HETLA_DEVICE_FORCE=1 \
            HETLA_DEVICE_NB=16 FFI_RSS_N=480 FFI_RSS_CALLS=120 "$@" bash "$r/run.sh" >"$logs/$r.log" 2>&1
        grep -E '^\[(PASS|FAIL)\]' "$logs/$r.log" | sed "s/^\[\(PASS\|FAIL\)\] /[\1] fakecuda-sites $name: /"
        passed=$((passed + $(grep -c '^\[PASS\]' "$logs/$r.log")))
        failed=$((failed + $(grep -c '^\[FAIL\]' "$logs/$r.log")))
        grep -q '^\[' "$logs/$r.log" || fail "$name: $r printed no result (see $logs/$r.log)"
        # Keep the programs' stderr of this setup for the checks below.
        cat "$r"/build/logs/*.err "$r"/build/*.err 2>/dev/null >>"$logs/stderr"
    done
    for d in $(seq 0 $((gpus - 1))); do
        local n
        n=$(grep -c "dev=.*cuda$d:[^ ]*tasks=[1-9]" "$logs/stderr")
        if [ "$n" -gt 0 ]; then pass "$name: cuda$d ran tasks in $n calls"; else fail "$name: no task ran on cuda$d"; fi
    done
    if [[ " $* " == *FAKECUDA_MEM=* ]]; then
        if grep -q 'evict=[1-9]' "$logs/stderr"; then
            pass "$name: evictions in $(grep -c 'evict=[1-9]' "$logs/stderr") calls"
        else
            fail "$name: no eviction despite the small device memory"
        fi
    fi
    if grep -q '^fakecuda: ' "$logs/stderr"; then
        fail "$name: the fake CUDA reported:"
        grep -m 5 '^fakecuda: ' "$logs/stderr" | sed 's/^/    | /'
    else
        pass "$name: no report from the fake CUDA"
    fi
}

setup gpu1 1 HETLA_HOST_SHARE=0
setup gpu2 2 HETLA_HOST_SHARE=0 FAKECUDA_MEM=48K
echo "fakecuda-sites: $passed passed, $failed failed"
[ $failed -eq 0 ]
