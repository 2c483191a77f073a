"""scripts/maint/suite-merge.sh (the end of a whole-suite run, where there is no GPU) over a stand-in
pinned bench: parts that lack a row are listed and nothing is written (exit 3); complete parts
become run.json.gz, with thesis.bytes_per_char from the profile beside them, and the figures."""
import gzip
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "maint" / "suite-merge.sh"
NAMES = ["parle.encode/cpu.serial/uniform/n=1024/real_time", "parle.encode/gpu.paper/uniform/n=1024/real_time"]
FAKE = f'''#!/usr/bin/env python3
import re, sys
args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
if args.get("--benchmark_list_tests") == "true":
    print("\\n".join(n for n in {NAMES!r} if re.search(args.get("--benchmark_filter", "."), n)))
    sys.exit(0)
sys.exit("the merge runs no benchmark")
'''
CTX = {"parcomp_git_sha": "abc", "parcomp_gpu": "Fake GPU", "parcomp_build_type": "Release",
       "parcomp": {"build": {"git_dirty": False, "git_sha": "abc"}, "device": {"uuid": "GPU-1", "name": "Fake GPU"}},
       "date": "now"}
# One kernel of the thesis's pipeline, as scripts/profile.sh's profile.json holds it.
PROFILE = {"thesis.table4_1/pipeline.gpu.paper/silesia-dickens/n=1000": [
    {"kernel": "bwt::sort_kernel", "seconds": 0.001, "dram_read_bytes": 3000.0, "dram_write_bytes": 1000.0, "l2_bytes": 8000.0}]}


def setup(tmp_path, rows):
    bench = tmp_path / "parcomp-bench"
    bench.write_text(FAKE)
    bench.chmod(0o755)
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "parle.encode@uniform.json").write_text(json.dumps(
        {"context": CTX, "benchmarks": [{"name": n, "run_name": n, "real_time": 1.0, "time_unit": "ms",
                                         "bytes_per_second": 1e6} for n in rows]}))
    (parts / "parle.encode@uniform.seconds").write_text("12.5\n")
    results = tmp_path / "results"
    (results / "fake-gpu" / "suite-abc").mkdir(parents=True)
    with tarfile.open(results / "fake-gpu" / "suite-abc" / "parts.tar.xz", "w:xz") as t:
        t.add(parts, arcname=".")
    with gzip.open(results / "fake-gpu" / "suite-abc" / "profile.json.gz", "wt") as f:
        json.dump(PROFILE, f)
    return bench, results


def merge(bench, results):
    return subprocess.run(["bash", str(SCRIPT), "--sha", "abc", "--gpu", "fake-gpu", "--bench", str(bench)],
                          capture_output=True, text=True, env={**os.environ, "SUITE_RESULTS": str(results)})


def test_a_part_that_lacks_a_row_is_listed_and_nothing_is_written(tmp_path):
    bench, results = setup(tmp_path, NAMES[:1])
    r = merge(bench, results)
    assert r.returncode == 3, r.stderr
    assert "parle.encode@uniform: 1 of 2 benchmarks left" in r.stderr and "not complete" in r.stderr
    assert sorted(p.name for p in (results / "fake-gpu" / "suite-abc").iterdir()) == ["parts.tar.xz", "profile.json.gz"]


def test_complete_parts_become_the_run_with_bytes_per_char_and_figures(tmp_path):
    bench, results = setup(tmp_path, NAMES)
    r = merge(bench, results)
    assert r.returncode == 0, r.stderr
    out = results / "fake-gpu" / "suite-abc"
    with gzip.open(out / "run.json.gz", "rt") as f:
        doc = json.load(f)
    names = [b["name"] for b in doc["benchmarks"]]
    assert set(NAMES) <= set(names)
    bpc = [b for b in doc["benchmarks"] if b["name"].startswith("thesis.bytes_per_char/")]
    assert [b["name"] for b in bpc] == ["thesis.bytes_per_char/pipeline.gpu.paper.compress/silesia-dickens/n=1000"]
    assert bpc[0]["bytes_per_char"] == 4.0
    assert doc["context"]["experiment_seconds"] == {"parle.encode": 12.5}
    assert (out / "figures" / "parle.encode.png").is_file() and (out / "figures" / "thesis.bytes_per_char.png").is_file()
