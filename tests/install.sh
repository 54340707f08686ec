#!/usr/bin/env bash
# tests/install.sh: scripts/install.sh into a temporary prefix, then the installed library used
# the three ways the README shows: a C and a C++ program compiled and linked with
# `pkg-config --cflags --libs hetla` (run without LD_LIBRARY_PATH: the rpath finds the library),
# and a program linked with LAPACK only, run through `hetla-run`. Each run forces the tile path
# and must print hetla's verbose line for its call (proof that the installed library ran it).
# Prints `[PASS] install <what>` / `[FAIL] ...` and `install: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
pass() { echo "[PASS] install $1"; passed=$((passed + 1)); }
fail() {
    echo "[FAIL] install $1: $2"
    [ -n "${3:-}" ] && [ -f "$3" ] && tail -n 20 "$3" | sed 's/^/    | /'
    failed=$((failed + 1))
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
if bash scripts/install.sh --prefix "$prefix" >"$tmp/install.log" 2>&1; then
    pass "scripts/install.sh --prefix"
else
    fail "scripts/install.sh --prefix" "exit status $?" "$tmp/install.log"
    echo "install: $passed passed, $failed failed"
    exit 1
fi

lib=$prefix/lib/libhetla.so.0
soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
if [ "$soname" = libhetla.so.0 ] && [ "$(readlink "$prefix/lib/libhetla.so")" = libhetla.so.0 ] &&
    ! readelf -S "$lib" | grep -q '\.debug_info' && [ -f "$prefix/include/hetla.h" ] &&
    [ -x "$prefix/bin/hetla-run" ]; then
    pass "layout (SONAME libhetla.so.0, .so link, no debug info, header, hetla-run; $(du -h "$lib" | cut -f1))"
else
    fail "layout" "SONAME '$soname', link '$(readlink "$prefix/lib/libhetla.so")', files: $(cd "$prefix" && find . -type f -o -type l | tr '\n' ' ')"
fi

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs hetla) || fail "pkg-config" "hetla.pc not found"
run_env=(env -u LD_LIBRARY_PATH -u LD_PRELOAD HETLA_MIN_N=0 HETLA_NB=8 HETLA_VERBOSE=1)

# compile_and_run NAME COMPILER SOURCE ROUTINE: built against the installed header and library.
compile_and_run() {
    local name=$1 cc=$2 src=$3 routine=$4 exe=$tmp/$1
    # -rdynamic: the test programs define their own xerbla_, which the library must see.
    # shellcheck disable=SC2086 # pkg-config's output is a list of flags
    if ! $cc -O1 -rdynamic -Iffi-tests "$src" -o "$exe" $flags -llapack -lm -ldl -pthread >"$tmp/$name.cc" 2>&1; then
        fail "$name" "does not compile with pkg-config's flags" "$tmp/$name.cc"
        return
    fi
    if ! readelf -d "$exe" | grep -q 'NEEDED.*\[libhetla.so.0\]'; then
        fail "$name" "the program does not name libhetla.so.0"
        return
    fi
    "${run_env[@]}" timeout 120 "$exe" >"$tmp/$name.out" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
        fail "$name" "exit status $rc" "$tmp/$name.out"
    elif ! grep -q "^hetla: $routine .*path=tiles" "$tmp/$name.out"; then
        fail "$name" "no 'hetla: $routine ... path=tiles' line" "$tmp/$name.out"
    else
        pass "$name (pkg-config, rpath)"
    fi
}
compile_and_run c-relink "${CC:-gcc} -std=c11" ffi-tests/test_getrf.c dgetrf
compile_and_run cxx-relink "${CXX:-g++} -std=c++17" ffi-tests/test_cpp.cpp dpotrf

# A program linked with LAPACK only, preloaded by hetla-run.
if ! ${CC:-gcc} -std=c11 -O1 -Iinclude -Iffi-tests -rdynamic ffi-tests/test_potrf.c -o "$tmp/plain" -llapack -lm -ldl -pthread \
    >"$tmp/plain.cc" 2>&1; then
    fail "hetla-run" "the LAPACK-only program does not compile" "$tmp/plain.cc"
elif ! "${run_env[@]}" timeout 120 "$prefix/bin/hetla-run" "$tmp/plain" >"$tmp/plain.out" 2>&1; then
    fail "hetla-run" "the program failed" "$tmp/plain.out"
elif ! grep -q "^hetla: dpotrf .*path=tiles" "$tmp/plain.out"; then
    fail "hetla-run" "no 'hetla: dpotrf ... path=tiles' line" "$tmp/plain.out"
else
    pass "hetla-run (preloaded LAPACK-only program)"
fi

# The same under mpirun: the ranks inherit the preload.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if ! mpicc -O1 tests/mpi/pdpotrf_test.c -o "$tmp/pdpotrf_test" -lscalapack-openmpi -lm -ldl >"$tmp/mpi.cc" 2>&1; then
    fail "hetla-run mpirun" "the ScaLAPACK program does not compile" "$tmp/mpi.cc"
else
    "${run_env[@]}" HETLA_NB=3 timeout 300 "$prefix/bin/hetla-run" mpirun --oversubscribe -np 2 \
        "$tmp/pdpotrf_test" R 1 2 >"$tmp/mpi.out" 2>&1
    if ! grep -q "^pdpotrf_test:.* 0 failures" "$tmp/mpi.out"; then
        fail "hetla-run mpirun" "the test program did not pass" "$tmp/mpi.out"
    elif ! grep -q "hetla: pdpotrf .*path=tiles" "$tmp/mpi.out"; then
        fail "hetla-run mpirun" "no 'hetla: pdpotrf ... path=tiles' line" "$tmp/mpi.out"
    else
        pass "hetla-run mpirun -np 2 (preloaded ScaLAPACK program)"
    fi
fi

echo "install: $passed passed, $failed failed"
[ $failed -eq 0 ]
