"""The plot scripts run on committed bench JSON fixtures and produce the figures."""
import subprocess
import sys
from pathlib import Path

import pytest

import common

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
GPU_FIXTURES = sorted(FIXTURES.glob("parle_gpu_*.json"))


def test_parse_name():
    assert common.parse_name("parle.encode/gpu.paper/runs-mean8/n=16777216/manual_time") == {
        "experiment": "parle.encode", "variant": "gpu.paper", "dataset": "runs-mean8", "n": 16777216,
        "key": "n", "value": 16777216, "timing": "manual_time"}
    assert common.parse_name("parle.encode/cpu.serial/random/n=65536/real_time")["variant"] == "cpu.serial"
    assert common.parse_name("not/a/parcomp/name") is None
    sweep = common.parse_name("thesis.fig4_5/gpu.paper/linux-2.6.11.1.tar.bwt/list=40/manual_time")
    assert (sweep["key"], sweep["value"], sweep["n"]) == ("list", 40, 0)


def test_write_png_is_a_palette_image_with_the_plots_colours(tmp_path):
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from PIL import Image

    fig, ax = plt.subplots(figsize=(6, 4))
    for i in range(4):  # lines and points in four of matplotlib's colours, antialiased
        ax.plot(range(50), [x * (i + 1) for x in range(50)], color=f"C{i}", marker="o", ms=3)
    ax.set_title("write_png")
    rgba = io.BytesIO()
    fig.savefig(rgba, dpi=110, format="png")
    path = common.write_png(fig, tmp_path / "sub" / "f.png")
    plt.close(fig)
    with Image.open(path) as im:
        assert im.mode == "P" and im.size == Image.open(rgba).size
        colours = {c for _, c in im.convert("RGB").getcolors(1 << 16)}
    for i in range(4):  # each line's own colour is there exactly, and white
        rgb = tuple(round(255 * v) for v in matplotlib.colors.to_rgb(f"C{i}"))
        assert rgb in colours, (i, rgb)
    assert (255, 255, 255) in colours
    assert path.stat().st_size < len(rgba.getvalue())


def test_load_takes_the_median():
    res = common.load(FIXTURES / "parle_cpu_only.json")
    rows = res.select("parle.encode")
    assert rows and all(r.variant == "cpu.serial" for r in rows)
    assert all(r.seconds > 0 and r.bytes_per_second > 0 for r in rows)
    assert all(r.repetitions == 3 for r in rows)
    assert res.gpu_name is None
    assert res.cpu_name


def test_load_reads_gzipped_results(tmp_path):
    """Large runs are committed as .json.gz: the same rows as the plain file."""
    import gzip
    plain = FIXTURES / "codecs_landscape_cpu_only.json"
    packed = tmp_path / "run.json.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    a, b = common.load(plain), common.load(packed)
    assert a.rows and [(r.experiment, r.variant, r.dataset, r.seconds) for r in a.rows] == \
        [(r.experiment, r.variant, r.dataset, r.seconds) for r in b.rows]
    assert a.context == b.context


@pytest.mark.parametrize("fixture", [FIXTURES / "parle_cpu_only.json", *GPU_FIXTURES], ids=lambda p: p.name)
@pytest.mark.parametrize("script", ["parle_encode.py", "parle_decode.py"])
def test_plot_script_writes_png(tmp_path, fixture, script):
    subprocess.run([sys.executable, ROOT / "plots" / script, fixture, "--out", tmp_path], check=True)
    experiment = script[:-3].replace("_", ".")
    png = tmp_path / f"{experiment}.png"
    assert png.stat().st_size > 10_000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_gpu_fixture_present():
    """A real GPU run backs the figures: its trimmed JSON is a fixture, with device metadata."""
    assert GPU_FIXTURES, "no GPU fixture (tests/python/fixtures/parle_gpu_*.json)"
    res = common.load(GPU_FIXTURES[0])
    assert res.gpu_name
    device = res.parcomp["device"]
    assert device["measured_bandwidth_bytes_per_second"] > 0
    variants = {r.variant for r in res.select("parle.encode")}
    assert {"cpu.serial", "gpu.paper", "gpu.cub"} <= variants


MTF_FIXTURES = sorted(FIXTURES.glob("mtf_gpu_*.json"))


@pytest.mark.parametrize("fixture", MTF_FIXTURES, ids=lambda p: p.name)
def test_mtf_figures(tmp_path, fixture):
    subprocess.run([sys.executable, ROOT / "plots" / "make_all.py", fixture, "--out", tmp_path], check=True)
    for experiment in ("thesis.fig4_4", "thesis.fig4_5", "thesis.fig4_6"):
        assert (tmp_path / f"{experiment}.png").stat().st_size > 10_000
    res = common.load(fixture)
    assert {r.key for r in res.select("thesis.fig4_5", key=None)} == {"list"}


def test_make_all(tmp_path):
    subprocess.run([sys.executable, ROOT / "plots" / "make_all.py", FIXTURES / "parle_cpu_only.json",
                    "--out", tmp_path], check=True)
    assert (tmp_path / "parle.encode.png").exists() and (tmp_path / "parle.decode.png").exists()


def test_make_all_rejects_foreign_json(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text('{"context": {}, "benchmarks": [{"name": "BM_x", "run_name": "BM_x", "real_time": 1}]}')
    r = subprocess.run([sys.executable, ROOT / "plots" / "make_all.py", bad, "--out", tmp_path])
    assert r.returncode == 1
