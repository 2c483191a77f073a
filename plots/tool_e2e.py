#!/usr/bin/env python3
"""tool.e2e (ours): the wall time a user waits for each program, one process per run from its
start to its exit, input in the page cache, output written to a file. One row of panels per
dataset: compression and decompression rate (MB/s of uncompressed data per wall second) per
program, and decompression to /dev/null where the result has those rows, each bar labelled with the
ratio it reached; the dashed line is `cat in > out` on the same host in the same run, the ceiling
for any file-to-file program there.
Usage: python3 plots/tool_e2e.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "tool.e2e"
PAPER_NOTE = "ours: wall time of whole programs (process start to exit), every CPU core and GPU; bar labels: compressed/original"
CEILING = "copy.cat"
MODES = ("compress", "decompress", "decompress.null")
TITLES = {"decompress.null": "decompress to /dev/null"}


def split(variant: str) -> tuple[str, str | None]:
    """'lbzip2.compress' -> ('lbzip2', 'compress'); 'lbzip2.decompress.null' -> ('lbzip2',
    'decompress.null'); 'copy.cat' and the '.stdin' rows -> (variant, None)."""
    for mode in sorted(MODES, key=len, reverse=True):
        if variant.endswith("." + mode):
            return variant[: -len(mode) - 1], mode
    return variant, None


def program_order(p: str):
    return (not p.startswith("parcomp"), p)


def figure(res: common.Results, experiment: str, out: Path, paper_note: str, **kw) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = res.select(experiment)
    if not rows:
        raise SystemExit(f"{res.path}: no results for {experiment}")
    datasets = sorted({r.dataset for r in rows}, key=lambda d: min(r.n for r in rows if r.dataset == d))
    modes = [m for m in MODES if any(split(r.variant)[1] == m for r in rows)] or list(MODES[:2])
    fig, axes = plt.subplots(len(datasets), len(modes), figsize=(6.5 * len(modes), 2.2 + 0.32 * 8 * len(datasets)), squeeze=False)
    for k, d in enumerate(datasets):
        here = [r for r in rows if r.dataset == d]
        ceiling = next((r for r in here if r.variant == CEILING), None)
        for j, mode in enumerate(modes):
            ax = axes[k][j]
            bars = sorted(((split(r.variant)[0], r) for r in here if split(r.variant)[1] == mode),
                          key=lambda pr: program_order(pr[0]), reverse=True)
            if not bars:  # not run for this dataset
                ax.set_axis_off()
                ax.set_title(f"{d}: {TITLES.get(mode, mode)}: no rows", fontsize=9)
                continue
            names = [p for p, _ in bars]
            rates = [r.bytes_per_second / 1e6 for _, r in bars]
            container = ax.barh(range(len(bars)), rates, color=["C0" if p.startswith("parcomp") else "C7" for p in names])
            ax.bar_label(container, labels=[f"{r.counters.get('ratio', float('nan')):.3f}" for _, r in bars], fontsize=7, padding=2)
            ax.set_yticks(range(len(bars)))
            ax.set_yticklabels(names, fontsize=8)
            title = f"{d} ({common.fmt_num(here[0].n / 1e6)} MB): {TITLES.get(mode, mode)}"
            if ceiling is not None:
                ax.axvline(ceiling.bytes_per_second / 1e6, color="black", ls="--", lw=1)
                title += f"; dashed: cat in > out {common.fmt_num(ceiling.bytes_per_second / 1e6)} MB/s"
            ax.set_xscale("log")
            common.log_rate_axis(ax.xaxis, rates + ([ceiling.bytes_per_second / 1e6] if ceiling is not None else []))
            ax.set_xlabel("MB/s of uncompressed data (wall)")
            ax.set_title(title, fontsize=9)
            ax.grid(True, axis="x", which="both", alpha=0.3)
    cores = res.parcomp.get("host", {}).get("logical_cpus")
    return common.save_figure(fig, res, experiment, out, paper_note,
                              cores=f"{cores} hardware threads" if cores else "every core")


FIGURE = figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
