#!/usr/bin/env bash
# tests/bt/mpi.sh: the distributed block tridiagonal routines (pdbtsv_, pdbttrf_, pdbttrs_) from C
# under mpirun.
#
# tests/bt/test_pbt.c is compiled with mpicc against include/hetla.h and linked with -lhetla
# ahead of ScaLAPACK's BLACS; it compares every answer with hetla's serial dbttrf_/dbttrs_ in the
# same process (see its header for the checks). Runs: np 1, 2, 3, 4 on 1-D and 2-D grids in both
# BLACS orders (N = 1..41 over P, so that ranks hold several rows, one or none), a process left
# out of the grid, worker threads per rank 1 and 2, and 1 emulated accelerator per rank (ample
# memory, and 64K so that blocks are evicted), whose verbose lines must show device tasks; and an
# injected failure on one rank, which must end the job. Every
# run is under HETLA_VERBOSE=1 and must name the three routines. Prints [PASS]/[FAIL] per run;
# exits non-zero when any failed. Needs target/release/libhetla.so.
set -uo pipefail
cd "$(dirname "$0")/../.."

LIB=target/release/libhetla.so
BUILD=target/bt-tests
TIMEOUT=${BT_TIMEOUT:-300}
mkdir -p "$BUILD"
[ -f "$LIB" ] || { echo "tests/bt/mpi.sh: $LIB is missing; run cargo build --release first" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

passed=0
failed=0
if ! mpicc -std=gnu11 -O1 -g -Wall -Wextra -Werror -Iinclude -rdynamic tests/bt/test_pbt.c -o "$BUILD/test_pbt" \
    -L"$PWD/target/release" -Wl,-rpath,"$PWD/target/release" -lhetla -lscalapack-openmpi -lm \
    >"$BUILD/mpicc.log" 2>&1; then
    echo "[FAIL] pbt compile"
    sed 's/^/    | /' "$BUILD/mpicc.log" | tail -n 30
    exit 1
fi

# run NAME NP "ORDER NPROW NPCOL" [VAR=value ...]
run() {
    local name=$1 np=$2 grid=$3
    shift 3
    local log="$BUILD/pbt-$name.log" env=(-x HETLA_VERBOSE=1)
    for v in "$@"; do env+=(-x "$v"); done
    # shellcheck disable=SC2086 # the grid is three words
    if timeout "$TIMEOUT" mpirun --oversubscribe -np "$np" "${env[@]}" "$BUILD/test_pbt" $grid >"$log" 2>&1 &&
        grep -q '^test_pbt: .* 0 failures' "$log" &&
        grep -q '^hetla: pdbtsv ' "$log" && grep -q '^hetla: pdbttrf ' "$log" && grep -q '^hetla: pdbttrs ' "$log" &&
        ! grep -qE 'panicked at|panic caught' "$log" &&
        { [[ " $* " != *HETLA_EMULATE_GPUS* ]] || grep -q 'hetla: pdbt.*dev=emu.*tasks=[1-9]' "$log"; }; then
        echo "[PASS] pbt $name ($(grep '^test_pbt:' "$log"))"
        passed=$((passed + 1))
    else
        echo "[FAIL] pbt $name"
        { grep -E '^FAIL|^test_pbt' "$log" | head -n 20; tail -n 10 "$log"; } | sed 's/^/    | /'
        failed=$((failed + 1))
    fi
}

run np1 1 "R 1 1"
run np2-1x2 2 "R 1 2"
run np2-2x1-C 2 "C 2 1" HETLA_NUM_THREADS=2
run np3-1x3 3 "R 1 3"
run np4-2x2 4 "R 2 2"
run np4-2x2-C 4 "C 2 2"
run np4-4x1 4 "C 4 1" HETLA_NUM_THREADS=1
run np4-1x3-outside 4 "R 1 3"
run np2-emu1 2 "R 1 2" HETLA_EMULATE_GPUS=1 HETLA_DEVICE_FORCE=1
run np3-emu1-64K 3 "C 3 1" HETLA_EMULATE_GPUS=1 HETLA_DEVICE_FORCE=1 HETLA_EMULATE_GPU_MEM=64K

# An internal failure on one rank (HETLA_TEST_FAULT=1: rank 1's first task fails) ends the job with
# one clear line and a non-zero status, never a hang with rank 0 waiting for its blocks.
log="$BUILD/pbt-fault.log"
rc=0
timeout 60 mpirun --oversubscribe -np 2 -x HETLA_TEST_FAULT=1 "$BUILD/test_pbt" R 1 2 >"$log" 2>&1 || rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'hetla: pdbt.* failed on rank 1: injected fault' "$log"; then
    echo "[PASS] pbt fault-on-rank-1 (aborted, status $rc)"
    passed=$((passed + 1))
else
    echo "[FAIL] pbt fault-on-rank-1 (status $rc)"
    tail -n 10 "$log" | sed 's/^/    | /'
    failed=$((failed + 1))
fi

echo "pbt-tests: $passed passed, $failed failed"
[ $failed -eq 0 ]
