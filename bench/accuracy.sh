#!/usr/bin/env bash
# bench/accuracy.sh: accuracy against the reference on the same input, every routine hetla runs on
# tiles and every input class, one Markdown table (bench/README.md, "Accuracy").
#
#   bench/accuracy.sh                                  n = 1000, 3 seeds, everything
#   bench/accuracy.sh --sizes 500,3000 --seeds 1       any option of examples/accuracy.rs
#   bench/accuracy.sh --routines dgetri,dtrtri --classes well,cond,graded
#   bench/accuracy.sh --routines dpotrf,dgetrf --types all     also in S, C, Z (those it covers)
#   BENCH_SAVE=1 bench/accuracy.sh                     also copy the table to bench/results/
#
# Builds examples/accuracy.rs (the unit tests' harness, src/accuracy/), runs it with
# HETLA_VERBOSE unset, and writes bench/out/accuracy.md: a header (date, machine, commit, the
# command, the load average before and after) and the table; progress goes to
# bench/out/accuracy.log. The references are the OpenBLAS the program finds (it links no LAPACK:
# hetla's backend lookup opens libopenblas.so.0, whose LAPACK calls its own routines) and netlib's
# reference LAPACK over netlib's BLAS (Debian's liblapack3 and libblas3, opened in a namespace of
# their own: src/backend/reference.rs); the build needs the netlib-reference feature for that.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[ "${BENCH_SKIP_CARGO:-0}" = 1 ] || cargo build --release --example accuracy --features netlib-reference
unset HETLA_VERBOSE HETLA_TRACE
OUT=bench/out
mkdir -p "$OUT"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date -u '+%Y-%m-%d %H:%M UTC')
target/release/examples/accuracy "$@" --out "$OUT/accuracy.table.md" 2> >(tee "$OUT/accuracy.log" >&2)
{
    echo "# Accuracy against the reference on the same input"
    echo
    echo "- command: \`bench/accuracy.sh $*\`"
    echo "- started: $start; load average before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
    echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- src examples 2>/dev/null || echo +dirty)"
    echo "- $(tail -n 1 "$OUT/accuracy.log")"
    echo
    echo "Measures in units of the unit roundoff ε times their scale (src/accuracy/mod.rs); \`reference\`"
    echo "(the backend's), \`2nd reference\` (netlib's reference LAPACK and BLAS), \`hetla\`, \`floor\`: medians"
    echo "over the seeds; ratio = hetla / max(reference, 2nd reference, floor); the rule:"
    echo "ratio median ≤ 2 and every ratio ≤ 4 (CALU: 4 and 4 against GEPP), the same INFO, NaN exactly"
    echo "where the reference's output has NaN."
    echo
    cat "$OUT/accuracy.table.md"
} >"$OUT/accuracy.md"
rm -f "$OUT/accuracy.table.md"
echo "bench: wrote $OUT/accuracy.md"
if [ "${BENCH_SAVE:-0}" = 1 ]; then
    mkdir -p bench/results
    cp "$OUT/accuracy.md" bench/results/accuracy.md
    echo "bench: copied to bench/results/accuracy.md"
fi
