#!/usr/bin/env bash
# tests/valgrind/run.sh: valgrind memcheck of a C program (eight.c) that calls the eight LAPACK
# routines hetla runs, each once on tiles (HETLA_MIN_N=0, tiles of 8, 2 worker threads), relinked
# against target/release/libhetla.so. Passes when memcheck reports no error and nothing
# definitely lost, and the program saw every INFO = 0 and printed a hetla line for each routine.
# OpenBLAS is held to its AVX2 kernels (valgrind does not run AVX-512 code).
# Prints `[PASS] valgrind ...` or `[FAIL] ...` and `valgrind: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
verdict() {
    echo "[$1] valgrind eight.c: $2"
    [ "$1" = PASS ] && echo "valgrind: 1 passed, 0 failed" || echo "valgrind: 0 passed, 1 failed"
    [ "$1" = PASS ]
    exit $?
}
command -v valgrind >/dev/null || verdict FAIL "valgrind is not installed (Debian package valgrind)"
gcc -std=c11 -O1 -g -Iinclude tests/valgrind/eight.c -o "$tmp/eight" -Ltarget/release -lhetla -llapack -lm \
    >"$tmp/cc.log" 2>&1 || verdict FAIL "does not compile: $(head -c 300 "$tmp/cc.log")"
env LD_LIBRARY_PATH="$PWD/target/release" HETLA_MIN_N=0 HETLA_NB=8 HETLA_NUM_THREADS=2 HETLA_VERBOSE=1 \
    OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1 \
    timeout 900 valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite \
    --error-exitcode=99 "$tmp/eight" >"$tmp/out" 2>"$tmp/err"
rc=$?
errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$tmp/err" | tail -n 1)
lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$tmp/err" | tail -n 1)
lines=0
for r in dpotrf dpotrs dposv dgetrf dgetrs dgesv dgeqrf dgels; do
    grep -q "^hetla: $r .*path=tiles" "$tmp/err" && lines=$((lines + 1))
done
summary="exit $rc, ${errors:-?} errors, ${lost:-0} bytes definitely lost, $lines of 8 routines on tiles, $(cat "$tmp/out")"
if [ $rc -eq 0 ] && [ "${errors:-1}" = 0 ] && [ "${lost:-0}" = 0 ] && [ $lines = 8 ]; then
    verdict PASS "$summary"
fi
grep -m 20 -E "^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched| +at | +by )" "$tmp/err" | head -n 20 | sed 's/^/    | /'
verdict FAIL "$summary"
