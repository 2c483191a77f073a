#!/usr/bin/env python3
"""thesis.bytes_per_char: device memory traffic per input character, per pipeline stage, from
Nsight Compute DRAM bytes (scripts/profile.sh's profile.json over thesis.table4_1 / table4_2
pipeline benchmarks), appended to a benchmark JSON as rows of the experiment.

    bytes_per_char.py --profile profile.json --into bench.json

Each kernel counts to the stage of its namespace (bwt, mtf, zrle = zero runs, huffman / vle =
Huffman; Nsight names them without the parcomp:: prefix); a CUB kernel counts to the stage of a
parcomp type in its template arguments, else of the parcomp kernel before it (the one that
launched its sort or scan), or after it when it comes first. DRAM bytes leave out what stays in
L2; the L2 counters (l2_bytes_per_char, <stage>_l2_bytes_per_char: the SMs' global-memory
requests in 32-byte sectors) include it. Rows are named
thesis.bytes_per_char/<pipeline variant>.<compress|decompress>/<dataset>/n=<bytes> with counters
bytes_per_char (all kernels) and <stage>_bytes_per_char; their time is the summed kernel time.
"""
import argparse
import json
import re
import sys
from pathlib import Path

STAGES = {"bwt": "bwt", "mtf": "mtf", "zrle": "zrle", "huffman": "huffman", "vle": "huffman"}
NAMESPACE = re.compile(r"(?:^|[\s<(,*&:])(?:parcomp::)?(bwt|mtf|zrle|huffman|vle)::")
NAME = re.compile(r"^thesis\.table4_(?P<t>[12])/(?P<variant>[^/]+)/(?P<dataset>[^/]+)/n=(?P<n>\d+)")


def stage_of(kernel: str) -> str | None:
    """The stage of a kernel's own namespace, or of a parcomp type in a CUB kernel's template
    arguments (the BWT's comparator, say); None when there is neither."""
    m = NAMESPACE.search(kernel)
    return STAGES[m.group(1)] if m else None


def rows(profile: dict) -> list[dict]:
    out = []
    for bench, kernels in profile.items():
        m = NAME.match(bench)
        if not m or not kernels:
            continue
        n = int(m["n"])
        stages = [stage_of(k["kernel"]) for k in kernels]
        for i, s in enumerate(stages):  # CUB kernels: the stage before, else after
            if s is None:
                before = [x for x in stages[:i] if x]
                after = [x for x in stages[i + 1:] if x]
                stages[i] = before[-1] if before else (after[0] if after else "other")
        per: dict[str, float] = {}
        l2: dict[str, float] = {}
        for k, s in zip(kernels, stages):
            per[s] = per.get(s, 0.0) + (k["dram_read_bytes"] or 0.0) + (k["dram_write_bytes"] or 0.0)
            if k.get("l2_bytes") is not None:
                l2[s] = l2.get(s, 0.0) + k["l2_bytes"]
        total = sum(per.values())
        seconds = sum(k["seconds"] or 0.0 for k in kernels)
        row = {"name": f"thesis.bytes_per_char/{m['variant']}.{'compress' if m['t'] == '1' else 'decompress'}/"
                       f"{m['dataset']}/n={n}",
               "run_type": "iteration", "repetitions": 1, "iterations": 1, "real_time": seconds, "cpu_time": seconds,
               "time_unit": "s", "bytes_per_char": total / n, "dram_bytes": total, "kernels": len(kernels)}
        row["run_name"] = row["name"]
        for s, b in per.items():
            row[f"{s}_bytes_per_char"] = b / n
        if l2:
            row["l2_bytes_per_char"] = sum(l2.values()) / n
            for s, b in l2.items():
                row[f"{s}_l2_bytes_per_char"] = b / n
        out.append(row)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", type=Path, required=True)
    ap.add_argument("--into", type=Path, required=True, help="benchmark JSON to append the rows to")
    args = ap.parse_args(argv)
    new = rows(json.loads(args.profile.read_text()))
    if not new:
        print("bytes_per_char: no pipeline benchmark with kernels in the profile", file=sys.stderr)
        return 1
    doc = json.loads(args.into.read_text())
    doc["benchmarks"] = [b for b in doc.get("benchmarks", []) if not b["name"].startswith("thesis.bytes_per_char/")] + new
    args.into.write_text(json.dumps(doc, indent=1))
    for r in new:
        print(f"{r['name']}: {r['bytes_per_char']:.1f} bytes/char over {r['kernels']} kernels "
              + " ".join(f"{k[:-len('_bytes_per_char')]}={v:.1f}" for k, v in r.items() if k.endswith("_bytes_per_char")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
