#!/usr/bin/env python3
"""Plots bench/speed_types.sh's CSV: one panel per type, the backend's time over hetla's against n
for every routine, with lines at 1.0 and at the project's floor of 0.97.

usage: speed_types_plot.py speed-types.csv speed-types.png   (needs matplotlib)
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src, png = sys.argv[1], sys.argv[2]
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    types = sorted({r["type"] for r in rows}, key="sdcz".index)
    fig, axes = plt.subplots(1, len(types), figsize=(5 * len(types), 4.5), squeeze=False)
    for ax, t in zip(axes[0], types):
        mine = [r for r in rows if r["type"] == t]
        for name in dict.fromkeys(r["routine"] for r in mine):
            pts = sorted((int(r["n"]), float(r["ratio"])) for r in mine if r["routine"] == name)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(0.97, color="red", linewidth=0.8, linestyle="--")
        ax.set_title(f"{t}: backend time / hetla time")
        ax.set_xlabel("n")
        ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
