#!/usr/bin/env python3
"""The timeline of one parcomp run (ours, for tool.e2e: where its wall time goes): `parcomp --trace
FILE` records what the reader, each CPU worker, each GPU's thread, CUDA's start-up and the writer
did when; this draws one row per lane, one bar per span (a block read, compressed or decoded on a
CPU worker, a GPU batch from its claim to its last result, a block written), and says how busy each
lane was.

Usage: python3 plots/tool_timeline.py TRACE.json[.gz] [--out DIR] [--breakdown]   (writes DIR/<TRACE stem>.png;
--breakdown also prints each lane's kinds of span: their seconds, the first one's, the others' median)
(results/ keeps the large traces gzipped.)"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402  (the one way to a PNG: common.write_png)

ORDER = ("reader", "input", "cuda", "prep", "gpu", "stage", "cpu", "writer")
COLOURS = {"read": "C0", "CUDA start-up": "C7", "batch": "C3", "block": "C2", "write": "C1",
           "wait": "0.85", "prepare": "C4", "upload+sort": "C5", "encode": "C6", "download": "C8", "publish": "C9",
           "upload": "C5", "finish": "C4", "cut": "C0", "chunk": "C7", "read()": "C9",
           "gather": "C4", "run": "C6", "container": "C8", "load": "C4", "output": "C8"}
FALLBACK = "C9"  # a kind of span this script does not know yet: drawn all the same, in the legend


def colour_of(what: str) -> str:
    return COLOURS.get(what, FALLBACK)


def load(path: Path) -> dict:
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    doc = json.loads(raw)
    if doc.get("trace") != "parcomp" or not isinstance(doc.get("spans"), list):
        raise SystemExit(f"{path}: not a parcomp --trace file")
    return doc


def lanes(spans: list[dict]) -> list[str]:
    """The lanes in the order the pipeline runs: reader, CUDA, GPUs, CPU workers, writer."""
    def key(lane: str):
        kind, _, k = lane.partition(" ")
        return (ORDER.index(kind) if kind in ORDER else len(ORDER), kind, int(k) if k.isdigit() else 0)
    return sorted({s["lane"] for s in spans}, key=key)


def summary(doc: dict) -> list[dict]:
    """Per lane: spans, blocks, busy seconds (union of its spans, its "wait" spans left out) and the
    fraction of the run."""
    spans = doc["spans"]
    total = max((s["end"] for s in spans), default=0.0)
    out = []
    for lane in lanes(spans):
        mine = sorted((s for s in spans if s["lane"] == lane), key=lambda s: s["start"])
        busy, reach = 0.0, 0.0
        for s in mine:
            if s["what"] == "wait":
                continue
            start = max(s["start"], reach)
            if s["end"] > start:
                busy += s["end"] - start
            reach = max(reach, s["end"])
        out.append({"lane": lane, "spans": len(mine), "blocks": sum(s["blocks"] for s in mine), "busy_s": busy,
                    "busy": busy / total if total > 0 else 0.0})
    return out


def breakdown(doc: dict) -> list[dict]:
    """Per lane and kind of span: the spans, their seconds, the first one's and the median of the
    others' (a first batch's set-up shows as a first span far longer than the rest)."""
    spans = doc["spans"]
    out = []
    for lane in lanes(spans):
        mine = sorted((s for s in spans if s["lane"] == lane), key=lambda s: s["start"])
        for what in dict.fromkeys(s["what"] for s in mine):  # in order of first appearance
            d = [s["end"] - s["start"] for s in mine if s["what"] == what]
            rest = sorted(d[1:])
            median = (rest[(len(rest) - 1) // 2] + rest[len(rest) // 2]) / 2 if rest else None
            out.append({"lane": lane, "what": what, "spans": len(d), "seconds": sum(d), "first_s": d[0], "others_median_s": median})
    return out


def figure(doc: dict, path: Path, out: Path) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    spans = doc["spans"]
    if not spans:
        raise SystemExit(f"{path}: no spans (an empty input?)")
    names = lanes(spans)
    rows = {lane: i for i, lane in enumerate(names)}
    fig, ax = plt.subplots(figsize=(12, 0.45 * len(names) + 1.8))
    kinds = sorted({s["what"] for s in spans}, key=lambda w: (w not in COLOURS, list(COLOURS).index(w) if w in COLOURS else 0, w))
    for what in kinds:  # every kind of span, known or not
        mine = [s for s in spans if s["what"] == what]
        ax.barh([rows[s["lane"]] for s in mine], [s["end"] - s["start"] for s in mine], left=[s["start"] for s in mine],
                height=0.7, color=colour_of(what), edgecolor="black", linewidth=0.2, label=what)
    stats = {r["lane"]: r for r in summary(doc)}
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels([f"{lane} ({stats[lane]['busy']:.0%} busy)" for lane in names], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("seconds since the program started")
    total = max(s["end"] for s in spans)
    blocks = sum(s["blocks"] for s in spans if s["what"] == "write")
    ax.set_title(f"parcomp {doc.get('mode', '')}: {path.name}, {total:.2f} s, {blocks} blocks written "
                 "(ours: where the wall time goes)", fontsize=10)
    ax.legend(loc="lower right", fontsize=7)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    stem = path.name.removesuffix(".gz").removesuffix(".json")
    target = out / f"{stem}.png"
    common.write_png(fig, target)
    plt.close(fig)
    return target


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace", type=Path)
    ap.add_argument("--out", type=Path, default=Path("plots/out"))
    ap.add_argument("--breakdown", action="store_true", help="per lane, each kind of span's seconds, its first and the others' median")
    args = ap.parse_args(argv)
    doc = load(args.trace)
    for r in summary(doc):
        print(f"{r['lane']:>10}: {r['spans']:5d} spans, {r['blocks']:6d} blocks, busy {r['busy_s']:.3f} s ({r['busy']:.0%})")
    if args.breakdown:
        for r in breakdown(doc):
            then = f", the others' median {r['others_median_s']:.4f} s" if r["others_median_s"] is not None else ""
            print(f"{r['lane']:>10}  {r['what']:<14} {r['seconds']:.3f} s in {r['spans']} spans: the first {r['first_s']:.4f} s{then}")
    print(figure(doc, args.trace, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
