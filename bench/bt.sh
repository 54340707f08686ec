#!/usr/bin/env bash
# bench/bt.sh: hetla's dbtsv/dbttrf/dbttrs against OpenBLAS's DGBSV (bench/bt.c), one table.
#
# For each elimination (HETLA_BT=cyclic, twisted, thomas, and the library's own choice) the driver runs
# once per round, rounds alternating them, each run timing DGBSV and hetla interleaved in
# one process; the table has per-size medians over rounds of each run's medians, and the ratios
# (speedup = DGBSV time / dbtsv time; trs/trf = dbttrs time / dbttrf time).
#   SIZES=512x64,64x256 NRHS=1 REPS=5 ROUNDS=2 BENCH_BLAS_THREADS=2 bench/bt.sh
#
# Then the distributed pdbtsv/pdbttrf/pdbttrs (bench/pbt.c) under mpirun -np PBT_NP (default 2)
# with one thread per rank (OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = HETLA_NUM_THREADS = 1),
# against DGBSV on rank 0 at BENCH_BLAS_THREADS (default 2) while the other ranks sleep, ROUNDS
# runs, a second table (speedup = DGBSV time / pdbtsv time, the median over rounds of each run's
# ratio of medians). SERIAL=0 skips the first table, PBT=0 the second; PBT_SIZES (default
# 512x64) the distributed sizes.
#
# Writes bench/out/bt.csv, pbt.csv, bt.md (both tables) and bt.png (the speedups, when matplotlib
# is there); BENCH_SAVE=1 also copies bt.md and bt.png to bench/results/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[ "${BENCH_SKIP_CARGO:-0}" = 1 ] || cargo build --release
mkdir -p bench/out
${CC:-gcc} -O2 -std=gnu11 -Wall -Wextra -Iinclude bench/bt.c -L"$ROOT/target/release" -Wl,--no-as-needed \
    -Wl,-rpath,"$ROOT/target/release" -lhetla -lm -ldl -o bench/out/bt
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
SIZES=${SIZES:-512x64,64x256}
ROUNDS=${ROUNDS:-2}
out=bench/out/bt.csv
pout=bench/out/pbt.csv
: >"$out"
: >"$pout"
rm -f bench/out/bt.png
[ "${SERIAL:-1}" = 1 ] && for r in $(seq "$ROUNDS"); do
    for meth in ${METHODS:-cyclic twisted thomas auto}; do
        if [ $meth = auto ]; then env -u HETLA_BT bench/out/bt --sizes "$SIZES" --reps "${REPS:-5}" --nrhs "${NRHS:-1}"
        else HETLA_BT=$meth bench/out/bt --sizes "$SIZES" --reps "${REPS:-5}" --nrhs "${NRHS:-1}"; fi |
            sed -n "2,\$s/^/$meth,/p" >>"$out"
    done
done

[ "${PBT:-1}" = 1 ] && {
mpicc -O2 -std=gnu11 -Wall -Wextra -Iinclude bench/pbt.c -L"$ROOT/target/release" -Wl,-rpath,"$ROOT/target/release" \
    -lhetla -lscalapack-openmpi -lm -ldl -o bench/out/pbt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for r in $(seq "$ROUNDS"); do
    mpirun --oversubscribe -np "${PBT_NP:-2}" -x OMP_NUM_THREADS=1 -x OPENBLAS_NUM_THREADS=1 -x HETLA_NUM_THREADS=1 \
        -x BENCH_BLAS_THREADS="${BENCH_BLAS_THREADS:-2}" bench/out/pbt --sizes "${PBT_SIZES:-512x64}" \
        --reps "${REPS:-5}" --nrhs "${NRHS:-1}" | sed -n '2,$p' >>"$pout"
done
}

# Both tables (medians over rounds of each run's medians) and the plot.
"$PY" - "$out" "$pout" bench/out/bt.md bench/out/bt.png <<'PY'
import csv, statistics, sys
serial, dist = {}, {}
for r in csv.reader(open(sys.argv[1])):
    serial.setdefault((int(r[1]), int(r[2]), int(r[3]), r[0]), []).append([float(v) for v in r[4:]])
for r in csv.reader(open(sys.argv[2])):
    dist.setdefault((int(r[0]), int(r[1]), int(r[2]), int(r[3])), []).append([float(v) for v in r[4:]])
lines, bars = [], []
if serial:
    lines += ["| N | M | NRHS | hetla elimination | DGBSV (OpenBLAS) | dbtsv | speedup | dbttrf | dbttrs | dbttrs/dbttrf |",
              "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for (n, m, nrhs, meth), v in sorted(serial.items()):
        g, b, f, s = [statistics.median(c) for c in zip(*v)][:4]
        sp = statistics.median([x[4] for x in v])
        ts = statistics.median([x[5] for x in v])
        lines.append(f"| {n} | {m} | {nrhs} | {meth} | {g*1e3:.1f} ms | {b*1e3:.1f} ms | **{sp:.2f}x** | {f*1e3:.1f} ms | {s*1e3:.2f} ms | {ts:.3f} |")
        bars.append((f"{n}x{m}\n{meth}", sp))
if dist:
    lines += ["", "| N | M | NRHS | ranks | DGBSV (OpenBLAS) | pdbtsv | speedup | pdbttrf | pdbttrs | pdbttrs/pdbttrf |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for (n, m, nrhs, np_), v in sorted(dist.items()):
        g, b, f, s = [statistics.median(c) for c in zip(*v)][:4]
        sp = statistics.median([x[4] for x in v])
        lines.append(f"| {n} | {m} | {nrhs} | {np_} | {g*1e3:.1f} ms | {b*1e3:.1f} ms | **{sp:.2f}x** | {f*1e3:.1f} ms | {s*1e3:.2f} ms | {s/f:.3f} |")
        bars.append((f"{n}x{m}\npdbtsv np {np_}", sp))
text = "\n".join(lines)
print(text)
open(sys.argv[3], "w").write(text + "\n")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib missing: no picture")
    sys.exit(0)
fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(bars)), 4))
ax.bar(range(len(bars)), [b[1] for b in bars], color="tab:blue")
ax.set_xticks(range(len(bars)), [b[0] for b in bars], fontsize=7)
ax.axhline(1.0, color="gray", lw=0.8)
ax.set_ylabel("speedup over DGBSV (OpenBLAS, 2 threads)")
ax.set_title("hetla block tridiagonal solve, NRHS = 1 (medians)")
fig.tight_layout()
fig.savefig(sys.argv[4], dpi=110)
PY
if [ "${BENCH_SAVE:-0}" = 1 ]; then
    mkdir -p bench/results
    cp bench/out/bt.md bench/results/bt.md
    if [ -f bench/out/bt.png ]; then cp bench/out/bt.png bench/results/bt.png; fi
fi
