#!/usr/bin/env python3
"""Markdown summary of one experiment in a parcomp-bench JSON file, for RESULTS.md.

    python3 plots/summary.py RESULT.json EXPERIMENT [--n SIZE]

One row per dataset at the largest size (or --n): throughput of every variant in GB/s of
uncompressed data, GPU speedup over cpu.serial, and bw_util (compulsory bytes / time / measured
copy bandwidth). Then a line naming the GPU, CPU, driver, CUDA, commit and bandwidth.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402


def table(res: common.Results, experiment: str, n: int | None = None) -> str:
    rows = res.select(experiment)
    if not rows:
        raise SystemExit(f"{res.path}: no results for {experiment}")
    size = n or max(r.n for r in rows)
    variants = sorted({r.variant for r in rows}, key=lambda v: (not v.startswith("cpu"), v))
    gpu_variants = [v for v in variants if v.startswith("gpu")]
    head = ["dataset"] + [f"{v} GB/s" for v in variants] + [f"{v} speedup" for v in gpu_variants] + \
           [f"{v} bw_util" for v in gpu_variants]
    lines = [f"| {' | '.join(head)} |", "|" + "---|" * len(head)]
    for dataset in sorted({r.dataset for r in rows}, key=lambda d: (d != "random", len(d), d)):
        by = {r.variant: r for r in rows if r.dataset == dataset and r.n == size}
        cpu = by.get("cpu.serial")
        cells = [dataset]
        cells += [f"{by[v].bytes_per_second / 1e9:.1f}" if v in by else "-" for v in variants]
        cells += [f"{cpu.seconds / by[v].seconds:.0f}x" if v in by and cpu else "-" for v in gpu_variants]
        cells += [f"{by[v].counters['bw_util']:.2f}" if v in by and "bw_util" in by[v].counters else "-"
                  for v in gpu_variants]
        lines.append(f"| {' | '.join(cells)} |")
    p = res.parcomp
    dev = p.get("device") or {}
    build = p.get("build", {})
    bw = dev.get("measured_bandwidth_bytes_per_second")
    lines.append("")
    lines.append(f"n = {size} int32 elements ({size * 4 / 2**20:.0f} MiB). GPU: {dev.get('name', 'none')} "
                 f"(driver {dev.get('nvidia_driver_release', '?')}, CUDA driver API {dev.get('driver_version', '?')}, "
                 f"runtime {dev.get('runtime_version', '?')}"
                 f"{f', measured copy bandwidth {bw / 1e9:.0f} GB/s' if bw else ''}); CPU: {res.cpu_name}, one core; "
                 f"commit {build.get('git_sha', '?')[:10]}{' (dirty)' if build.get('git_dirty') else ''}; "
                 f"{res.path.name}.")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result", type=Path)
    ap.add_argument("experiment")
    ap.add_argument("--n", type=int)
    args = ap.parse_args(argv)
    print(table(common.load(args.result), args.experiment, args.n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
