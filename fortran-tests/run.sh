#!/usr/bin/env bash
# fortran-tests/run.sh: a legacy FORTRAN 77 application calling hetla.
#
# legacy.f (fixed form, implicit interfaces, EXTERNAL, assumed-size arrays) is compiled with
# gfortran twice: relinked (-L target/release -lhetla ahead of -llapack, run with
# LD_LIBRARY_PATH) and plain (-llapack, run with LD_PRELOAD=target/release/libhetla.so). Both run
# with the tile path forced (HETLA_MIN_N=0, HETLA_NB=8 unless set) and HETLA_VERBOSE=1. A run
# passes when the program exits 0, printed a PASS line for each of its checks and no FAIL line,
# nothing panicked, and stderr shows hetla handled each routine (dpotrf with path=tiles).
#
# Then the README's demo program (demo/legacy_solver.f, built as demo/run.sh builds it) runs
# preloaded, twice: on tiles (mode demo-tiles: HETLA_MIN_N=0, HETLA_NB=32, HETLA_CACHE_DIR=off) and
# learning its break-even sizes from a fresh cache (mode demo-learning, N = 1000: its first calls
# are tile trials). Its STOP makes gfortran report the floating-point exceptions left signalling
# (`Note: The following floating-point exceptions are signalling: ...`); a run passes when that
# note is the one the same binary prints without hetla (none), its residuals are O(1) with INFO 0,
# and hetla's verbose lines show it was preloaded.
#
# Prints `[PASS] fortran <mode>` or `[FAIL] ...` and `fortran-tests: N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/.."

LIB=target/release/libhetla.so
BUILD=fortran-tests/build
FC=${FC:-gfortran}
FFLAGS=(-O1 -g -std=legacy -Wall -Wno-unused-dummy-argument -Werror -Wl,--no-as-needed)
EXPECT="dpotrf=tiles dposv dgetrf dgesv dgeqrf dgels zpotrf zpotrs cgetrf cgetrs sgeqrf sorgqr"
# With devices ZGEMM and SGEMM run on tiles (without, their exports jump to the backend silently).
[ "${HETLA_EMULATE_GPUS:-0}" != 0 ] && EXPECT="$EXPECT zgemm=tiles sgemm=tiles"
TIMEOUT=${FORTRAN_TIMEOUT:-300}
export HETLA_MIN_N=${HETLA_MIN_N:-0} HETLA_NB=${HETLA_NB:-8}

passed=0
failed=0
pass() { echo "[PASS] fortran $1"; passed=$((passed + 1)); }
fail() {
    echo "[FAIL] fortran $1: $2"
    [ -n "${3:-}" ] && [ -f "$3" ] && tail -n 30 "$3" | sed 's/^/    | /'
    failed=$((failed + 1))
}

if [ ! -f "$LIB" ]; then
    echo "fortran-tests: $LIB is missing; run cargo build --release first" >&2
    exit 1
fi
mkdir -p "$BUILD"

ok=1
"$FC" "${FFLAGS[@]}" fortran-tests/legacy.f -o "$BUILD/legacy-relink" -Ltarget/release -lhetla -llapack -lblas \
    >"$BUILD/cc-relink.log" 2>&1 || { fail relink "does not compile" "$BUILD/cc-relink.log"; ok=0; }
"$FC" "${FFLAGS[@]}" fortran-tests/legacy.f -o "$BUILD/legacy-plain" -llapack -lblas \
    >"$BUILD/cc-plain.log" 2>&1 || { fail preload "does not compile" "$BUILD/cc-plain.log"; ok=0; }

