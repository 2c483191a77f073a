"""scripts/run_experiments.py (what scripts/reproduce.sh runs) over a stand-in for parcomp-bench:
one call per experiment, a progress line after each with the time spent and an estimate of what is
left (from an earlier run's experiment_seconds where it has them), a part of an experiment picked
by exact names, the calls merged into one file that records each experiment's seconds."""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "run_experiments.py"

FAKE = r'''#!/usr/bin/env python3
import json, re, sys
names = ["a.one/x/n=1/real_time", "a.one/y.z/n=2/real_time", "b.two/x/n=1/manual_time", "c.three/z/n=1/real_time"]
args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
flt = args.get("--benchmark_filter", ".")
chosen = [n for n in names if re.search(flt, n)]
if args.get("--benchmark_list_tests") == "true":
    print("\n".join(chosen))
    sys.exit(0)
with open(sys.argv[0] + ".calls", "a") as f:
    f.write(flt + "\n")
ctx = {"parcomp_git_sha": "abc", "parcomp_gpu": "fake GPU", "parcomp_build_type": "Release",
       "parcomp": {"build": {"git_dirty": False}, "device": {"uuid": "u"}}, "date": "now"}
json.dump({"context": ctx, "benchmarks": [{"name": n, "real_time": 1.0} for n in chosen]}, open(args["--benchmark_out"], "w"))
sys.exit(3 if "three" in flt else 0)
'''


def fake_bench(tmp_path: Path) -> Path:
    p = tmp_path / "fake-bench"
    p.write_text(FAKE)
    p.chmod(0o755)
    return p


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True)


def test_every_experiment_in_its_own_call_with_progress(tmp_path):
    bench = fake_bench(tmp_path)
    out = tmp_path / "run.json"
    r = run(bench, "--out", out, "--filter", "a\\.one|b\\.two", "--", "--benchmark_repetitions=1")
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stderr.splitlines() if l.startswith("[")]
    assert re.match(r"\[1/2\] a\.one: 2 benchmarks in \d+ s; \d+ s so far, about \d+ s left$", lines[0]), lines
    assert re.match(r"\[2/2\] b\.two: 1 benchmark in \d+ s; \d+ s so far, done$", lines[1]), lines
    doc = json.loads(out.read_text())
    assert [b["name"] for b in doc["benchmarks"]] == ["a.one/x/n=1/real_time", "a.one/y.z/n=2/real_time", "b.two/x/n=1/manual_time"]
    assert set(doc["context"]["experiment_seconds"]) == {"a.one", "b.two"}
    assert len(doc["context"]["merged_runs"]) == 1
    assert (tmp_path / "fake-bench.calls").read_text().split() == ["^a\\.one/", "^b\\.two/"]


def test_part_of_an_experiment_by_exact_names(tmp_path):
    bench = fake_bench(tmp_path)
    out = tmp_path / "run.json"
    r = run(bench, "--out", out, "--filter", "y\\.z")
    assert r.returncode == 0, r.stderr
    assert [b["name"] for b in json.loads(out.read_text())["benchmarks"]] == ["a.one/y.z/n=2/real_time"]
    # The name is escaped: its '.' matches a dot only.
    assert (tmp_path / "fake-bench.calls").read_text().split() == ["^(a\\.one/y\\.z/n=2/real_time)$"]


def test_estimate_from_an_earlier_run_and_failures(tmp_path):
    bench = fake_bench(tmp_path)
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({"context": {"experiment_seconds": {"a.one": 100, "b.two": 50, "c.three": 25}}, "benchmarks": []}))
    out = tmp_path / "run.json"
    r = run(bench, "--out", out, "--estimate", earlier)
    assert r.returncode == 1, "the c.three call exits 3: a failure, reported at the end"
    assert "about 2 min 55 s by earlier.json" in r.stderr
    assert any(l.startswith("[1/3] a.one") and l.endswith("about 1 min 15 s left") for l in r.stderr.splitlines()), r.stderr
    assert "failed: c.three (exit 3)" in r.stderr
    assert len(json.loads(out.read_text())["benchmarks"]) == 4, "the failed call's results are still merged"


def test_nothing_matches(tmp_path):
    r = run(fake_bench(tmp_path), "--out", tmp_path / "run.json", "--filter", "nothing")
    assert r.returncode == 1 and "no benchmark matches" in r.stderr
