#!/usr/bin/env bash
# Break-even of the tile path: for each routine, hetla forced onto tiles (HETLA_MIN_N=0) against
# OpenBLAS, interleaved, for small n; reports the smallest n from which hetla is at least as fast
# at that size and every larger one measured. That n is what src/config.rs `default_min_n` holds.
#
#   bench/breakeven.sh                           dpotrf, dgetrf, dgeqrf; n = 32 ... 512
#   BENCH_ROUTINES=dposv bench/breakeven.sh      other routines
#   BENCH_SIZES="64 128 256" BENCH_REPS=15 bench/breakeven.sh
#
# Writes bench/out/breakeven.csv (the driver's rows) and prints a summary. Rows whose path is not
# `tiles` have no break-even: the routine has no tile path (yet) or is disabled.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bench/build.sh
unset HETLA_VERBOSE HETLA_TRACE
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
export HETLA_MIN_N=0
CSV=bench/out/breakeven.csv
bench/out/driver --routines "${BENCH_ROUTINES:-dpotrf,dgetrf,dgeqrf}" \
    --sizes "${BENCH_SIZES:-32,64,96,128,192,256,384,512}" --reps "${BENCH_REPS:-9}" \
    --dgemm-n 0 --out "$CSV" "$@" || echo "breakeven: WARNING: some checks failed (see $CSV)" >&2
"$PY" - "$CSV" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault(r["routine"], []).append(r)
print("break-even with HETLA_MIN_N=0 (ratio = OpenBLAS time / hetla time, >= 1: hetla at least as fast)")
for routine, rs in by.items():
    rs.sort(key=lambda r: int(r["n"]))
    print(f"  {routine:7s} " + "  ".join(f"{r['n']}:{float(r['ratio']):.2f}" for r in rs))
    paths = {r["path"] for r in rs}
    if paths != {"tiles"}:
        print(f"  {routine:7s} -> no break-even: path {', '.join(sorted(paths))}")
        continue
    best = None
    for r in reversed(rs):
        if float(r["ratio"]) >= 1.0:
            best = int(r["n"])
        else:
            break
    if best is None:
        print(f"  {routine:7s} -> hetla slower at every measured n up to {rs[-1]['n']}")
    else:
        print(f"  {routine:7s} -> break-even n = {best}")
PY
