"""scripts/compare, scripts/report.py and scripts/ncu_summary.py on committed fixtures."""
import json
import re
from collections import Counter
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
GPU = FIXTURES / "parle_gpu_nvidia-h200.json"
COMPARE = ROOT / "scripts" / "compare"


def run(*args, check=False):
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, check=check)


def variant_of(path: Path, tmp_path: Path, name: str, scale: float = 1.0, gpu: str = "NVIDIA H100 80GB HBM3",
               sha=None, drop_stddev=False) -> Path:
    doc = json.loads(path.read_text())
    doc["context"]["parcomp"]["device"]["name"] = gpu
    for b in doc["benchmarks"]:
        if b.get("aggregate_name") == "stddev" and drop_stddev:
            b["aggregate_name"] = "dropped"
        elif b.get("aggregate_name") != "stddev" and b.get("aggregate_name") != "cv":
            b["real_time"] *= scale
    if sha:
        for rec in doc["context"]["parcomp"]["datasets"].values():
            rec["sha256"] = sha
    out = tmp_path / name
    out.write_text(json.dumps(doc))
    return out


def test_compare_same_within_noise(tmp_path):
    other = variant_of(GPU, tmp_path, "other.json", scale=1.0)
    r = run(COMPARE, GPU, other, "--filter", "parle.encode/gpu.paper", check=True)
    assert "NVIDIA H200" in r.stdout and "NVIDIA H100 80GB HBM3" in r.stdout
    rows = [l for l in r.stdout.splitlines() if l.startswith("| parle.encode/gpu.paper")]
    assert rows and all("| same |" in l for l in rows), rows


def test_compare_faster_and_plot(tmp_path):
    other = variant_of(GPU, tmp_path, "other.json", scale=0.5)
    png = tmp_path / "cmp.png"
    r = run(COMPARE, GPU, other, "--plot", png, "--markdown", tmp_path / "cmp.md", check=True)
    rows = [l for l in r.stdout.splitlines() if l.startswith("| parle.")]
    assert rows and all("2.00x" in l and "| faster |" in l for l in rows if "/gpu." in l)
    assert png.stat().st_size > 10_000 and (tmp_path / "cmp.md").read_text().startswith("base:")


def test_compare_without_repetitions_cannot_judge(tmp_path):
    other = variant_of(GPU, tmp_path, "other.json", scale=0.5, drop_stddev=True)
    r = run(COMPARE, GPU, other, "--filter", "gpu.cub/random", check=True)
    rows = [l for l in r.stdout.splitlines() if l.startswith("| parle.")]
    assert rows, "the filter matched no row: the check below would pass on nothing"
    assert all("| ? |" in l for l in rows)


def test_compare_refuses_different_data(tmp_path):
    other = variant_of(GPU, tmp_path, "other.json", sha="0" * 64)
    r = run(COMPARE, GPU, other)
    assert r.returncode == 2 and "datasets differ" in r.stderr
    assert run(COMPARE, GPU, other, "--allow-different-data").returncode == 0


def test_compare_nothing_in_common(tmp_path):
    r = run(COMPARE, GPU, FIXTURES / "mtf_gpu_nvidia-h200.json")
    assert r.returncode == 1 and "no benchmark in common" in r.stderr


def test_report_is_up_to_date():
    r = run(ROOT / "scripts" / "report.py", "--check")
    assert r.returncode == 0, r.stderr


