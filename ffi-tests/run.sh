#!/usr/bin/env bash
# ffi-tests/run.sh: the C call sites of hetla.
#
# Every test_*.c (and test_*.cpp, with the C++ compiler) here is compiled twice against
# include/hetla.h:
#   relink   linked with -L target/release -lhetla ahead of -llapack, run with LD_LIBRARY_PATH;
#   preload  linked with plain -llapack only, run with LD_PRELOAD=target/release/libhetla.so;
# and run in both with the tile path forced (HETLA_MIN_N=0, HETLA_NB=8, unless already set) and
# HETLA_VERBOSE=1. A run passes when the program exits 0 within its time limit (it checks its
# own residuals and INFO values) and its stderr holds the `hetla: <routine>` lines that the
# program's `hetla-expect:` comment names (`routine=tiles` demands `path=tiles`), which proves
# the calls went through hetla and not straight to the system LAPACK.
# The preload build is also run once with no hetla at all (mode `reference`): the same checks
# must pass against OpenBLAS alone, and no `hetla:` line may appear; that validates the tests.
# A `hetla-env: VAR=value ...` comment adds settings to the relink and preload runs (test_rss.c
# uses the usual tile size: the forced HETLA_NB=8 would make its 200 calls of n = 1500 far too
# slow). A `hetla-reference-env: VAR=value ...` comment adds settings to the reference run only (test_fork.c
# needs OPENBLAS_NUM_THREADS=1 there: threaded OpenBLAS alone hangs when a process forks while
# another of its threads is inside a call, the very case hetla has to survive).
#
# Prints `[PASS] ffi <mode>/<program>` or `[FAIL] ...` per run and `ffi-tests: N passed, M failed`;
# exits non-zero when any failed. Needs target/release/libhetla.so (cargo build --release).
set -uo pipefail
cd "$(dirname "$0")/.."

LIB=target/release/libhetla.so
BUILD=ffi-tests/build
CC=${CC:-gcc}
# No --as-needed: a program that calls only hetla symbols still links liblapack, behind libhetla,
# as a real relinked application does.
CFLAGS=(-std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude -Iffi-tests -rdynamic -pthread -Wl,--no-as-needed)
CXX=${CXX:-g++}
CXXFLAGS=(-std=c++17 -O1 -g -Wall -Wextra -Werror -Iinclude -rdynamic -pthread -Wl,--no-as-needed)
LIBS=(-llapack -lblas -ldl -lm)
TIMEOUT=${FFI_TIMEOUT:-300}

export HETLA_MIN_N=${HETLA_MIN_N:-0} HETLA_NB=${HETLA_NB:-8} HETLA_NUM_THREADS=${HETLA_NUM_THREADS:-4}
# test_version.c compares hetla_version() with the crate's version.
FFI_EXPECT_VERSION=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
export FFI_EXPECT_VERSION

if [ ! -f "$LIB" ]; then
    echo "ffi-tests: $LIB is missing; run cargo build --release first" >&2
    exit 1
fi

passed=0
failed=0
pass() { echo "[PASS] ffi $1"; passed=$((passed + 1)); }
fail() {
    echo "[FAIL] ffi $1: $2"
    # The program's own failed checks (on stdout, ahead of its stderr in the log), the stacks of
    # a hung child (test_fork.c), then the tail.
    [ -n "${3:-}" ] && [ -f "$3" ] && { grep -E '^(  FAILED: |FAIL )' "$3" | head -n 20
        grep -E '^(test_fork: |Thread |#)' "$3" | head -n 120; tail -n 30 "$3"; } | sed 's/^/    | /'
    failed=$((failed + 1))
}

mkdir -p "$BUILD/relink" "$BUILD/preload" "$BUILD/logs"

