#!/usr/bin/env bash
# bench/speed_types.sh: the single and complex types' speed against the backend (OpenBLAS), every
# routine hetla runs in s, c and z, interleaved in one process (examples/speed_types.rs explains
# the problems, the sampling and the columns).
#
#   bench/speed_types.sh                                   s, c, z; n = 1500, 3000, 6000
#                                                          (complex 1000, 2000, 4000); 3 samples
#   bench/speed_types.sh --types z --routines geqrf --complex-sizes 1000
#   BENCH_SAVE=1 bench/speed_types.sh                      also copy the outputs to bench/results/
#
# hetla learns in a fresh cache folder of the run's own (HETLA_CACHE_DIR, unless one is set), so
# decisions learned earlier on a busy machine do not decide this run. Writes
# bench/out/speed-types.md (a header with date, machine, commit, command and load, then the
# table), speed-types.csv and, where matplotlib is installed, speed-types.png. Set
# BENCH_SKIP_CARGO=1 to reuse the built example.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[ "${BENCH_SKIP_CARGO:-0}" = 1 ] || cargo build --release --example speed_types
unset HETLA_VERBOSE HETLA_TRACE
mkdir -p bench/out
cache=${HETLA_CACHE_DIR:-$(mktemp -d)}
export HETLA_CACHE_DIR=$cache
OUT=bench/out/speed-types
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
target/release/examples/speed_types --out "$OUT.body.md" "$@" 2> bench/out/speed-types.log
{
    echo "# Single and complex types against the backend"
    echo
    echo "- command: \`bench/speed_types.sh $*\`"
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
    echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src examples 2>/dev/null || echo +dirty)"
    echo
    echo "Medians of interleaved samples; \`backend / hetla\` is the backend's time over hetla's (above 1:"
    echo "hetla is faster); \`% of ?gemm\`: hetla's rate over the backend's GEMM rate of the same type in"
    echo "this run; \`distance\`: hetla's output against the backend's, in units of ε·n."
    echo
    cat "$OUT.body.md"
} > "$OUT.md"
mv "$OUT.body.csv" "$OUT.csv"
rm -f "$OUT.body.md"
cat "$OUT.md"
if python3 -c 'import matplotlib' 2>/dev/null; then
    python3 bench/speed_types_plot.py "$OUT.csv" "$OUT.png"
fi
if [ "${BENCH_SAVE:-0}" = 1 ]; then
    mkdir -p bench/results
    cp "$OUT.md" "$OUT.csv" bench/results/
    [ -f "$OUT.png" ] && cp "$OUT.png" bench/results/
    echo "bench: copied to bench/results/"
fi
