#!/usr/bin/env python3
"""thesis.bytes_per_char: device memory bytes per input character, per pipeline stage (DRAM bars, L2 requests marked)
Usage: python3 plots/thesis_bytes_per_char.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "thesis.bytes_per_char"
PAPER_NOTE = "thesis: about 186 bytes of device memory traffic per character (BWT + MTF + Huffman, compression)"
STAGES = ("bwt", "mtf", "zrle", "huffman", "other")


def FIGURE(res, experiment, out, paper_note, **kw):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(res.select(experiment), key=lambda r: (r.dataset, r.variant))
    fig, ax = plt.subplots(figsize=(9, 4.5))
    labels = [f"{r.variant}\n{r.dataset}" for r in rows]
    bottom = [0.0] * len(rows)
    for i, s in enumerate(STAGES):
        ys = [r.counters.get(f"{s}_bytes_per_char", 0.0) for r in rows]
        if any(ys):
            ax.bar(labels, ys, bottom=bottom, label=s, color=f"C{i}")
            bottom = [b + y for b, y in zip(bottom, ys)]
    l2 = [(label, r.counters["l2_bytes_per_char"]) for label, r in zip(labels, rows) if "l2_bytes_per_char" in r.counters]
    if l2:
        ax.plot([x for x, _ in l2], [y for _, y in l2], "kD", ls="", label="L2 bytes requested by the SMs (what stays in L2 included)")
    ax.axhline(186, color="black", ls=":", label="thesis: about 186")
    ax.set_ylabel("bytes per input character")
    ax.tick_params(axis="x", labelsize=7)
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    return common.save_figure(fig, res, experiment, out, paper_note)


if __name__ == "__main__":
    sys.exit(common.cli(__name__))
