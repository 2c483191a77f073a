#!/usr/bin/env python3
"""Summarise Nsight Compute CSV (--csv --page raw) per benchmark: kernel, duration, DRAM bytes,
achieved DRAM bandwidth, achieved occupancy. Used by scripts/profile.sh.

    ncu_summary.py --out DIR NAME=FILE.csv [NAME=FILE.csv ...]

Writes DIR/profile.json and DIR/profile.md and prints the markdown.
"""
import argparse
import csv
import json
import sys
from pathlib import Path

UNIT_SCALE = {"ns": 1e-9, "us": 1e-6, "usecond": 1e-6, "nsecond": 1e-9, "ms": 1e-3, "msecond": 1e-3, "s": 1.0,
              "second": 1.0, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "%": 1.0, "": 1.0}


def read_kernels(path: Path) -> list[dict]:
    rows = list(csv.reader(path.read_text().splitlines()))
    if len(rows) < 2:
        return []
    header, units, data = rows[0], rows[1], rows[2:]
    if not any(u in UNIT_SCALE and u for u in units):  # no unit row
        units, data = [""] * len(header), rows[1:]
    kernels = []
    for row in data:
        rec = dict(zip(header, row))
        unit = dict(zip(header, units))

        def metric(name):
            raw = rec.get(name, "").replace(",", "")
            if raw in ("", "n/a"):
                return None
            return float(raw) * UNIT_SCALE.get(unit.get(name, ""), 1.0)

        seconds = metric("gpu__time_duration.sum")
        read, write = metric("dram__bytes_read.sum"), metric("dram__bytes_write.sum")
        l2_read, l2_write = metric("lts__t_sectors_srcunit_tex_op_read.sum"), metric("lts__t_sectors_srcunit_tex_op_write.sum")
        dram = (read or 0.0) + (write or 0.0)
        kernels.append({
            "kernel": rec.get("Kernel Name", rec.get("Function Name", "?")),
            "grid": rec.get("launch__grid_size"), "block": rec.get("launch__block_size"),
            "registers_per_thread": metric("launch__registers_per_thread"),
            "seconds": seconds, "dram_read_bytes": read, "dram_write_bytes": write,
            "l2_bytes": None if l2_read is None else 32 * (l2_read + (l2_write or 0.0)),
            "dram_bytes_per_second": dram / seconds if seconds else None,
            "achieved_occupancy_pct": metric("sm__warps_active.avg.pct_of_peak_sustained_active"),
        })
    return kernels


def short(name: str, width: int = 60) -> str:
    name = name.replace("parcomp::", "").replace("(anonymous namespace)::", "")
    return name if len(name) <= width else name[: width - 3] + "..."


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("inputs", nargs="+", help="NAME=FILE.csv")
    args = ap.parse_args(argv)
    report = {}
    lines = ["| benchmark | kernel | time (us) | DRAM MB | DRAM GB/s | occupancy % |", "|---|---|---|---|---|---|"]
    for item in args.inputs:
        name, _, file = item.rpartition("=")  # names hold "=" (n=...), file names do not
        kernels = read_kernels(Path(file))
        report[name] = kernels
        if not kernels:
            lines.append(f"| {name} | (no kernel in its NVTX range) | | | | |")
        for k in kernels:
            dram = (k["dram_read_bytes"] or 0) + (k["dram_write_bytes"] or 0)
            bw = k["dram_bytes_per_second"]
            occ = k["achieved_occupancy_pct"]
            lines.append(f"| {name} | `{short(k['kernel'])}` | {k['seconds'] * 1e6:.1f} | {dram / 1e6:.1f} | "
                         f"{bw / 1e9:.0f} | {occ:.0f} |" if k["seconds"] else f"| {name} | `{short(k['kernel'])}` | | | | |")
        if kernels and all(k["seconds"] for k in kernels):
            total = sum(k["seconds"] for k in kernels)
            dram = sum((k["dram_read_bytes"] or 0) + (k["dram_write_bytes"] or 0) for k in kernels)
            lines.append(f"| {name} | **all kernels** | {total * 1e6:.1f} | {dram / 1e6:.1f} | {dram / total / 1e9:.0f} | |")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "profile.json").write_text(json.dumps(report, indent=1))
    md = "\n".join(lines) + "\n"
    (args.out / "profile.md").write_text(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
