#!/usr/bin/env python3
"""The busiest CUDA source lines of one kernel, from Nsight Compute's source page as CSV
(`ncu -i REPORT --page source --csv --print-source cuda,sass`, as scripts/bz2-times.sh
--ncu-source writes it): per line, its share of the warp-stall samples and of the instructions
executed, the busiest first. SASS rows (no line number) are left out.

    scripts/ncu_lines.py FILE.csv [--top N]
"""
import argparse
import csv
import sys


def lines(path):
    """(file, line, stall samples, instructions) of every CUDA source line in the CSV."""
    out, current, header = [], None, None
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == "File Path":
                current, header = row[1], None
                continue
            if row[0] == "Function Name":
                continue
            if row[0] == "Line No":
                header = row
                continue
            if header is None or current is None:
                continue
            d = dict(zip(header, row))
            if not d.get("Line No", "").strip().isdigit():
                continue
            try:
                stalls = float(d.get("Warp Stall Sampling (All Samples)") or 0)
                instructions = float(d.get("Instructions Executed") or 0)
            except ValueError:
                continue
            out.append((current.rsplit("/", 1)[-1], int(d["Line No"]), stalls, instructions))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args(argv)
    rows = lines(args.csv)
    if not rows:
        print(f"ncu_lines: no source lines in {args.csv}", file=sys.stderr)
        return 2
    stalls = sum(r[2] for r in rows) or 1.0
    instructions = sum(r[3] for r in rows) or 1.0
    print(f"{len(rows)} lines, {stalls:.0f} stall samples, {instructions:.0f} instructions executed (warp level)")
    print("stalls  instr  line")
    for f, n, s, i in sorted(rows, key=lambda r: (-r[2], -r[3]))[: args.top]:
        print(f"{s / stalls:6.1%} {i / instructions:6.1%}  {f}:{n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
