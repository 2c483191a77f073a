"""Reading parcomp-bench JSON and drawing the figures every paper shares.

Benchmark names are <experiment>/<variant>/<dataset>/n=<size>/<timing>[_<aggregate>], where
<timing> is manual_time (CUDA events) or real_time (wall clock), as Google Benchmark appends it.
The last name part may sweep another parameter instead of the size: list=<entries>, chars=<n>.
With repetitions, the median aggregate is used; a single run is used as it is.
"""
from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

# Tests set KEEP_FIGURES to look at what a figure shows: save_figure then leaves the last figure
# open in LAST_FIGURE instead of closing it.
KEEP_FIGURES = False
LAST_FIGURE = None

NAME_RE = re.compile(r"^(?P<experiment>[^/]+)/(?P<variant>[^/]+)/(?P<dataset>[^/]+)/(?P<key>[a-z_]+)=(?P<value>\d+)"
                     r"(?:/iterations:\d+)?(?:/repeats:\d+)?(?:/(?P<timing>[a-z_]+?))?$")
TIME_UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


@dataclass
class Row:
    experiment: str
    variant: str
    dataset: str
    n: int                   # the size, or 0 when the name sweeps another parameter
    seconds: float           # median (or single) time per iteration
    bytes_per_second: float  # uncompressed bytes per second
    counters: dict = field(default_factory=dict)
    stddev_seconds: float | None = None
    repetitions: int = 1
    min_seconds: float | None = None  # of the repetitions (None: one run, or none recorded)
    max_seconds: float | None = None
    key: str = "n"           # what the last name part sweeps
    value: int = 0           # its value


@dataclass
class Results:
    path: Path
    context: dict
    rows: list[Row]
    skipped: list[str]  # names reported with an error (e.g. GPU benchmarks without a GPU)

    @property
    def parcomp(self) -> dict:
        return self.context.get("parcomp", {})

    @property
    def gpu_name(self) -> str | None:
        device = self.parcomp.get("device")
        return device["name"] if device else None

    @property
    def cpu_name(self) -> str:
        return self.parcomp.get("host", {}).get("cpu_model", "unknown CPU")

    def select(self, experiment: str, key: str | None = "n") -> list[Row]:
        """Rows of one experiment; by default those indexed by size (key None: all)."""
        return [r for r in self.rows if r.experiment == experiment and (key is None or r.key == key)]


def fmt_num(x: float) -> str:
    """Three significant digits, without exponents for large values (1560, not 1.56e+03)."""
    return f"{x:.3g}" if abs(x) < 1000 else f"{x:,.0f}"


# tool.load/<program>/jobs=<N>[.gpu-busy]/<dataset>: the variant is the program (and ".gpu-busy"),
# the swept key the number of jobs.
LOAD_NAME_RE = re.compile(r"^(?P<experiment>tool\.load)/(?P<program>[^/]+)/(?P<key>jobs)=(?P<value>\d+)(?P<busy>\.gpu-busy)?"
                          r"/(?P<dataset>[^/]+)(?:/iterations:\d+)?(?:/repeats:\d+)?(?:/(?P<timing>[a-z_]+?))?$")


def parse_name(run_name: str) -> dict | None:
    m = NAME_RE.match(run_name)
    if not m and (load := LOAD_NAME_RE.match(run_name)):
        d = load.groupdict()
        d["variant"] = d.pop("program") + (d.pop("busy") or "")
        d["value"] = int(d["value"])
        d["n"] = 0
        return d
    if not m:
        return None
    d = m.groupdict()
    d["value"] = int(d["value"])
    d["n"] = d["value"] if d["key"] == "n" else 0
    return d


def read_json(path: str | Path):
    """A result file, plain (.json) or gzipped (.json.gz: the large runs, such as
    codecs.landscape's 3,850 entries, are committed gzipped to keep the tree that is copied to a GPU host
    carry small)."""
    path = Path(path)
    if path.suffix == ".gz":
        with gzip.open(path, "rt") as f:
            return json.load(f)
    return json.loads(path.read_text())


