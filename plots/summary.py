#!/usr/bin/env python3
"""Markdown summary of one experiment in a parcomp-bench JSON file, for RESULTS.md.

    python3 plots/summary.py RESULT.json EXPERIMENT [--n SIZE]

One row per dataset, all at one size: the largest that every dataset has (or --n; where the
datasets share no size, each at its largest, with an n column): throughput of every variant in GB/s of
uncompressed data, GPU speedup over cpu.serial, and bw_util (compulsory bytes / time / measured
copy bandwidth). With --sweep, the experiment's parameter sweep instead (e.g. list=<k>): time per
value for each dataset and variant, and the best value. Then a line naming the GPU, CPU, driver,
CUDA, commit and bandwidth.
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
    variants = sorted({r.variant for r in rows}, key=lambda v: (not v.startswith("cpu"), v))
    gpu_variants = [v for v in variants if v.startswith("gpu")]
    # Speedup columns only against a serial baseline; bw_util only where measured.
    speedup_variants = gpu_variants if "cpu.serial" in variants else []
    bw_variants = [v for v in gpu_variants if any(r.variant == v and "bw_util" in r.counters for r in rows)]
    datasets = sorted({r.dataset for r in rows}, key=common._dataset_order)
    # One size for the whole table: the largest that every dataset has (or --n); where the
    # datasets share none, each row at its own largest size, with an n column saying which.
    common_sizes = set.intersection(*({r.n for r in rows if r.dataset == d} for d in datasets))
    size_for = {d: n or (max(common_sizes) if common_sizes else max(r.n for r in rows if r.dataset == d)) for d in datasets}
    n_column = len(set(size_for.values())) > 1
    head = ["dataset"] + (["n"] if n_column else []) + [f"{v} GB/s" for v in variants] + \
           [f"{v} speedup" for v in speedup_variants] + [f"{v} bw_util" for v in bw_variants]
    lines = [f"| {' | '.join(head)} |", "|" + "---|" * len(head)]
    for dataset in datasets:
        size = size_for[dataset]
        by = {r.variant: r for r in rows if r.dataset == dataset and r.n == size}
        cpu = by.get("cpu.serial")
        cells = [dataset] + ([str(size)] if n_column else [])
        cells += [common.fmt_num(by[v].bytes_per_second / 1e9) if v in by else "-" for v in variants]
        cells += [f"{common.fmt_num(cpu.seconds / by[v].seconds)}x" if v in by and cpu else "-" for v in speedup_variants]
        cells += [f"{by[v].counters['bw_util']:.2f}" if v in by and "bw_util" in by[v].counters else "-"
                  for v in bw_variants]
        lines.append(f"| {' | '.join(cells)} |")
    lines.append("")
    lines.append(footer(res, "" if n_column else f"n = {next(iter(size_for.values()))} elements. "))
    return "\n".join(lines)


def times_table(res: common.Results, experiment: str) -> str:
    """Median time per call (us) per dataset and variant: for steps whose rate means little."""
    rows = res.select(experiment)
    if not rows:
        raise SystemExit(f"{res.path}: no results for {experiment}")
    variants = sorted({r.variant for r in rows}, key=lambda v: (not v.startswith("cpu"), v))
    lines = ["| dataset | " + " | ".join(f"{v} (us)" for v in variants) + " |", "|" + "---|" * (len(variants) + 1)]
    for dataset in sorted({r.dataset for r in rows}, key=common._dataset_order):
        by = {r.variant: r for r in rows if r.dataset == dataset}
        lines.append(f"| {dataset} | " + " | ".join(common.fmt_num(by[v].seconds * 1e6) if v in by else "-"
                                                    for v in variants) + " |")
    lines.append("")
    lines.append(footer(res, "Median time per call in microseconds. "))
    return "\n".join(lines)


def e2e_table(res: common.Results, experiment: str = "tool.e2e") -> str:
    """Whole programs' wall time (tool.e2e): a row per program and direction, a column per dataset,
    each cell the median wall seconds and GB/s of uncompressed data; then, per dataset, the ratio,
    the peak host RSS and the GPUs' share of blocks of the largest input's rows. Device-resident
    rows (variants ending in `kernels`: CUDA events, the data on the GPU) are another measure and
    never share the table."""
    rows = [r for r in res.select(experiment) if not r.variant.endswith("kernels")]
    if not rows:
        raise SystemExit(f"{res.path}: no results for {experiment}")
    datasets = sorted({r.dataset for r in rows}, key=common._dataset_order)
    variants = sorted({r.variant for r in rows}, key=lambda v: (not v.startswith("copy"), not v.startswith("parcomp"), v))
    by = {(r.variant, r.dataset): r for r in rows}
    lines = ["| program | " + " | ".join(f"{d} ({by_n(rows, d) / 1e6:,.1f} MB)" for d in datasets) + " |",
             "|" + "---|" * (len(datasets) + 1)]
    for v in variants:
        cells = []
        for d in datasets:
            r = by.get((v, d))
            spread = f" [{r.min_seconds:.3f}, {r.max_seconds:.3f}]" if r is not None and r.min_seconds is not None else ""
            cells.append("-" if r is None else f"{r.seconds:.3f} s{spread}, {r.bytes_per_second / 1e9:.3f} GB/s")
        lines.append(f"| `{v}` | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Peak host RSS (GB), ratio and GPU share of blocks, per program on each dataset "
                 "(RSS / ratio / share; share `-` where no GPU worked):\n")
    lines.append("| program | " + " | ".join(datasets) + " |")
    lines.append("|" + "---|" * (len(datasets) + 1))
    for v in variants:
        if v.startswith("copy"):
            continue
        cells = []
        for d in datasets:
            r = by.get((v, d))
            if r is None:
                cells.append("-")
                continue
            c = r.counters
            share = c.get("gpu_share", -1)
            cells.append(f"{c.get('peak_host_rss_bytes', 0) / 1e9:.2f} / {c.get('ratio', 0):.3f} / "
                         + (f"{share:.2f}" if share >= 0 else "-"))
        lines.append(f"| `{v}` | " + " | ".join(cells) + " |")
    lines.append("")
    threads = res.parcomp.get("host", {}).get("logical_cpus", "?")
    reps = sorted({r.repetitions for r in rows})
    lines.append(footer(res, f"Median wall time [min, max] of {' or '.join(map(str, reps))} runs per row, one process each, "
                             f"from start to exit; host with {threads} hardware threads. ").replace(", one core;", ";"))
    return "\n".join(lines)


def load_table(res: common.Results, experiment: str = "tool.load") -> str:
    """Many processes at once (tool.load): a row per program and number of jobs, with the jobs that
    gave their input back, the batch's round trip (compress then decompress; median, min and max),
    each direction's median, the aggregate rate, the ratio to lbzip2 at the same jobs, and the
    largest peak host RSS and device bytes of one process."""
    rows = res.select(experiment, key="jobs")
    if not rows:
        raise SystemExit(f"{res.path}: no results for {experiment}")
    by = {(r.variant, r.value): r for r in rows}
    programs = sorted({r.variant for r in rows}, key=lambda v: (v.endswith(".gpu-busy"), not v.startswith("parcomp"), v))
    lines = ["| program | jobs | ok | round trip (s): median [min, max] | compress (s) | decompress (s) | GB/s, both ways | "
             "vs lbzip2 | peak RSS (GB) | peak device (GB) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for v in programs:
        for jobs in sorted({r.value for r in rows if r.variant == v}):
            r = by[(v, jobs)]
            c = r.counters
            spread = f" [{r.min_seconds:.2f}, {r.max_seconds:.2f}]" if r.min_seconds is not None else ""
            peer = by.get(("lbzip2" + (".gpu-busy" if v.endswith(".gpu-busy") else ""), jobs))
            vs = f"{peer.seconds / r.seconds:.2f}x" if peer is not None and not v.startswith("lbzip2") else "-"
            lines.append(f"| `{v}` | {jobs} | {int(c.get('jobs_ok', 0))}/{int(c.get('jobs', jobs))} | {r.seconds:.2f}{spread} | "
                         f"{c.get('compress_s', 0):.2f} | {c.get('decompress_s', 0):.2f} | {r.bytes_per_second / 1e9:.3f} | {vs} | "
                         f"{c.get('peak_host_rss_bytes', 0) / 1e9:.2f} | {c.get('peak_device_bytes', 0) / 1e9:.2f} |")
    lines.append("")
    threads = res.parcomp.get("host", {}).get("logical_cpus", "?")
    reps = sorted({r.repetitions for r in rows})
    lines.append(footer(res, f"Wall time of the whole batch, {' or '.join(map(str, reps))} runs per row, the rows' runs "
                             f"interleaved; every job's output compared with its input; host with {threads} hardware "
                             f"threads; `.gpu-busy`: beside a process holding all of the GPU's memory but 2 GiB. ")
                 .replace(", one core;", ";"))
    return "\n".join(lines)


def by_n(rows: list[common.Row], dataset: str) -> int:
    return max(r.n for r in rows if r.dataset == dataset)


def sweep_table(res: common.Results, experiment: str) -> str:
    rows = [r for r in res.select(experiment, key=None) if r.key != "n"]
    if not rows:
        raise SystemExit(f"{res.path}: no parameter sweep for {experiment}")
    key = rows[0].key
    values = sorted({r.value for r in rows})
    lines = [f"| dataset / variant | " + " | ".join(f"{key}={v}" for v in values) + " | best |",
             "|" + "---|" * (len(values) + 2)]
    for dataset in sorted({r.dataset for r in rows}, key=common._dataset_order):
        for variant in sorted({r.variant for r in rows if r.dataset == dataset}):
            by = {r.value: r for r in rows if r.dataset == dataset and r.variant == variant}
            best = min(by.values(), key=lambda r: r.seconds)
            cells = [f"{by[v].seconds * 1e3:.1f}" if v in by else "-" for v in values]
            lines.append(f"| {dataset} {variant} | " + " | ".join(cells) + f" | {key}={best.value} |")
    lines.append("")
    lines.append(footer(res, "Time per call in ms. "))
    return "\n".join(lines)


def footer(res: common.Results, prefix: str) -> str:
    p = res.parcomp
    dev = p.get("device") or {}
    build = p.get("build", {})
    bw = dev.get("measured_bandwidth_bytes_per_second")
    return (f"{prefix}GPU: {dev.get('name', 'none')} "
            f"(driver {common.driver_release(dev)}, CUDA driver API {dev.get('driver_version', '?')}, "
            f"runtime {dev.get('runtime_version', '?')}"
            f"{f', measured copy bandwidth {bw / 1e9:.0f} GB/s' if bw else ''}); CPU: {res.cpu_name}, one core; "
            f"commit {build.get('git_sha', '?')[:10]}{' (dirty)' if build.get('git_dirty') else ''}; "
            f"{res.path.name}.")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result", type=Path)
    ap.add_argument("experiment")
    ap.add_argument("--n", type=int)
    ap.add_argument("--sweep", action="store_true", help="the parameter sweep instead of the per-size table")
    args = ap.parse_args(argv)
    res = common.load(args.result)
    print(sweep_table(res, args.experiment) if args.sweep else table(res, args.experiment, args.n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