if [ $ok = 1 ]; then
    for mode in relink preload; do
        log="$BUILD/$mode.log"
        if [ $mode = relink ]; then
            env LD_LIBRARY_PATH="$PWD/target/release${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" HETLA_VERBOSE=1 \
                timeout "$TIMEOUT" "$BUILD/legacy-relink" >"$log" 2>"$log.err"
        else
            env LD_PRELOAD="$PWD/$LIB" HETLA_VERBOSE=1 timeout "$TIMEOUT" "$BUILD/legacy-plain" >"$log" 2>"$log.err"
        fi
        rc=$?
        cat "$log.err" >>"$log"
        why=""
        [ $rc -ne 0 ] && why="exit status $rc"
        grep -q '^ *FAIL ' "$log" && why="${why:+$why; }a check failed"
        [ "$(grep -c '^ *PASS ' "$log")" -lt 17 ] && why="${why:+$why; }fewer than 17 PASS lines"
        grep -qE "panicked at|panic caught at the library boundary" "$log.err" && why="${why:+$why; }the library panicked"
        for e in $EXPECT; do
            routine=${e%%=*}
            pattern="^hetla: $routine "
            [ "$e" != "$routine" ] && pattern="^hetla: $routine .*path=${e#*=}"
            grep -q "$pattern" "$log.err" || why="${why:+$why; }no HETLA_VERBOSE line for $e"
        done
        if [ -n "$why" ]; then
            # Show the panic itself when there was one, else the end of the output.
            grep -m 3 -A 1 -E "panicked at|panic caught at the library boundary" "$log.err" >"$log.panic" ||
                cp "$log" "$log.panic"
            fail $mode "$why" "$log.panic"
        else
            pass $mode
        fi
    done
fi

# The demo program: gfortran's IEEE note as without hetla.
DEMO_N=${DEMO_N:-1000}
if ! "$FC" -O2 demo/legacy_solver.f -o "$BUILD/legacy_solver" -llapack -lblas >"$BUILD/cc-demo.log" 2>&1; then
    fail demo "does not compile" "$BUILD/cc-demo.log"
else
    note() { grep -m 1 'floating-point exceptions are signalling' "$1" || echo "(no IEEE note)"; }
    env -u LD_PRELOAD timeout "$TIMEOUT" "$BUILD/legacy_solver" 300 >"$BUILD/demo-plain.log" 2>&1
    want=$(note "$BUILD/demo-plain.log")
    cache=$(mktemp -d)
    for mode in demo-tiles demo-learning; do
        log="$BUILD/$mode.log"
        if [ $mode = demo-tiles ]; then
            env LD_PRELOAD="$PWD/$LIB" HETLA_VERBOSE=1 HETLA_MIN_N=0 HETLA_NB=32 HETLA_CACHE_DIR=off \
                timeout "$TIMEOUT" "$BUILD/legacy_solver" 300 >"$log" 2>&1
        else
            env -u HETLA_MIN_N -u HETLA_NB LD_PRELOAD="$PWD/$LIB" HETLA_VERBOSE=1 HETLA_CACHE_DIR="$cache" \
                timeout "$TIMEOUT" "$BUILD/legacy_solver" "$DEMO_N" >"$log" 2>&1
        fi
        rc=$?
        why=""
        [ $rc -ne 0 ] && why="exit status $rc"
        got=$(note "$log")
        [ "$got" != "$want" ] && why="${why:+$why; }gfortran says '$got', without hetla '$want'"
        awk '$2 == "time=" && $1 != "TOTAL" && ($5 + 0 > 100 || $5 + 0 < 0 || $7 != 0) { bad = 1 } END { exit bad }' \
            "$log" || why="${why:+$why; }a residual or INFO is wrong"
        grep -q '^hetla: .*path=tiles' "$log" || why="${why:+$why; }no call ran on tiles"
        grep -qE "panicked at|panic caught at the library boundary" "$log" && why="${why:+$why; }the library panicked"
        if [ -n "$why" ]; then fail $mode "$why" "$log"; else pass $mode; fi
    done
    rm -rf "$cache"
fi

echo "fortran-tests: $passed passed, $failed failed"
[ $failed -eq 0 ]