def load(path: str | Path) -> Results:
    path = Path(path)
    doc = read_json(path)
    groups: dict[str, dict] = {}
    skipped = []
    for b in doc.get("benchmarks", []):
        run_name = b.get("run_name", b["name"])
        if b.get("error_occurred"):
            skipped.append(run_name)
            continue
        g = groups.setdefault(run_name, {"runs": [], "aggregates": {}})
        if b.get("run_type") == "aggregate":
            g["aggregates"][b["aggregate_name"]] = b
        else:
            g["runs"].append(b)
    rows = []
    for run_name, g in groups.items():
        meta = parse_name(run_name)
        if meta is None:
            continue
        chosen = g["aggregates"].get("median") or (g["runs"][0] if g["runs"] else None)
        if chosen is None:
            continue
        unit = TIME_UNIT_SECONDS[chosen.get("time_unit", "ns")]
        std = g["aggregates"].get("stddev")
        times = [b["real_time"] * TIME_UNIT_SECONDS[b.get("time_unit", "ns")] for b in g["runs"]]
        counters = {k: v for k, v in chosen.items() if k not in {
            "name", "run_name", "run_type", "repetitions", "repetition_index", "threads", "iterations",
            "real_time", "cpu_time", "time_unit", "aggregate_name", "aggregate_unit", "family_index",
            "per_family_instance_index", "bytes_per_second"}}
        rows.append(Row(experiment=meta["experiment"], variant=meta["variant"], dataset=meta["dataset"],
                        n=meta["n"], key=meta["key"], value=meta["value"], seconds=chosen["real_time"] * unit,
                        bytes_per_second=chosen.get("bytes_per_second", 0.0), counters=counters,
                        stddev_seconds=std["real_time"] * unit if std else None,
                        repetitions=max(len(g["runs"]), 1),
                        min_seconds=min(times) if len(times) > 1 else None,
                        max_seconds=max(times) if len(times) > 1 else None))
    return Results(path=path, context=doc.get("context", {}), rows=rows, skipped=skipped)


def load_many(paths) -> list[Results]:
    return [load(p) for p in paths]


def driver_release(device: dict) -> str:
    """The NVIDIA driver release a result recorded; '?' where it has none (results before the
    field existed, or an unparsed /proc line)."""
    release = (device or {}).get("nvidia_driver_release", "")
    return release if release[:1].isdigit() else "?"


def step_125_below(x: float) -> float:
    """The largest of 1, 2, 5 times a power of ten that is at most x (x > 0)."""
    import math

    decade = 10.0 ** math.floor(math.log10(x))
    return max(m * decade for m in (1, 2, 5) if m * decade <= x * (1 + 1e-12))


def log_rate_axis(axis, values=None) -> None:
    """A log axis of rates labelled 1-2-5 in plain numbers (10, 20, 50, 100, ...), minor ticks
    unlabelled: matplotlib's own labels of an axis about a decade long (2x10^1, 3x10^1, 4x10^1, ...)
    ran into each other in the narrow panels of tool.e2e and bz2.*. Given the values drawn (bars,
    lines), the axis spans at least a decade below the largest, from a 1-2-5 step: bars on a log
    axis start at its left edge, and an edge just below the smallest bar made 60 and 64 MB/s look
    ten times apart (and left one label on the axis)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())
    drawn = [v for v in (values or []) if v and v > 0 and v == v]
    if drawn:
        lo, hi = min(drawn), max(drawn)
        limits = (step_125_below(min(lo / 1.2, hi / 10)), hi * 1.5)  # room for the bars' labels
        (axis.axes.set_xlim if axis.axis_name == "x" else axis.axes.set_ylim)(*limits)


def write_png(fig, path: Path, dpi: int = 110) -> Path:
    """Every figure's one way to a PNG file: a 256-colour palette image (ours). matplotlib's RGBA
    files were three times larger (the tracked tree, copied to a GPU host with the build
    and datasets, was two thirds figures); the palette keeps the plot's colours, and only the
    antialiased edges' in-between shades are merged. The numbers are in the result files."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, dpi=dpi, format="png")
    buf.seek(0)
    return palette_png(buf, path)


