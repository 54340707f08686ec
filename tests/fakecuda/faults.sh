#!/usr/bin/env bash
# tests/fakecuda/faults.sh DIR: hetla survives every CUDA error with the right answer (issue 16),
# on the fake CUDA built into DIR, with calls.c (dpotrf_, dgetrf_, dgeqrf_ through the preloaded
# libhetla.so, every tile call forced onto the fake GPUs, each result compared with OpenBLAS's:
# INFO, pivots, factors, tau).
#
#   faults   for each injection point (allocation, pinned allocation, each copy kind, memset,
#            stream and event synchronization, event record and wait, each cuBLAS routine, the
#            Cholesky's cuSOLVER calls), on 1 and 2 fake GPUs, FAKECUDA_FAIL=POINT:N (N = half of that
#            function's calls in a run without faults, so the failure comes mid-run) and
#            POINT:1+ (that call and all later ones fail): the program must exit 0 (every answer
#            equal to OpenBLAS's), the injection must have happened, no `fakecuda: violation`
#            and no panic; every `hetla: cudaK disabled: ...` line appears at most once, and at
#            least one does for the points whose failure is not an out-of-memory (those evict,
#            retry, or run on the host without disabling anything). Nothing leaks: the at-exit
#            report (FAKECUDA_REPORT=1) shows exactly the resources of L pooled stream sets
#            (device memory, pinned memory, streams and events, each L times what one set holds
#            in the run without faults), L at most the number of GPUs left in service.
#   solver   the same on 1 fake GPU with every call whole on the GPU's solver (HETLA_SOLVER=force):
#            the copies, the synchronization and each cuSOLVER call of DPOTRF, DGETRF and DGEQRF;
#            a solver call that fails before it wrote the caller's matrix is answered by the tiles
#            (on the host, the GPU disabled), so every answer must still equal OpenBLAS's.
#   context  the program with its own CUDA context (calls.c own-context): after every call, also
#            after injected failures, its context is current and its allocation usable.
#   memory   300 calls against 30 on an 8 MiB fake GPU: the at-exit report (FAKECUDA_REPORT=1)
#            shows the same live device memory, pinned memory, streams and events.
# The library under test is built here with debug assertions and overflow checks on (cargo
# profile `checked`, target/checked/libhetla.so), so a broken invariant on an error path fails.
# Prints [PASS]/[FAIL] lines and `fakecuda-faults: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
DIR=$(cd "${1:?usage: faults.sh DIR}" && pwd)
LIB=$PWD/target/checked/libhetla.so
OUT=target/fakecuda-faults
mkdir -p "$OUT"
passed=0
failed=0
pass() { echo "[PASS] fakecuda-faults $1"; passed=$((passed + 1)); }
fail() { echo "[FAIL] fakecuda-faults $1"; failed=$((failed + 1)); }
finish() {
    echo "fakecuda-faults: $passed passed, $failed failed"
    [ $failed -eq 0 ]
    exit
}
if ! cargo build --profile checked --lib >"$OUT/build.log" 2>&1; then
    fail "cargo build --profile checked failed:"
    tail -n 20 "$OUT/build.log" | sed 's/^/    | /'
    finish
fi
if ! gcc -std=gnu11 -O1 -Wall -Wextra -Werror -o "$OUT/calls" tests/fakecuda/calls.c -llapack -ldl -lm \
    >"$OUT/cc.log" 2>&1; then
    fail "calls.c does not compile:"
    sed 's/^/    | /' "$OUT/cc.log"
    finish
fi

# run NAME ARGS -- ENV...: calls.c under hetla on the fake; stdout+stderr in $OUT/NAME.log, exit
# status in $rc.
run() {
    local name=$1 args=()
    shift
    while [ "$1" != -- ]; do args+=("$1"); shift; done
    shift
    (env LD_PRELOAD="$LIB" LD_LIBRARY_PATH="$DIR" HETLA_GPUS=all HETLA_DEVICE_FORCE=1 HETLA_MIN_N=0 HETLA_NB=8 \
        HETLA_DEVICE_NB=16 HETLA_HOST_SHARE=0 "$@" timeout 120 "$OUT/calls" "${args[@]}" >"$OUT/$name.log" 2>&1
        exit $?) 2>/dev/null
    rc=$?
}

POINTS="cuMemAlloc_v2 cuMemHostAlloc cuMemcpyHtoDAsync_v2 cuMemcpyDtoHAsync_v2 cuMemcpy2DAsync_v2
cuMemsetD8Async cuStreamSynchronize cuEventSynchronize cuEventRecord cuStreamWaitEvent cublasDgemm_v2
cublasDsyrk_v2 cublasDtrsm_v2 cublasDtrmm_v2 cublasDgeam cublasDgemmBatched cusolverDnDpotrf_bufferSize
cusolverDnDpotrf"

# numbers LOG: the four counts of the at-exit report (device live, pinned live, streams, events).
numbers() {
    sed -n 's/^fakecuda: at exit: device live=\([0-9]*\) peak=[0-9]*, pinned live=\([0-9]*\), streams=\([0-9]*\), events=\([0-9]*\)$/\1 \2 \3 \4/p' "$1" | tail -n 1
}

