#!/usr/bin/env python3
"""The ScaLAPACK benchmark's table and plot from scalapack_driver's CSV.

The path each hetla call took (tiles, or forward and why) comes from its HETLA_VERBOSE lines in
the run's log, matched on (routine, n, mb). Writes a Markdown table (with the targets at
N = 4000, NB = 64) and, when matplotlib is available, a PNG: time ratio against N per routine
and NB.
"""
import argparse
import csv
import re
from collections import defaultdict

TARGETS = {"pdpotrf": 3.0, "pdgetrf": 2.5, "pdgeqrf": 2.0}

ap = argparse.ArgumentParser()
ap.add_argument("csv")
ap.add_argument("--log")
ap.add_argument("--meta")
ap.add_argument("--md")
ap.add_argument("--png")
args = ap.parse_args()

rows = list(csv.DictReader(open(args.csv)))
paths = defaultdict(set)
if args.log:
    pat = re.compile(r"^hetla: (\w+) .*?\bn=(\d+) .*?\bmb=(\d+) .*?path=(\w+)(?: reason=(\S+))?")
    for line in open(args.log, errors="replace"):
        m = pat.match(line)
        if m:
            r, n, mb, p, why = m.groups()
            paths[(r, n, mb)].add(p + (f" ({why})" if why else ""))

def path_of(r):
    p = paths.get((r["routine"], r["n"], r["nb"]))
    return "/".join(sorted(p)) if p else "?"

meta = {}
if args.meta:
    for line in open(args.meta):
        if "=" in line:
            k, v = line.rstrip("\n").split("=", 1)
            meta[k] = v

out = []
out.append("# hetla against reference ScaLAPACK\n")
if meta:
    out.append(f"{meta.get('date', '?')}, {meta.get('cpu', '?')}, {meta.get('nproc', '?')} cores, "
               f"commit {meta.get('commit', '?')}; np={meta.get('np', '?')}; load "
               f"{meta.get('load_before', '?')} before, {meta.get('load_after', '?')} after.\n")
out.append("Times are medians of interleaved samples (slowest rank); speedup = reference / hetla.\n")
out.append("| routine | N | NB | grid | hetla path | hetla s | reference s | speedup | hetla GF/s | reference GF/s | check |")
out.append("|---|---:|---:|---|---|---:|---:|---:|---:|---:|---|")
for r in rows:
    out.append(f"| {r['routine']} | {r['n']} | {r['nb']} | {r['grid']} | {path_of(r)} | {float(r['hetla_s']):.3f} | "
               f"{float(r['ref_s']):.3f} | {float(r['speedup']):.2f}x | {r['hetla_gflops']} | {r['ref_gflops']} | "
               f"{r['check']} ({r['maxdiff']}) |")
out.append("")
out.append("Targets at N = 4000, NB = 64:")
out.append("")
for rt, t in TARGETS.items():
    hit = [r for r in rows if r["routine"] == rt and r["n"] == "4000" and r["nb"] == "64"]
    if hit:
        s = float(hit[0]["speedup"])
        out.append(f"- {rt}: {s:.2f}x (target {t}x, {'met' if s >= t else 'NOT met'}; path {path_of(hit[0])})")
    else:
        out.append(f"- {rt}: not measured (target {t}x)")
text = "\n".join(out) + "\n"
if args.md:
    open(args.md, "w").write(text)
else:
    print(text)

if args.png:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("scalapack_table: no matplotlib, no plot")
        raise SystemExit(0)
    routines = [rt for rt in TARGETS if any(r["routine"] == rt for r in rows)]
    fig, axes = plt.subplots(1, max(1, len(routines)), figsize=(5 * max(1, len(routines)), 4), squeeze=False)
    for ax, rt in zip(axes[0], routines):
        for nb in sorted({r["nb"] for r in rows if r["routine"] == rt}, key=int):
            pts = sorted((int(r["n"]), float(r["speedup"])) for r in rows if r["routine"] == rt and r["nb"] == nb)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"NB={nb}")
        ax.axhline(TARGETS[rt], color="red", ls="--", lw=1, label=f"target {TARGETS[rt]}x (N=4000, NB=64)")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_title(rt)
        ax.set_xlabel("N")
        ax.set_ylabel("speedup over reference ScaLAPACK")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)