for src in ffi-tests/test_*.c ffi-tests/test_*.cpp; do
    name=$(basename "${src%.*}")
    expect=$(sed -n 's/^.*hetla-expect:\(.*\)$/\1/p' "$src" | head -n 1)
    read -r -a hetlaenv <<<"$(sed -n 's/^.*hetla-env:\(.*\)$/\1/p' "$src" | head -n 1)"
    read -r -a refenv <<<"$(sed -n 's/^.*hetla-reference-env:\(.*\)$/\1/p' "$src" | head -n 1)"
    # C++ programs (test_*.cpp) go through the same steps with the C++ compiler.
    cc=("$CC" "${CFLAGS[@]}")
    [ "${src##*.}" = cpp ] && cc=("$CXX" "${CXXFLAGS[@]}")

    # Build both ways; a compile error fails both modes of this program.
    if ! "${cc[@]}" "$src" -o "$BUILD/relink/$name" -Ltarget/release -lhetla "${LIBS[@]}" \
        >"$BUILD/logs/$name.cc-relink" 2>&1; then
        fail "relink/$name" "does not compile" "$BUILD/logs/$name.cc-relink"
        continue
    fi
    if ! "${cc[@]}" "$src" -o "$BUILD/preload/$name" "${LIBS[@]}" >"$BUILD/logs/$name.cc-preload" 2>&1; then
        fail "preload/$name" "does not compile" "$BUILD/logs/$name.cc-preload"
        continue
    fi
    # The relinked binary must name libhetla before liblapack, so its symbols win.
    needed=$(readelf -d "$BUILD/relink/$name" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    case "$needed" in
    *libhetla.so*liblapack.so*) ;;
    *) fail "relink/$name" "libhetla is not linked ahead of liblapack (NEEDED: $needed)"; continue ;;
    esac

    for mode in relink preload reference; do
        log="$BUILD/logs/$name.$mode"
        case $mode in
        relink) env LD_LIBRARY_PATH="$PWD/target/release${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" HETLA_VERBOSE=1 "${hetlaenv[@]}" \
            timeout "$TIMEOUT" "$BUILD/relink/$name" >"$log" 2>"$log.err" ;;
        preload) env LD_PRELOAD="$PWD/$LIB" HETLA_VERBOSE=1 "${hetlaenv[@]}" \
            timeout "$TIMEOUT" "$BUILD/preload/$name" >"$log" 2>"$log.err" ;;
        reference) env -u LD_PRELOAD FFI_REFERENCE=1 "${refenv[@]}" timeout "$TIMEOUT" "$BUILD/preload/$name" >"$log" 2>"$log.err" ;;
        esac
        rc=$?
        cat "$log.err" >>"$log"
        if [ $rc -eq 124 ]; then
            fail "$mode/$name" "timed out after ${TIMEOUT}s" "$log"
            continue
        elif [ $rc -ne 0 ]; then
            fail "$mode/$name" "exit status $rc" "$log"
            continue
        fi
        missing=""
        # A panic anywhere in the library is a failure even when the program's checks passed
        # (a worker that died leaves the pool short, or the call's result was rescued by luck).
        if grep -qE "panicked at|panic caught at the library boundary" "$log.err"; then
            grep -m 3 -A 1 -E "panicked at|panic caught at the library boundary" "$log.err" >"$log.panic"
            fail "$mode/$name" "the library panicked" "$log.panic"
            continue
        fi
        if [ $mode = reference ]; then
            grep -q '^hetla: ' "$log.err" && missing="hetla ran in the reference mode"
        else
            for e in $expect; do
                routine=${e%%=*}
                if [ "$e" != "$routine" ]; then
                    grep -q "^hetla: $routine .*path=${e#*=}" "$log.err" || missing="$missing $routine(path=${e#*=})"
                else
                    grep -q "^hetla: $routine " "$log.err" || missing="$missing $routine"
                fi
            done
            [ -n "$missing" ] && missing="no HETLA_VERBOSE line for:$missing"
        fi
        if [ -n "$missing" ]; then
            fail "$mode/$name" "$missing" "$log"
        else
            pass "$mode/$name"
        fi
    done
done

echo "ffi-tests: $passed passed, $failed failed"
[ $failed -eq 0 ]
