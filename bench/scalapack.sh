#!/usr/bin/env bash
# The ScaLAPACK benchmark: hetla's pdpotrf/pdgetrf/pdgeqrf against reference ScaLAPACK
# (Debian libscalapack-openmpi) in one MPI program, interleaved, medians (bench/scalapack_driver.c),
# with each result as a share of the grid's DGEMM rate, measured between the samples of each row.
#
#   bench/scalapack.sh                          the sweep: N = 4000, caller NB 16, 32, 64 on a 1x2
#                                               grid and NB 32 on a 2x1 grid, 3 samples each
#   SWEEP="1x2:64,128 2x2:64" SIZES="4000 8000" bench/scalapack.sh
#   GRID=2x1 NBS="32 64" bench/scalapack.sh     one grid (SWEEP="GRID:NBS")
#   ROUTINES="pdpotrf" REPS=5 bench/scalapack.sh
#   ROUTINES="pdgetrs pdpotrs" NRHS=1 bench/scalapack.sh   the solves, from the reference's factors
#   ROUTINES=pdormqr COLS=1 bench/scalapack.sh  Q^T applied to C of N x COLS (default N x N)
#   ROUTINES="pspotrf pcgetrf pzgeqrf pzunmqr" SIZES=2500 bench/scalapack.sh   the other types: one
#                                               driver per type (scalapack_driver.c built with
#                                               -DTYPE_S/C/Z), ceiling the type's own GEMM
#   BENCH_SAVE=1 bench/scalapack.sh             also copy the outputs to bench/results/
#
# Environment: SWEEP (space-separated GRID:NB,NB,... entries; NP = P*Q ranks each), SIZES,
# ROUTINES, REPS, BENCH_WARM (untimed hetla calls per configuration, 250 ms apart, before its
# samples: hetla's break-even trials; default 10, 0 with HETLA_MIN_N or HETLA_CACHE_DIR=off; the
# cache starts empty unless HETLA_CACHE_DIR is set), BENCH_SKIP_CARGO=1 to reuse
# target/release/libhetla.so. OpenBLAS runs
# single-threaded under both libraries (OPENBLAS_NUM_THREADS=1); hetla's worker threads keep their
# default (the node's cores divided by the ranks on the node) unless HETLA_NUM_THREADS is set;
# every HETLA_* variable set by the caller is passed to the ranks.
#
# Writes bench/out/scalapack.csv, scalapack.md (with the path each hetla call took, from its
# HETLA_VERBOSE lines, kept in scalapack.log) and scalapack.png when matplotlib is there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SIZES=${SIZES:-4000}
ROUTINES=${ROUTINES:-"pdpotrf pdgetrf pdgeqrf"}
REPS=${REPS:-3}
if [ -n "${GRID:-}" ]; then
    SWEEP="$GRID:$(tr -s ' ' ',' <<<"${NBS:-64 128}")"
fi
SWEEP=${SWEEP:-"1x2:16,32,64 2x1:32"}
OUT=bench/out
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

if [ "${BENCH_SKIP_CARGO:-0}" != 1 ]; then
    cargo build --release
fi
mkdir -p "$OUT"
rel="$ROOT/target/release"
# One driver per type the routines name (the letter after the p).
letters=$(for r in $ROUTINES; do echo "${r:1:1}"; done | awk '!seen[$0]++')
for t in $letters; do
    case $t in s | d | c | z) ;; *) echo "bench: unknown type in ROUTINES: $t" >&2; exit 2 ;; esac
    mpicc -O2 -std=gnu11 -Wall -Wextra -DTYPE_${t^^} bench/scalapack_driver.c -L"$rel" -Wl,--no-as-needed \
        -Wl,-rpath,"$rel" -lhetla -lscalapack-openmpi -llapack -lblas -lm -ldl -o "$OUT/scalapack_driver_$t"
