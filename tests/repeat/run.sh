#!/usr/bin/env bash
# tests/repeat/run.sh: identical calls return identical bits, with learning on, from an empty
# learning cache (src/api/tune.rs decides a class by trials on copies before its first answer).
#   repeat.c: every LAPACK routine hetla runs, 10 calls each on one input, preloaded:
#     1. on the host, fresh cache: every call as the first;
#     2. a second process on that cache: the first process's bits;
#     3. on 2 emulated accelerators (HETLA_EMULATE_GPUS=2), fresh cache: every call as the first;
#   prepeat.c: pdpotrf, pdgetrf, pdgeqrf, 10 calls each, under mpirun on 1x2 and 2x2 grids:
#     4. fresh cache: every call as the first on every rank;
#     5. a second job on that cache: the first job's bits.
# Prints [PASS]/[FAIL] lines and a count. Needs `cargo build --release` first.
set -uo pipefail
cd "$(dirname "$0")/../.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
passed=0
failed=0
pass() { echo "[PASS] repeat $1"; passed=$((passed + 1)); }
fail() {
    echo "[FAIL] repeat $1: $2"
    [ -n "${3:-}" ] && [ -f "$3" ] && grep -v '^hetla: ' "$3" | tail -n 20 | sed 's/^/    | /'
    failed=$((failed + 1))
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lib=$PWD/target/release/libhetla.so
gcc -std=c11 -O1 -Wall -Wextra -Werror -Iinclude -Iffi-tests -rdynamic -pthread -Wl,--no-as-needed \
    tests/repeat/repeat.c -o "$tmp/repeat" -llapack -ldl -lm >"$tmp/cc.log" 2>&1 || fail build "repeat.c does not compile" "$tmp/cc.log"
mpicc -O1 -Wall -o "$tmp/prepeat" tests/repeat/prepeat.c -lscalapack-openmpi -lm >"$tmp/mpicc.log" 2>&1 ||
    fail build "prepeat.c does not compile" "$tmp/mpicc.log"

# lapack NAME ENV...: repeat.c preloaded; passes when every routine's calls agree.
lapack() {
    local name=$1
    shift
    env -u HETLA_MIN_N LD_PRELOAD="$lib" HETLA_VERBOSE=1 "$@" timeout 600 "$tmp/repeat" 10 >"$tmp/$name.log" 2>&1
    local rc=$?
    grep '^repeat .* bits=' "$tmp/$name.log" >"$tmp/$name.bits"
    local trials
    trials=$(grep -c '^hetla: trial ' "$tmp/$name.log")
    if [ $rc -eq 0 ] && [ "$(wc -l <"$tmp/$name.bits")" -eq 13 ]; then
        pass "$name: 13 routines x 10 calls, every call the first's bits ($trials trial runs)"
    else
        fail "$name" "exit status $rc" "$tmp/$name.log"
    fi
}

lapack host HETLA_CACHE_DIR="$tmp/cache-host"
lapack host-again HETLA_CACHE_DIR="$tmp/cache-host"
if [ -s "$tmp/host.bits" ] && cmp -s "$tmp/host.bits" "$tmp/host-again.bits" &&
    ! grep -q '^hetla: trial ' "$tmp/host-again.log"; then
    pass "a second process on the same cache: no trial, the first process's bits"
else
    fail "second process" "$(diff "$tmp/host.bits" "$tmp/host-again.bits" | head -5)" "$tmp/host-again.log"
fi
lapack emu2 HETLA_CACHE_DIR="$tmp/cache-emu" HETLA_EMULATE_GPUS=2

# mpi NAME NP P Q ROUTINE: prepeat.c under mpirun, preloaded.
mpi() {
    local name=$1 np=$2 p=$3 q=$4 routine=$5
    timeout 600 mpirun --oversubscribe -np "$np" -x LD_PRELOAD="$lib" -x HETLA_CACHE_DIR="$tmp/cache-$routine-$p$q" \
        -x HETLA_VERBOSE=1 "$tmp/prepeat" "$routine" 800 32 "$p" "$q" 10 >"$tmp/$name.log" 2>&1
    local rc=$?
    sed -n 's/^bits=//p' "$tmp/$name.log" >"$tmp/$name.bits"
    if [ $rc -eq 0 ] && grep -q '^prepeat: 10 calls, 0 differ' "$tmp/$name.log"; then
        pass "$name: 10 calls, every call the first's bits on every rank"
    else
        fail "$name" "exit status $rc" "$tmp/$name.log"
    fi
}
for g in "2 1 2" "4 2 2"; do
    read -r np p q <<<"$g"
    for r in pdpotrf pdgetrf pdgeqrf; do
        mpi "$r-${p}x$q" "$np" "$p" "$q" "$r"
        mpi "$r-${p}x$q-again" "$np" "$p" "$q" "$r"
        if [ -s "$tmp/$r-${p}x$q.bits" ] && cmp -s "$tmp/$r-${p}x$q.bits" "$tmp/$r-${p}x$q-again.bits" &&
            ! grep -q '^hetla: trial ' "$tmp/$r-${p}x$q-again.log"; then
            pass "$r ${p}x$q: a second job on the same cache: no trial, the first job's bits"
        else
            fail "$r ${p}x$q second job" "bits $(cat "$tmp/$r-${p}x$q.bits") / $(cat "$tmp/$r-${p}x$q-again.bits")"
        fi
    done
done
echo "repeat: $passed passed, $failed failed"
[ $failed -eq 0 ]
