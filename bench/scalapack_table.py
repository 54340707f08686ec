#!/usr/bin/env python3
"""The ScaLAPACK benchmark's table and plot from scalapack_driver's CSV.

The path each hetla call took (tiles, or forward and why) comes from its HETLA_VERBOSE lines in
the run's log, matched on (routine, n, mb): the last `reps` of them, the timed samples (the
driver's warm-up calls, hetla's break-even trials, come before). Writes a Markdown table (with the targets at
N = 4000, NB = 64) and, when matplotlib is available, a PNG: time ratio against N per routine
and NB. Rows of any type (pd, ps, pc, pz): each row's ceiling is its own type's GEMM rate (older
CSVs name the columns dgemm_gflops and dgemm_near_gflops).
"""
import argparse
import csv
import re
from collections import defaultdict

# The targets: at least the reference's speed, and these shares of the grid's DGEMM rate (double
# real; the other types have the speed target only).
TARGET_SPEEDUP = 1.0
TARGET_SHARE = {"pdpotrf": 0.70, "pdgetrf": 0.65, "pdgeqrf": 0.60}

ap = argparse.ArgumentParser()
ap.add_argument("csv")
ap.add_argument("--log")
ap.add_argument("--meta")
ap.add_argument("--md")
ap.add_argument("--png")
args = ap.parse_args()

rows = list(csv.DictReader(open(args.csv)))
paths = defaultdict(list)
if args.log:
    pat = re.compile(r"^hetla: (\w+) .*?\bn=(\d+) .*?\bmb=(\d+) grid=(\d+x\d+) .*?path=(\w+)(?: reason=(\S+))?")
    for line in open(args.log, errors="replace"):
        m = pat.match(line)
        if m:
            r, n, mb, grid, p, why = m.groups()
            paths[(r, n, mb, grid)].append(p + (f" ({why})" if why else ""))

def path_of(r):
    p = paths.get((r["routine"], r["n"], r["nb"], r["grid"]))
    return "/".join(sorted(set(p[-int(r["reps"]):]))) if p else "?"

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
out.append("Times are medians of interleaved samples (slowest rank); speedup = reference / hetla; "
           "GEMM = the grid's GEMM rate in the row's type (DGEMM for pd rows, SGEMM, CGEMM, ZGEMM for "
           "ps, pc, pz: every rank one single-threaded GEMM of order 2000 at once, "
           "rates summed), best of one sample after each pair of timed samples of the row; % GEMM = "
           "share of that rate; % start = hetla's share of the rate measured once before the type's "
           "first row (best of 3). Complex flops count a multiply-add as 4 (LAPACK Working Note 41).\n")
out.append("| routine | N | NB | grid | hetla path | hetla s | reference s | speedup | hetla GF/s | reference GF/s "
           "| GEMM GF/s | hetla % GEMM | reference % GEMM | hetla % start | check |")
out.append("|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")

def col(r, key):
    """Column `key` (gemm_...), or its older name (dgemm_...)."""
    return r.get(key) or r.get("d" + key)

def ceiling(r):
    """The row's GEMM rate: the one measured between its samples (older CSVs: the run's)."""
    return float(col(r, "gemm_near_gflops") or col(r, "gemm_gflops") or 0)

def share(r, key, g=None):
    g = ceiling(r) if g is None else g
    return f"{100 * float(r[key]) / g:.0f}%" if g > 0 else "?"

for r in rows:
    start = float(col(r, "gemm_gflops") or 0)
    out.append(f"| {r['routine']} | {r['n']} | {r['nb']} | {r['grid']} | {path_of(r)} | {float(r['hetla_s']):.3f} | "
               f"{float(r['ref_s']):.3f} | {float(r['speedup']):.2f}x | {r['hetla_gflops']} | {r['ref_gflops']} | "
               f"{ceiling(r):.1f} | {share(r, 'hetla_gflops')} | {share(r, 'ref_gflops')} | "
               f"{share(r, 'hetla_gflops', start)} | {r['check']} ({r['maxdiff']}) |")
out.append("")
starts = {}
for r in rows:
    if col(r, "gemm_gflops"):
        starts.setdefault(r["routine"][1].upper(), float(col(r, "gemm_gflops")))
if starts:
    out.append("Grid GEMM rate before the type's first row: "
               + ", ".join(f"{t}GEMM {g:.1f} GFLOP/s" for t, g in starts.items()) + ".")
    out.append("")
out.append(f"Targets: speedup >= {TARGET_SPEEDUP:.1f}x everywhere; hetla's share of the DGEMM rate at least "
           + ", ".join(f"{int(100 * v)}% for {k}" for k, v in TARGET_SHARE.items()) + ".")
out.append("")
for r in rows:
    g = ceiling(r)
    sp = float(r["speedup"])
    sh = float(r["hetla_gflops"]) / g if g > 0 else 0.0
    ok = sp >= TARGET_SPEEDUP and sh >= TARGET_SHARE.get(r["routine"], 0.0)
    if not ok:
        out.append(f"- NOT met: {r['routine']} N={r['n']} NB={r['nb']} {r['grid']}: {sp:.2f}x, {100 * sh:.0f}% of GEMM")
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
    # The factorizations of every type in the run, in the order of their first rows.
    routines = list(dict.fromkeys(r["routine"] for r in rows if r["routine"][2:] in ("potrf", "getrf", "geqrf")))
    # Three panels a row (one row per type when every type's three factorizations ran).
    cols = min(3, max(1, len(routines)))
    nrows = max(1, -(-len(routines) // cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(5 * cols, 4 * nrows), squeeze=False)
    for ax in axes.flat[len(routines):]:
        ax.axis("off")
    for ax, rt in zip(axes.flat, routines):
        sel = [r for r in rows if r["routine"] == rt]
        labels = [f"N={r['n']}\n{r['grid']} NB={r['nb']}" for r in sel]
        g = [ceiling(r) or 1.0 for r in sel]
        x = list(range(len(sel)))
        hs = [100 * float(r["hetla_gflops"]) / gg for r, gg in zip(sel, g)]
        rs = [100 * float(r["ref_gflops"]) / gg for r, gg in zip(sel, g)]
        ax.bar([i - 0.2 for i in x], hs, 0.4, label="hetla")
        ax.bar([i + 0.2 for i in x], rs, 0.4, label="reference ScaLAPACK")
        for i, r in zip(x, sel):
            ax.text(i, max(hs[i], rs[i]) + 2, f"{float(r['speedup']):.2f}x", ha="center", fontsize=8)
        if rt in TARGET_SHARE:
            ax.axhline(100 * TARGET_SHARE[rt], color="red", ls="--", lw=1, label=f"target {int(100 * TARGET_SHARE[rt])}%")
        ax.set_xticks(x)
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylim(0, 110)
        ax.set_title(f"{rt} (label: speedup)")
        ax.set_ylabel(f"% of the grid's {rt[1].upper()}GEMM rate")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)
