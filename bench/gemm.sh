#!/usr/bin/env bash
# The DGEMM benchmark (issue 11): hetla's dgemm_ preloaded into bench/gemm_driver.c.
#
#   bench/gemm.sh                 both parts below
#   PARTS=alloc bench/gemm.sh     only the allocation table; PARTS=overhead only the wrapper's cost
#   BENCH_SAVE=1 bench/gemm.sh    also copy the outputs to bench/results/
#
# 1. Allocation (PARTS=alloc): C = A·B of order N (4096), BETA = 0, on emulated accelerators of
#    1 GiB each beside the host (HETLA_NUM_THREADS=2): 6 of declared speeds 1,1,2,2,4,4 and 3 of
#    1,2,4, with HETLA_GEMM_ALLOC=nrrp, cyclic and dynamic, ROUNDS rounds (2) interleaved; per
#    run the second call of the process is kept (the first one measures the host's rate and
#    starts the workers). Bytes into the devices (A and B: with BETA = 0 C is not read), bytes
#    out, steals, the allocation's half-perimeter sum and the time come from its HETLA_VERBOSE
#    line; the table has the median time and bytes per configuration and policy. The emulated
#    devices compute with the host's cores (they share the 2 cores with the host's workers), so
#    the times say nothing about GPUs: only the bytes are the allocation's figure of merit.
# 2. Overhead (PARTS=overhead): no device; per-call time of OpenBLAS's ?GEMM and of hetla's
#    export (which jumps to it) for each type of OVERHEAD_TYPES (d; "s d c z" for all four) at
#    n = 4, 8, 16, 32, 64, 256, 1024 (OVERHEAD_SIZES), SAMPLES (11)
#    interleaved samples of about 30 ms each, medians; ratio = hetla / OpenBLAS (1.00: no
#    overhead).
#
# Writes bench/out/gemm.md (tables, the machine's load average, the allocation pictures) and
# bench/out/gemm_alloc.png (which node owns which C tile) when matplotlib is there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
N=${N:-4096}
ROUNDS=${ROUNDS:-2}
SAMPLES=${SAMPLES:-11}
PARTS=${PARTS:-"alloc overhead"}
OUT=bench/out
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
[ "${BENCH_SKIP_CARGO:-0}" = 1 ] || cargo build --release
mkdir -p "$OUT"
LIB="$ROOT/target/release/libhetla.so"
gcc -O2 -std=gnu11 -Wall -Wextra bench/gemm_driver.c -o "$OUT/gemm_driver" -lblas -ldl
LOG="$OUT/gemm.log"
: >"$LOG"
echo "# date $(date -u '+%Y-%m-%d %H:%M UTC') commit $(git rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$LOG"

if [[ " $PARTS " == *" alloc "* ]]; then
    for round in $(seq "$ROUNDS"); do
        for config in "6:1,1,2,2,4,4" "3:1,2,4"; do
            for policy in nrrp cyclic dynamic; do
                echo "# config=$config policy=$policy round=$round load $(cut -d' ' -f1 /proc/loadavg)" >>"$LOG"
                env LD_PRELOAD="$LIB" HETLA_VERBOSE=1 HETLA_NUM_THREADS=2 HETLA_EMULATE_GPUS="${config%%:*}" \
                    HETLA_EMULATE_GPU_SPEED="${config#*:}" HETLA_EMULATE_GPU_MEM=1G HETLA_GEMM_ALLOC="$policy" \
                    "$OUT/gemm_driver" product "$N" 2 2>&1 | grep -E 'hetla: dgemm|^product' | tail -n 2 >>"$LOG"
                echo "gemm.sh: $config $policy round $round done"
            done
        done
    done
fi
if [[ " $PARTS " == *" overhead "* ]]; then
    for t in ${OVERHEAD_TYPES:-d}; do
        for n in ${OVERHEAD_SIZES:-4 8 16 32 64 256 1024}; do
            echo "# overhead ${t}gemm_ n=$n load $(cut -d' ' -f1 /proc/loadavg)" >>"$LOG"
            env LD_PRELOAD="$LIB" "$OUT/gemm_driver" overhead "$n" "$SAMPLES" "$t" >>"$LOG"
            echo "gemm.sh: overhead ${t}gemm_ n=$n done"
        done
    done
