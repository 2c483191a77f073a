"""scripts/run_experiments.py (what scripts/reproduce.sh runs) over a stand-in for parcomp-bench:
one call per experiment, a progress line after each with the time spent and an estimate of what is
left (from an earlier run's experiment_seconds where it has them), a part of an experiment picked
by exact names, the calls merged into one file that records each experiment's seconds."""
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "run_experiments.py"

FAKE = r'''#!/usr/bin/env python3
import json, os, re, sys
names = ["a.one/x/n=1/real_time", "a.one/y.z/n=2/real_time", "b.two/x/n=1/manual_time", "c.three/z/n=1/real_time"]
if os.environ.get("FAKE_DATASETS"):  # an experiment over datasets: d.four/<variant>/<dataset>/n=...
    names += [f"d.four/{v}/{d}/n=9/real_time" for d in ("lin", "sil") for v in ("p", "q")]
if os.environ.get("FAKE_PROGRAMS"):  # whole programs
    names += ["tool.e2e/p.compress/x/n=1/manual_time", "tool.e2e/q.compress/x/n=1/manual_time"]
args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
flt = args.get("--benchmark_filter", ".")
chosen = [n for n in names if re.search(flt, n)]
if args.get("--benchmark_list_tests") == "true":
    print("\n".join(chosen))
    sys.exit(0)
with open(sys.argv[0] + ".calls", "a") as f:
    f.write(flt + "\n")
with open(sys.argv[0] + ".args", "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\n")
import os, time
if os.environ.get("FAKE_CHILD"):  # a program the bench starts (tool.load's jobs), on the same stdout
    import subprocess
    child = subprocess.Popen(["sleep", "60"])
    open(os.environ["FAKE_CHILD"], "w").write(str(child.pid))
if os.environ.get("FAKE_SLOW") and re.search(os.environ["FAKE_SLOW"], flt):
    open(args["--benchmark_out"], "w").write('{"context": {}, "benchmarks": [')  # as the library writes as it goes
    time.sleep(30)
ctx = {"parcomp_git_sha": "abc", "parcomp_gpu": "fake GPU", "parcomp_build_type": "Release",
       "parcomp": {"build": {"git_dirty": False}, "device": {"uuid": "u"}}, "date": "now"}
missing = os.environ.get("FAKE_MISSING")  # a dataset that is not there: its rows skipped, as parcomp-bench does
def row(n):
    if missing and n.split("/")[2] == missing:
        return {"name": n, "run_name": n, "error_occurred": True,
                "error_message": f"skipped: dataset '{missing}' is not at /data/{missing}; get it with: fetch.py"}
    return {"name": n, "run_name": n, "real_time": 1.0}
json.dump({"context": ctx, "benchmarks": [row(n) for n in chosen]}, open(args["--benchmark_out"], "w"))
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


def test_parts_over_several_calls_with_a_deadline(tmp_path):
    """A run longer than one job's time limit: each experiment's file kept, those done skipped, none
    started that the estimate says would pass the deadline, one running at the deadline stopped
    (its file removed, run again later); RUN.json once every experiment has its part, a failure in
    an earlier call still reported."""
    bench = fake_bench(tmp_path)
    parts, out = tmp_path / "parts", tmp_path / "run.json"
    earlier = tmp_path / "earlier.json"
    earlier.write_text(json.dumps({"context": {"experiment_seconds": {"a.one": 1, "b.two": 1000}}, "benchmarks": []}))
    r = run(bench, "--out", out, "--parts", parts, "--deadline", 100, "--estimate", earlier)
    assert r.returncode == 3, r.stderr
    assert "b.two: left for a later call" in r.stderr
    assert "1 of 3 experiments left for a later call" in r.stderr and "b.two" in r.stderr.splitlines()[-2]
    assert "failed: c.three (exit 3)" in r.stderr
    assert not out.exists()
    assert sorted(p.name for p in parts.iterdir()) == ["a.one.json", "a.one.seconds", "c.three.failed", "c.three.json", "c.three.seconds"]
    # The next call: b.two runs past the deadline and is stopped, its file removed.
    r = subprocess.run([sys.executable, str(SCRIPT), str(bench), "--out", str(out), "--parts", str(parts), "--deadline", "2"],
                       capture_output=True, text=True, env={**os.environ, "FAKE_SLOW": "two"})
    assert r.returncode == 3, r.stderr
    assert "b.two: stopped at the deadline" in r.stderr
    assert not (parts / "b.two.json").exists()
    # The last call runs only b.two, then merges every part; c.three's failure is still reported.
    calls = (tmp_path / "fake-bench.calls").read_text().split()
    r = run(bench, "--out", out, "--parts", parts, "--deadline", 100)
    assert r.returncode == 1, r.stderr
    assert (tmp_path / "fake-bench.calls").read_text().split()[len(calls):] == ["^b\\.two/"]
    assert "a.one: done in an earlier call" in r.stderr
    assert "c.three (exit 3, in an earlier call)" in r.stderr
    doc = json.loads(out.read_text())
    assert len(doc["benchmarks"]) == 4
    assert set(doc["context"]["experiment_seconds"]) == {"a.one", "b.two", "c.three"}
    assert doc["context"]["run_seconds"] == round(sum(doc["context"]["experiment_seconds"].values()), 3) or \
        abs(doc["context"]["run_seconds"] - sum(doc["context"]["experiment_seconds"].values())) < 0.01


def test_a_part_stopped_at_the_deadline_takes_what_it_started_with_it(tmp_path):
    """A program the bench started (a job, the process holding the GPU's memory) would outlive a
    bench killed at the deadline, keep the runner's output pipe open and hold the GPU: the part's
    whole process group goes."""
    bench, pidfile = fake_bench(tmp_path), tmp_path / "child.pid"
    r = subprocess.run([sys.executable, str(SCRIPT), str(bench), "--out", str(tmp_path / "o.json"), "--parts", str(tmp_path / "parts"),
                        "--deadline", "2", "--filter", "b\\.two"], capture_output=True, text=True, timeout=30,
                       env={**os.environ, "FAKE_SLOW": "two", "FAKE_CHILD": str(pidfile)})
    assert "b.two: stopped at the deadline" in r.stderr
    assert_gone(int(pidfile.read_text()))
    # A part that ends by itself: what it left behind goes too.
    r = subprocess.run([sys.executable, str(SCRIPT), str(bench), "--out", str(tmp_path / "o.json"), "--parts", str(tmp_path / "parts"),
                        "--filter", "a\\.one"], capture_output=True, text=True, timeout=30, env={**os.environ, "FAKE_CHILD": str(pidfile)})
    assert r.returncode == 0 and "a.one: 2 benchmarks" in r.stderr, r.stderr
    assert_gone(int(pidfile.read_text()))


def assert_gone(pid: int) -> None:
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    raise AssertionError(f"the bench's child {pid} outlived the part")


def test_deadline_needs_parts(tmp_path):
    r = run(fake_bench(tmp_path), "--out", tmp_path / "o.json", "--deadline", 10)
    assert r.returncode == 2 and "--deadline needs --parts" in r.stderr


def test_split_by_dataset_and_rows_missing_their_data(tmp_path):
    """--split: one call per dataset of the experiments it matches; rows skipped for a dataset that
    is not there come out of the part and run alone in a later call; RUN.json has them measured,
    and the seconds per unit and per experiment."""
    bench = fake_bench(tmp_path)
    parts, out = tmp_path / "parts", tmp_path / "run.json"
    env = {**os.environ, "FAKE_DATASETS": "1", "FAKE_MISSING": "sil"}
    args = [sys.executable, str(SCRIPT), str(bench), "--out", str(out), "--parts", str(parts), "--filter", "a\\.one|d\\.four",
            "--split", "^d\\."]
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    assert r.returncode == 3, r.stderr
    assert "2 experiments in 3 calls" in r.stderr
    assert "d.four@sil: 2 benchmarks" in r.stderr and "2 to run again in a later call (dataset sil)" in r.stderr
    assert (parts / "d.four@sil.todo").read_text().split() == ["d.four/p/sil/n=9/real_time", "d.four/q/sil/n=9/real_time"]
    assert not (parts / "d.four@sil.json").exists(), "a part of skipped rows only is no part"
    calls = (tmp_path / "fake-bench.calls").read_text().split()
    assert calls == ["^a\\.one/", "^d\\.four/[^/]+/lin/", "^d\\.four/[^/]+/sil/"]
    # The dataset is there now: only its rows run (all of the unit's: by its prefix), and the run is complete.
    r = subprocess.run(args, capture_output=True, text=True, env={**env, "FAKE_MISSING": ""})
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "fake-bench.calls").read_text().split()[3:] == ["^d\\.four/[^/]+/sil/"]
    doc = json.loads(out.read_text())
    assert sorted(b["name"] for b in doc["benchmarks"] if b["name"].startswith("d.four")) == \
        sorted(f"d.four/{v}/{d}/n=9/real_time" for d in ("lin", "sil") for v in ("p", "q"))
    assert not any(b.get("error_occurred") for b in doc["benchmarks"])
    assert set(doc["context"]["unit_seconds"]) == {"a.one", "d.four@lin", "d.four@sil"}
    assert set(doc["context"]["experiment_seconds"]) == {"a.one", "d.four"}


def test_a_part_of_a_unit_runs_again_by_its_names(tmp_path):
    bench = fake_bench(tmp_path)
    parts, out = tmp_path / "parts", tmp_path / "run.json"
    parts.mkdir()
    (parts / "d.four@sil.seconds").write_text("5\n")
    (parts / "d.four@sil.json").write_text(json.dumps({"context": {
        "parcomp_git_sha": "abc", "parcomp_gpu": "fake GPU", "parcomp_build_type": "Release",
        "parcomp": {"build": {"git_dirty": False}, "device": {"uuid": "u"}}, "date": "now"}, "benchmarks": [
        {"name": "d.four/p/sil/n=9/real_time", "run_name": "d.four/p/sil/n=9/real_time", "real_time": 1.0}]}))
    (parts / "d.four@sil.todo").write_text("d.four/q/sil/n=9/real_time\n")
    r = subprocess.run([sys.executable, str(SCRIPT), str(bench), "--out", str(out), "--parts", str(parts), "--filter", "d\\.four/[^/]+/sil",
                        "--split", "^d\\."], capture_output=True, text=True, env={**os.environ, "FAKE_DATASETS": "1"})
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "fake-bench.calls").read_text().split() == ["^(d\\.four/q/sil/n=9/real_time)$"]
    assert (parts / "d.four@sil.2.json").exists() and not (parts / "d.four@sil.todo").exists()
    assert float((parts / "d.four@sil.seconds").read_text()) >= 5, "the seconds add up over the calls"


def test_a_dataset_accepted_as_missing_stays_skipped(tmp_path):
    bench = fake_bench(tmp_path)
    out = tmp_path / "run.json"
    r = subprocess.run([sys.executable, str(SCRIPT), str(bench), "--out", str(out), "--filter", "d\\.four",
                        "--accept-missing", "sil"], capture_output=True, text=True,
                       env={**os.environ, "FAKE_DATASETS": "1", "FAKE_MISSING": "sil"})
    assert r.returncode == 0, r.stderr
    skipped = [b["name"] for b in json.loads(out.read_text())["benchmarks"] if b.get("error_occurred")]
    assert skipped == ["d.four/p/sil/n=9/real_time", "d.four/q/sil/n=9/real_time"]


def test_merge_only_runs_nothing(tmp_path):
    """--merge-only: the parts so far listed and nothing run (exit 3), then merged once complete."""
    bench = fake_bench(tmp_path)
    parts, out = tmp_path / "parts", tmp_path / "run.json"
    base = [sys.executable, str(SCRIPT), str(bench), "--out", str(out), "--parts", str(parts), "--filter", "a\\.one|b\\.two"]
    r = subprocess.run(base + ["--deadline", "100", "--", "--benchmark_repetitions=1"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    (parts / "b.two.json").unlink()
    (parts / "b.two.seconds").unlink()
    out.unlink()
    calls = (tmp_path / "fake-bench.calls").read_text().split()
    r = subprocess.run(base + ["--merge-only"], capture_output=True, text=True)
    assert r.returncode == 3, r.stderr
    assert "b.two: 1 of 1 benchmarks left" in r.stderr and "a.one: done in an earlier call" in r.stderr
    assert (tmp_path / "fake-bench.calls").read_text().split() == calls, "nothing ran"
    assert not out.exists()
    subprocess.run(base + ["--deadline", "100"], capture_output=True, text=True, check=True)
    out.unlink()
    r = subprocess.run(base + ["--merge-only"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert len(json.loads(out.read_text())["benchmarks"]) == 3


def test_a_part_is_done_only_when_it_holds_every_row(tmp_path):
    """A bench that lists other rows than the earlier call's (a peer program missing on one host:
    tool.e2e lists gzip where pigz is missing) neither loses the rows it does not list (the part
    stays open, said so) nor takes its own new rows as done (they run)."""
    bench = fake_bench(tmp_path)
    parts, out = tmp_path / "parts", tmp_path / "run.json"
    base = [sys.executable, str(SCRIPT), str(bench), "--out", str(out), "--parts", str(parts), "--filter", "a\\.one"]
    r = subprocess.run(base, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out.unlink()
    # An earlier call on another host listed a row this bench does not: it waits in the todo.
    (parts / "a.one.todo").write_text("a.one/pigz/n=1/real_time\n")
    r = subprocess.run(base + ["--merge-only"], capture_output=True, text=True)
    assert r.returncode == 3, r.stderr
    assert "1 row that an earlier call left to do is not listed by this parcomp-bench" in r.stderr
    assert "a.one/pigz/n=1/real_time" in r.stderr and not out.exists()
    calls = (tmp_path / "fake-bench.calls").read_text().split()
    r = subprocess.run(base, capture_output=True, text=True)
    assert r.returncode == 3, r.stderr
    assert (tmp_path / "fake-bench.calls").read_text().split() == calls, "nothing this bench can run"
    assert (parts / "a.one.todo").read_text().split() == ["a.one/pigz/n=1/real_time"]
    # A row this bench lists that no file of the part holds is run, and the unlisted one stays to do.
    doc = json.loads((parts / "a.one.json").read_text())
    doc["benchmarks"] = [b for b in doc["benchmarks"] if b["name"] != "a.one/y.z/n=2/real_time"]
    (parts / "a.one.json").write_text(json.dumps(doc))
    r = subprocess.run(base, capture_output=True, text=True)
    assert r.returncode == 3, r.stderr
    assert (tmp_path / "fake-bench.calls").read_text().split()[len(calls):] == ["^(a\\.one/y\\.z/n=2/real_time)$"]
    assert (parts / "a.one.todo").read_text().split() == ["a.one/pigz/n=1/real_time"]
    # Once nothing is left to do, the run is complete.
    (parts / "a.one.todo").unlink()
    r = subprocess.run(base, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(b["name"] for b in json.loads(out.read_text())["benchmarks"]) == ["a.one/x/n=1/real_time", "a.one/y.z/n=2/real_time"]


def test_one_sitting_keeps_rows_skipped_for_a_missing_dataset(tmp_path):
    """Without --parts a run is one sitting: rows skipped for a dataset that is not there are
    results (skipped, with why and the command that brings it), the file is written, exit 0."""
    bench = fake_bench(tmp_path)
    out = tmp_path / "run.json"
    r = subprocess.run([sys.executable, str(SCRIPT), str(bench), "--out", str(out), "--filter", "a\\.one|d\\.four"],
                       capture_output=True, text=True, env={**os.environ, "FAKE_DATASETS": "1", "FAKE_MISSING": "sil"})
    assert r.returncode == 0, r.stderr
    assert "later call" not in r.stderr
    assert "d.four: 4 benchmarks in" in r.stderr and "2 skipped (dataset sil)" in r.stderr
    assert re.search(r"2 of 6 rows skipped for what this machine lacks", r.stderr), r.stderr
    assert re.search(r"2 for dataset sil: scripts/reproduce\.sh --fetch", r.stderr), r.stderr
    doc = json.loads(out.read_text())
    skipped = {b["name"]: b["error_message"] for b in doc["benchmarks"] if b.get("error_occurred")}
    assert sorted(skipped) == ["d.four/p/sil/n=9/real_time", "d.four/q/sil/n=9/real_time"]
    assert all(m.startswith("skipped: dataset 'sil' is not at") for m in skipped.values())
    assert len(doc["benchmarks"]) == 6, "no row dropped"
    assert doc["context"]["parcomp_skipped"] == {"dataset sil": {"rows": 2, "how": "scripts/reproduce.sh --fetch (or: python3 datasets/fetch.py all)"}}


def test_how_to_bring_what_a_row_lacked():
    sys.path.insert(0, str(SCRIPT.parent))
    import run_experiments as rx
    assert rx.how_to_bring("dataset calgary/book1").startswith("scripts/reproduce.sh --fetch")
    assert rx.how_to_bring("lbzip2 not found") == "apt-get install lbzip2"
    assert rx.how_to_bring("built without nvCOMP") == "scripts/reproduce.sh --with-nvcomp"


def test_whole_programs_take_turns_and_kernels_do_not(tmp_path):
    """tool.e2e (whole programs) runs with Google Benchmark's random interleaving, so that the
    programs' repetitions take turns; a kernel experiment does not; a caller's own setting wins."""
    bench = fake_bench(tmp_path)
    env = dict(os.environ, FAKE_PROGRAMS="1")
    r = subprocess.run([sys.executable, str(SCRIPT), str(bench), "--out", str(tmp_path / "run.json"), "--filter", "a\\.one|tool\\.e2e"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    calls = [json.loads(l) for l in (tmp_path / "fake-bench.args").read_text().splitlines()]
    flag = "--benchmark_enable_random_interleaving=true"
    by_filter = {next(x for x in c if x.startswith("--benchmark_filter=")): c for c in calls}
    assert flag in by_filter["--benchmark_filter=^tool\\.e2e/"]
    assert flag not in by_filter["--benchmark_filter=^a\\.one/"]
    (tmp_path / "fake-bench.args").unlink()
    r = subprocess.run([sys.executable, str(SCRIPT), str(bench), "--out", str(tmp_path / "run2.json"), "--filter", "tool\\.e2e", "--",
                        "--benchmark_enable_random_interleaving=false"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    (call,) = [json.loads(l) for l in (tmp_path / "fake-bench.args").read_text().splitlines()]
    assert flag not in call and "--benchmark_enable_random_interleaving=false" in call

