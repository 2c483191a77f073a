#!/usr/bin/env python3
"""thesis.fig4_7: Huffman encoding time per step (histogram, tree, encode) as shares of the total, per dataset:
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
        times = {step: [by[(d, step)].seconds * 1e3 if (d, step) in by else 0.0 for d in datasets] for step in steps}
        totals = [sum(times[step][k] for step in steps) for k in range(len(datasets))]
        bottoms = [0.0] * len(datasets)
        for step in steps:
            label = step.split(".")[-1]
            shares = [100 * t / total if total > 0 else 0.0 for t, total in zip(times[step], totals)]
            ax.bar(range(len(datasets)), shares, bottom=bottoms, color=STEP_COLORS.get(label, "grey"), label=label)
            bottoms = [b + y for b, y in zip(bottoms, shares)]
        for k, total in enumerate(totals):
            if total > 0:
                ax.text(k, 101, f"{total:.3g} ms", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(datasets)))
        ax.set_xticklabels(datasets, rotation=30, ha="right", fontsize=8)
        ax.set_title(stack, fontsize=10)
        ax.set_ylim(0, 112)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    axes[0][0].set_ylabel("share of the Huffman encoding time (%); total above")
    return common.save_figure(fig, res, experiment, out, paper_note)


FIGURE = figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
