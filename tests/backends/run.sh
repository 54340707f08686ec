#!/usr/bin/env bash
# tests/backends/run.sh: hetla preloaded into programs linked with OpenBLAS, BLIS (with the
# reference LAPACK) and Intel MKL. For each backend, tests/backends/threads.c runs
#   plain:  LD_PRELOAD=libhetla.so: hetla's verbose line names the backend's library and its
#           thread control, and the program's thread count (2) is its own after every call;
#   spy:    LD_PRELOAD="libhetla.so spy.so" (tests/backends/spy.c between hetla and the backend):
#           every BLAS kernel hetla's tiles call finds the backend at 1 thread;
#   learn:  the learner on (n = 500), one cache folder for all backends: each backend's decisions
#           go to a file of their own (the file's key names the backend's library).
# Tiled calls are forced (HETLA_MIN_N=0). MKL comes from PyPI into target/mkl-venv (scripts/mkl.sh;
# MKL_LIB_DIR=dir uses an MKL already there); a backend that cannot be had fails the run, unless
# BACKENDS_SKIP lists it (comma-separated), which is then reported.
# Needs target/release/libhetla.so.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
LIB=$ROOT/target/release/libhetla.so
B=target/backends
mkdir -p "$B"
rm -rf "$B/cache"
mkdir -p "$B/cache"
ran=0
passed=0
failed=0
pass() { echo "[PASS] backends $1"; passed=$((passed + 1)); }
fail() { echo "[FAIL] backends $1"; failed=$((failed + 1)); }
skipped() { [[ ",${BACKENDS_SKIP:-}," == *",$1,"* ]]; }

# flags BACKEND: the link flags for threads.c, or failure when the backend is not here.
flags() {
    case $1 in
    openblas) echo "-lopenblas" ;;
    blis)
        local lapack=/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3
        [ -e "$lapack" ] && [ -e /usr/lib/x86_64-linux-gnu/libblis.so ] || return 1
        # BLIS ahead of the reference LAPACK (found by its directory, not the alternatives link),
        # so that every BLAS name resolves to BLIS.
        echo "-Wl,--no-as-needed -lblis $lapack -Wl,-rpath,$(dirname "$lapack")"
        ;;
    mkl)
        local d
        d=$(bash scripts/mkl.sh) || return 1
        echo "-L$d -l:$(basename "$(ls "$d"/libmkl_rt.so.* | head -1)") -Wl,-rpath,$d"
        ;;
    esac
}

for b in openblas blis mkl; do
    if skipped "$b"; then
        echo "[SKIP] backends $b: in BACKENDS_SKIP"
        continue
    fi
    if ! f=$(flags "$b"); then
        fail "$b: not available (openblas: libopenblas-dev; blis: libblis-pthread-dev and liblapack3; mkl: scripts/mkl.sh, see target/mkl-venv.log)"
        continue
    fi
    B_UP=$(echo "$b" | tr a-z A-Z)
    # shellcheck disable=SC2086
    if ! gcc -O2 -Wall -Wextra -DBACKEND_"$B_UP" -o "$B/threads-$b" tests/backends/threads.c $f -lm -ldl ||
        ! gcc -O2 -fPIC -shared -fvisibility=hidden -Wall -Wextra -DBACKEND_"$B_UP" -o "$B/spy-$b.so" \
            tests/backends/spy.c -ldl; then
        fail "$b: build"
        continue
    fi
    # The reference LAPACK under BLIS also loads OpenBLAS (its libblas.so.3): one thread there,
    # as it does no work.
    common=(env HETLA_MIN_N=0 HETLA_CACHE_DIR=off HETLA_VERBOSE=1 OPENBLAS_NUM_THREADS=1)
    [ "$b" = openblas ] && common=(env HETLA_MIN_N=0 HETLA_CACHE_DIR=off HETLA_VERBOSE=1)
    case $b in
    openblas) lib=libopenblas ;;
    blis) lib=libblis ;;
    mkl) lib=libmkl_rt ;;
    esac
    "${common[@]}" LD_PRELOAD="$LIB" "$B/threads-$b" >"$B/$b.out" 2>"$B/$b.err"
    rc=$?
    if [ $rc = 0 ] && grep -q '^PASS' "$B/$b.out"; then
        pass "$b: results right, the program's thread count kept ($(grep -c '^ok' "$B/$b.out") checks)"
    else
        fail "$b: exit $rc"
        grep -v '^ok' "$B/$b.out" | sed 's/^/    | /'
    fi
    if grep -q "^hetla: backend .*/$lib[^/]* (thread control: $b)" "$B/$b.err"; then
        pass "$b: hetla forwards to $lib and sets its thread count"
    else
        fail "$b: hetla's verbose line does not name $lib and thread control $b:"
        grep '^hetla: backend' "$B/$b.err" | sed 's/^/    | /'
    fi
    "${common[@]}" LD_PRELOAD="$LIB $ROOT/$B/spy-$b.so" "$B/threads-$b" >"$B/$b-spy.out" 2>"$B/$b-spy.err"
    rc=$?
    if [ $rc = 0 ] && grep -q '^PASS' "$B/$b-spy.out"; then
        pass "$b: $(grep -h 'kernel calls' "$B/$b-spy.out" | sed 's/^ok //' | paste -sd ';' -)"
    else
        fail "$b: with the spy, exit $rc"
        grep -v '^ok' "$B/$b-spy.out" | sed 's/^/    | /'
    fi
    # The learner on (no HETLA_MIN_N), n = 500, one cache folder for every backend: each
    # backend's decisions go to a file of its own.
    before=$(ls "$B/cache" 2>/dev/null | wc -l)
    env HETLA_CACHE_DIR="$ROOT/$B/cache" OPENBLAS_NUM_THREADS=1 LD_PRELOAD="$LIB" "$B/threads-$b" 500 >"$B/$b-learn.out" 2>&1
    after=$(ls "$B/cache" 2>/dev/null | wc -l)
    if grep -q '^PASS' "$B/$b-learn.out" && [ "$after" = $((before + 1)) ]; then
        pass "$b: the learner's decisions in a file of this backend's own ($after files for $((++ran)) backends)"
    else
        fail "$b: learning under $b did not start a cache file of its own ($before files before, $after after)"
    fi
done
echo "backends: $passed passed, $failed failed"
[ $failed -eq 0 ]