def test_report_placeholders(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    import report

    sources = report.Sources(ROOT)
    src = "tests/python/fixtures/parle_gpu_nvidia-h200.json"
    key = "parle.encode/gpu.cub/random/n=16777216"
    text = report.resolve(f"{{{{gbps:{key}}}}} {{{{speedup:{key}}}}} {{{{bw:{key}}}}} {{{{c.runs:{key}}}}}", sources, src)
    gbps, speedup, bw, runs = text.split()
    assert float(gbps) > 0 and float(speedup) > 1 and 0 < float(bw) < 1.5 and runs.replace(",", "").isdigit()
    with pytest.raises(report.ReportError):
        report.resolve("{{gbps:parle.encode/gpu.cub/random/n=1}}", sources, src)
    with pytest.raises(report.ReportError):
        report.resolve(f"{{{{nope:{key}}}}}", sources, src)


def test_ncu_summary(tmp_path):
    csv = FIXTURES / "ncu_parle_encode_h100.csv"
    r = run(ROOT / "scripts" / "ncu_summary.py", "--out", tmp_path, f"parle.encode/gpu.paper/random/n=16777216={csv}",
            check=True)
    assert "mask_kernel" in r.stdout and "**all kernels**" in r.stdout
    kernels = json.loads((tmp_path / "profile.json").read_text())["parle.encode/gpu.paper/random/n=16777216"]
    assert len(kernels) == 5
    for k in kernels:
        assert k["seconds"] > 0 and k["dram_read_bytes"] is not None and 0 <= k["achieved_occupancy_pct"] <= 100


def test_bytes_per_char(tmp_path):
    # Kernels count to their namespace's stage; CUB kernels to a parcomp type in their template
    # arguments, else to the parcomp kernel before them.
    def k(name, dram, l2=None):
        return {"kernel": name, "seconds": 1e-3, "dram_read_bytes": dram, "dram_write_bytes": 0.0, "l2_bytes": l2}
    profile = {"thesis.table4_1/pipeline.gpu.fast/text/n=100": [
        k("bwt::<unnamed>::initial_keys_kernel(int)", 1000, 2000),
        k("void radix_sort::DeviceRadixSortOnesweepKernel<Policy, unsigned long>(T7 *)", 500, 500),
        k("void merge_sort::DeviceMergeSortBlockSortKernel<bwt::<unnamed>::RotationLess>(bool)", 100, 100),
        k("void mtf::<unnamed>::transform_kernel<0>(const unsigned char *)", 200, 300),
        k("void scan::DeviceScanKernel<int>(T2)", 50, 50),
        k("vle::<unnamed>::decode_kernel(const unsigned int *)", 30, 40)]}
    (tmp_path / "profile.json").write_text(json.dumps(profile))
    (tmp_path / "bench.json").write_text(json.dumps({"context": {}, "benchmarks": []}))
    run(ROOT / "scripts" / "bytes_per_char.py", "--profile", tmp_path / "profile.json", "--into", tmp_path / "bench.json",
        check=True)
    [row] = json.loads((tmp_path / "bench.json").read_text())["benchmarks"]
    assert row["name"] == "thesis.bytes_per_char/pipeline.gpu.fast.compress/text/n=100"
    assert row["bwt_bytes_per_char"] == 16.0 and row["mtf_bytes_per_char"] == 2.5 and row["huffman_bytes_per_char"] == 0.3
    assert row["bytes_per_char"] == 18.8 and row["l2_bytes_per_char"] == 29.9


def test_report_headline_names_the_gpu_and_commit_of_its_file_and_is_required(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    import report
    src = "results/nvidia-h200/suite-575289d/run.json.gz"
    sources = report.Sources(ROOT)
    line = report.headline_of("e", {"source": [src], "headline": ["{{ms:tool.e2e/copy.cat/linux-2.6.11.1.tar/n=208250880}} ms"]}, sources)
    assert line.startswith("H200, 575289d: ") and line.endswith(" ms"), line
    with pytest.raises(report.ReportError, match="headline"):
        report.headline_of("e", {"source": [src]}, sources)


def test_report_refuses_a_result_from_a_dirty_tree(tmp_path):
    sys.path.insert(0, str(ROOT / "scripts"))
    import report
    (tmp_path / "results" / "g").mkdir(parents=True)
    (tmp_path / "results" / "g" / "r.json").write_text(json.dumps(
        {"context": {"parcomp": {"build": {"git_sha": "abc", "git_dirty": True}}}, "benchmarks": []}))
    with pytest.raises(report.ReportError, match="uncommitted"):
        report.Sources(tmp_path).get("results/g/r.json")


def test_report_status_is_the_notes_verdict():
    sys.path.insert(0, str(ROOT / "scripts"))
    import report
    ok = "**Shape:** does not hold on an H200: x. The paper: \"y\".\n"
    assert report.verdict_of("e", {"verdict": ["does not hold"]}, ok, ours=False) == "does not hold"
    assert report.verdict_of("e", {"verdict": ["partly holds"]}, "**Shape:** partly: x. \"y\"", False) == "partly holds"
    with pytest.raises(report.ReportError, match="quote"):
        report.verdict_of("e", {"verdict": ["partly holds"]}, "**Shape:** partly: x, no quotation.", False)
    assert report.verdict_of("e", {}, "", ours=True) == "ours, measured"
    with pytest.raises(report.ReportError, match="must state"):
        report.verdict_of("e", {}, ok, ours=False)  # no verdict: no silent default
    with pytest.raises(report.ReportError, match="says does not hold"):
        report.verdict_of("e", {"verdict": ["holds"]}, ok, ours=False)  # the status and the prose disagree
    with pytest.raises(report.ReportError, match="no \\*\\*Shape"):
        report.verdict_of("e", {"verdict": ["holds"]}, "nothing", ours=False)


def test_collect_bz2_times(tmp_path):
    """scripts/maint/collect_bz2_times.py: medians, GB/s, the fraction of cat's rate, the output checks
    (one wrong output or a failed exit shows), and the result file named from the GPU and commit."""
    d = tmp_path / "t"
    d.mkdir()
    (d / "env.txt").write_text("NVIDIA H200, 580.1, 143771 MiB\nBuild cuda_13.0.r13.0/compiler.1\ncores 16\n"
                               "file data.tar " + "ab" * 32 + "\n0123456789abcdef\n")
    runs = [("x1 cat", 1.0, 0, True), ("x1 cat", 3.0, 0, True), ("x1 cat", 2.0, 0, True),
            ("x1 parcomp -d --gpu (b-made)", 4.0, 0, True), ("x1 parcomp -d --gpu (b-made)", 4.0, 0, False),
            ("x1 lbzip2 -9", 8.0, 1, None), ("x1 lbzip2 -9", 8.0, 0, None)]
    (d / "times.jsonl").write_text("".join(
        json.dumps({"label": l, "rep": 1, "input_bytes": 4_000_000_000, "seconds": s, "max_rss_kb": 1, "rc": rc,
                    "output_bytes": 5, "same_as_reference": ok}) + "\n" for l, s, rc, ok in runs))
    r = subprocess.run([sys.executable, ROOT / "scripts" / "maint" / "collect_bz2_times.py", d, "--date", "20990101"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "results" / "nvidia-h200" / "20990101-0123456" / "bz2-times.json"
    assert r.stdout.strip() == str(out.relative_to(tmp_path))
    doc = json.loads(out.read_text())
    rows = {row["label"]: row for row in doc["rows"]}
    assert rows["x1 cat"]["median_seconds"] == 2.0 and rows["x1 cat"]["gb_per_s"] == 2.0
    gpu = rows["x1 parcomp -d --gpu (b-made)"]
    assert gpu["fraction_of_cat"] == 0.5 and gpu["output_checked"] is False
    assert rows["x1 lbzip2 -9"]["exit_status"] == [0, 1] and rows["x1 lbzip2 -9"]["output_checked"] is None
    assert doc["gpu"] == "NVIDIA H200" and doc["host_cores"] == 16 and doc["commit"] == "0123456789abcdef"


def _cut_bench_file(path: Path, names: list[str], sha="abc123", gpu="NVIDIA H200", complete=False):
    """A parcomp-bench JSON file; cut off inside its last benchmark unless `complete`."""
    ctx = {"date": "2026-11-23T17:00:00+00:00", "parcomp_git_sha": sha, "parcomp_gpu": gpu,
           "parcomp_build_type": "Release"}
    if complete:
        ctx["parcomp"] = {"build": {"git_sha": sha, "git_dirty": False, "build_type": "Release"}, "device": {"name": gpu}}
    text = json.dumps({"context": ctx, "benchmarks": [{"name": n, "real_time": 1.0} for n in names]}, indent=2)
    if not complete:
        text = text[:text.rindex('"real_time"')]  # the time limit struck inside the last entry
    path.write_text(text)
    return path


def test_merge_results_repairs_cut_files_and_takes_the_context_from_device_info(tmp_path):
    a = _cut_bench_file(tmp_path / "a.json", ["x/1", "x/2", "x/3"])
    b = _cut_bench_file(tmp_path / "b.json", ["x/3", "y/1"])
    out = tmp_path / "m.json"
    r = run(ROOT / "scripts" / "merge_results.py", str(a), str(b), "-o", str(out))
    assert r.returncode == 2 and "--context" in r.stderr, "a run with no complete file has no metadata of its own"
    info = tmp_path / "device.json"
    info.write_text(json.dumps({"date_utc": "2026-11-23T16:59:00Z", "build": {"git_sha": "abc123", "git_dirty": False,
                                "build_type": "Release"}, "device": {"name": "NVIDIA H200", "slug": "nvidia-h200"}}))
    r = run(ROOT / "scripts" / "merge_results.py", str(a), str(b), "-o", str(out), "--context", str(info))
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    # a's last entry and b's last entry were cut: x/3 comes whole from b, y/1 is lost.
    assert [x["name"] for x in doc["benchmarks"]] == ["x/1", "x/2", "x/3"]
    assert doc["context"]["parcomp"]["device"]["slug"] == "nvidia-h200"
    assert "device.json" in doc["context"]["parcomp_context_from"]
    assert all(m.get("repaired") for m in doc["context"]["merged_runs"])
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"build": {"git_sha": "def456", "git_dirty": False, "build_type": "Release"},
                                 "device": {"name": "NVIDIA H200"}}))
    r = run(ROOT / "scripts" / "merge_results.py", str(a), str(b), "-o", str(out), "--context", str(other))
    assert r.returncode == 2 and "another run" in r.stderr, "another commit's metadata must be refused"
    c = _cut_bench_file(tmp_path / "c.json", ["z/1"], gpu="NVIDIA H100 80GB HBM3")
    r = run(ROOT / "scripts" / "merge_results.py", str(a), str(c), "-o", str(out), "--context", str(info))
    assert r.returncode == 2, "files of another GPU are not one run"


def test_merge_results_keeps_every_repetition(tmp_path):
    """Repetitions share their benchmark's name: all of them come from the first file that has the
    name (a median's spread needs them), none from a later file."""
    a = _cut_bench_file(tmp_path / "a.json", ["x/1", "x/1", "x/1", "x/1_median"], complete=True)
    b = _cut_bench_file(tmp_path / "b.json", ["x/1", "y/1", "y/1"], complete=True)
    doc = json.loads(a.read_text())
    for i, e in enumerate(doc["benchmarks"][:3]):
        e["repetition_index"], e["real_time"] = i, float(i + 1)
    a.write_text(json.dumps(doc))
    out = tmp_path / "m.json"
    r = run(ROOT / "scripts" / "merge_results.py", str(a), str(b), "-o", str(out))
    assert r.returncode == 0, r.stderr
    got = [(x["name"], x["real_time"]) for x in json.loads(out.read_text())["benchmarks"]]
    assert got == [("x/1", 1.0), ("x/1", 2.0), ("x/1", 3.0), ("x/1_median", 1.0), ("y/1", 1.0), ("y/1", 1.0)]


def test_ncu_lines(tmp_path):
    """scripts/ncu_lines.py ranks CUDA lines by stall samples and leaves SASS rows out."""
    csv_text = (
        '"File Path","/src/kernels/bz2/bz2_steps.hpp"\n'
        '"Function Name","walk"\n'
        '"Line No","Source","Warp Stall Sampling (All Samples)","Instructions Executed"\n'
        '"10","a = b;","30","100"\n'
        '"11","c = d;","70","300"\n'
        '"","  IMAD R1, R2, R3","500","900"\n'
        '"File Path","/src/core/bits.hpp"\n'
        '"Line No","Source","Warp Stall Sampling (All Samples)","Instructions Executed"\n'
        '"51","refill","100","600"\n'
    )
    f = tmp_path / "src.csv"
    f.write_text(csv_text)
    r = run(ROOT / "scripts" / "ncu_lines.py", f, "--top", "2")
    assert r.returncode == 0, r.stderr
    body = r.stdout.splitlines()
    assert body[0].startswith("3 lines, 200 stall samples, 1000 instructions")
    assert body[2].split() == ["50.0%", "60.0%", "bits.hpp:51"]
    assert body[3].split() == ["35.0%", "30.0%", "bz2_steps.hpp:11"]
    assert len(body) == 4
    empty = tmp_path / "empty.csv"
    empty.write_text('"File Path","x"\n')
    assert run(ROOT / "scripts" / "ncu_lines.py", empty).returncode == 2


def test_report_counts_a_landscape_tables_other_run(tmp_path):
    """A note's `table: landscape FILE` names a result file the report depends on (so its GPU shows
    in the experiments table), as `source:` and `compare:` files do."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import report
    note = tmp_path / "x.md"
    note.write_text("---\nsource: results/a/1.json\ntable: landscape\ntable: landscape results/b/2.json\n"
                    "compare: results/a/1.json results/c/3.json .\ntable: e2e bz2.compress results/d/4.json\n---\ntext\n")
    assert report.referenced_files({"x": note}) == ["results/a/1.json", "results/b/2.json", "results/c/3.json", "results/d/4.json"]


def test_timeline_busy_leaves_out_waits():
    """A lane's busy time is the union of its spans without its waits (a GPU thread waiting for its
    preparer is not busy)."""
    sys.path.insert(0, str(ROOT / "plots"))
    import tool_timeline
    doc = {"trace": "parcomp", "spans": [
        {"lane": "stage 0", "what": "wait", "start": 0.0, "end": 0.6, "blocks": 0},
        {"lane": "stage 0", "what": "encode", "start": 0.6, "end": 0.8, "blocks": 4},
        {"lane": "stage 0", "what": "download", "start": 0.7, "end": 1.0, "blocks": 4},
        {"lane": "prep 0", "what": "prepare", "start": 0.0, "end": 0.5, "blocks": 4}]}
    rows = {r["lane"]: r for r in tool_timeline.summary(doc)}
    assert rows["stage 0"]["busy_s"] == pytest.approx(0.4)
    assert rows["stage 0"]["busy"] == pytest.approx(0.4)
    assert rows["prep 0"]["busy_s"] == pytest.approx(0.5)
    assert [r["lane"] for r in tool_timeline.summary(doc)] == ["prep 0", "stage 0"]


def test_timeline_breakdown_sets_the_first_span_apart():
    """Each lane's kinds of span with their seconds, the first span's and the others' median: a
    first upload that waited for another device's start stands out against the later ones."""
    sys.path.insert(0, str(ROOT / "plots"))
    import tool_timeline
    doc = {"trace": "parcomp", "spans": [
        {"lane": "stage 0", "what": "upload", "start": 0.0, "end": 0.13, "blocks": 96},
        {"lane": "stage 0", "what": "finish", "start": 0.13, "end": 0.17, "blocks": 96},
        {"lane": "stage 0", "what": "upload", "start": 0.17, "end": 0.172, "blocks": 96},
        {"lane": "stage 0", "what": "upload", "start": 0.2, "end": 0.204, "blocks": 96},
        {"lane": "stage 0", "what": "upload", "start": 0.3, "end": 0.303, "blocks": 96},
        {"lane": "writer 0", "what": "write", "start": 0.5, "end": 0.6, "blocks": 4}]}
    rows = {(r["lane"], r["what"]): r for r in tool_timeline.breakdown(doc)}
    up = rows[("stage 0", "upload")]
    assert up["spans"] == 4 and up["seconds"] == pytest.approx(0.139)
    assert up["first_s"] == pytest.approx(0.13) and up["others_median_s"] == pytest.approx(0.003)
    assert rows[("stage 0", "finish")]["others_median_s"] is None
    assert [(r["lane"], r["what"]) for r in tool_timeline.breakdown(doc)] == [("stage 0", "upload"), ("stage 0", "finish"), ("writer 0", "write")]