# leaks LOG GPUS LEFT DRY: empty when the report of LOG is L stream sets' worth (L <= LEFT) of what
# one set holds in the run without faults on GPUS GPUs (the report of the run DRY); else why not.
leaks() {
    local got one l k
    got=($(numbers "$1"))
    one=($(numbers "$OUT/$4.log"))
    [ ${#got[@]} -eq 4 ] || { echo "no at-exit report"; return; }
    for l in $(seq 0 "$3"); do
        k=0
        for i in 0 1 2 3; do [ "${got[$i]}" -eq $((l * one[i] / $2)) ] && k=$((k + 1)); done
        [ $k -eq 4 ] && return
    done
    echo "resources left at exit (device, pinned, streams, events: ${got[*]}) are not those of at most $3 pooled stream sets (each: $((one[0] / $2)) $((one[1] / $2)) $((one[2] / $2)) $((one[3] / $2)))"
}

# inject TAG GPUS POINTS ENV...: a run without faults (dry$TAG), then each point of POINTS failing
# mid-run and from its first call on, every run with ENV.
inject() {
    local tag=$1 g=$2 points=$3
    shift 3
    run "dry$tag" 30 -- FAKECUDA_DEVICES=$g FAKECUDA_COUNTS=1 FAKECUDA_REPORT=1 "$@"
    if [ $rc -ne 0 ]; then
        fail "$tag: the run without faults fails (exit $rc)"
        tail -n 20 "$OUT/dry$tag.log" | sed 's/^/    | /'
        return
    fi
    counts=$(grep '^fakecuda: calls: .*cuInit=' "$OUT/dry$tag.log" | tail -n 1)
    for p in $points; do
        c=$(sed -n "s/.* $p=\([0-9]*\).*/\1/p" <<<"$counts")
        if [ -z "$c" ]; then
            fail "$tag $p: never called without faults; not an injection point of this run"
            continue
        fi
        for spec in "$p:$(((c + 1) / 2))" "$p:1+"; do
            name="$tag-${spec//[:+]/_}"
            run "$name" 30 -- FAKECUDA_DEVICES=$g FAKECUDA_FAIL="$spec" FAKECUDA_REPORT=1 "$@"
            log=$OUT/$name.log
            why=""
            [ $rc -eq 0 ] || why="exit status $rc (1: an answer differs from OpenBLAS's; 124: timeout)"
            grep -q "^fakecuda: injected: $p call" "$log" || why="${why:+$why; }no injection happened"
            grep -q '^fakecuda: violation' "$log" && why="${why:+$why; }$(grep -m1 '^fakecuda: violation' "$log")"
            grep -q 'panicked' "$log" && why="${why:+$why; }a panic: $(grep -m1 'panicked' "$log")"
            dup=$(grep '^hetla: cuda[0-9]* disabled' "$log" | sed 's/ disabled:.*//' | sort | uniq -d)
            [ -n "$dup" ] && why="${why:+$why; }a disabled line repeats ($dup)"
            lines=$(grep -c '^hetla: cuda[0-9]* disabled' "$log")
            case $p in
            cuMemAlloc_v2 | cuMemHostAlloc) ;;
            *) [ "$lines" -ge 1 ] || why="${why:+$why; }no 'hetla: cudaK disabled' line" ;;
            esac
            leak=$(leaks "$log" $g $((g - lines)) "dry$tag")
            [ -n "$leak" ] && why="${why:+$why; }$leak"
            if [ -z "$why" ]; then
                pass "$tag FAKECUDA_FAIL=$spec: answers equal OpenBLAS's; $(grep -m1 '^hetla: cuda[0-9]* disabled' "$log" || echo 'no device disabled')"
            else
                fail "$tag FAKECUDA_FAIL=$spec: $why"
                grep -v '^hetla: d' "$log" | tail -n 8 | sed 's/^/    | /'
            fi
        done
    done
}
for g in 1 2; do
    inject "gpus$g" $g "$POINTS"
done
inject solver 1 "cuMemAlloc_v2 cuMemcpyHtoDAsync_v2 cuMemcpyDtoHAsync_v2 cuMemcpy2DAsync_v2 cuStreamSynchronize
cuEventSynchronize cusolverDnDpotrf_bufferSize cusolverDnDpotrf cusolverDnDgetrf_bufferSize cusolverDnDgetrf
cusolverDnDgeqrf_bufferSize cusolverDnDgeqrf" HETLA_SOLVER=force

# The program's own context survives calls, also failing ones.
for spec in "" "cublasDgemm_v2:20" "cuMemcpyDtoHAsync_v2:1+" "cuStreamSynchronize:50"; do
    name="ctx-${spec//[:+]/_}"
    run "$name" 30 own-context -- FAKECUDA_DEVICES=1 FAKECUDA_FAIL="$spec"
    if [ $rc -eq 0 ] && grep -q 'own context kept' "$OUT/$name.log" && ! grep -q '^fakecuda: violation' "$OUT/$name.log"; then
        pass "context: own context current and its allocation usable after every call${spec:+ (FAKECUDA_FAIL=$spec)}"
    else
        fail "context${spec:+ (FAKECUDA_FAIL=$spec)}: exit $rc"
        grep -v '^hetla: d' "$OUT/$name.log" | tail -n 8 | sed 's/^/    | /'
    fi
done

# Bounded memory: 300 calls leave what 30 leave.
report() { grep '^fakecuda: at exit:' "$1" | sort -t= -k3 -n | tail -n 1 | sed 's/peak=[0-9]*, //'; }
run mem30 30 -- FAKECUDA_DEVICES=1 FAKECUDA_MEM=8M FAKECUDA_REPORT=1
r30=$(report "$OUT/mem30.log")
run mem300 300 -- FAKECUDA_DEVICES=1 FAKECUDA_MEM=8M FAKECUDA_REPORT=1
r300=$(report "$OUT/mem300.log")
if [ $rc -eq 0 ] && [ -n "$r30" ] && [ "$r30" = "$r300" ]; then
    pass "memory: 300 calls on an 8 MiB fake GPU leave what 30 leave ($r300)"
else
    fail "memory: after 30 calls '$r30', after 300 '$r300' (exit $rc)"
fi
finish
