#!/usr/bin/env python3
"""thesis.fig4_7: Huffman encoding time per step (histogram, tree, encode), stacked, per dataset:
the thesis's kernels (gpu.paper.*) and ours (gpu.fast.*, with the GPU tree; the host tree beside).
Usage: python3 plots/thesis_fig4_7.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "thesis.fig4_7"
PAPER_NOTE = "thesis (GTX 460): tree ~78% of the Huffman time, histogram + encode ~16% + ~6%"
STACKS = {
    "paper": ["gpu.paper.histogram", "gpu.paper.tree", "gpu.paper.encode"],
    "fast (GPU tree)": ["gpu.fast.histogram", "gpu.fast.tree", "gpu.fast.encode"],
    "fast (host tree)": ["gpu.fast.histogram", "gpu.fast.tree_host", "gpu.fast.encode"],
}
STEP_COLORS = {"histogram": "C0", "tree": "C1", "tree_host": "C3", "encode": "C2"}


def figure(res, experiment, out, paper_note, **_):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = res.select(experiment)
    if not rows:
        raise SystemExit(f"{res.path}: no results for {experiment}")
    by = {(r.dataset, r.variant): r for r in rows}
    datasets = sorted({r.dataset for r in rows}, key=common._dataset_order)
    fig, axes = plt.subplots(1, len(STACKS), figsize=(5 * len(STACKS), 4.5), squeeze=False, sharey=True)
    for ax, (stack, steps) in zip(axes[0], STACKS.items()):
        bottoms = [0.0] * len(datasets)
        for step in steps:
            label = step.split(".")[-1]
            ys = [by[(d, step)].seconds * 1e3 if (d, step) in by else 0.0 for d in datasets]
            ax.bar(range(len(datasets)), ys, bottom=bottoms, color=STEP_COLORS.get(label, "grey"), label=label)
            bottoms = [b + y for b, y in zip(bottoms, ys)]
        for k, total in enumerate(bottoms):
            tree = next((by[(datasets[k], s)].seconds * 1e3 for s in steps if "tree" in s and (datasets[k], s) in by), 0.0)
            if total > 0:
                ax.text(k, total, f"tree {100 * tree / total:.0f}%", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(datasets)))
        ax.set_xticklabels(datasets, rotation=30, ha="right", fontsize=8)
        ax.set_title(stack, fontsize=10)
        ax.set_yscale("log")
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("time (ms), stacked")
    return common.save_figure(fig, res, experiment, out, paper_note)


FIGURE = figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
