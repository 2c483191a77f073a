#!/usr/bin/env python3
"""thesis.fig4_1: the compression rate needed for compress-then-send to pay off, vs PCIe bandwidth
Usage: python3 plots/thesis_fig4_1.py RESULT.json [--out plots/out]

Sending n bytes over a link of B bytes/s takes n/B; compressing at C bytes/s to a ratio r first and
sending the rest takes n/C + r n/B (one after the other, as the thesis reasons). It pays off when
C > B / (1 - r): the curves, for the thesis's ratios. Marked: the host's measured PCIe bandwidth
(pcie.h2d, pinned and pageable memory) and the pipeline's measured compression rates on the Linux
tarball (thesis.table4_1 rows of the same file) at their own ratios; table4_1's rows of one stage
(bwt.*: a transform, no ratio) are not compressors and are left out."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "thesis.fig4_1"
PAPER_NOTE = "thesis: 1 to 32 GB/s needed for PCIe 2/3; its GPU pipeline compresses at 4.25 MB/s"
RATIOS = (0.5, 0.25, 0.10, 0.01)
DATASET = "linux-2.6.11.1.tar"


def FIGURE(res, experiment, out, paper_note, **kw):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    links = {r.variant + "/" + r.dataset: r.bytes_per_second for r in res.select(experiment)}
    fig, ax = plt.subplots(figsize=(9, 5.5))
    bw = [2 ** (k / 4) * 1e9 for k in range(0, 4 * 7 + 1)]  # 1 .. 128 GB/s
    for i, r in enumerate(RATIOS):
        ax.plot([b / 1e9 for b in bw], [b / (1 - r) / 1e9 for b in bw], color=f"C{i}", label=f"needed at ratio {r:g}")
    for name, b in sorted(links.items()):
        if name.startswith("pcie.h2d/"):
            ax.axvline(b / 1e9, color="grey", ls="--" if "pinned" in name else ":", lw=1)
            ax.text(b / 1e9, 0.0012, f" host to device, {name.split('/')[1]}: {b / 1e9:.1f} GB/s", rotation=90,
                    va="bottom", fontsize=8, color="grey")
    pinned = links.get("pcie.h2d/pinned-memory")
    for j, r in enumerate(sorted(res.select("thesis.table4_1"), key=lambda r: r.variant)):
        ratio = r.counters.get("ratio")
        if r.dataset != DATASET or not pinned or ratio is None:  # a stage alone (bwt.*) has no ratio
            continue
        ax.plot([pinned / 1e9], [r.bytes_per_second / 1e9], marker="o^sDvP"[j % 6], ls="", color="black",
                label=f"{r.variant}: {r.bytes_per_second / 1e6:,.0f} MB/s, ratio {ratio:.3f}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(1e-3, 1e3)
    ax.set_xlabel("link bandwidth (GB/s)")
    ax.set_ylabel("compression rate needed / measured (GB/s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    return common.save_figure(fig, res, experiment, out, paper_note)


if __name__ == "__main__":
    sys.exit(common.cli(__name__))
