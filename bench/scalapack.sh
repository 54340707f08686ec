#!/usr/bin/env bash
# The ScaLAPACK benchmark: hetla's pdpotrf/pdgetrf/pdgeqrf against reference ScaLAPACK
# (Debian libscalapack-openmpi) in one MPI program, interleaved, medians (bench/scalapack_driver.c).
#
#   bench/scalapack.sh                                   full run: np 2, grid 1x2, NB 64 and 128,
#                                                        N = 2000 4000 6000 8000, 3 samples each
#   SIZES="1000 2000" NBS="64" REPS=5 bench/scalapack.sh
#   ROUTINES="pdpotrf" bench/scalapack.sh
#   BENCH_SAVE=1 bench/scalapack.sh                      also copy the outputs to bench/results/
#
# Environment: SIZES, NBS, ROUTINES (space-separated), REPS, NP and GRID (PxQ; NP = P*Q),
# BENCH_SKIP_CARGO=1 to reuse target/release/libhetla.so. OpenBLAS runs single-threaded under
# both libraries (OPENBLAS_NUM_THREADS=1); hetla's worker threads keep their default (the node's
# cores divided by the ranks on the node) unless HETLA_NUM_THREADS is set by the caller.
#
# Writes bench/out/scalapack.csv, scalapack.md (with the path each hetla call took, from its
# HETLA_VERBOSE lines, kept in scalapack.log) and scalapack.png when matplotlib is there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SIZES=${SIZES:-"2000 4000 6000 8000"}
NBS=${NBS:-"64 128"}
ROUTINES=${ROUTINES:-"pdpotrf pdgetrf pdgeqrf"}
REPS=${REPS:-3}
GRID=${GRID:-1x2}
NP=${NP:-$((${GRID%x*} * ${GRID#*x}))}
OUT=bench/out
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

if [ "${BENCH_SKIP_CARGO:-0}" != 1 ]; then
    cargo build --release
fi
mkdir -p "$OUT"
rel="$ROOT/target/release"
mpicc -O2 -std=gnu11 -Wall -Wextra bench/scalapack_driver.c -L"$rel" -Wl,--no-as-needed \
    -Wl,-rpath,"$rel" -lhetla -lscalapack-openmpi -lm -ldl -o "$OUT/scalapack_driver"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
comma() { tr -s ' ' ',' <<<"$*" | sed 's/^,//; s/,$//'; }
env=(-x OPENBLAS_NUM_THREADS=1)
for v in $(compgen -e | grep '^HETLA_' | grep -v '^HETLA_VERBOSE$' || true); do env+=(-x "$v"); done
# Only rank 0 prints hetla's verbose lines (the path column), so no two ranks' lines interleave.
args=(--sizes "$(comma $SIZES)" --nbs "$(comma $NBS)" --routines "$(comma $ROUTINES)" --reps "$REPS"
    --grid "$GRID" --out "$OUT/scalapack.csv")
launch=(-np 1 "${env[@]}" -x HETLA_VERBOSE=1 "$OUT/scalapack_driver" "${args[@]}")
[ "$NP" -gt 1 ] && launch+=(: -np $((NP - 1)) "${env[@]}" -x HETLA_VERBOSE=0 "$OUT/scalapack_driver" "${args[@]}")
META="$OUT/scalapack.meta"
{
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "nproc=$(nproc)"
    echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src 2>/dev/null || echo +dirty)"
    echo "np=$NP grid=$GRID reps=$REPS OPENBLAS_NUM_THREADS=1"
    echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$META"
status=0
mpirun "${launch[@]}" 2> "$OUT/scalapack.log" || status=$?
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
