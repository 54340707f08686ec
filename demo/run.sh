#!/usr/bin/env bash
# The demo: an unmodified legacy Fortran program, compiled once against the system LAPACK, run
# twice: as it is, and with hetla preloaded. Nothing in the program or its build changes.
#
#   demo/run.sh [N]        (default N = 3000)
#
# Assumes the library is built (cargo build --release). Prints both runs' times and residuals
# side by side, then hetla's own per-call lines (HETLA_VERBOSE=1), which say which calls ran on
# tiles and which were handed to OpenBLAS.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
LIB="$ROOT/target/release/libhetla.so"
if [ ! -f "$LIB" ]; then
    echo "demo: $LIB not found; build it first: cargo build --release" >&2
    exit 1
fi
N="${1:-3000}"
B=demo/build
mkdir -p "$B"
${FC:-gfortran} -O2 demo/legacy_solver.f -o "$B/legacy_solver" -llapack -lblas

echo "demo: N=$N, $(nproc) cores; the same binary run twice"
echo "demo: 1) as built:          $B/legacy_solver $N"
"$B/legacy_solver" "$N" > "$B/plain.txt"
echo "demo: 2) with hetla:        LD_PRELOAD=target/release/libhetla.so HETLA_VERBOSE=1 $B/legacy_solver $N"
env -u HETLA_MIN_N -u HETLA_DISABLE LD_PRELOAD="$LIB" HETLA_VERBOSE=1 \
    "$B/legacy_solver" "$N" > "$B/hetla.txt" 2> "$B/hetla.err"

echo
awk '
    FNR == 1 { file++ }
    $2 == "time=" { name[$1] = 1; t[file, $1] = $3; r[file, $1] = $5; info[file, $1] = $7
                    if (file == 1) order[++k] = $1 }
    END {
        printf "%-7s %12s %12s %8s   %12s %12s   %s\n", "routine", "time plain", "time hetla",
               "speedup", "resid plain", "resid hetla", "info plain/hetla"
        for (i = 1; i <= k; i++) {
            s = order[i]; sp = (t[2, s] > 0) ? t[1, s] / t[2, s] : 0
            if (s == "TOTAL") { printf "%-7s %11.4fs %11.4fs %7.2fx\n", s, t[1, s], t[2, s], sp; continue }
            printf "%-7s %11.4fs %11.4fs %7.2fx   %12s %12s   %s/%s\n", s, t[1, s], t[2, s], sp,
                   r[1, s], r[2, s], info[1, s], info[2, s]
        }
    }' "$B/plain.txt" "$B/hetla.txt"
echo
echo "hetla's lines (stderr of run 2):"
sed 's/^/  /' "$B/hetla.err"
if ! grep -q '^hetla: ' "$B/hetla.err"; then
    echo "demo: hetla printed nothing: it was not preloaded" >&2
    exit 1
fi
# Residuals are O(1) for a correct result; fail loudly on a wrong answer.
awk '$2 == "time=" && $1 != "TOTAL" && ($5 + 0 > 100 || $5 + 0 < 0 || $7 != 0) { bad = 1 }
     END { exit bad }' "$B/plain.txt" "$B/hetla.txt" ||
    { echo "demo: a residual or INFO is wrong (see above)" >&2; exit 1; }
