#!/usr/bin/env bash
# The benchmark: hetla against the process's own OpenBLAS, interleaved in one process.
#
#   bench/run.sh                         full run (all six routines, n = 64 ... 8000)
#   bench/run.sh --sizes 64,500,1000     any driver option passes through (driver --help)
#   BENCH_SAVE=1 bench/run.sh            also copy the outputs to bench/results/
#
# Writes bench/out/results.csv, results.md, plot.png and meta.txt. See bench/README.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bench/build.sh
unset HETLA_VERBOSE HETLA_TRACE
OUT=bench/out
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

META="$OUT/meta.txt"
{
    echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "nproc=$(nproc)"
    echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src 2>/dev/null || echo +dirty)"
    echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$META"

bench/out/driver --out "$OUT/results.csv" --meta "$OUT/meta.driver" "$@" || status=$?
cat "$OUT/meta.driver" >> "$META" && rm -f "$OUT/meta.driver"
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$META"

"$PY" bench/plot.py "$OUT/results.csv" --meta "$META" --md "$OUT/results.md" --png "$OUT/plot.png"
cat "$OUT/results.md"
echo "bench: wrote $OUT/results.csv, $OUT/results.md, $OUT/plot.png"

if [ "${BENCH_SAVE:-0}" = 1 ]; then
    mkdir -p bench/results
    cp "$OUT/results.csv" "$OUT/results.md" "$OUT/plot.png" bench/results/
    echo "bench: copied to bench/results/"
fi
if [ "${status:-0}" != 0 ]; then
    echo "bench: WARNING: the driver reported failed checks (see the check column)" >&2
    exit "$status"
fi
