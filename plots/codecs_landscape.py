#!/usr/bin/env python3
"""codecs.landscape (ours): where the papers' pipeline stands among the codecs users already have.
One row of panels per dataset: compression and decompression of the GPU codecs (nvCOMP, parcomp's
kernels: device-resident rates, CUDA events, data on the device), then of the CPU programs (wall
time of the whole program on every host thread). The two kinds are different measures, so they
never share a panel or a front. Each codec and setting is a point, compressed/original size (x;
left is smaller) against GB/s of uncompressed data (y, log; up is faster); the line is the panel's
Pareto front: the points no other point of the panel beats on both size and speed.
The .bz2 mode's device-resident rows (bz2.compress/gpu.kernels: the sort and the encoder;
bz2.decompress/gpu.kernels: the decoder) are drawn as the point parcomp.bz2.kernels.
Usage: python3 plots/codecs_landscape.py RESULT.json [--out plots/out]"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

EXPERIMENT = "codecs.landscape"
PAPER_NOTE = ("ours: GPU panels device-resident (CUDA events), CPU panels wall time of the program on every "
              "host thread; line: each panel's Pareto front")
KINDS = ("gpu", "cpu")
MODES = ("compress", "decompress")
OURS = ("parcomp.fast.kernels", "parcomp.bz2.kernels")
# The .bz2 mode is measured by bench/bz2.cpp under its own experiment ids; its GPU-kernel rows
# belong on the landscape too.
BZ2_ROWS = {"bz2.compress": "compress", "bz2.decompress": "decompress"}
BZ2_VARIANT = "gpu.kernels"
BZ2_CODEC = "parcomp.bz2.kernels"


def split(variant: str) -> tuple[str, str]:
    """'nvcomp.lz4.c64k.compress' -> ('nvcomp.lz4.c64k', 'compress')."""
    codec, _, mode = variant.rpartition(".")
    if mode not in MODES:
        raise ValueError(f"{variant}: not <codec>.<compress|decompress>")
    return codec, mode


def is_gpu(codec: str) -> bool:
    return codec.startswith("nvcomp.") or codec.startswith("parcomp.")


def landscape_rows(res: common.Results) -> list[tuple[str, str, common.Row]]:
    """(codec, direction, row) of every landscape point: codecs.landscape's rows and the .bz2
    mode's GPU-kernel rows."""
    out = [(*split(r.variant), r) for r in res.select(EXPERIMENT)]
    for experiment, mode in BZ2_ROWS.items():
        out += [(BZ2_CODEC, mode, r) for r in res.select(experiment) if r.variant == BZ2_VARIANT]
    return out


def points(res: common.Results, dataset: str, mode: str, kind: str | None = None) -> list[tuple[str, float, float]]:
    """(codec, ratio, GB/s) of one dataset and direction; of one kind only where `kind` is "gpu"
    (device-resident) or "cpu" (whole programs)."""
    pts = sorted((codec, float(r.counters["ratio"]), r.bytes_per_second / 1e9) for codec, m, r in landscape_rows(res)
                 if r.dataset == dataset and m == mode and "ratio" in r.counters)
    return pts if kind is None else [p for p in pts if is_gpu(p[0]) == (kind == "gpu")]