def test_timeline_draws_every_kind_of_span(tmp_path):
    """Every kind of span is drawn, one the script has no colour for too (the parcomp format's GPU
    lanes' parts were left out of the figure before they had colours)."""
    sys.path.insert(0, str(ROOT / "plots"))
    import tool_timeline
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    doc = {"trace": "parcomp", "spans": [
        {"lane": "stage 0", "what": "gather", "start": 0.0, "end": 0.2, "blocks": 4},
        {"lane": "stage 0", "what": "something new", "start": 0.2, "end": 0.5, "blocks": 4},
        {"lane": "writer 0", "what": "write", "start": 0.5, "end": 0.6, "blocks": 4}]}
    seen = []
    real = plt.Axes.barh

    def spy(self, *args, **kwargs):
        seen.append(kwargs.get("label"))
        return real(self, *args, **kwargs)

    plt.Axes.barh = spy
    try:
        tool_timeline.figure(doc, tmp_path / "t.json", tmp_path)
    finally:
        plt.Axes.barh = real
    assert sorted(seen) == ["gather", "something new", "write"]


def test_compare_by_experiment(tmp_path):
    """A table and a plot per experiment and a summary with the verdicts' counts; a gzipped file is
    named without .json.gz."""
    import gzip
    other = variant_of(GPU, tmp_path, "other.json", scale=0.5)
    packed = tmp_path / "other-run.json.gz"
    packed.write_bytes(gzip.compress(other.read_bytes()))
    folder = tmp_path / "by"
    r = run(COMPARE, GPU, packed, "--by-experiment", folder, check=True)
    assert "other: other-run:" in r.stdout
    assert sorted(p.name for p in folder.iterdir()) == ["parle.decode.md", "parle.decode.png", "parle.encode.md", "parle.encode.png",
                                                        "scaling.md", "summary.md"]
    table = (folder / "parle.encode.md").read_text()
    assert "| parle.encode/" in table and "| parle.decode/" not in table
    rows = [l for l in (folder / "summary.md").read_text().splitlines() if l.startswith("| parle.")]
    assert len(rows) == 2
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        experiment, _, n, faster, same, slower, unknown, median, spread = cells
        assert int(n) > 0 and int(faster) + int(same) + int(slower) + int(unknown) == int(n)
        assert median == "2.00x" and spread == "2.00x-2.00x", row
        assert int(faster) > 0
    assert (folder / "parle.encode.png").stat().st_size > 10_000
    assert (folder / "scaling.md").exists()


