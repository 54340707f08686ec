#!/usr/bin/env bash
# How close hetla-sim's predictions are to measured times on this machine.
#
#   bench/sim_accuracy.sh            calibrate, then measure and predict each case below
#   BENCH_SKIP_CARGO=1 bench/sim_accuracy.sh   reuse target/release (libhetla.so, hetla-sim)
#
# Cases: dpotrf n=4000 with 2 threads (bench/out/driver, median of 5), pdpotrf N=4000 on a 1×2
# grid with the caller's NB=64 under mpirun -np 2 (bench/scalapack.sh, median of 3). Each is
# predicted by hetla-sim from the calibration it makes first (bench/out/machine.json).
# Writes bench/out/sim_accuracy.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bash bench/build.sh >/dev/null
SIM=target/release/hetla-sim
OUT=bench/out
$SIM calibrate --out $OUT/machine.json

predict() { "$SIM" "$@" --machine $OUT/machine.json | sed -n 's/.*predicted_time=\([0-9.e+-]*\) s.*/\1/p'; }

rows=()
# dpotrf, 2 threads.
meas=$(HETLA_NUM_THREADS=2 bench/out/driver --routines dpotrf --sizes 4000 --reps 5 --dgemm-n 0 2>/dev/null |
    awk -F, 'NR > 1 { print $7 }')
pred=$(predict dpotrf --n 4000 --cores 2)
rows+=("dpotrf n=4000, 2 threads|$meas|$pred")

# pdpotrf, np 2, 1x2 grid, caller NB 64: one worker per rank (2 cores, 2 ranks).
SIZES=4000 NBS=64 ROUTINES=pdpotrf REPS=3 BENCH_SKIP_CARGO=1 bash bench/scalapack.sh >/dev/null 2>&1
meas=$(awk -F, '$1 == "pdpotrf" && $2 == 4000 { print $6 }' $OUT/scalapack.csv)
pred=$(predict pdpotrf --n 4000 --grid 1x2 --user-nb 64 --cores 1)
rows+=("pdpotrf N=4000, 1x2 grid, NB=64, np 2|$meas|$pred")

{
    echo "| case | measured s | predicted s | predicted / measured |"
    echo "|---|---:|---:|---:|"
    for r in "${rows[@]}"; do
        IFS='|' read -r name m p <<<"$r"
        awk -v n="$name" -v m="$m" -v p="$p" 'BEGIN { printf "| %s | %.4f | %.4f | %.2f |\n", n, m, p, p / m }'
    done
    echo
    echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') x $(nproc); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
} | tee $OUT/sim_accuracy.md