def palette_png(source, path: Path) -> Path:
    """write_png's image step, also for a PNG written before it (a path or a file object)."""
    from PIL import Image

    with Image.open(source) as im:
        rgb = im.convert("RGB")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rgb.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, format="PNG", optimize=True)
    return path


def save_figure(fig, res: Results, experiment: str, out: Path, paper_note: str, stem: str | None = None,
                cores: str = "1 core") -> Path:
    """Titles a figure with the experiment, GPU, CPU (and the cores its baselines used), paper note
    and commit; writes out/<id>.png (out/<stem>.png when an experiment has more than one figure)."""
    import matplotlib.pyplot as plt

    import textwrap

    sha = res.parcomp.get("build", {}).get("git_sha", "?")[:10]
    # Wrapped to the figure's width (at 10 pt, about 13 characters an inch): one long line ran past
    # both edges of a narrow figure. Names (GPU, CPU, commit) are never split.
    width = max(40, int(fig.get_figwidth() * 13))
    gpu = res.gpu_name or "no GPU (CPU baselines only)"
    lines = [f"{experiment}: {gpu}", f"CPU: {res.cpu_name} ({cores})"]
    if len(", ".join(lines)) <= width:
        lines = [", ".join(lines)]
    lines += textwrap.wrap(paper_note, width) if paper_note else []
    lines.append(f"commit {sha}; median of repetitions")
    fig.suptitle("\n".join(lines), fontsize=10, y=1 - 0.05 / fig.get_figheight(), va="top")
    # The title sits at the top edge whatever the figure's height (the default, 2% down, fell into
    # the first panels of a tall figure); tight_layout keeps the panels below it.
    fig.tight_layout()
    path = write_png(fig, out / f"{stem or experiment}.png")  # makes the folder
    global LAST_FIGURE
    if KEEP_FIGURES:
        if LAST_FIGURE is not None and LAST_FIGURE is not fig:
            plt.close(LAST_FIGURE)
        LAST_FIGURE = fig
    else:
        plt.close(fig)
    return path


def time_vs_size_figure(res: Results, experiment: str, out: Path, paper_note: str,
                        paper_speedup: float | None = None) -> Path:
    """Time vs size per variant (top row, one panel per dataset) and GPU-over-CPU speedup
    (bottom row, with the paper's reported speedup as a dotted line when given). Writes
    out/<experiment>.png and returns its path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = res.select(experiment)
    if not rows:
        raise SystemExit(f"{res.path}: no results for {experiment}")
    datasets = sorted({r.dataset for r in rows}, key=lambda d: (d != "random", len(d), d))
    variants = sorted({r.variant for r in rows}, key=lambda v: (not v.startswith("cpu"), v))
    fig, axes = plt.subplots(2, len(datasets), figsize=(4.6 * len(datasets), 7.5), squeeze=False,
                             sharex=True)
    markers = dict(zip(variants, "osD^vx*+"))
    colors = {v: f"C{i}" for i, v in enumerate(variants)}  # one colour per variant in every panel
    for col, dataset in enumerate(datasets):
        top, bottom = axes[0][col], axes[1][col]
        by_variant = {v: sorted((r for r in rows if r.dataset == dataset and r.variant == v), key=lambda r: r.n)
                      for v in variants}
        for v, rs in by_variant.items():
            if rs:
                top.plot([r.n for r in rs], [r.seconds * 1e3 for r in rs], marker=markers[v], color=colors[v], label=v)
        cpu = {r.n: r.seconds for r in by_variant.get("cpu.serial", [])}
        any_speedup = False
        for v, rs in by_variant.items():
            if v.startswith("gpu"):
                pts = [(r.n, cpu[r.n] / r.seconds) for r in rs if r.n in cpu and r.seconds > 0]
                if pts:
                    any_speedup = True
                    bottom.plot(*zip(*pts), marker=markers[v], color=colors[v], label=f"{v} / cpu.serial")
        if not any_speedup:
            bottom.text(0.5, 0.5, "no GPU results in this file", ha="center", va="center",
                        transform=bottom.transAxes)
        else:
            bottom.axhline(1.0, color="grey", lw=0.8, ls="--")
            if paper_speedup:
                bottom.axhline(paper_speedup, color="black", lw=1.0, ls=":", label=f"paper: {paper_speedup:g}x")
            bottom.legend(fontsize=8)
        top.set_title(dataset)
        top.set_xscale("log", base=2)
        top.set_yscale("log")
        top.set_ylabel("time per call (ms)")
        top.grid(True, which="both", alpha=0.3)
        top.legend(fontsize=8)
        bottom.set_xscale("log", base=2)
        if any_speedup:
            bottom.set_yscale("log")
        bottom.set_xlabel("input size (elements)")
        bottom.set_ylabel("speedup over one CPU core")
        bottom.grid(True, which="both", alpha=0.3)
    return save_figure(fig, res, experiment, out, paper_note)


def plot_module_figure(module, res: Results, out: Path) -> Path:
    """Draws one plots/<id>.py module's figure (its FIGURE, or the time-vs-size default)."""
    figure = getattr(module, "FIGURE", time_vs_size_figure)
    extra = {"paper_speedup": module.PAPER_SPEEDUP} if getattr(module, "PAPER_SPEEDUP", None) else {}
    if getattr(module, "SWEEP_NOTE", None):
        extra["sweep_note"] = module.SWEEP_NOTE
    if getattr(module, "BASELINE", None):
        extra["baseline"] = module.BASELINE
    return figure(res, module.EXPERIMENT, out, module.PAPER_NOTE, **extra)


