#!/usr/bin/env python3
"""Turns the driver's CSV into a Markdown table and a PNG plot.

usage: plot.py results.csv [--md results.md] [--png plot.png] [--meta meta.txt]

The plot has one panel per routine (GFLOP/s against n, hetla and OpenBLAS, with the two-core
DGEMM rate as a dashed ceiling) and one panel of ratios (OpenBLAS time / hetla time, above 1
means hetla is faster) with a line at 1.0 and the project's targets marked. The Markdown file
starts with the machine and date from the meta file that bench/run.sh writes.
Needs matplotlib only for the PNG (Debian: python3-matplotlib).
"""

import argparse
import csv
import math
import sys

TARGETS = {"dpotrf": 1.3, "dgetrf": 1.1, "dgeqrf": 1.25}
ORDER = ["dpotrf", "dgetrf", "dgeqrf", "dposv", "dgesv", "dgels"]


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["n"] = int(r["n"])
        for k in ("hetla_median_s", "openblas_median_s", "hetla_gflops", "openblas_gflops",
                  "ratio", "hetla_frac_dgemm", "openblas_frac_dgemm", "dgemm_gflops"):
            try:
                r[k] = float(r[k])
            except (KeyError, ValueError):
                r[k] = math.nan
    return rows


def by_routine(rows):
    out = {}
    for r in rows:
        out.setdefault(r["routine"], []).append(r)
    for v in out.values():
        v.sort(key=lambda r: r["n"])
    return dict(sorted(out.items(), key=lambda kv: ORDER.index(kv[0]) if kv[0] in ORDER else 99))


def read_meta(path):
    meta = {}
    if path:
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    meta[k] = v
    return meta


def fmt_time(s):
    if math.isnan(s):
        return "-"
    return f"{s * 1e3:.3f} ms" if s < 1 else f"{s:.3f} s"


def pct(x):
    return "-" if math.isnan(x) else f"{100 * x:.0f}%"


def write_md(rows, meta, path):
    lines = []
    if meta:
        lines.append(f"Measured {meta.get('date', '?')} on {meta.get('cpu', '?')}, "
                     f"{meta.get('cores', '?')} cores (nproc {meta.get('nproc', '?')}), "
                     f"load average (1, 5, 15 min) {meta.get('load_before', '?')} before the run and "
                     f"{meta.get('load_after', '?')} after it; the machine has "
                     f"{meta.get('nproc', '?')} cores, so a load above that means other work "
                     "shared them and the timings are noisy.")
        lines.append("")
        detail = [f"hetla {meta.get('hetla_version', '?')} (commit {meta.get('commit', '?')})"]
        if "openblas_config" in meta:
            detail.append(f"OpenBLAS `{meta['openblas_config']}`")
        if "dgemm_gflops" in meta:
            detail.append(f"OpenBLAS two-core DGEMM (n={meta.get('dgemm_n', '?')}): "
                          f"{float(meta['dgemm_gflops']):.1f} GFLOP/s")
        if "nrhs" in meta:
            detail.append(f"solvers with nrhs={meta['nrhs']}; dgels square (m = n), trans=N")
        lines.append("; ".join(detail) + ".")
        lines.append("")
    lines.append("| routine | n | hetla path | nb | hetla | OpenBLAS | hetla GFLOP/s | "
                 "OpenBLAS GFLOP/s | ratio | hetla % DGEMM | OpenBLAS % DGEMM | check |")
    lines.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for routine, rs in by_routine(rows).items():
        for r in rs:
            lines.append(
                f"| {routine} | {r['n']} | {r['path']} | {r['nb']} | {fmt_time(r['hetla_median_s'])} "
                f"| {fmt_time(r['openblas_median_s'])} | {r['hetla_gflops']:.1f} "
                f"| {r['openblas_gflops']:.1f} | **{r['ratio']:.2f}** | {pct(r['hetla_frac_dgemm'])} "
                f"| {pct(r['openblas_frac_dgemm'])} | {r['check']} |")
    lines.append("")
    lines.append("ratio = OpenBLAS median time / hetla median time (above 1: hetla faster); "
                 "medians of interleaved runs in one process. `forward:*` rows are hetla handing "
                 "the call to OpenBLAS (`small`: below HETLA_MIN_N, `probe`: a break-even trial, `learned`: the backend was faster in this size class's trials, `untiled`: no tile path yet), "
                 "so their ratio measures the wrapper's overhead, not an algorithm.")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def log_x(ax, ns):
    """Log-scaled n axis labelled at the measured sizes, so n = 64 and n = 8000 both show."""
    if len(ns) > 1 and ns[0] > 0:
        ax.set_xscale("log")
        ax.set_xticks(ns)
        ax.set_xticklabels([str(n) for n in ns], fontsize=7, rotation=45)
        ax.minorticks_off()


def write_png(rows, meta, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = by_routine(rows)
    panels = len(groups) + 1
    cols = min(4, panels)
    nrows = (panels + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.6 * nrows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax, (routine, rs) in zip(flat, groups.items()):
        ns = [r["n"] for r in rs]
        ax.plot(ns, [r["hetla_gflops"] for r in rs], "o-", label="hetla")
        ax.plot(ns, [r["openblas_gflops"] for r in rs], "s--", label="OpenBLAS")
        gemm = next((r["dgemm_gflops"] for r in rs if not math.isnan(r["dgemm_gflops"])), math.nan)
        if not math.isnan(gemm):
            ax.axhline(gemm, color="grey", lw=0.8, ls=":", label="DGEMM (all cores)")
        tiles = [r["n"] for r in rs if "tiles" in r["path"]]
        title = routine if tiles else f"{routine} (forwarded)"
        ax.set_title(title)
        log_x(ax, ns)
        ax.set_xlabel("n")
        ax.set_ylabel("GFLOP/s")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    ax = flat[len(groups)]
    for routine, rs in groups.items():
        line, = ax.plot([r["n"] for r in rs], [r["ratio"] for r in rs], "o-", label=routine)
        if routine in TARGETS:
            ax.axhline(TARGETS[routine], color=line.get_color(), ls="--", lw=0.9,
                       label=f"{routine} target {TARGETS[routine]}")
    ax.axhline(1.0, color="black", lw=1)
    log_x(ax, sorted({r["n"] for r in rows}))
    ax.set_title("OpenBLAS time / hetla time")
    ax.set_xlabel("n")
    ax.set_ylabel("ratio (>1: hetla faster)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6, loc="best", ncol=2)
    for ax in flat[panels:]:
        ax.axis("off")
    sub = "hetla vs OpenBLAS, interleaved medians"
    if meta:
        sub += f" - {meta.get('cpu', '?')}, {meta.get('cores', '?')} cores, {meta.get('date', '?')}"
    fig.suptitle(sub, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--md")
    ap.add_argument("--png")
    ap.add_argument("--meta")
    a = ap.parse_args()
    rows = load(a.csv)
    if not rows:
        sys.exit(f"{a.csv}: no rows")
    meta = read_meta(a.meta)
    if a.md:
        write_md(rows, meta, a.md)
    if a.png:
        write_png(rows, meta, a.png)


if __name__ == "__main__":
    main()
