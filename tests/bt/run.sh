#!/usr/bin/env bash
# tests/bt/run.sh: the block tridiagonal routines (dbtsv_, dbttrf_, dbttrs_) from C.
#
# tests/bt/test_bt.c is compiled against include/hetla.h and linked with -lhetla ahead of
# -llapack (the routines are hetla's own: no LAPACK has them, so there is no preload or
# reference-only run; the program compares with the reference DGBSV itself). It runs with the
# library's choice of elimination, with each of HETLA_BT=thomas, twisted and cyclic, and with 1 and 2
# emulated accelerators (the second with 64K of memory each, so blocks are evicted and large
# ones run on the host), every run under HETLA_VERBOSE=1, whose lines must name the routines.
# Prints [PASS]/[FAIL] per run; exits non-zero when any failed. Needs target/release/libhetla.so.
set -uo pipefail
cd "$(dirname "$0")/../.."

LIB=target/release/libhetla.so
BUILD=target/bt-tests
TIMEOUT=${BT_TIMEOUT:-300}
mkdir -p "$BUILD"
[ -f "$LIB" ] || { echo "tests/bt/run.sh: $LIB is missing; run cargo build --release first" >&2; exit 1; }

passed=0
failed=0
if ! ${CC:-gcc} -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude -Iffi-tests -rdynamic -pthread \
    -Wl,--no-as-needed tests/bt/test_bt.c -o "$BUILD/test_bt" -Ltarget/release -lhetla -llapack -ldl -lm \
    >"$BUILD/cc.log" 2>&1; then
    echo "[FAIL] bt compile"
    sed 's/^/    | /' "$BUILD/cc.log" | tail -n 30
    exit 1
fi

run() {
    local name=$1
    shift
    local log="$BUILD/$name.log"
    if env LD_LIBRARY_PATH="$PWD/target/release${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" HETLA_VERBOSE=1 "$@" \
        timeout "$TIMEOUT" "$BUILD/test_bt" >"$log" 2>&1 &&
        grep -q '^hetla: dbtsv ' "$log" && grep -q '^hetla: dbttrf ' "$log" && grep -q '^hetla: dbttrs ' "$log" &&
        ! grep -qE 'panicked at|panic caught' "$log"; then
        echo "[PASS] bt $name"
        passed=$((passed + 1))
    else
        echo "[FAIL] bt $name"
        { grep -E '^  FAILED: |^FAIL ' "$log" | head -n 20; tail -n 20 "$log"; } | sed 's/^/    | /'
        failed=$((failed + 1))
    fi
}

run default
run thomas HETLA_BT=thomas
run cyclic HETLA_BT=cyclic
run twisted HETLA_BT=twisted
run emu1 HETLA_BT=cyclic HETLA_EMULATE_GPUS=1 HETLA_DEVICE_FORCE=1
run emu2-64K HETLA_BT=cyclic HETLA_EMULATE_GPUS=2 HETLA_DEVICE_FORCE=1 HETLA_EMULATE_GPU_MEM=64K

echo "bt-tests: $passed passed, $failed failed"
[ $failed -eq 0 ]
