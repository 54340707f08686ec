#!/usr/bin/env bash
# Tile-size sweep: each routine at n = 4000 with HETLA_NB = 128 192 256 320 384 (one process per
# tile size, since hetla reads HETLA_NB once), each against OpenBLAS interleaved in that process.
# The best nb is the one with the highest ratio (OpenBLAS time / hetla time): the ratio cancels
# most of the drift in machine load between the processes, which raw times do not.
#
#   bench/nbsweep.sh
#   BENCH_NBS="192 256" BENCH_SIZES=3000 BENCH_ROUTINES=dpotrf bench/nbsweep.sh
#
# Writes bench/out/nbsweep.csv (the driver's rows with the swept nb first) and prints a summary.
# src/config.rs `default_nb` holds the chosen values.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bench/build.sh
unset HETLA_VERBOSE HETLA_TRACE
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
CSV=bench/out/nbsweep.csv
rm -f "$CSV"
for nb in ${BENCH_NBS:-128 192 256 320 384}; do
    HETLA_NB=$nb bench/out/driver --routines "${BENCH_ROUTINES:-dpotrf,dgetrf,dgeqrf}" \
        --sizes "${BENCH_SIZES:-4000}" --reps "${BENCH_REPS:-3}" --dgemm-n 0 \
        --out bench/out/nbsweep.part "$@" || echo "nbsweep: WARNING: some checks failed (nb=$nb)" >&2
    if [ ! -s "$CSV" ]; then head -1 bench/out/nbsweep.part | sed 's/^/sweep_nb,/' > "$CSV"; fi
    tail -n +2 bench/out/nbsweep.part | sed "s/^/$nb,/" >> "$CSV"
done
rm -f bench/out/nbsweep.part
"$PY" - "$CSV" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault((r["routine"], r["n"]), []).append(r)
print("tile-size sweep (ratio = OpenBLAS time / hetla time; hetla median seconds)")
for (routine, n), rs in by.items():
    print(f"  {routine:7s} n={n}: " + "  ".join(
        f"nb={r['sweep_nb']}:{float(r['ratio']):.3f} ({float(r['hetla_median_s']):.3f}s)" for r in rs))
    if any(r["path"] != "tiles" for r in rs):
        print(f"  {routine:7s} -> not on tiles ({', '.join(sorted({r['path'] for r in rs}))}): nb has no effect")
        continue
    best = max(rs, key=lambda r: float(r["ratio"]))
    fastest = min(rs, key=lambda r: float(r["hetla_median_s"]))
    print(f"  {routine:7s} -> best nb by ratio {best['sweep_nb']}, by hetla time {fastest['sweep_nb']}")
PY
