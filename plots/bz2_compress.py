#!/usr/bin/env python3
""".bz2 compression (ours, the thesis's future work 1): one panel per dataset, MB/s of uncompressed
data per program at -9, each bar labelled with the ratio it reached. Programs: parcomp on its CPU
workers and with --gpu (the GPUs sort, the host codes), lbzip2, bzip2, pbzip2: wall time of the
whole program, input in the page cache, output written. gpu.sort.kernels (the sort alone) and
gpu.kernels (the sort and the encoder: all the GPU does) are device-resident (CUDA events): a
different measure, drawn hatched.
Usage: python3 plots/bz2_compress.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "bz2.compress"
PAPER_NOTE = "ours: wall time of whole programs at -9 (hatched: the GPU's stages alone, device-resident); bar labels: compressed/original"


def figure(res: common.Results, experiment: str, out: Path, paper_note: str, **kw) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = res.select(experiment)
    if not rows:
        raise SystemExit(f"{res.path}: no results for {experiment}")
    datasets = sorted({r.dataset for r in rows}, key=lambda d: min(r.n for r in rows if r.dataset == d))
    cols = 2
    nrows = (len(datasets) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(13, 1.2 + 2.6 * nrows), squeeze=False)
    for k, d in enumerate(datasets):
        ax = axes[k // cols][k % cols]
        here = sorted((r for r in rows if r.dataset == d), key=lambda r: (not r.variant.startswith("parcomp"), r.variant), reverse=True)
        device = [".kernels" in r.variant for r in here]
        bars = ax.barh(range(len(here)), [r.bytes_per_second / 1e6 for r in here],
                       color=["C0" if r.variant.startswith("parcomp") else "C7" for r in here],
                       hatch=None)
        for bar, dev in zip(bars.patches, device):
            if dev:
                bar.set_hatch("//")
                bar.set_facecolor("white")
                bar.set_edgecolor("C3")
        ax.bar_label(bars, labels=[f"{r.counters['ratio']:.4f}" if "ratio" in r.counters else "(device)" for r in here],
                     fontsize=7, padding=2)
        ax.set_yticks(range(len(here)))
        ax.set_yticklabels([r.variant for r in here], fontsize=8)
        ax.set_xscale("log")
        common.log_rate_axis(ax.xaxis, [r.bytes_per_second / 1e6 for r in here])
        ax.set_xlabel("MB/s of uncompressed data")
        ax.set_title(f"{d} ({common.fmt_num(here[0].n / 1e6)} MB)", fontsize=9)
        ax.grid(True, axis="x", which="both", alpha=0.3)
    for k in range(len(datasets), nrows * cols):
        axes[k // cols][k % cols].set_visible(False)
    cores = res.parcomp.get("host", {}).get("logical_cpus")
    return common.save_figure(fig, res, experiment, out, paper_note,
                              cores=f"{cores} hardware threads" if cores else "every core")


FIGURE = figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