def scaled_gpu(tmp_path: Path, name: str, time_scale: float, bandwidth_scale: float) -> Path:
    """The fixture as if from another GPU: its times and its measured copy bandwidth scaled."""
    path = variant_of(GPU, tmp_path, name, scale=time_scale, gpu="Another GPU")
    doc = json.loads(path.read_text())
    doc["context"]["parcomp"]["device"]["measured_bandwidth_bytes_per_second"] *= bandwidth_scale
    path.write_text(json.dumps(doc))
    return path


def scaling_rows(tmp_path: Path, other: Path) -> dict:
    folder = tmp_path / ("by-" + other.stem)
    run(COMPARE, GPU, other, "--by-experiment", folder, check=True)
    rows = {}
    for line in (folder / "scaling.md").read_text().splitlines():
        if line.startswith("| parle."):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0]] = cells
    assert set(rows) == {"parle.encode", "parle.decode"}, "CPU rows are left out, each experiment has its line"
    return rows


@pytest.mark.parametrize("time_scale, bandwidth_scale, follows", [
    (1 / 1.3, 1.4, "memory bandwidth"),   # 30% faster with 40% more bandwidth
    (1 / 1.1, 1.4, "partly bandwidth"),   # 10%: less than half of it
    (1.0, 1.4, "neither (latency, launches or serial work)"),
    (1 / 1.3, 1.0, "neither bandwidth nor clocks"),  # faster with the same bandwidth and clocks
])
def test_compare_scaling_verdicts(tmp_path, time_scale, bandwidth_scale, follows):
    """scaling.md: what each experiment's GPU rows follow from one GPU to the other, from the
    median speedup at the largest inputs against the measured bandwidth and clock ratios."""
    rows = scaling_rows(tmp_path, scaled_gpu(tmp_path, "other.json", time_scale, bandwidth_scale))
    for cells in rows.values():
        assert cells[6] == follows, cells
        assert f"{1 / time_scale:.2f}x" in cells[3]


