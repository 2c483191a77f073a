#!/usr/bin/env python3
"""pavle.entropy: encoder throughput against the coded bits/symbol, every variant: codes limited
to 8 bits (all kernels; datasets entropy<b>), and to 16 bits (sm64huff, gpu.fast and the serial
encoder; datasets entropy<b>.max16). The x axis is what was encoded (the bits_per_symbol
counter), not the requested entropy: an 8-bit limit codes 6, 7 and 8 bits/symbol of entropy all
at 8.0 bits/symbol.
Usage: python3 plots/pavle_entropy.py RESULT.json [--out plots/out]"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "pavle.entropy"
PAPER_NOTE = "paper: low entropy means more atomics on one word"


def code_limit(dataset: str) -> int:
    return int(dataset.rsplit(".max", 1)[1]) if ".max" in dataset else 8


def FIGURE(res, experiment, out, paper_note, **_):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = res.select(experiment)
    if not rows:
        raise SystemExit(f"{res.path}: no results for {experiment}")
    limits = sorted({code_limit(r.dataset) for r in rows})
    fig, axes = plt.subplots(1, len(limits), figsize=(7 * len(limits), 5), squeeze=False, sharey=True)
    variants = sorted({r.variant for r in rows}, key=common._variant_order)
    for ax, limit in zip(axes[0], limits):
        for i, v in enumerate(variants):
            pts = sorted((r.counters.get("bits_per_symbol", 0.0), r.bytes_per_second / 1e9)
                         for r in rows if r.variant == v and code_limit(r.dataset) == limit)
            if pts:
                ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", color=f"C{i}", label=v)
        ax.set_yscale("log")
        ax.set_xlabel(f"coded bits/symbol (Huffman code, at most {limit} bits a codeword)")
        ax.set_title(f"codes of at most {limit} bits", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("GB/s of input (uncompressed bytes)")
    return common.save_figure(fig, res, experiment, out, paper_note)


if __name__ == "__main__":
    sys.exit(common.cli(__name__))