done

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
comma() { tr -s ' ' ',' <<<"$*" | sed 's/^,//; s/,$//'; }
# Break-even sizes are learned from an empty cache in each run (as bench/run.sh is run in
# docs/speed.md), unless the caller names a cache folder; the driver's warm-up calls are the trials.
if [ -z "${HETLA_CACHE_DIR:-}" ]; then
    HETLA_CACHE_DIR=$(mktemp -d)
    export HETLA_CACHE_DIR
    trap 'rm -rf "$HETLA_CACHE_DIR"' EXIT
fi
env=(-x OPENBLAS_NUM_THREADS=1)
[ -n "${BENCH_WARM:-}" ] && env+=(-x BENCH_WARM)
for v in $(compgen -e | grep '^HETLA_' | grep -v '^HETLA_VERBOSE$' || true); do env+=(-x "$v"); done
META="$OUT/scalapack.meta"
{
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "nproc=$(nproc)"
    echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src 2>/dev/null || echo +dirty)"
    # The kernels OpenBLAS chose (its autodetection picks generic Prescott kernels on some VMs;
    # OPENBLAS_CORETYPE, passed on to the ranks like every variable, overrides it for both
    # libraries).
    core=$(OPENBLAS_VERBOSE=2 "$PY" -c "import ctypes; ctypes.CDLL('libopenblas.so.0')" 2>&1 | sed -n 's/^Core: //p')
    echo "np=per grid sweep=$SWEEP reps=$REPS OPENBLAS_NUM_THREADS=1 OpenBLAS kernels ${core:-unknown}${OPENBLAS_CORETYPE:+ (OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE)}"
    echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$META"
status=0
: >"$OUT/scalapack.log"
rm -f "$OUT/scalapack.csv"
for entry in $SWEEP; do
    grid=${entry%%:*}
    nbs=${entry#*:}
    np=$((${grid%x*} * ${grid#*x}))
    for t in $letters; do
        mine=$(for r in $ROUTINES; do if [ "${r:1:1}" = "$t" ]; then echo "$r"; fi; done)
        drv="$OUT/scalapack_driver_$t"
        args=(--sizes "$(comma $SIZES)" --nbs "$nbs" --routines "$(comma $mine)" --reps "$REPS"
            --nrhs "${NRHS:-1}" --cols "${COLS:-0}" --grid "$grid" --out "$OUT/scalapack.part.csv")
        # Only rank 0 prints hetla's verbose lines (the path column), so no two ranks' lines interleave.
        launch=(-np 1 "${env[@]}" -x HETLA_VERBOSE=1 "$drv" "${args[@]}")
        [ "$np" -gt 1 ] && launch+=(: -np $((np - 1)) "${env[@]}" -x HETLA_VERBOSE=0 "$drv" "${args[@]}")
        mpirun --oversubscribe "${launch[@]}" 2>>"$OUT/scalapack.log" || status=$?
        if [ -f "$OUT/scalapack.csv" ]; then
            tail -n +2 "$OUT/scalapack.part.csv" >>"$OUT/scalapack.csv"
        else
            cp "$OUT/scalapack.part.csv" "$OUT/scalapack.csv"
        fi
    done
done
rm -f "$OUT/scalapack.part.csv"
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$META"
grep '^scalapack_driver:' "$OUT/scalapack.log" >&2 || true
"$PY" bench/scalapack_table.py "$OUT/scalapack.csv" --log "$OUT/scalapack.log" --meta "$META" \
    --md "$OUT/scalapack.md" --png "$OUT/scalapack.png"
cat "$OUT/scalapack.md"
if [ "${BENCH_SAVE:-0}" = 1 ]; then
    mkdir -p bench/results
    cp "$OUT/scalapack.csv" "$OUT/scalapack.md" bench/results/
    [ -f "$OUT/scalapack.png" ] && cp "$OUT/scalapack.png" bench/results/
    echo "bench: copied to bench/results/"
fi
if [ "$status" != 0 ]; then
    echo "bench: WARNING: the driver failed or reported failed checks (see $OUT/scalapack.log)" >&2
    exit "$status"
fi
