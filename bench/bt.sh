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
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
[ "${BENCH_SKIP_CARGO:-0}" = 1 ] || cargo build --release
mkdir -p bench/out
${CC:-gcc} -O2 -std=gnu11 -Wall -Wextra -Iinclude bench/bt.c -L"$ROOT/target/release" -Wl,--no-as-needed \
    -Wl,-rpath,"$ROOT/target/release" -lhetla -lm -ldl -o bench/out/bt
SIZES=${SIZES:-512x64,64x256}
ROUNDS=${ROUNDS:-2}
out=bench/out/bt.csv
: >"$out"
[ "${SERIAL:-1}" = 1 ] && for r in $(seq "$ROUNDS"); do
    for meth in ${METHODS:-cyclic twisted thomas auto}; do
        if [ $meth = auto ]; then env -u HETLA_BT bench/out/bt --sizes "$SIZES" --reps "${REPS:-5}" --nrhs "${NRHS:-1}"
        else HETLA_BT=$meth bench/out/bt --sizes "$SIZES" --reps "${REPS:-5}" --nrhs "${NRHS:-1}"; fi |
            sed -n "2,\$s/^/$meth,/p" >>"$out"
    done
done
[ "${SERIAL:-1}" = 1 ] && python3 - "$out" <<'PY'
import csv, statistics, sys
rows = {}
for r in csv.reader(open(sys.argv[1])):
    meth, n, m, nrhs = r[0], int(r[1]), int(r[2]), int(r[3])
    rows.setdefault((n, m, nrhs, meth), []).append([float(v) for v in r[4:]])
print("| N | M | NRHS | hetla elimination | DGBSV (OpenBLAS) | dbtsv | speedup | dbttrf | dbttrs | dbttrs/dbttrf |")
print("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
for (n, m, nrhs, meth), v in sorted(rows.items()):
    med = [statistics.median(c) for c in zip(*v)]
    g, b, f, s = med[0], med[1], med[2], med[3]
    sp = statistics.median([x[4] for x in v])
    ts = statistics.median([x[5] for x in v])
    print(f"| {n} | {m} | {nrhs} | {meth} | {g*1e3:.1f} ms | {b*1e3:.1f} ms | **{sp:.2f}x** | {f*1e3:.1f} ms | {s*1e3:.2f} ms | {ts:.3f} |")
PY

[ "${PBT:-1}" = 1 ] || exit 0
mpicc -O2 -std=gnu11 -Wall -Wextra -Iinclude bench/pbt.c -L"$ROOT/target/release" -Wl,-rpath,"$ROOT/target/release" \
    -lhetla -lscalapack-openmpi -lm -ldl -o bench/out/pbt
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
pout=bench/out/pbt.csv
: >"$pout"
for r in $(seq "$ROUNDS"); do
    mpirun --oversubscribe -np "${PBT_NP:-2}" -x OMP_NUM_THREADS=1 -x OPENBLAS_NUM_THREADS=1 -x HETLA_NUM_THREADS=1 \
        -x BENCH_BLAS_THREADS="${BENCH_BLAS_THREADS:-2}" bench/out/pbt --sizes "${PBT_SIZES:-512x64}" \
        --reps "${REPS:-5}" --nrhs "${NRHS:-1}" | sed -n '2,$p' >>"$pout"
done
python3 - "$pout" <<'PY'
import csv, statistics, sys
rows = {}
for r in csv.reader(open(sys.argv[1])):
    n, m, nrhs, np_ = int(r[0]), int(r[1]), int(r[2]), int(r[3])
    rows.setdefault((n, m, nrhs, np_), []).append([float(v) for v in r[4:]])
print()
print("| N | M | NRHS | ranks | DGBSV (OpenBLAS) | pdbtsv | speedup | pdbttrf | pdbttrs | pdbttrs/pdbttrf |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for (n, m, nrhs, np_), v in sorted(rows.items()):
    med = [statistics.median(c) for c in zip(*v)]
    g, b, f, s = med[0], med[1], med[2], med[3]
    sp = statistics.median([x[4] for x in v])
    print(f"| {n} | {m} | {nrhs} | {np_} | {g*1e3:.1f} ms | {b*1e3:.1f} ms | **{sp:.2f}x** | {f*1e3:.1f} ms | {s*1e3:.2f} ms | {s/f:.3f} |")
PY