def _dataset_order(d: str):
    return (d.replace(".bwt", ""), not d.endswith(".bwt"))


def _variant_order(v: str):
    return (not v.startswith("cpu"), v)


def per_dataset_figure(res: Results, experiment: str, out: Path, paper_note: str,
                       paper_speedup: float | None = None, sweep_note: str | None = None,
                       baseline: str = "cpu.serial", variants: set | None = None, stem: str | None = None,
                       cores: str = "1 core") -> Path:
    """Throughput per dataset and variant (bars), the speedup over the baseline variant (the
    serial CPU code unless the module names another), and, when the experiment also sweeps a
    parameter (name part list=<k>, threads=<k>, ...), time vs that parameter."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in res.select(experiment) if variants is None or r.variant in variants]
    sweep = res.select(experiment, key=None)
    sweep = [r for r in sweep if r.key != "n" and (variants is None or r.variant in variants)]
    if not rows and not sweep:
        raise SystemExit(f"{res.path}: no results for {experiment}")
    panels = (2 if rows else 0) + (1 if sweep else 0)
    fig, axes = plt.subplots(panels, 1, figsize=(13, 3.8 * panels), squeeze=False)
    axes = [a[0] for a in axes]
    if rows:
        datasets = sorted({r.dataset for r in rows}, key=_dataset_order)
        variants = sorted({r.variant for r in rows}, key=_variant_order)
        width = 0.8 / len(variants)
        by = {(r.dataset, r.variant): r for r in rows}
        for i, v in enumerate(variants):
            xs = [k + i * width for k, d in enumerate(datasets) if (d, v) in by]
            ys = [by[(d, v)].bytes_per_second / 1e6 for d in datasets if (d, v) in by]
            axes[0].bar(xs, ys, width, label=v, color=f"C{i}")
            cpu = [(k + i * width, by[(d, baseline)].seconds / by[(d, v)].seconds)
                   for k, d in enumerate(datasets) if (d, v) in by and (d, baseline) in by]
            if v != baseline and cpu:
                axes[1].bar([x for x, _ in cpu], [y for _, y in cpu], width, label=f"{v} / {baseline}", color=f"C{i}")
        for ax in axes[:2]:
            ax.set_xticks([k + 0.4 - width / 2 for k in range(len(datasets))])
            ax.set_xticklabels(datasets, rotation=30, ha="right", fontsize=8)
            ax.set_yscale("log")
            ax.grid(True, axis="y", which="both", alpha=0.3)
        axes[0].set_ylabel("MB/s of input")
        # Beside the panels, not over them: one row of ten names ran past the figure's left edge
        # and a legend inside the speedup panel hid its bars (thesis.table4_1.pipeline).
        axes[0].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.005, 1.0))
        axes[1].axhline(1.0, color="grey", lw=0.8, ls="--")
        if paper_speedup:
            axes[1].axhline(paper_speedup, color="black", lw=1.0, ls=":", label=f"paper: up to {paper_speedup:g}x")
        axes[1].set_ylabel("speedup over one CPU core" if baseline == "cpu.serial" else f"speedup over {baseline}")
        if axes[1].get_legend_handles_labels()[0]:
            axes[1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.005, 1.0))
        else:
            axes[1].text(0.5, 0.5, "no GPU results in this file", ha="center", va="center", transform=axes[1].transAxes)
    if sweep:
        ax = axes[-1]
        key = sweep[0].key
        sweep_variants = sorted({r.variant for r in sweep}, key=_variant_order)
        styles = dict(zip(sweep_variants, ["-", "--", ":", "-."]))
        for i, d in enumerate(sorted({r.dataset for r in sweep}, key=_dataset_order)):
            for v in sweep_variants:  # one line per dataset and variant (e.g. the step timed alone)
                rs = sorted((r for r in sweep if r.dataset == d and r.variant == v), key=lambda r: r.value)
                if rs:
                    ax.plot([r.value for r in rs], [r.seconds * 1e3 for r in rs], marker="o", ls=styles.get(v, "-"),
                            label=d if len(sweep_variants) == 1 else f"{d} {v}", color=f"C{i}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(f"{key} (partial-list entries kept in shared memory)" if key == "list" else key)
        ax.set_ylabel("time per call (ms)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        if sweep_note:
            ax.set_title(sweep_note, fontsize=9)
    return save_figure(fig, res, experiment, out, paper_note, stem, cores=cores)


def pipeline_or_stage_figure(pipeline_note: str):
    """FIGURE for thesis.table4_1 / 4_2, which hold two kinds of rows: the stage's rows give the
    BWT column's figure (<id>.png, baseline module.BASELINE), the pipeline's rows the whole
    pipeline's (<id>.pipeline.png, baseline bzip2.cpu, titled with pipeline_note); a file with both
    (a whole-suite run) gives both, and the stage's path is returned."""
    def figure(res: Results, experiment: str, out: Path, paper_note: str, **kw) -> Path:
        rows = res.select(experiment)
        pipeline = {r.variant for r in rows if r.variant.startswith("pipeline.") or ".cpu" in r.variant and "bwt" not in r.variant}
        stage = {r.variant for r in rows} - pipeline
        path = None
        if any(v.startswith("pipeline.") for v in pipeline):
            threads = res.parcomp.get("host", {}).get("logical_cpus")
            cores = "CPU rows on 1 core, .mt rows on up to " + (f"{threads} hardware threads" if threads else "every core")
            path = per_dataset_figure(res, experiment, out, pipeline_note, baseline="bzip2.cpu", variants=pipeline,
                                      stem=f"{experiment}.pipeline", cores=cores)
        if stage or path is None:
            path = per_dataset_figure(res, experiment, out, paper_note, variants=stage or None, **kw)
        return path
    return figure


def cli(module_name: str, argv=None) -> int:
    """The command line every per-experiment script shares: RESULT.json [--out DIR]."""
    import sys
    import argparse

    module = sys.modules[module_name]
    ap = argparse.ArgumentParser(description=f"Plot {module.EXPERIMENT} from a parcomp-bench JSON file.")
    ap.add_argument("result", type=Path)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    args = ap.parse_args(argv)
    print(plot_module_figure(module, load(args.result), args.out))
    return 0
