#!/usr/bin/env bash
# tests/repeat/run.sh: identical calls return identical bits, with learning on, from an empty
# learning cache (src/api/tune.rs decides a class by trials on copies before its first answer).
#   repeat.c: every LAPACK routine hetla runs, 10 calls each on one input, preloaded, in each
#   of the four types (d, s, c, z: one program each):
#     1. on the host, fresh cache: every call as the first;
#     2. a second process on that cache: the first process's bits;
#     3. on 2 emulated accelerators (HETLA_EMULATE_GPUS=2), fresh cache: every call as the first;
#     4. the same with the NRRP update placement (HETLA_UPDATE_ALLOC=nrrp: uniform device tiles
#        owned by a pattern over the nodes' measured speeds);
#   prepeat.c: p?potrf, p?getrf, p?geqrf, 10 calls each, under mpirun (double on 1x2 and 2x2
#   grids, single and complex on 1x2):
#     5. fresh cache: every call as the first on every rank;
#     6. a second job on that cache: the first job's bits.
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
for t in d s c z; do
    gcc -std=c11 -O1 -Wall -Wextra -Werror -Iinclude -Iffi-tests -rdynamic -pthread -Wl,--no-as-needed \
        -DTYPE_${t^^} tests/repeat/repeat.c -o "$tmp/repeat-$t" -llapack -ldl -lm >"$tmp/cc-$t.log" 2>&1 ||
        fail build "repeat.c does not compile for type $t" "$tmp/cc-$t.log"
done
for t in d s c z; do
    mpicc -O1 -Wall -DTYPE_${t^^} -o "$tmp/prepeat-$t" tests/repeat/prepeat.c -lscalapack-openmpi -lm \
        >"$tmp/mpicc-$t.log" 2>&1 || fail build "prepeat.c does not compile for type $t" "$tmp/mpicc-$t.log"
done

# lapack TYPE NAME ENV...: repeat.c of TYPE preloaded; passes when every routine's calls agree.
lapack() {
    local t=$1 name=$2
    shift 2
    env -u HETLA_MIN_N LD_PRELOAD="$lib" HETLA_VERBOSE=1 "$@" timeout 600 "$tmp/repeat-$t" 10 >"$tmp/$name.log" 2>&1
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

for t in d s c z; do
    # The double runs keep their names (host, host-again, emu2); the others carry their type.
    sfx=$([ $t = d ] || echo "-$t")
    lapack $t host$sfx HETLA_CACHE_DIR="$tmp/cache-host$sfx"
    lapack $t host-again$sfx HETLA_CACHE_DIR="$tmp/cache-host$sfx"
    if [ -s "$tmp/host$sfx.bits" ] && cmp -s "$tmp/host$sfx.bits" "$tmp/host-again$sfx.bits" &&
        ! grep -q '^hetla: trial ' "$tmp/host-again$sfx.log"; then
        pass "$t: a second process on the same cache: no trial, the first process's bits"
    else
        fail "$t second process" "$(diff "$tmp/host$sfx.bits" "$tmp/host-again$sfx.bits" | head -5)" \
            "$tmp/host-again$sfx.log"
    fi
    lapack $t emu2$sfx HETLA_CACHE_DIR="$tmp/cache-emu$sfx" HETLA_EMULATE_GPUS=2
    lapack $t emu2-nrrp$sfx HETLA_CACHE_DIR="$tmp/cache-nrrp$sfx" HETLA_EMULATE_GPUS=2 HETLA_UPDATE_ALLOC=nrrp
done

# mpi NAME NP P Q ROUTINE: prepeat.c (of ROUTINE's type) under mpirun, preloaded.
mpi() {
    local name=$1 np=$2 p=$3 q=$4 routine=$5
    timeout 600 mpirun --oversubscribe -np "$np" -x LD_PRELOAD="$lib" -x HETLA_CACHE_DIR="$tmp/cache-$routine-$p$q" \
        -x HETLA_VERBOSE=1 "$tmp/prepeat-${routine:1:1}" "$routine" 800 32 "$p" "$q" 10 >"$tmp/$name.log" 2>&1
    local rc=$?
    sed -n 's/^bits=//p' "$tmp/$name.log" >"$tmp/$name.bits"
    if [ $rc -eq 0 ] && grep -q '^prepeat: 10 calls, 0 differ' "$tmp/$name.log"; then
        pass "$name: 10 calls, every call the first's bits on every rank"
    else
        fail "$name" "exit status $rc" "$tmp/$name.log"
    fi
}
# Double on a 1x2 and a 2x2 grid; the other types on 1x2 (the same generic code).
for g in "2 1 2 d s c z" "4 2 2 d"; do
    read -r np p q types <<<"$g"
    for t in $types; do
        for r in p${t}potrf p${t}getrf p${t}geqrf; do
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
done
echo "repeat: $passed passed, $failed failed"
[ $failed -eq 0 ]
