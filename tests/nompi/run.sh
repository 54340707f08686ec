#!/usr/bin/env bash
# tests/nompi/run.sh: a process that only calls LAPACK never loads MPI.
#
# 1. libhetla.so names no MPI library (readelf NEEDED).
# 2. A trap: a libmpi.so.40 whose constructor ends the process with status 42, first on the
#    library path. Control: a program linked against the trap does end with 42, so the trap
#    works. Then a LAPACK-only C program (ffi-tests/test_getrf.c: dgetrf_ forced onto tiles),
#    preloaded with libhetla and run with the trap first on the library path, must pass and
#    print hetla's verbose line for its call: libmpi was never loaded.
# Prints `[PASS] nompi <what>` / `[FAIL] ...` and `nompi: N passed, M failed`. Needs
# target/release/libhetla.so.
set -uo pipefail
cd "$(dirname "$0")/../.."
passed=0
failed=0
pass() { echo "[PASS] nompi $1"; passed=$((passed + 1)); }
fail() {
    echo "[FAIL] nompi $1: $2"
    [ -n "${3:-}" ] && [ -f "$3" ] && tail -n 20 "$3" | sed 's/^/    | /'
    failed=$((failed + 1))
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lib=$PWD/target/release/libhetla.so

needed=$(readelf -d "$lib" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')
if [[ "$needed" == *mpi* ]]; then fail "NEEDED" "libhetla.so needs: $needed"; else pass "NEEDED has no MPI ($needed)"; fi

mkdir -p "$tmp/trap"
cat >"$tmp/trap.c" <<'C'
#include <unistd.h>
__attribute__((constructor)) static void trap(void) { _exit(42); }
int MPI_Init(int *argc, char ***argv) { (void)argc; (void)argv; return 0; }
C
gcc -shared -fPIC -Wl,-soname,libmpi.so.40 -o "$tmp/trap/libmpi.so.40" "$tmp/trap.c"
ln -s libmpi.so.40 "$tmp/trap/libmpi.so"
cat >"$tmp/control.c" <<'C'
int MPI_Init(int *argc, char ***argv);
int main(int argc, char **argv) { return MPI_Init(&argc, &argv); }
C
gcc -o "$tmp/control" "$tmp/control.c" -L"$tmp/trap" -lmpi
LD_LIBRARY_PATH=$tmp/trap "$tmp/control"
rc=$?
if [ $rc -eq 42 ]; then pass "control: a program that loads the trap libmpi ends with 42"; else fail "control" "exit $rc, not 42 (the trap does not work)"; fi

# The compile line of ffi-tests/run.sh's preload build.
gcc -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude -Iffi-tests -rdynamic -pthread -Wl,--no-as-needed \
    ffi-tests/test_getrf.c -o "$tmp/test_getrf" -llapack -ldl -lm >"$tmp/cc.log" 2>&1 || fail "build test_getrf" "does not compile" "$tmp/cc.log"
LD_LIBRARY_PATH=$tmp/trap LD_PRELOAD=$lib HETLA_MIN_N=0 HETLA_NB=64 HETLA_VERBOSE=1 \
    timeout 300 "$tmp/test_getrf" >"$tmp/run.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^hetla: dgetrf .*path=tiles' "$tmp/run.log"; then
    pass "LAPACK-only program preloaded, trap libmpi on the path: runs on tiles, exit 0"
else
    fail "LAPACK-only program" "exit $rc (42: libmpi was loaded)" "$tmp/run.log"
fi
echo "nompi: $passed passed, $failed failed"
[ $failed -eq 0 ]