fi
echo "# end load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$LOG"
"$PY" - "$LOG" "$OUT/gemm.md" "$OUT/gemm_alloc.png" <<'PYEOF'
import re, statistics, sys
log, md, png = sys.argv[1:4]
runs, over, head, pics = {}, [], [], {}
cur = None
for line in open(log):
    if line.startswith("# config="):
        m = re.match(r"# config=(\S+) policy=(\S+) round=(\d+)", line)
        cur = (m.group(1), m.group(2))
    elif line.startswith("hetla: dgemm") and cur:
        f = dict(re.findall(r"(\w+)=(\S+)", line))
        devs = re.findall(r"dev=(\w+):in=([\d.]+)(MB|KB),out=([\d.]+)(MB|KB)", line)
        mb = lambda v, u: float(v) * (1.0 if u == "MB" else 1e-3)
        runs.setdefault(cur, []).append({
            "in": sum(mb(d[1], d[2]) for d in devs), "out": sum(mb(d[3], d[4]) for d in devs),
            "time": float(f["time"].rstrip("s")), "steals": int(f.get("steals", 0)),
            "hp": int(f.get("hp", 0)), "path": f.get("path")})
        if "owners" in f:
            pics[cur] = f["owners"].split("/")
    elif line.startswith("overhead"):
        over.append(dict(re.findall(r"(\w+)=(\S+)", line), line=line))
    elif line.startswith("# date") or line.startswith("# end"):
        head.append(line.strip("# \n"))
out = ["# DGEMM benchmark", "", "; ".join(head), ""]
if runs:
    out += ["| devices (declared speeds) | allocation | A,B into devices (MB) | C out (MB) | half-perimeters | steals | time (s) | in vs nrrp | time vs nrrp |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for config in sorted({c for c, _ in runs}, key=lambda c: -len(c)):
        base = runs.get((config, "nrrp"))
        for policy in ("nrrp", "cyclic", "dynamic"):
            r = runs.get((config, policy))
            if not r:
                continue
            med = lambda k: statistics.median(x[k] for x in r)
            rel = lambda k: med(k) / statistics.median(x[k] for x in base) if base else float("nan")
            g, s = config.split(":")
            out.append(f"| {g} ({s.replace(',', ', ')}) | {policy} | {med('in'):.1f} | {med('out'):.1f} | {int(med('hp'))} | {int(med('steals'))} | {med('time'):.2f} | {rel('in'):.2f} | {rel('time'):.2f} |")
    out += ["", f"Medians of {max(len(v) for v in runs.values())} runs each. Allocation pictures (rows of C tiles; `H` the host, `0`.. the devices in order):", ""]
    for key, rows in sorted(pics.items()):
        out += [f"{key[0]} {key[1]}:", "", "```"] + rows + ["```", ""]
if over:
    out += ["| routine | n | OpenBLAS per call | hetla per call | hetla / OpenBLAS |", "|---|---:|---:|---:|---:|"]
    for o in over:
        routine = re.match(r"overhead (\w+)", o["line"]).group(1)
        out.append(f"| {routine} | {o['n']} | {float(o['openblas_s']) * 1e6:.2f} µs | {float(o['hetla_s']) * 1e6:.2f} µs | {float(o['ratio']):.3f} |")
open(md, "w").write("\n".join(out) + "\n")
print("\n".join(out))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    keys = [k for k in sorted(pics) if k[1] in ("nrrp", "cyclic", "dynamic")]
    if keys:
        fig, axes = plt.subplots(1, len(keys), figsize=(2.6 * len(keys), 3.0))
        axes = axes if len(keys) > 1 else [axes]
        cmap = ListedColormap(plt.cm.tab10.colors)
        for ax, k in zip(axes, keys):
            rows = pics[k]
            grid = [[0 if ch == "H" else int(ch, 36) + 1 for ch in row] for row in rows]
            ax.imshow(grid, cmap=cmap, vmin=0, vmax=9)
            for i, row in enumerate(rows):
                for j, ch in enumerate(row):
                    ax.text(j, i, ch, ha="center", va="center", fontsize=7)
            ax.set_title(f"{k[0].split(':')[0]} dev ({k[0].split(':')[1]})\n{k[1]}", fontsize=8)
            ax.set_xticks([]); ax.set_yticks([])
        fig.tight_layout()
        fig.savefig(png, dpi=110)
        print("wrote", png)
except ImportError:
    print("matplotlib missing: no picture")
PYEOF
if [ "${BENCH_SAVE:-0}" = 1 ]; then
    cp "$OUT/gemm.md" bench/results/gemm.md
    [ -f "$OUT/gemm_alloc.png" ] && cp "$OUT/gemm_alloc.png" bench/results/gemm_alloc.png
    cp "$LOG" bench/results/gemm.log
fi
