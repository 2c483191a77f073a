#!/usr/bin/env python3
"""thesis.fig4_3: BWT tie analysis: for adjacent sorted rotations (1 MiB blocks), the fraction of
pairs whose common prefix is at least x bytes, per dataset (log-log).
Usage: python3 plots/thesis_fig4_3.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "thesis.fig4_3"
PAPER_NOTE = "thesis: longer ties on more compressible data (enwiki.xml > enwik8 > random words)"


def tie_figure(res: common.Results, experiment: str, out: Path, paper_note: str) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = res.select(experiment)
    if not rows:
        raise SystemExit(f"{res.path}: no results for {experiment}")
    fig, ax = plt.subplots(figsize=(11, 5.5))
    for i, r in enumerate(sorted(rows, key=lambda r: r.dataset)):
        buckets = []  # (lower bound, fraction) in bucket order
        for name, frac in r.counters.items():
            if not name.startswith("ties_"):
                continue
            lo = 0 if name == "ties_0_3" else int(name[len("ties_ge"):] if name.startswith("ties_ge") else name.split("_")[1])
            buckets.append((lo, frac))
        buckets.sort()
        xs, ys = [], []
        for k, (lo, _) in enumerate(buckets):  # fraction of pairs with tie >= lo (a suffix sum)
            tail = sum(frac for _, frac in buckets[k:])
            if lo > 0 and tail > 1e-12:
                xs.append(lo)
                ys.append(tail)
        ax.plot(xs, ys, marker="o", ms=3, label=f"{r.dataset} (mean {r.counters.get('mean_tie', 0):.1f})",
                color=f"C{i % 10}", ls="-" if i < 10 else "--")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("tie length x (bytes of common prefix between adjacent sorted rotations)")
    ax.set_ylabel("fraction of adjacent pairs with tie >= x")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return common.save_figure(fig, res, experiment, out, paper_note)


FIGURE = tie_figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
