#!/usr/bin/env bash
# hetla preloaded into programs linked with different BLAS/LAPACK backends, one call per process.
#
#   bench/backends.sh [--backends openblas,mkl,blis,flexiblas] [--routines dpotrf,dgetrf,...]
#                     [--sizes 3000,6000] [--reps 3]
#
# For each backend found on this machine, bench/onecall.c is linked with it; then for each routine
# and size: one untimed hetla run (the learner decides the size class and keeps it in a cache
# directory of this run's own), then REPS rounds of (the backend alone, hetla preloaded), each a
# fresh process making one call. Medians per side; the ratio is the backend's time over hetla's
# (above 1: hetla is faster); "slowest hetla" is the backend's median time over hetla's slowest
# process. hetla's path is read from its verbose line.
#
# Backends: openblas (-lopenblas), mkl (libmkl_rt from PyPI via scripts/mkl.sh, or MKL_LIB_DIR=dir),
# blis (BLIS with the reference LAPACK, Debian's libblis-pthread-dev and liblapack3), flexiblas (-lflexiblas, Debian's
# libflexiblas-dev). Missing ones are reported and skipped. Writes bench/out/backends.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
backends=openblas,mkl,blis,flexiblas
routines=dpotrf,dgetrf,dgesv,dgeqrf,dgels
sizes=3000,6000
reps=3
while [ $# -gt 0 ]; do
    case $1 in
    --backends) backends=$2; shift 2 ;;
    --routines) routines=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "backends.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ "${BENCH_SKIP_CARGO:-0}" = 1 ] || cargo build --release
LIB=$ROOT/target/release/libhetla.so
OUT=bench/out
mkdir -p "$OUT"

# link BACKEND: builds $OUT/onecall-BACKEND; prints the LD_LIBRARY_PATH it needs (may be empty).
link() {
    local b=$1 exe=$OUT/onecall-$1 cc=(${CC:-gcc} -O2 -std=gnu11 -o "$OUT/onecall-$1" bench/onecall.c)
    case $b in
    openblas) "${cc[@]}" -lopenblas -lm ;;
    mkl)
        local d
        d=$(bash scripts/mkl.sh) || return 1
        "${cc[@]}" -L"$d" -l:"$(basename "$(ls "$d"/libmkl_rt.so.* | head -1)")" -Wl,-rpath,"$d" -lm
        echo "$d"
        ;;
    blis)
        # BLIS ahead of the reference LAPACK, so that every BLAS name resolves to BLIS.
        local lapack=/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3
        [ -e "$lapack" ] || return 1
        "${cc[@]}" -Wl,--no-as-needed -lblis "$lapack" -Wl,-rpath,"$(dirname "$lapack")" -lm 2>/dev/null
        ;;
    flexiblas) "${cc[@]}" -lflexiblas -lm 2>/dev/null ;;
    *) return 1 ;;
    esac
    [ -x "$exe" ]
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

{
    echo "| backend | routine | n | backend GFLOP/s | hetla GFLOP/s | ratio | slowest hetla | hetla path |"
    echo "|---|---|---:|---:|---:|---:|---:|---|"
} >"$OUT/backends.md"
for b in ${backends//,/ }; do
    if ! libpath=$(link "$b"); then
        echo "backends.sh: $b not found on this machine, skipped" >&2
        continue
    fi
    exe=$OUT/onecall-$b
    quiet_openblas=
    [ "$b" = blis ] && quiet_openblas=1
    cache=$OUT/cache-$b
    rm -rf "$cache"
    mkdir -p "$cache"
    for n in ${sizes//,/ }; do
        for r in ${routines//,/ }; do
            # With BLIS the reference LAPACK also loads OpenBLAS (its libblas.so.3), whose idle
            # threads would spin beside both sides: one thread, as it does no work there.
            run() {
                env LD_LIBRARY_PATH="$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" HETLA_CACHE_DIR="$cache" \
                    ${quiet_openblas:+OPENBLAS_NUM_THREADS=1} "$@"
            }
            run env LD_PRELOAD="$LIB" "$exe" "$r" "$n" >/dev/null
            plain=() hetla=() path=
            for _ in $(seq "$reps"); do
                plain+=("$(run "$exe" "$r" "$n" | awk '{print $3}')")
                line=$(run env LD_PRELOAD="$LIB" HETLA_VERBOSE=1 "$exe" "$r" "$n" 2>"$OUT/onecall.err")
                hetla+=("$(echo "$line" | awk '{print $3}')")
                path=$(grep -o "^hetla: $r .*path=[a-z]*\( reason=[a-z-]*\)\?" "$OUT/onecall.err" | grep -o 'path=.*' | tail -1)
            done
            tp=$(printf '%s\n' "${plain[@]}" | median)
            th=$(printf '%s\n' "${hetla[@]}" | median)
            slowest=$(printf '%s\n' "${hetla[@]}" | sort -g | tail -1)
            flops=$(echo "$line" | awk '{print $3 * $4}')
            row=$(awk -v b="$b" -v r="$r" -v n="$n" -v tp="$tp" -v th="$th" -v ts="$slowest" -v f="$flops" -v p="$path" \
                'BEGIN {printf "| %s | %s | %d | %.1f | %.1f | %.2f | %.2f | %s |", b, r, n, f/tp, f/th, tp/th, tp/ts, p}')
            echo "$row" | tee -a "$OUT/backends.md"
        done
    done
done
echo "wrote $OUT/backends.md"