def test_compare_scaling_names_what_an_experiment_without_gpu_rows_follows(tmp_path):
    """Every experiment has its line in scaling.md: one without device-timed rows (whole programs'
    wall time, CPU work) says so, with its measured median, instead of being left out; the GPU rows of
    the others keep their verdict."""
    doc = json.loads(GPU.read_text())
    for b in doc["benchmarks"]:
        for old, new in (("parle.decode/", "tool.e2e/"), ("parle.encode/cpu.serial/", "thesis.fig4_3/cpu.serial/"),
                         ("parle.encode/gpu.cub/", "parle.encode/gpu.cub.e2e/")):
            for field in ("name", "run_name"):
                if b.get(field, "").startswith(old):
                    b[field] = new + b[field][len(old):]
    base = tmp_path / "base.json"
    base.write_text(json.dumps(doc))
    other = variant_of(base, tmp_path, "other.json", scale=1 / 1.3, gpu="Another GPU")
    odoc = json.loads(other.read_text())
    odoc["context"]["parcomp"]["device"]["measured_bandwidth_bytes_per_second"] *= 1.4
    other.write_text(json.dumps(odoc))
    folder = tmp_path / "by"
    run(COMPARE, base, other, "--by-experiment", folder, check=True)
    rows = {}
    for line in (folder / "scaling.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and cells[0] in ("parle.encode", "tool.e2e", "thesis.fig4_3"):
            rows[cells[0]] = cells
    assert set(rows) == {"parle.encode", "tool.e2e", "thesis.fig4_3"}, rows
    assert rows["parle.encode"][6] == "memory bandwidth"
    paper = {b["run_name"] for b in doc["benchmarks"] if b["run_name"].startswith("parle.encode/gpu.paper/")}
    assert rows["parle.encode"][1] == str(len(paper)), "end-to-end rows (*.e2e) are not device-timed rows"
    assert rows["tool.e2e"][1] == "0" and rows["tool.e2e"][6].startswith("not the GPU: the host"), rows["tool.e2e"]
    assert rows["thesis.fig4_3"][6] == "not the GPU: the CPU (no GPU work)", rows["thesis.fig4_3"]
    assert "1.30x" in rows["tool.e2e"][3] and "no device-timed rows" in rows["tool.e2e"][7]


def test_merge_results_parts_from_several_cards_of_one_model(tmp_path):
    """A run in parts over several hosts: another card of the same model, driver and CUDA
    is refused by default and taken with --any-card, each file's card recorded; another driver is
    refused either way."""
    def part(name, rows, uuid, driver="580.159.04"):
        ctx = {"date": "2026-11-25T21:00:00+00:00", "parcomp_git_sha": "abc123", "parcomp_gpu": "NVIDIA H100 80GB HBM3",
               "parcomp_build_type": "Release",
               "parcomp": {"build": {"git_sha": "abc123", "git_dirty": False, "build_type": "Release", "cuda_architectures": "90"},
                           "device": {"name": "NVIDIA H100 80GB HBM3", "uuid": uuid, "nvidia_driver_release": driver,
                                      "runtime_version": "13.0"}, "host": {"hostname": "vm"}}}
        p = tmp_path / name
        p.write_text(json.dumps({"context": ctx, "benchmarks": [{"name": n, "real_time": 1.0} for n in rows]}))
        return p
    a, b = part("a.json", ["x/1"], "GPU-a"), part("b.json", ["y/1"], "GPU-b")
    out = tmp_path / "m.json"
    r = run(ROOT / "scripts" / "merge_results.py", a, b, "-o", out)
    assert r.returncode == 2 and "any_card" in r.stderr, "another card is another run unless asked"
    r = run(ROOT / "scripts" / "merge_results.py", a, b, "-o", out, "--any-card")
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert [x["name"] for x in doc["benchmarks"]] == ["x/1", "y/1"]
    assert [c["gpu_uuid"] for c in doc["context"]["parcomp_cards"]] == ["GPU-a", "GPU-b"]
    assert doc["context"]["merged_runs"][0]["gpu_uuid"] == "GPU-b"
    c = part("c.json", ["z/1"], "GPU-c", driver="575.0")
    r = run(ROOT / "scripts" / "merge_results.py", a, c, "-o", out, "--any-card")
    assert r.returncode == 2, "another driver is not the same kind of card"


def test_merge_results_keeps_every_parts_dataset_records(tmp_path):
    """Each part records its own inputs: the merged file has all of them (the first file's alone
    left a part's datasets out, and compare's data check with them); one key with two sha256 in
    one run is refused."""
    def part(name, rows, datasets):
        ctx = {"parcomp_git_sha": "abc123", "parcomp_gpu": "NVIDIA H200", "parcomp_build_type": "Release",
               "parcomp": {"build": {"git_sha": "abc123", "git_dirty": False, "build_type": "Release", "cuda_architectures": "90"},
                           "device": {"name": "NVIDIA H200", "uuid": "GPU-a"}, "host": {"hostname": "vm"}, "datasets": datasets}}
        p = tmp_path / name
        p.write_text(json.dumps({"context": ctx, "benchmarks": [{"name": n, "real_time": 1.0} for n in rows]}))
        return p
    a = part("a.json", ["x/1"], {"parle/random/n=64": {"sha256": "11"}})
    b = part("b.json", ["y/1"], {"tool/linux.tar": {"sha256": "22", "work_fs": "tmpfs"}, "parle/random/n=64": {"sha256": "11"}})
    out = tmp_path / "m.json"
    r = run(ROOT / "scripts" / "merge_results.py", a, b, "-o", out)
    assert r.returncode == 0, r.stderr
    ds = json.loads(out.read_text())["context"]["parcomp"]["datasets"]
    assert ds == {"parle/random/n=64": {"sha256": "11"}, "tool/linux.tar": {"sha256": "22", "work_fs": "tmpfs"}}
    c = part("c.json", ["z/1"], {"tool/linux.tar": {"sha256": "33"}})
    r = run(ROOT / "scripts" / "merge_results.py", b, c, "-o", out)
    assert r.returncode == 2 and "tool/linux.tar differs" in r.stderr, r.stderr


# ---- scripts/shard_tests.py: sanitizer shards of about equal length ----------------------------------

SHARD_TESTS = ROOT / "scripts" / "shard_tests.py"


def _shard_tests():
    import importlib.util
    spec = importlib.util.spec_from_file_location("shard_tests", SHARD_TESTS)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


GTEST_LIST = """EngineGpu.
  AnyMixOfWorkersWritesTheSameBytes
  DamagedStreamsAreErrorsOnTheGpuToo
Variants/BwtGpu.
  TinyInputs/fwd_paper_rev_fast  # GetParam() = fwd_paper_rev_fast
  TinyInputs/fwd_fast_rev_fast  # GetParam() = fwd_fast_rev_fast
Bz2Gpu.
  MutatedFilesGiveTheCpuReadersVerdicts
"""

SANITIZER_LOG = """========= COMPUTE-SANITIZER
[==========] Running 3 tests from 2 test suites.
[ RUN      ] EngineGpu.DamagedStreamsAreErrorsOnTheGpuToo
[       OK ] EngineGpu.DamagedStreamsAreErrorsOnTheGpuToo (2500 ms)
[ RUN      ] Variants/BwtGpu.TinyInputs/fwd_fast_rev_fast
[       OK ] Variants/BwtGpu.TinyInputs/fwd_fast_rev_fast (500 ms)
[ RUN      ] EngineGpu.AnyMixOfWorkersWritesTheSameBytes
"""


def test_shard_tests_reads_the_list_with_parameterized_names():
    st = _shard_tests()
    assert st.parse_list(GTEST_LIST) == [
        "EngineGpu.AnyMixOfWorkersWritesTheSameBytes", "EngineGpu.DamagedStreamsAreErrorsOnTheGpuToo",
        "Variants/BwtGpu.TinyInputs/fwd_paper_rev_fast", "Variants/BwtGpu.TinyInputs/fwd_fast_rev_fast",
        "Bz2Gpu.MutatedFilesGiveTheCpuReadersVerdicts"]


def test_shard_tests_costs_from_a_stopped_shard():
    st = _shard_tests()
    c = st.costs_from_log(SANITIZER_LOG, limit=100)
    assert c["EngineGpu.DamagedStreamsAreErrorsOnTheGpuToo"] == 2.5
    assert c["Variants/BwtGpu.TinyInputs/fwd_fast_rev_fast"] == 0.5
    assert c["EngineGpu.AnyMixOfWorkersWritesTheSameBytes"] == 97.0  # what the limit left: a lower bound
    assert "EngineGpu.AnyMixOfWorkersWritesTheSameBytes" not in st.costs_from_log(SANITIZER_LOG)


def test_shard_tests_split_balances_and_keeps_every_test_once(tmp_path):
    st = _shard_tests()
    names = [f"S.t{k}" for k in range(40)]
    costs = {n: 1.0 for n in names}
    costs.update({"S.t0": 30.0, "S.t1": 20.0, "S.t2": 10.0})
    shards = st.split(names, costs, 4)
    assert sorted(n for s in shards for n in s) == sorted(names)
    loads = [sum(costs[n] for n in s) for s in shards]
    assert max(loads) == 30.0 and min(loads) >= 12.0, loads  # the longest alone; Google Test's turns give 41
    assert all(shards) and len(st.split(names[:3], costs, 8)) == 3  # no empty shard
    # The command line: a --gtest_filter per shard, from the list and a costs file.
    (tmp_path / "list.txt").write_text(GTEST_LIST)
    (tmp_path / "costs.txt").write_text("300 Bz2Gpu.MutatedFilesGiveTheCpuReadersVerdicts\n# a comment\n"
                                        "1 EngineGpu.DamagedStreamsAreErrorsOnTheGpuToo\n2 Variants/BwtGpu.TinyInputs/fwd_fast_rev_fast\n")
    r = run(SHARD_TESTS, "split", "--list", tmp_path / "list.txt", "--shards", "2", "--costs", tmp_path / "costs.txt", check=True)
    lines = r.stdout.split()
    assert lines[0] == "Bz2Gpu.MutatedFilesGiveTheCpuReadersVerdicts" and len(lines[1].split(":")) == 4


def test_runs_table_gives_median_spread_and_failed_checks(tmp_path):
    """A `runs:` line of a note: per label of a wall-ab file, the median with min and max, the peak
    RSS and whether every run exited 0 with its output the same as the reference; env.txt beside
    it names the GPUs and commits."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import report
    d = tmp_path / "results" / "gpu" / "run"
    d.mkdir(parents=True)
    (d / "env.txt").write_text("date\nNVIDIA H100 80GB HBM3, 580.1, 81559 MiB\nNVIDIA H100 80GB HBM3, 580.1, 81559 MiB\n"
                               "cores 32\nbuilt from commit abcdef0123\nbuilt from commit 9876543210\n")
    rows = [("a", 3.0, 0, True), ("a", 1.0, 0, True), ("a", 2.0, 0, True), ("b", 5.0, 0, False), ("b", 4.0, 1, True), ("c", 1.0, 0, None)]
    (d / "x.jsonl").write_text("".join(json.dumps({"label": l, "run": 1, "seconds": s, "max_rss_kb": 1_500_000, "rc": rc,
                                                    "output_bytes": 1, "same_as_ref": same, "command": "p | q"}) + "\n"
                                       for l, s, rc, same in rows))
    lines = report.runs_table(tmp_path, "results/gpu/run/x.jsonl ^(a|b)$")
    assert "2x NVIDIA H100 80GB HBM3 (driver 580.1), host cores 32, parcomp built at abcdef0, parcomp-old built at 9876543" in lines[0]
    a = next(x for x in lines if x.startswith("| `a`"))
    b = next(x for x in lines if x.startswith("| `b`"))
    assert "| 2.00 [1.00, 3.00] | 3 | 1.50 GB | yes, yes |" in a
    assert "| 4.50 [4.00, 5.00] | 2 |" in b and b.endswith("| **no**, **no** |")
    assert "p &#124; q" in a
    assert not any(x.startswith("| `c`") for x in lines)
    assert any(x.startswith("Fewer than 5 runs of a program that ran under a minute: `a` (3), `b` (2);") for x in lines)
    five = "".join(json.dumps({"label": "e", "run": k, "seconds": 1.0, "max_rss_kb": 1, "rc": 0, "output_bytes": 1,
                               "same_as_ref": None, "command": "e"}) + "\n" for k in range(5))
    (d / "five.jsonl").write_text(five + json.dumps({"label": "long", "run": 1, "seconds": 61.0, "max_rss_kb": 1, "rc": 0,
                                                     "output_bytes": 1, "same_as_ref": None, "command": "l"}) + "\n")
    assert not any(x.startswith("Fewer than") for x in report.runs_table(tmp_path, "results/gpu/run/five.jsonl"))
    (d / "env.txt").write_text("NVIDIA H100 80GB HBM3, 580.1, 81559 MiB\nbuilt from commit abcdef0123 (with uncommitted changes)\n")
    with pytest.raises(report.ReportError, match="uncommitted"):
        report.runs_table(tmp_path, "results/gpu/run/x.jsonl")


def test_python_bench_csv_read_and_dask(tmp_path):
    """scripts/python_bench.py: the CSV generator is the same bytes for the same seed and size, and
    its read and dask rows agree with the bz2 module on a small file (the package built)."""
    import bz2
    import os

    build = Path(os.environ.get("PARCOMP_BUILD", ROOT / "build"))
    bench = ROOT / "scripts" / "python_bench.py"
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for p in (a, b):
        r = run(bench, "make-csv", p, "--bytes", "300K", "--seed", "7", check=True)
        assert json.loads(r.stdout)["bytes"] == p.stat().st_size <= 300 << 10
    assert a.read_bytes() == b.read_bytes() and a.read_bytes().startswith(b"id,time,user,") and a.read_bytes().endswith(b"\n")
    assert run(bench, "make-csv", b, "--bytes", "300K", "--seed", "8", check=True) and a.read_bytes() != b.read_bytes()
    if not list((build / "python" / "parcomp").glob("_parcomp*.so")):
        pytest.skip(f"the Python extension is not built in {build}")
    header, _, body = a.read_bytes().partition(b"\n")
    data = header + b"\n" + body * 40  # one header, many blocks
    z = tmp_path / "a.csv.bz2"
    z.write_bytes(bz2.compress(data))
    env = {**os.environ, "PYTHONPATH": str(build / "python")}
    jsonl = tmp_path / "runs.jsonl"
    r = subprocess.run([sys.executable, bench, "read", z, "--runs", "2", "--readers", "parcomp,bz2", "--jsonl", jsonl],
                       capture_output=True, text=True, env=env, check=True)
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["name"] for x in rows] == ["python.read/parcomp", "python.read/bz2"]
    assert all(x["bytes"] == len(data) and len(x["seconds"]) == 2 for x in rows)
    runs = [json.loads(x) for x in jsonl.read_text().splitlines()]
    assert len(runs) == 4 and all(x["same_as_ref"] is True and x["rc"] == 0 and x["max_rss_kb"] > 0 for x in runs)
    pytest.importorskip("distributed")
    pytest.importorskip("dask.dataframe")
    r = subprocess.run([sys.executable, bench, "dask", z, "--runs", "1", "--workers", "2", "--blocksize", "20KiB"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    rows = {json.loads(x)["name"]: json.loads(x) for x in r.stdout.splitlines()}
    ours, theirs = rows["python.dask_csv/parcomp/workers=2"], rows["python.dask_csv/dask/workers=2"]
    assert ours["same_as_dask"] and ours["rows"] == theirs["rows"] == data.count(b"\n") - 1
    assert ours["partitions"] > 1 and theirs["partitions"] == 1


def wall_ab_order(tmp_path, labels: list[str], runs: int) -> list[tuple[str, int, str]]:
    rows = tmp_path / "ab.jsonl"
    args = [a for label in labels for a in (label, "true")]
    r = subprocess.run(["bash", ROOT / "scripts" / "maint" / "wall-ab.sh", "--runs", str(runs), "--jsonl", rows, "--work", tmp_path / "w", "--", *args],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"wall-ab: {labels[-1]}: median" in r.stderr
    return [(x["label"], x["run"], x["after"]) for x in map(json.loads, rows.read_text().splitlines())]


@pytest.mark.parametrize("labels, runs, times", [("abcd", 4, 1), ("abc", 6, 2), ("ab", 4, 2), ("abcde", 10, 2)])
def test_wall_ab_has_each_label_follow_every_other_equally_often(tmp_path, labels, runs, times):
    """wall-ab.sh's rounds are a Williams design: within the rounds, each label runs after every other
    one `times` times, each label once a round, and each row names the label run before it (a run's
    time can depend on the run before it)."""
    got = wall_ab_order(tmp_path, list(labels), runs)
    assert len(got) == len(labels) * runs
    for r in range(1, runs + 1):
        assert sorted(x[0] for x in got if x[1] == r) == list(labels)
    assert [x[2] for x in got] == [""] + [x[0] for x in got[:-1]]
    pairs = Counter((x[2], x[0]) for k, x in enumerate(got) if k % len(labels) != 0)
    assert pairs == Counter({(a, b): times for a in labels for b in labels if a != b})


def test_every_mutation_still_finds_its_line():
    """scripts/maint/mutation-check.py's rows name lines of the source: a refactoring that moves or
    rewrites one leaves the row stale, which a full mutation run would refuse only at its start."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("mutation_check", ROOT / "scripts" / "maint" / "mutation-check.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["mutation_check"] = mod
    spec.loader.exec_module(mod)
    stale = [f"{m.name}: {m.file}" for group in mod.flat(mod.MUTATIONS) for m in group
             if not (ROOT / m.file).is_file() or (ROOT / m.file).read_text().count(m.find) != 1]
    assert stale == []


def test_thread_states_sees_a_thread_at_the_lowest_priority_and_one_asleep(tmp_path):
    """scripts/maint/thread-states.py: a command's threads sampled until it exits, with the policy
    a thread chose (SCHED_IDLE, 5) and a sleeping thread's state; its exit status is the command's."""
    prog = ("import os, threading, time\n"
            "def idle():\n"
            "    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\n"
            "    end = time.monotonic() + 0.4\n"
            "    while time.monotonic() < end: pass\n"
            "held = bytearray(os.urandom(1 << 20) * 64)\n"
            "t = threading.Thread(target=idle); t.start(); time.sleep(0.4); t.join()\n"
            "raise SystemExit(7)\n")
    out = tmp_path / "states.jsonl"
    r = run(ROOT / "scripts" / "maint" / "thread-states.py", "--every", "5", "--out", out, "--", sys.executable, "-c", prog)
    assert r.returncode == 7, r.stderr
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    rows = [x for x in lines if "tid" in x]
    assert len({x["tid"] for x in rows}) >= 2
    assert any(x["policy"] == 5 and x["state"] == "R" for x in rows)
    assert any(x["state"] == "S" and x["policy"] == 0 for x in rows)
    assert all(x["run_s"] >= 0 and x["runqueue_s"] >= 0 for x in rows)
    assert "s in R from" in r.stderr
    # the process's memory each sample: the 64 MB the program holds while it sleeps is resident
    memory = [x["memory"] for x in lines if "memory" in x]
    assert memory and max(m["rss"] for m in memory) >= 64 << 20
    assert all(m["anon"] <= m["rss"] for m in memory if "anon" in m)
    assert re.search(r"peak resident memory [0-9.]+ MB at [0-9.]+ s \(anon", r.stderr), r.stderr