def pareto(pts: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """The points no other point beats: none is at most as large and at least as fast, and
    better in one of the two. Sorted by ratio (smallest first), so by speed too (slowest first)."""
    front = [p for p in pts
             if not any(q[1] <= p[1] and q[2] >= p[2] and (q[1] < p[1] or q[2] > p[2]) for q in pts)]
    return sorted(front, key=lambda p: (p[1], p[2]))


def distance_to_front(pts, codec: str) -> dict | None:
    """For `codec`: whether it is on the front, and if not, the fastest point at least as small
    (speed it would need) and the smallest point at least as fast (size it would need)."""
    me = next((p for p in pts if p[0] == codec), None)
    if me is None:
        return None
    front = pareto(pts)
    on = any(p[0] == codec for p in front)
    smaller = [p for p in pts if p[1] <= me[1] and p[0] != codec]
    faster = [p for p in pts if p[2] >= me[2] and p[0] != codec]
    need_speed = max(smaller, key=lambda p: p[2]) if smaller else None
    need_size = min(faster, key=lambda p: p[1]) if faster else None
    return {"codec": codec, "ratio": me[1], "gbps": me[2], "on_front": on,
            "speed_needed": need_speed, "size_needed": need_size}


def datasets_of(res: common.Results) -> list[str]:
    rows = [r for _, _, r in landscape_rows(res)]
    return sorted({r.dataset for r in rows}, key=lambda d: (min(r.n for r in rows if r.dataset == d), d))


def table(res: common.Results) -> str:
    """Markdown: per dataset and direction, the place of parcomp's fast kernels and of its .bz2
    kernels against the device-resident front (the GPU codecs' points only), and how many points
    that front was drawn from (a run cut short has fewer: the verdict holds only among them)."""
    lines = ["| dataset | direction | parcomp | ratio | GB/s | on the device-resident front | beaten by (ratio, GB/s) | speed-up needed | GPU points |",
             "|---|---|---|---|---|---|---|---|---|"]
    for d, mode, ours in ((d, m, o) for d in datasets_of(res) for m in MODES for o in OURS):
        pts = points(res, d, mode, "gpu")
        info = distance_to_front(pts, ours)
        if info is None:
            continue
        beat = info["speed_needed"]
        if info["on_front"] or beat is None or beat[2] <= info["gbps"]:
            by, need = "-", "-"
        else:
            by = f"{beat[0]} ({beat[1]:.3f}, {common.fmt_num(beat[2])})"
            need = f"{common.fmt_num(beat[2] / info['gbps'])}x"
        lines.append(f"| {d} | {mode} | {ours.removeprefix('parcomp.').removesuffix('.kernels')} | {info['ratio']:.3f} | {common.fmt_num(info['gbps'])} | "
                     f"{'yes' if info['on_front'] else 'no'} | {by} | {need} | {len(pts)} |")
    return "\n".join(lines)


def figure(res: common.Results, experiment: str, out: Path, paper_note: str, **kw) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = datasets_of(res)
    if not datasets:
        raise SystemExit(f"{res.path}: no results for {experiment}")
    fig, axes = plt.subplots(len(datasets), 4, figsize=(24, 4.6 * len(datasets)), squeeze=False)
    for k, d in enumerate(datasets):
        n = next(r.n for _, _, r in landscape_rows(res) if r.dataset == d)
        for j, (kind, mode) in enumerate((kind, mode) for kind in KINDS for mode in MODES):
            ax = axes[k][j]
            pts = points(res, d, mode, kind)
            for codec, ratio, gbps in pts:
                ours = codec.startswith("parcomp.")
                ax.scatter([ratio], [gbps], marker="o" if kind == "gpu" else "^", s=46 if ours else 26,
                           color="C3" if ours else ("C0" if kind == "gpu" else "C7"), zorder=3, label=codec)
                ax.annotate(codec, (ratio, gbps), fontsize=6, xytext=(3, 2), textcoords="offset points")
            front = pareto(pts)
            if front:
                ax.step([p[1] for p in front], [p[2] for p in front], where="post", color="black", lw=1, zorder=2,
                        label="Pareto front")
            else:
                ax.text(0.5, 0.5, "no points of this kind in this run", transform=ax.transAxes, ha="center", fontsize=8)
            ax.set_yscale("log")
            ax.set_xlabel("compressed / original (smaller is better)")
            ax.set_ylabel("GB/s of uncompressed data, " + ("device-resident" if kind == "gpu" else "whole program"))
            what = "GPU codecs, device-resident" if kind == "gpu" else "CPU programs, wall time"
            ax.set_title(f"{d} ({common.fmt_num(n / 1e6)} MB): {mode}, {what}", fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
    from matplotlib.lines import Line2D
    axes[0][0].legend(handles=[Line2D([], [], marker="o", ls="", color="C0", label="GPU, nvCOMP (device-resident)"),
                               Line2D([], [], marker="o", ls="", color="C3", label="GPU, parcomp (device-resident)"),
                               Line2D([], [], marker="^", ls="", color="C7", label="CPU program (wall, every thread)"),
                               Line2D([], [], color="black", lw=1, label="Pareto front of the panel")],
                      loc="lower left", fontsize=7)
    cores = res.parcomp.get("host", {}).get("logical_cpus")
    return common.save_figure(fig, res, experiment, out, paper_note,
                              cores=f"CPU programs on {cores} hardware threads" if cores else "every core")


FIGURE = figure

if __name__ == "__main__":
    sys.exit(common.cli(__name__))
