#!/usr/bin/env bash
# tests/fakecuda/mpi.sh DIR: the distributed Cholesky (tests/mpi/pdpotrf_test.c, preloaded hetla)
# under `mpirun -np 2` with one fake GPU per rank (the fake libraries built into DIR), every tile
# call forced onto it: once with the fake GPUs taking every tile column and ample memory, once
# with 12K of device memory and half of the columns on the host (evictions, write-backs). Each
# run passes when the test reports 0 failures, both ranks ran tasks on cuda0, and the fake CUDA
# reported nothing. Then faults on rank 1 only (FAKECUDA_FAIL through a wrapper that reads
# OMPI_COMM_WORLD_RANK): within 60 s either every case is right (the device was out of service
# before the call, or an out-of-memory was survived by eviction) or the run ends with rank 1's
# line `hetla: pdpotrf failed on rank 1: ...; aborting`; never a hang, a violation or a wrong answer.
# Prints [PASS]/[FAIL] lines. Needs target/release/libhetla.so.
set -uo pipefail
cd "$(dirname "$0")/../.."
DIR=$(cd "${1:?usage: mpi.sh DIR}" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
if ! mpicc -O1 -o "$work/pdpotrf" tests/mpi/pdpotrf_test.c -lscalapack-openmpi -lm -ldl >"$work/cc.log" 2>&1; then
    echo "[FAIL] fakecuda-mpi: pdpotrf_test.c does not compile"
    sed 's/^/    | /' "$work/cc.log"
    exit 1
fi

# run NAME GRID... -- ENV...: one mpirun of pdpotrf_test on 2 ranks.
run() {
    local name=$1 grid=() env=()
    shift
    while [ "$1" != -- ]; do grid+=("$1"); shift; done
    shift
    for e in "$@"; do env+=(-x "$e"); done
    local out="$work/$name.out" t0=$(date +%s)
    timeout 300 mpirun --oversubscribe -np 2 -x LD_PRELOAD="$PWD/target/release/libhetla.so" \
        -x LD_LIBRARY_PATH="$DIR" -x FAKECUDA_DEVICES=1 -x HETLA_GPUS=all -x HETLA_DEVICE_FORCE=1 \
        -x HETLA_MIN_N=0 -x HETLA_NB=4 -x HETLA_VERBOSE=1 "${env[@]}" "$work/pdpotrf" "${grid[@]}" >"$out" 2>&1
    local rc=$? why=""
    grep -q '^pdpotrf_test: .* 0 failures' "$out" || why="no '0 failures' summary (exit $rc)"
    # Both ranks' verbose lines come through mpirun's output, each with its own rank's cuda0.
    local dev
    dev=$(grep -c 'hetla: pdpotrf .*dev=cuda0:[^ ]*tasks=[1-9]' "$out")
    [ "$dev" -ge 2 ] || why="${why:+$why; }only $dev pdpotrf calls ran tasks on cuda0"
    grep -q '^fakecuda: ' "$out" && why="${why:+$why; }the fake CUDA reported: $(grep -m1 '^fakecuda: ' "$out")"
    if [ -z "$why" ]; then
        echo "[PASS] fakecuda-mpi $name: $(grep '^pdpotrf_test:' "$out"), $dev calls with cuda0 tasks, $(grep -c 'evict=[1-9]' "$out") with evictions ($(($(date +%s) - t0))s)"
        passed=$((passed + 1))
    else
        echo "[FAIL] fakecuda-mpi $name: $why"
        tail -n 20 "$out" | sed 's/^/    | /'
        failed=$((failed + 1))
    fi
}

run ample R 1 2 -- HETLA_HOST_SHARE=0
run small C 2 1 -- HETLA_HOST_SHARE=0.5 FAKECUDA_MEM=12K
grep -q 'evict=[1-9]' "$work/small.out" || {
    echo "[FAIL] fakecuda-mpi small: no eviction with 12K of device memory"
    failed=$((failed + 1))
}

# fault NAME SPEC EXPECT: pdpotrf_test on a 1x2 grid with FAKECUDA_FAIL=SPEC on rank 1 only;
# EXPECT is `answer` (every case right, exit 0), `abort` (the abort line) or `either`.
printf '#!/bin/sh\n[ "$OMPI_COMM_WORLD_RANK" = 1 ] && export FAKECUDA_FAIL="$RANK1_FAIL"\nexec "$@"\n' >"$work/rank1"
chmod +x "$work/rank1"
fault() {
    local name=$1 spec=$2 expect=$3 out="$work/fault-$1.out" t0=$(date +%s)
    timeout 60 mpirun --oversubscribe -np 2 -x LD_PRELOAD="$PWD/target/release/libhetla.so" \
        -x LD_LIBRARY_PATH="$DIR" -x FAKECUDA_DEVICES=1 -x HETLA_GPUS=all -x HETLA_DEVICE_FORCE=1 \
        -x HETLA_MIN_N=0 -x HETLA_NB=4 -x HETLA_HOST_SHARE=0 -x RANK1_FAIL="$spec" \
        "$work/rank1" "$work/pdpotrf" R 1 2 >"$out" 2>&1
    local rc=$? why="" got=""
    if [ $rc -eq 0 ] && grep -q '^pdpotrf_test: .* 0 failures' "$out"; then
        got=answer
    elif grep -q '^hetla: pdpotrf failed on rank 1: .*; aborting$' "$out"; then
        got=abort
    fi
    [ $rc -eq 124 ] && why="no end within 60 s (a hang)"
    [ -z "$why" ] && [ -z "$got" ] && why="neither every answer right nor the abort line (exit $rc)"
    [ -n "$got" ] && [ "$expect" != either ] && [ "$got" != "$expect" ] && why="$got, expected $expect"
    grep -q "^fakecuda: injected: ${spec%%:*} call" "$out" || why="${why:+$why; }no injection happened"
    grep -q '^fakecuda: violation' "$out" && why="${why:+$why; }$(grep -m1 '^fakecuda: violation' "$out")"
    grep -q 'panicked' "$out" && why="${why:+$why; }a panic: $(grep -m1 'panicked' "$out")"
    if [ -z "$why" ]; then
        echo "[PASS] fakecuda-mpi fault $name (FAKECUDA_FAIL=$spec on rank 1): $got ($(($(date +%s) - t0))s)"
        passed=$((passed + 1))
    else
        echo "[FAIL] fakecuda-mpi fault $name (FAKECUDA_FAIL=$spec on rank 1): $why"
        grep -v '^hetla: pdpotrf ' "$out" | tail -n 12 | sed 's/^/    | /'
        failed=$((failed + 1))
    fi
}
fault kernel cublasDgemm_v2:20 either
fault copy-all cuMemcpyDtoHAsync_v2:1+ either
fault start-up cuMemsetD8Async:1 answer
fault out-of-memory cuMemAlloc_v2:40 answer
echo "fakecuda-mpi: $passed passed, $failed failed"
[ $failed -eq 0 ]
