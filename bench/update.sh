#!/usr/bin/env bash
# The trailing-update placement benchmark (issue 11): dpotrf, dgetrf and dgeqrf of order N (4096)
# through hetla (preloaded into bench/update_driver.c) on emulated accelerators of 1 GiB each
# beside the host (HETLA_NUM_THREADS=2): 3 of declared speeds 1,2,4 and 6 of 1,1,2,2,4,4, with
# HETLA_UPDATE_ALLOC=cyclic (the hybrid partition's columns, wide ones 1-D cyclic over the
# devices) and nrrp (uniform device tiles owned by a repeated pattern of NRRP zones), ROUNDS (3)
# rounds interleaved. Per run the second call of the process is kept (the first measures the
# host's rate and starts the workers); bytes into and out of the devices and the time come from
# its HETLA_VERBOSE line. The table has the medians per configuration, routine and placement.
# The emulated devices compute with the host's cores (they share the 2 cores with the host's
# workers, whatever speeds they declare), so the times say nothing about GPUs.
#
#   bench/update.sh                 BENCH_SAVE=1 also copies the outputs to bench/results/
#
# Writes bench/out/update.md (the table and the load averages) and bench/out/update.log.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
N=${N:-4096}
ROUNDS=${ROUNDS:-3}
ROUTINES=${ROUTINES:-"dpotrf dgetrf dgeqrf"}
CONFIGS=${CONFIGS:-"3:1,2,4 6:1,1,2,2,4,4"}
OUT=bench/out
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
[ "${BENCH_SKIP_CARGO:-0}" = 1 ] || cargo build --release
mkdir -p "$OUT"
LIB="$ROOT/target/release/libhetla.so"
gcc -O2 -std=gnu11 -Wall -Wextra bench/update_driver.c -o "$OUT/update_driver" -llapack -lblas
LOG="$OUT/update.log"
: >"$LOG"
echo "# date $(date -u '+%Y-%m-%d %H:%M UTC') commit $(git rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$LOG"
for round in $(seq "$ROUNDS"); do
    for config in $CONFIGS; do
        for routine in $ROUTINES; do
            for policy in cyclic nrrp; do
                echo "# config=$config routine=$routine policy=$policy round=$round load $(cut -d' ' -f1 /proc/loadavg)" >>"$LOG"
                env LD_PRELOAD="$LIB" HETLA_VERBOSE=1 HETLA_NUM_THREADS=2 HETLA_MIN_N=0 HETLA_CACHE_DIR=off \
                    HETLA_DEVICE_FORCE=1 HETLA_EMULATE_GPUS="${config%%:*}" HETLA_EMULATE_GPU_SPEED="${config#*:}" \
                    HETLA_EMULATE_GPU_MEM=1G HETLA_UPDATE_ALLOC="$policy" \
                    "$OUT/update_driver" "$routine" "$N" 2 2>&1 | grep -E "^hetla: $routine " | tail -n 1 >>"$LOG"
            done
            echo "update.sh: round $round $config $routine done"
        done
    done
done
echo "# end load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$LOG"
"$PY" - "$LOG" "$OUT/update.md" <<'PYEOF'
import re, statistics, sys
log, md = sys.argv[1:3]
runs, head, owners, loads = {}, [], {}, []
cur = None
for line in open(log):
    if line.startswith("# config="):
        m = re.match(r"# config=(\S+) routine=(\S+) policy=(\S+) round=\d+ load (\S+)", line)
        cur = (m.group(1), m.group(2), m.group(3))
        loads.append(float(m.group(4)))
    elif line.startswith("hetla: ") and cur:
        devs = re.findall(r"dev=(\w+):in=([\d.]+)(MB|KB),out=([\d.]+)(MB|KB)", line)
        mb = lambda v, u: float(v) * (1.0 if u == "MB" else 1e-3)
        t = float(re.search(r"time=([\d.]+)s", line).group(1))
        i, o = sum(mb(d[1], d[2]) for d in devs), sum(mb(d[3], d[4]) for d in devs)
        runs.setdefault(cur, []).append({"in": i, "out": o, "sum": i + o, "time": t})
        f = re.search(r"owners=(\S+)", line) or re.search(r"tiles=(\S+)", line)
        owners[cur] = f.group(0) if f else ""
    elif line.startswith("# date") or line.startswith("# end"):
        head.append(line.strip("# \n"))
out = ["# Trailing-update placement benchmark", "", "; ".join(head),
       f"load average (1 min) before each run: min {min(loads):.2f}, median {statistics.median(loads):.2f}, max {max(loads):.2f}" if loads else "", "",
       "| devices (declared speeds) | routine | placement | into devices (MB) | out of devices (MB) | in + out (MB) | time (s) | in+out vs cyclic | time vs cyclic | tiles / owners |",
       "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
for config in sorted({c for c, _, _ in runs}):
    for routine in ("dpotrf", "dgetrf", "dgeqrf"):
        base = runs.get((config, routine, "cyclic"))
        for policy in ("cyclic", "nrrp"):
            r = runs.get((config, routine, policy))
            if not r:
                continue
            med = lambda k, x=r: statistics.median(v[k] for v in x)
            rel = lambda k: med(k) / med(k, base) if base else float("nan")
            g, s = config.split(":")
            out.append(f"| {g} ({s.replace(',', ', ')}) | {routine} | {policy} | {med('in'):.1f} | {med('out'):.1f} | {med('sum'):.1f} | {med('time'):.3f} | {rel('sum'):.2f} | {rel('time'):.2f} | `{owners[(config, routine, policy)]}` |")
out += ["", f"Medians of {max(len(v) for v in runs.values())} runs each (n = {len(runs)} configurations)." if runs else ""]
open(md, "w").write("\n".join(out) + "\n")
print("\n".join(out))
PYEOF
if [ "${BENCH_SAVE:-0}" = 1 ]; then
    cp "$OUT/update.md" bench/results/update.md
    cp "$LOG" bench/results/update.log
fi
