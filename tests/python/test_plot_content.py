"""What the figures show, not only that they exist: the numbers drawn are the numbers in the
result file (times in ms, rates in MB/s, speedups as baseline time over variant time, never the
inverse), the axes say their units, and every title names the GPU, the CPU and the commit.
make_all.py runs over every committed result file, and every plot script runs as a program."""
import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import common

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
PLOTS = ROOT / "plots"
# parcomp-bench results, plain or gzipped (other committed JSON, such as scripts/maint/bz2_identity.py's
# record or a trace, has no benchmarks).
RESULTS = sorted(p for p in [*(ROOT / "results").glob("*/*/*.json"), *(ROOT / "results").glob("*/*/*.json.gz")]
                 if "benchmarks" in common.read_json(p))


def module(name):
    spec = importlib.util.spec_from_file_location(name, PLOTS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# tool_timeline draws one run's --trace file, not an experiment's result (test_cli.py runs it).
PLOT_MODULES = sorted(p.stem for p in PLOTS.glob("*.py")
                      if p.stem not in {"common", "make_all", "summary", "tool_timeline"})


@pytest.fixture
def keep(monkeypatch):
    """Keeps each drawn figure open (common.LAST_FIGURE) and records every title."""
    titles = []
    save = common.save_figure

    def recording(fig, res, *a, **kw):
        path = save(fig, res, *a, **kw)
        titles.append((res, fig._suptitle.get_text() if fig._suptitle else ""))
        return path

    monkeypatch.setattr(common, "KEEP_FIGURES", True)
    monkeypatch.setattr(common, "save_figure", recording)
    yield titles
    import matplotlib.pyplot as plt
    plt.close("all")
    common.LAST_FIGURE = None


def close(a, b, rel=1e-9):
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def assert_title_names_the_run(title, res):
    sha = res.parcomp.get("build", {}).get("git_sha", "?")[:10]
    assert sha in title, f"commit {sha} missing from the title {title!r}"
    assert res.cpu_name in title, f"CPU {res.cpu_name!r} missing from the title {title!r}"
    if res.gpu_name:
        assert res.gpu_name in title, f"GPU {res.gpu_name!r} missing from the title {title!r}"
    else:
        assert "no GPU" in title


def test_time_vs_size_draws_times_in_ms_and_cpu_over_gpu_speedups(tmp_path, keep):
    res = common.load(FIXTURES / "parle_gpu_nvidia-h200.json")
    common.plot_module_figure(module("parle_encode"), res, tmp_path)
    fig = common.LAST_FIGURE
    rows = res.select("parle.encode")
    datasets = sorted({r.dataset for r in rows}, key=lambda d: (d != "random", len(d), d))
    top_axes, bottom_axes = fig.axes[:len(datasets)], fig.axes[len(datasets):2 * len(datasets)]
    checked = 0
    for dataset, top, bottom in zip(datasets, top_axes, bottom_axes):
        assert top.get_title() == dataset
        assert top.get_ylabel() == "time per call (ms)"
        assert bottom.get_ylabel() == "speedup over one CPU core"
        assert bottom.get_xlabel() == "input size (elements)"
        by = {(r.variant, r.n): r for r in rows if r.dataset == dataset}
        for line in top.get_lines():
            for n, ms in line.get_xydata():
                assert close(ms, by[(line.get_label(), int(n))].seconds * 1e3)
                checked += 1
        for line in bottom.get_lines():
            label = line.get_label()
            if not label.endswith(" / cpu.serial"):
                continue
            variant = label[:-len(" / cpu.serial")]
            for n, speedup in line.get_xydata():
                want = by[("cpu.serial", int(n))].seconds / by[(variant, int(n))].seconds
                assert close(speedup, want), f"{dataset} {variant} n={n}: drew {speedup}, want cpu/gpu {want}"
                checked += 1
    assert checked > 20
    assert_title_names_the_run(keep[-1][1], res)


def test_per_dataset_figure_draws_mb_per_s_and_speedups(tmp_path, keep):
    res = common.load(FIXTURES / "mtf_gpu_nvidia-h200.json")
    common.plot_module_figure(module("thesis_fig4_4"), res, tmp_path)
    fig = common.LAST_FIGURE
    rates, speedups = fig.axes[0], fig.axes[1]
    assert rates.get_ylabel() == "MB/s of input"
    assert speedups.get_ylabel() == "speedup over one CPU core"
    rows = res.select("thesis.fig4_4")
    datasets = sorted({r.dataset for r in rows}, key=common._dataset_order)
    variants = sorted({r.variant for r in rows}, key=common._variant_order)
    by = {(r.dataset, r.variant): r for r in rows}
    width = 0.8 / len(variants)
    checked = 0
    for container in rates.containers:  # one bar() call per variant, labelled with it
        i = variants.index(container.get_label())
        for bar in container.patches:
            k = round(bar.get_x() + bar.get_width() / 2 - i * width)
            r = by[(datasets[k], variants[i])]
            assert close(bar.get_height(), r.bytes_per_second / 1e6), (datasets[k], variants[i])
            checked += 1
    for container in speedups.containers:
        variant = container.get_label().split(" / ")[0]
        i = variants.index(variant)
        for bar in container.patches:
            k = round(bar.get_x() + bar.get_width() / 2 - i * width)
            want = by[(datasets[k], "cpu.serial")].seconds / by[(datasets[k], variant)].seconds
            assert close(bar.get_height(), want), f"{datasets[k]} {variant}: drew {bar.get_height()}, want {want}"
            checked += 1
    assert checked > 10


def committed(experiment):
    for path in RESULTS:
        res = common.load(path)
        if res.select(experiment, key=None):
            return res
    pytest.skip(f"no committed result holds {experiment}")


def test_fig4_7_shares_add_up_and_follow_the_times(tmp_path, keep):
    res = committed("thesis.fig4_7")
    mod = module("thesis_fig4_7")
    common.plot_module_figure(mod, res, tmp_path)
    fig = common.LAST_FIGURE
    rows = res.select("thesis.fig4_7")
    by = {(r.dataset, r.variant): r for r in rows}
    datasets = sorted({r.dataset for r in rows}, key=common._dataset_order)
    for ax, (stack, steps) in zip(fig.axes, mod.STACKS.items()):
        totals = [sum(by[(d, s)].seconds for s in steps if (d, s) in by) for d in datasets]
        for container, step in zip(ax.containers, steps):
            for k, bar in enumerate(container.patches):
                if totals[k] > 0 and (datasets[k], step) in by:
                    assert close(bar.get_height(), 100 * by[(datasets[k], step)].seconds / totals[k], 1e-6), (stack, step)
        assert "share" in fig.axes[0].get_ylabel() and "%" in fig.axes[0].get_ylabel()


def test_fig4_1_needed_rate_is_link_over_one_minus_ratio(tmp_path, keep):
    res = committed("thesis.fig4_1")
    mod = module("thesis_fig4_1")
    common.plot_module_figure(mod, res, tmp_path)
    ax = common.LAST_FIGURE.axes[0]
    assert ax.get_xlabel() == "link bandwidth (GB/s)"
    curves = [line for line in ax.get_lines() if line.get_label().startswith("needed at ratio")]
    assert len(curves) == len(mod.RATIOS)
    for line, r in zip(curves, mod.RATIOS):
        for x, y in line.get_xydata():
            assert close(y, x / (1 - r))
    measured = [line for line in ax.get_lines() if "MB/s, ratio" in line.get_label()]
    assert measured, "the pipeline's measured rates are marked"
    for line in measured:
        (x, y), = line.get_xydata()
        variant = line.get_label().split(":")[0]
        row = next(r for r in res.select("thesis.table4_1") if r.variant == variant and r.dataset == mod.DATASET)
        assert close(y, row.bytes_per_second / 1e9)


def test_fig4_1_leaves_out_rows_without_a_ratio(tmp_path, keep):
    """thesis.table4_1 has rows of the BWT alone (bwt.*: no ratio) on the tarball too: not marked,
    and the figure is drawn (the H200's suite run at 575289d stopped make_all.py here)."""
    res = committed("thesis.fig4_1")
    mod = module("thesis_fig4_1")
    measured = [r for r in res.select("thesis.table4_1") if r.dataset == mod.DATASET]
    if not measured:
        pytest.skip("no committed result holds thesis.table4_1 on the tarball beside thesis.fig4_1")
    stage = common.Row(**{**measured[0].__dict__, "variant": "bwt.gpu.fast", "counters": {}})
    res.rows.append(stage)
    common.plot_module_figure(mod, res, tmp_path)
    labels = [line.get_label() for line in common.LAST_FIGURE.axes[0].get_lines()]
    assert not any(label.startswith("bwt.gpu.fast") for label in labels)
    assert sum("MB/s, ratio" in label for label in labels) == len({r.variant for r in measured if r.counters.get("ratio")})


def test_bytes_per_char_stacks_the_stage_counters(tmp_path, keep):
    res = committed("thesis.bytes_per_char")
    mod = module("thesis_bytes_per_char")
    common.plot_module_figure(mod, res, tmp_path)
    ax = common.LAST_FIGURE.axes[0]
    assert ax.get_ylabel() == "bytes per input character"
    rows = sorted(res.select("thesis.bytes_per_char"), key=lambda r: (r.dataset, r.variant))
    tops = {}
    for bar in ax.patches:
        k = round(bar.get_x() + bar.get_width() / 2)
        tops[k] = max(tops.get(k, 0.0), bar.get_y() + bar.get_height())
    for k, r in enumerate(rows):
        want = sum(r.counters.get(f"{s}_bytes_per_char", 0.0) for s in mod.STAGES)
        assert close(tops[k], want, 1e-6)


def test_fig4_3_tail_fractions(tmp_path, keep):
    res = committed("thesis.fig4_3")
    common.plot_module_figure(module("thesis_fig4_3"), res, tmp_path)
    ax = common.LAST_FIGURE.axes[0]
    for line in ax.get_lines():
        ys = list(line.get_ydata())
        assert all(0 < y <= 1 for y in ys)
        assert all(a >= b for a, b in zip(ys, ys[1:])), "a tail fraction cannot grow with the tie length"


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_make_all_over_every_committed_result(tmp_path, keep, path):
    make_all = module("make_all")
    assert make_all.main([str(path), "--out", str(tmp_path)]) == 0
    assert keep, "no figure drawn"
    for res, title in keep:
        assert_title_names_the_run(title, res)


@pytest.mark.parametrize("name", PLOT_MODULES)
def test_every_plot_script_runs_as_a_program(tmp_path, name):
    experiment = module(name).EXPERIMENT
    path = next((p for p in RESULTS if common.load(p).select(experiment, key=None)), None)
    if path is None:
        path = next((p for p in sorted(FIXTURES.glob("*.json")) if common.load(p).select(experiment, key=None)), None)
    assert path is not None, f"no committed result or fixture holds {experiment}: add one"
    subprocess.run([sys.executable, PLOTS / f"{name}.py", path, "--out", tmp_path], check=True, capture_output=True)
    assert any(tmp_path.glob(f"{experiment}*.png"))


def test_summary_table_is_at_one_size_or_says_each_rows_size():
    import summary
    res = common.load(FIXTURES / "parle_gpu_nvidia-h200.json")
    text = summary.table(res, "parle.encode")
    assert "| n |" not in text.splitlines()[0]
    largest = max(r.n for r in res.select("parle.encode"))
    assert f"n = {largest} elements." in text
    # Rates in GB/s and speedups as cpu time over GPU time, from the rows at that size.
    by = {(r.dataset, r.variant): r for r in res.select("parle.encode") if r.n == largest}
    row = next(line for line in text.splitlines() if line.startswith("| random |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    header = [c.strip() for c in text.splitlines()[0].strip("|").split("|")]
    for name, cell in zip(header, cells):
        if name.endswith(" GB/s"):
            assert cell == common.fmt_num(by[("random", name[:-5])].bytes_per_second / 1e9)
        if name.endswith(" speedup"):
            v = name[:-len(" speedup")]
            assert cell == f"{common.fmt_num(by[('random', 'cpu.serial')].seconds / by[('random', v)].seconds)}x"
    mixed = committed("pavle.decode")
    if len({r.n for r in mixed.select("pavle.decode")}) > 1:
        table = summary.table(mixed, "pavle.decode")
        assert "| n |" in table.splitlines()[0] or "n = " in table


def assert_rate_axis_spans(ax, values):
    """A log rate axis of bars: every bar and line inside it, and at least a decade below the
    largest (bars start at the left edge: an edge just below the smallest bar stretched small
    differences into long bars)."""
    lo, hi = ax.get_xlim()
    assert lo <= min(values) and hi > max(values), (ax.get_title(), (lo, hi), values)
    assert lo <= max(values) / 10 * (1 + 1e-9), (ax.get_title(), lo, max(values))


def test_tool_e2e_draws_wall_rates_ratios_and_the_copy_ceiling(tmp_path, keep):
    res = common.load(FIXTURES / "tool_e2e_cpu_only.json")
    mod = module("tool_e2e")
    common.plot_module_figure(mod, res, tmp_path)
    fig = common.LAST_FIGURE
    rows = res.select("tool.e2e")
    by = {(r.dataset, r.variant): r for r in rows}
    checked = 0
    for ax in fig.axes:
        dataset, _, rest = ax.get_title().partition(" (")
        mode = rest.split(": ")[1].split(";")[0]
        assert ax.get_xlabel() == "MB/s of uncompressed data (wall)"
        names = [t.get_text() for t in ax.get_yticklabels()]
        bars = ax.containers[0]
        labels = [t.get_text() for t in ax.texts]
        for name, bar, label in zip(names, bars.patches, labels):
            r = by[(dataset, f"{name}.{mode}")]
            assert close(bar.get_width(), r.bytes_per_second / 1e6), (dataset, name, mode)
            assert label == f"{r.counters['ratio']:.3f}"
            checked += 1
        cat = by[(dataset, "copy.cat")].bytes_per_second / 1e6
        assert any(close(line.get_xdata()[0], cat) for line in ax.lines), f"{dataset}: no line at cat's {cat} MB/s"
        assert_rate_axis_spans(ax, [b.get_width() for b in bars.patches] + [cat])
        assert f"cat in > out {common.fmt_num(cat)} MB/s" in ax.get_title()
    assert checked == len([r for r in rows if not r.variant.startswith("copy.")])
    _, title = keep[-1]
    assert_title_names_the_run(title, res)
    assert "1 core" not in title, "the programs ran on every core: the title must not say one"


def test_e2e_table_gives_each_programs_median_wall_time_rate_and_counters():
    import summary
    res = common.load(FIXTURES / "tool_e2e_cpu_only.json")
    text = summary.e2e_table(res)
    rows = res.select("tool.e2e")
    for r in rows:
        line = next(l for l in text.splitlines() if l.startswith(f"| `{r.variant}` |"))
        spread = f" [{r.min_seconds:.3f}, {r.max_seconds:.3f}]" if r.min_seconds is not None else ""
        assert f"{r.seconds:.3f} s{spread}, {r.bytes_per_second / 1e9:.3f} GB/s" in line, (r.variant, r.dataset)
        if not r.variant.startswith("copy."):
            counters = [l for l in text.splitlines() if l.startswith(f"| `{r.variant}` |")][1]
            assert f"{r.counters['ratio']:.3f}" in counters
    assert "one core" not in text, "the programs ran on every core: the footer must not say one"


def test_load_table_gives_each_rows_median_min_max_and_the_ratio_to_lbzip2(tmp_path):
    """tool.load's table from a made-up result: the round trip's median with its min and max, the
    jobs that came back, and lbzip2's time over the program's at the same number of jobs."""
    import json
    import summary
    def runs(name, times, **counters):
        return [{"name": name, "run_name": name, "run_type": "iteration", "repetitions": len(times), "repetition_index": i,
                 "iterations": 1, "real_time": t, "cpu_time": 1, "time_unit": "ms", **counters} for i, t in enumerate(times)] + [
                {"name": name + "_median", "run_name": name, "run_type": "aggregate", "aggregate_name": "median",
                 "iterations": 3, "real_time": sorted(times)[1], "cpu_time": 1, "time_unit": "ms", **counters}]
    path = tmp_path / "load.json"
    path.write_text(json.dumps({"context": {}, "benchmarks":
        runs("tool.load/parcomp.bz2/jobs=16/linux-2.6.11.1.tar/iterations:1/manual_time", [12000, 13000, 12500], jobs=16, jobs_ok=16)
        + runs("tool.load/lbzip2/jobs=16/linux-2.6.11.1.tar/iterations:1/manual_time", [50000, 49000, 51000], jobs=16, jobs_ok=16)
        + runs("tool.load/parcomp.bz2/jobs=16.gpu-busy/linux-2.6.11.1.tar/iterations:1/manual_time", [40000, 44000, 42000], jobs=16, jobs_ok=15)}))
    text = summary.load_table(common.load(path))
    line = next(l for l in text.splitlines() if l.startswith("| `parcomp.bz2` | 16 |"))
    assert "| 16/16 | 12.50 [12.00, 13.00] |" in line and "| 4.00x |" in line, line
    busy = next(l for l in text.splitlines() if l.startswith("| `parcomp.bz2.gpu-busy` | 16 |"))
    assert "| 15/16 | 42.00 [40.00, 44.00] |" in busy and "| - |" in busy, busy  # no lbzip2 beside the busy GPU here


def brute_front(pts):
    """Points no other beats on both size and speed, found the slow way."""
    return {p for p in pts if not any((q[1] <= p[1] and q[2] >= p[2]) and (q[1], q[2]) != (p[1], p[2]) for q in pts)}


def test_codecs_landscape_draws_every_point_and_the_pareto_front(tmp_path, keep):
    res = common.load(FIXTURES / "codecs_landscape_cpu_only.json")
    mod = module("codecs_landscape")
    common.plot_module_figure(mod, res, tmp_path)
    fig = common.LAST_FIGURE
    rows = res.select("codecs.landscape")
    by = {(r.dataset, r.variant): r for r in rows}
    drawn = 0
    for ax in fig.axes:
        dataset, _, rest = ax.get_title().partition(" (")
        mode, _, kind = rest.split(": ")[1].partition(", ")
        assert ax.get_yscale() == "log"
        assert ax.get_xlabel() == "compressed / original (smaller is better)"
        gpu_panel = kind.startswith("GPU codecs, device-resident")
        assert gpu_panel or kind.startswith("CPU programs, wall time"), kind
        assert ("device-resident" in ax.get_ylabel()) == gpu_panel
        if not ax.collections:  # a kind this run has no points of (the fixture has no GPU rows)
            assert any("no points of this kind" in t.get_text() for t in ax.texts)
            continue
        pts = []
        for coll in ax.collections:
            codec = coll.get_label()
            assert mod.is_gpu(codec) == gpu_panel, f"{codec}: device-resident and whole-program points never share a panel"
            (x, y), = coll.get_offsets()
            r = by[(dataset, f"{codec}.{mode}")]
            assert close(x, r.counters["ratio"]) and close(y, r.bytes_per_second / 1e9), (dataset, codec, mode)
            assert coll.get_paths()[0] is not None
            pts.append((codec, x, y))
            drawn += 1
        front_line = [line for line in ax.lines if line.get_label() == "Pareto front"]
        assert len(front_line) == 1
        xs, ys = front_line[0].get_xdata(), front_line[0].get_ydata()
        want = sorted(brute_front(pts), key=lambda p: p[1])
        # A step line: the front's points are its corners, in order of size.
        corners = sorted({(x, y) for x, y in zip(xs, ys)} & {(p[1], p[2]) for p in pts})
        assert corners == [(p[1], p[2]) for p in want], (dataset, mode)
        assert all(b >= a for a, b in zip(ys, ys[1:])), "a front gets faster as files get larger"
    assert drawn == len(rows)
    _, title = keep[-1]
    assert_title_names_the_run(title, res)
    assert "device-resident" in title and "wall" in title, "GPU and CPU points are different measures: the title says so"


def test_codecs_landscape_front_and_table_on_known_points():
    mod = module("codecs_landscape")
    pts = [("nvcomp.a", 0.20, 1.0), ("nvcomp.b", 0.25, 5.0), ("nvcomp.c", 0.22, 0.5), ("nvcomp.d", 0.30, 5.0),
           ("parcomp.fast.kernels", 0.18, 0.8), ("nvcomp.e", 0.17, 2.0)]
    assert [p[0] for p in mod.pareto(pts)] == ["nvcomp.e", "nvcomp.b"]
    info = mod.distance_to_front(pts, "parcomp.fast.kernels")
    assert not info["on_front"]
    assert info["speed_needed"][0] == "nvcomp.e" and info["size_needed"][0] == "nvcomp.e"
    assert mod.distance_to_front(pts, "nonesuch") is None
    on = mod.distance_to_front([p for p in pts if p[0] != "nvcomp.e"], "parcomp.fast.kernels")
    assert on["on_front"]
    # A CPU program (a whole program's wall time) smaller and faster than every GPU point does not
    # enter the device-resident front of the table.
    pts = pts + [("xz.l6", 0.11, 50.0)]

    class Fake:
        def __init__(self, rows):
            self.rows = rows

        def select(self, experiment):
            return [r for r in self.rows if r.experiment == experiment]
    rows = [common.Row(experiment="codecs.landscape", variant=f"{c}.compress", dataset="x", n=100, seconds=1.0,
                       bytes_per_second=g * 1e9, counters={"ratio": r}) for c, r, g in pts]
    # The .bz2 mode's GPU rows come from bz2.compress/gpu.kernels, drawn as parcomp.bz2.kernels.
    rows.append(common.Row(experiment="bz2.compress", variant="gpu.kernels", dataset="x", n=100, seconds=1.0,
                           bytes_per_second=1.5e9, counters={"ratio": 0.175}))
    rows.append(common.Row(experiment="bz2.compress", variant="gpu.sort.kernels", dataset="x", n=100, seconds=1.0,
                           bytes_per_second=9e9, counters={"ratio": 0.1}))
    assert ("parcomp.bz2.kernels", 0.175, 1.5) in mod.points(Fake(rows), "x", "compress")
    assert not any(p[1] == 0.1 for p in mod.points(Fake(rows), "x", "compress")), "the sort alone is no codec"
    assert [p[0] for p in mod.points(Fake(rows), "x", "compress", "cpu")] == ["xz.l6"]
    assert "xz.l6" not in [p[0] for p in mod.points(Fake(rows), "x", "compress", "gpu")]
    text = mod.table(Fake(rows))
    cells = [[c.strip() for c in l.strip("|").split("|")] for l in text.splitlines() if l.startswith("| x | compress")]
    assert cells[0][2:] == ["fast", "0.180", "0.8", "no", "nvcomp.e (0.170, 2)", "2.5x", "7"]
    assert cells[1][2:] == ["bz2", "0.175", "1.5", "no", "nvcomp.e (0.170, 2)", "1.33x", "7"]


@pytest.mark.parametrize("experiment", ["bz2.compress", "bz2.decompress"])
def test_bz2_figures_draw_every_program_with_its_ratio(tmp_path, keep, experiment):
    res = common.load(FIXTURES / "bz2_cpu_only.json")
    mod = module(experiment.replace(".", "_"))
    common.plot_module_figure(mod, res, tmp_path)
    fig = common.LAST_FIGURE
    rows = res.select(experiment)
    by = {(r.dataset, r.variant): r for r in rows}
    checked = 0
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        dataset = ax.get_title().partition(" (")[0]
        names = [t.get_text() for t in ax.get_yticklabels()]
        labels = [t.get_text() for t in ax.texts]
        for name, bar, label in zip(names, ax.containers[0].patches, labels):
            r = by[(dataset, name)]
            assert close(bar.get_width(), r.bytes_per_second / 1e6), (dataset, name)
            assert label == f"{r.counters['ratio']:.4f}"
            checked += 1
        assert_rate_axis_spans(ax, [b.get_width() for b in ax.containers[0].patches])
    assert checked == len(rows) > 0
    _, title = keep[-1]
    assert_title_names_the_run(title, res)


def test_table4_1_from_a_file_with_both_kinds_of_rows_draws_both_figures(tmp_path, keep):
    """A whole-suite file holds the BWT column's rows and the pipeline's: each gets its figure, and
    neither draws the other's variants."""
    suite = ROOT / "results" / "nvidia-h200" / "suite-575289d" / "run.json.gz"
    if not suite.exists():
        pytest.skip("no committed suite file")
    res = common.load(suite)
    common.plot_module_figure(module("thesis_table4_1"), res, tmp_path)
    assert (tmp_path / "thesis.table4_1.png").exists() and (tmp_path / "thesis.table4_1.pipeline.png").exists()
    drawn = {c.get_label() for c in common.LAST_FIGURE.axes[0].containers}  # the last drawn: the stage's
    assert drawn == {"bwt.cpu.divbwt", "bwt.cpu.divbwt.mt", "bwt.gpu.fast", "bwt.gpu.paper"}, drawn


def test_e2e_table_leaves_out_device_resident_rows():
    """Wall times of programs and CUDA-event times of kernels are different measures: a result file
    holding both (bz2.compress: the programs and gpu.kernels) gives a table of the programs alone."""
    path = ROOT / "results" / "nvidia-h200" / "20261128-e6952e6" / "bz2.json.gz"
    if not path.exists():
        pytest.skip("no committed file with both kinds of rows")
    res = common.load(path)
    assert any(r.variant.endswith("kernels") for r in res.select("bz2.compress"))
    table = module("summary").e2e_table(res, "bz2.compress")
    assert "`parcomp`" in table and "`lbzip2`" in table
    assert "kernels" not in table, table
